import type { ErrorRegistry } from '../errors.js'
import { hasScope } from './scopes.js'

/**
 * The check at the top of every domain operation: a caller, holding `<service>:<action>`.
 * No caller is the service's 401; a caller without the scope its 403, naming the scope.
 */
export function createAuthorizer(errors: ErrorRegistry, service: string) {
  return <Caller extends { scopes: readonly string[] }>(actor: Caller | null, action: 'read' | 'write'): Caller => {
    if (!actor) throw errors.forRole('unauthorized')
    const scope = `${service}:${action}`
    if (!hasScope(actor, scope)) throw errors.forRole('forbidden', `This operation needs the scope ${scope}`, { requiredScope: scope })
    return actor
  }
}
