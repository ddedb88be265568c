/**
 * The scopes the content interface checks: reading the stored library (and its analytics),
 * writing to it, running the generators and validators (which also store what they produce),
 * recording learner events, and managing webhook subscriptions.
 */
export const CONTENT_SCOPES = ['content:read', 'content:write', 'content:generate', 'content:events', 'content:webhooks'] as const

/** One of the content interface's scopes. */
export type ContentScope = (typeof CONTENT_SCOPES)[number]
