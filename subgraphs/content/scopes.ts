/**
 * The scopes the content interface checks: reading the stored library, writing to it, and
 * running the generators and validators (which also store what they produce).
 */
export const CONTENT_SCOPES = ['content:read', 'content:write', 'content:generate'] as const

/** One of the content interface's scopes. */
export type ContentScope = (typeof CONTENT_SCOPES)[number]
