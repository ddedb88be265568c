import { defineErrors } from '../../platform/errors.js'
import { STANDARD_ERRORS, STANDARD_ROLES } from '../../platform/standard-errors.js'

/** The content service's coded errors: Tessera's standard codes and body. */
export const contentErrors = defineErrors(STANDARD_ERRORS, STANDARD_ROLES)
