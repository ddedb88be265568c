/**
 * The connector types this installation offers, and lookup by a pipeline's `type`.
 *
 * @module
 */
import type { ConnectorDefinition } from './connector.js'
import { csvConnector, ndjsonConnector } from './file-connector.js'
import { postgresConnector } from './postgres-connector.js'
import { redisStreamConnector } from './redis-stream-connector.js'
import { warehouseConnector } from './warehouse-connector.js'

/** Every connector type, in the order `GET /connectors` lists them. */
export const CONNECTORS: readonly ConnectorDefinition[] = [postgresConnector, warehouseConnector, csvConnector, ndjsonConnector, redisStreamConnector]

/** The connector whose id or alias is `type`, ignoring case; undefined when there is none. */
export function findConnector(type: string): ConnectorDefinition | undefined {
  const wanted = type.toLowerCase()
  return CONNECTORS.find((c) => c.id.toLowerCase() === wanted || (c.aliases ?? []).some((alias) => alias.toLowerCase() === wanted))
}
