import { defineErrors } from '../../platform/errors.js'
import { STANDARD_ERRORS, STANDARD_ROLES } from '../../platform/standard-errors.js'

/**
 * The visualization interface's coded errors. Its document shows no error format, so it uses
 * Tessera's standard codes and body, plus the two ways a download link can fail.
 */
export const visualizationErrors = defineErrors(
  {
    ...STANDARD_ERRORS,
    LINK_INVALID: { status: 403, message: 'The link is not valid: its signature does not match' },
    LINK_EXPIRED: { status: 410, message: 'The link has expired' },
  },
  STANDARD_ROLES,
)
