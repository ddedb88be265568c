import { defineErrors } from '../../platform/errors.js'
import { STANDARD_ERRORS, STANDARD_ROLES } from '../../platform/standard-errors.js'

/**
 * The device gateway's coded errors. Its document shows no error format, so it uses
 * Tessera's standard codes and body, plus CONFLICT for an alert action its state forbids.
 */
export const devicesErrors = defineErrors(
  { ...STANDARD_ERRORS, CONFLICT: { status: 409, message: 'The resource is not in a state that allows this' } },
  STANDARD_ROLES,
)
