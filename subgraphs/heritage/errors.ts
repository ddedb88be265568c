import { defineErrors } from '../../platform/errors.js'
import { STANDARD_ERRORS, STANDARD_ROLES } from '../../platform/standard-errors.js'

/**
 * The heritage interface's coded errors. Its document shows no error format, so it uses
 * Tessera's standard codes and body, plus CONFLICT for a standard id already used and
 * INVALID_MODEL for a model the glTF validator finds errors in.
 */
export const heritageErrors = defineErrors(
  {
    ...STANDARD_ERRORS,
    CONFLICT: { status: 409, message: 'The resource conflicts with an existing one' },
    INVALID_MODEL: { status: 422, message: 'The model is not valid glTF 2.0' },
  },
  STANDARD_ROLES,
)
