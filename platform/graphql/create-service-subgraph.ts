import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'graphql'
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js'
import type { Principal } from '../auth/scopes.js'
import { principalFromHeaders } from '../auth/verify-headers.js'
import type { ErrorRegistry } from '../errors.js'
import type { ServiceRuntime } from '../service-kit/service-runtime.js'
import { createSubgraph, type Subgraph } from './subgraph.js'

const schemaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schema')

/** The context every service's resolvers get: the caller and the request id. */
export interface ServiceContext {
  actor: Principal | null
  requestId?: string
}

/** What a service provides to become a subgraph. */
export interface ServiceSubgraphOptions<Extra extends object> {
  /** The service name: its SDL is schema/<name>.graphql. */
  name: string
  resolvers: object
  errors: ErrorRegistry
  runtime: ServiceRuntime
  /** Per-request additions to the context (DataLoaders for the caller). */
  extend(actor: Principal | null): Extra
}

/**
 * A service's subgraph from its SDL file and resolvers, with the context every service
 * shares: the caller verified from the forwarded credentials, the request id, and whatever
 * per-request loaders the service adds.
 */
export function createServiceSubgraph<Extra extends object>(options: ServiceSubgraphOptions<Extra>): Subgraph<ServiceContext & Extra> {
  const { runtime } = options
  return createSubgraph<ServiceContext & Extra>({
    name: options.name,
    typeDefs: parse(readFileSync(path.join(schemaDir, `${options.name}.graphql`), 'utf8')),
    resolvers: options.resolvers as GraphQLResolverMap<ServiceContext & Extra>,
    async createContext(headers) {
      const actor = await principalFromHeaders(runtime.credentials, headers)
      const requestId = typeof headers['x-request-id'] === 'string' ? headers['x-request-id'] : undefined
      return { actor, requestId, ...options.extend(actor) }
    },
    errors: options.errors,
    logFault: (error, requestId) => runtime.logger.error({ err: error, reqId: requestId }, `unhandled error in ${options.name} subgraph`),
  })
}
