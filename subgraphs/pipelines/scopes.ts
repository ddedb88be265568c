/** The scopes the pipelines service checks. */
export const PIPELINES_SCOPES = ['pipelines:read', 'pipelines:write'] as const
