/** Who is calling, once a credential has been verified. */
export interface Principal {
  /** Stable id: `key:<uuid>` for an API key, `client:<client_id>` for an OAuth client. */
  id: string
  /** How the caller proved who it is. */
  method: 'api_key' | 'access_token'
  scopes: readonly string[]
  /** The data the caller acts on: interfaces with a sandbox keep its records apart. */
  environment: Environment
  /** Rate-limit tier of the credential (`free`, `pro`, `enterprise`), where an interface limits by tier. */
  tier?: string | null
  /** Per-credential limit (requests per hour) that overrides the tier's. */
  rateLimitPerHour?: number | null
}

/** Where a credential acts: the live data, or a sandbox whose data is kept apart. */
export type Environment = 'production' | 'sandbox'

/** The environments a credential may be created for. */
export const ENVIRONMENTS: readonly Environment[] = ['production', 'sandbox']

/**
 * Scope check. `*` grants everything and `<service>:*` every scope of one service,
 * so a development credential keeps working as services are added.
 */
export function hasScope(principal: Pick<Principal, 'scopes'>, scope: string): boolean {
  const service = scope.split(':')[0]
  return principal.scopes.some((s) => s === '*' || s === scope || s === `${service}:*`)
}

/** Scope strings: `*`, `service:*` or `service:action`, lower case. */
export const SCOPE_PATTERN = /^(\*|[a-z][a-z0-9_-]*:(\*|[a-z][a-z0-9_.-]*))$/
