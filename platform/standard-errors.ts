import type { ErrorDefinition, PlatformErrorRole, TesseraError } from './errors.js'

/**
 * Tessera's default error codes, those of the content interface (Document 2, B), for
 * interfaces whose document shows no error format of their own.
 */
export const STANDARD_ERRORS = {
  INVALID_REQUEST: { status: 400, message: 'Invalid request parameters' },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid authentication' },
  FORBIDDEN: { status: 403, message: 'Insufficient permissions' },
  NOT_FOUND: { status: 404, message: 'Resource not found' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Too many requests' },
  SERVER_ERROR: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable' },
} as const satisfies Record<string, ErrorDefinition>

/** Which standard code plays each platform role. */
export const STANDARD_ROLES = {
  invalidRequest: 'INVALID_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  rateLimited: 'RATE_LIMIT_EXCEEDED',
  internal: 'SERVER_ERROR',
} as const satisfies Record<PlatformErrorRole, keyof typeof STANDARD_ERRORS>

/** The default error body: `{ error: { code, message, details, timestamp, requestId } }`. */
export function standardErrorBody(error: TesseraError, requestId: string) {
  return {
    error: { code: error.code, message: error.message, details: error.details ?? {}, timestamp: new Date().toISOString(), requestId },
  }
}
