/** The scopes the visualization service checks. */
export const VISUALIZATION_SCOPES = ['visualization:read', 'visualization:write'] as const
