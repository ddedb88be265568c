import { defineErrors } from '../../platform/errors.js'

/**
 * The pipeline interface's coded errors: the document's codes (AUTH_001, PIPE_001, PIPE_002,
 * CONN_001, CONN_002, RATE_001) plus the ones it leaves to us, in the same style.
 */
export const pipelinesErrors = defineErrors(
  {
    AUTH_001: { status: 401, message: 'Invalid or missing API key' },
    AUTH_002: { status: 403, message: 'The API key lacks the scope this operation needs' },
    PIPE_001: { status: 404, message: 'Pipeline not found' },
    PIPE_002: { status: 400, message: 'Invalid pipeline configuration' },
    PIPE_003: { status: 409, message: 'The pipeline is running' },
    RUN_001: { status: 404, message: 'Run not found' },
    CONN_001: { status: 500, message: 'Connection to source failed' },
    CONN_002: { status: 500, message: 'Connection to destination failed' },
    RATE_001: { status: 429, message: 'Rate limit exceeded' },
    REQ_404: { status: 404, message: 'No such endpoint' },
    REQ_413: { status: 413, message: 'Request body is too large' },
    REQ_415: { status: 415, message: 'Send the body as application/json' },
    SERVER_ERROR: { status: 500, message: 'Internal server error' },
  },
  {
    invalidRequest: 'PIPE_002',
    unauthorized: 'AUTH_001',
    forbidden: 'AUTH_002',
    notFound: 'REQ_404',
    payloadTooLarge: 'REQ_413',
    unsupportedMediaType: 'REQ_415',
    rateLimited: 'RATE_001',
    internal: 'SERVER_ERROR',
  },
)
