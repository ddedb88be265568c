import { defineErrors } from '../../platform/errors.js'

/**
 * The esports interface's coded errors: the six of its document (Document 2, A, section 7),
 * plus the two the platform needs for oversize bodies and foreign content types. Bad input is
 * VALIDATION_ERROR 422 with every field named.
 */
export const esportsErrors = defineErrors(
  {
    UNAUTHORIZED: { status: 401, message: 'Invalid or expired token' },
    FORBIDDEN: { status: 403, message: 'Insufficient permissions' },
    NOT_FOUND: { status: 404, message: 'Resource does not exist' },
    VALIDATION_ERROR: { status: 422, message: 'Request data validation failed' },
    PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is too large' },
    UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
    RATE_LIMIT_EXCEEDED: { status: 429, message: 'Too many requests; retry after the stated time' },
    INTERNAL_ERROR: { status: 500, message: 'Server error' },
  },
  {
    invalidRequest: 'VALIDATION_ERROR',
    unauthorized: 'UNAUTHORIZED',
    forbidden: 'FORBIDDEN',
    notFound: 'NOT_FOUND',
    payloadTooLarge: 'PAYLOAD_TOO_LARGE',
    unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
    rateLimited: 'RATE_LIMIT_EXCEEDED',
    internal: 'INTERNAL_ERROR',
  },
)
