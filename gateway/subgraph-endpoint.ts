import type { Subgraph } from '../platform/graphql/subgraph.js'

/**
 * Where the gateway reaches a subgraph: in this process (embedded mode, no loopback HTTP),
 * or at a URL (split mode: HTTP with keep-alive for operations, graphql-ws for subscriptions).
 */
export type SubgraphEndpoint = { kind: 'local'; subgraph: Subgraph } | { kind: 'remote'; url: string; wsUrl: string }
