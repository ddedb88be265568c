/**
 * The scopes the esports interface checks. programs:* and teams:* are the document's; the
 * players, matches, career and webhooks scopes are Tessera's (rest-adapters/esports/README.md).
 */
export const ESPORTS_SCOPES = [
  'programs:read',
  'programs:write',
  'teams:read',
  'teams:write',
  'players:read',
  'players:write',
  'matches:read',
  'matches:write',
  'career:read',
  'career:write',
  'webhooks:read',
  'webhooks:write',
] as const

/** One scope of the esports interface. */
export type EsportsScope = (typeof ESPORTS_SCOPES)[number]
