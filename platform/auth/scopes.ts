/** Who is calling, once a credential has been verified. */
export interface Principal {
  /** Stable id: `key:<uuid>` for an API key, `client:<client_id>` for an OAuth client. */
  id: string
  /** How the caller proved who it is. */
  method: 'api_key' | 'access_token'
  scopes: readonly string[]
}

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
