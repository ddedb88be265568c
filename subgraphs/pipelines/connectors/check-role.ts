import type { ConnectorContext, ConnectorDefinition } from './connector.js'

/**
 * Which side of a pipeline a `check` is for. The contract's `check(settings, context)` cannot
 * tell, yet a connector that is both a source and a destination must answer differently: a
 * missing table is an error for a source and normal for a destination (the writer creates it).
 * Connectors here take it as an optional third argument; without it they check only what both
 * sides need (reaching and logging in to the system).
 */
export type CheckRole = 'source' | 'destination'

/**
 * A connector that reads and writes, with the role-aware `check`: what the connectors in this
 * folder export, so callers that know them need no non-null assertions.
 */
export type RoleAwareConnector<S extends Record<string, unknown>> = ConnectorDefinition<S> &
  Required<Pick<ConnectorDefinition<S>, 'read' | 'openWriter'>> & {
    check(settings: S, context: ConnectorContext, role?: CheckRole): Promise<void>
  }
