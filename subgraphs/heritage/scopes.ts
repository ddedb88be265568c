/** The scopes the heritage service checks. */
export const HERITAGE_SCOPES = ['heritage:read', 'heritage:write'] as const
