import { buildSubgraphSchema } from '@apollo/subgraph'
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js'
import { GraphQLError, execute, parse, subscribe, validate, visit, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql'
import type { HeaderBag } from '../auth/read-credential.js'
import { isTesseraError, type ErrorRegistry } from '../errors.js'
import { inspectInput } from '../validation/inspect-input.js'
import { mapAsyncIterator } from '../events/map-async-iterator.js'

/** One GraphQL request as it reaches a subgraph. */
export interface SubgraphRequest {
  query: string
  variables?: Record<string, unknown> | null
  operationName?: string | null
}

/** Logs a fault that was masked from the caller. */
export type FaultLogger = (error: unknown, requestId: string | undefined) => void

/** What a service hands the platform to become a subgraph. */
export interface SubgraphDefinition<Context extends { requestId?: string }> {
  /** The service name, which is also the subgraph name in the supergraph. */
  name: string
  typeDefs: DocumentNode
  resolvers: GraphQLResolverMap<Context>
  /** Builds the per-request context (verifies the forwarded credentials, creates loaders). */
  createContext(headers: HeaderBag): Promise<Context>
  /** The service's coded errors, for input the platform rejects before resolvers run. */
  errors: ErrorRegistry
  logFault?: FaultLogger
}

/** A built subgraph, runnable in-process or behind a server. */
export interface Subgraph<Context extends { requestId?: string } = { requestId?: string }> {
  name: string
  schema: GraphQLSchema
  createContext(headers: HeaderBag): Promise<Context>
  /** Runs a query or mutation. */
  execute(request: SubgraphRequest, headers: HeaderBag): Promise<ExecutionResult>
  /** Runs a subscription: a stream of results, or one result when it fails up front. */
  subscribe(request: SubgraphRequest, headers: HeaderBag): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>
  /** Refuses input the database could not store (a NUL character in a variable or literal). */
  checkInput(document: DocumentNode, variables?: Record<string, unknown> | null): GraphQLError | undefined
  /** Masks an unexpected error (logging it); coded and GraphQL errors pass as they are. */
  maskError(error: GraphQLError, requestId?: string): GraphQLError
}

/**
 * Builds a Federation 2 subgraph schema from SDL and resolvers and gives it an in-process
 * executor: the embedded gateway calls subgraphs through this (no loopback HTTP), and the
 * split-mode server (mercurius) serves the same schema and context over HTTP and WebSocket.
 */
export function createSubgraph<Context extends { requestId?: string }>(definition: SubgraphDefinition<Context>): Subgraph<Context> {
  const schema = buildSubgraphSchema({ typeDefs: definition.typeDefs, resolvers: definition.resolvers as GraphQLResolverMap<unknown> })
  const documents = new Map<string, DocumentNode | readonly GraphQLError[]>()

  // The gateway sends a small set of query plans again and again; parse and validate once.
  // PostgreSQL text cannot hold U+0000: refused here, in the service's own error code, for
  // every subgraph, instead of failing at the database.
  const inputError = (field: string, message = 'must not contain the NUL character (U+0000)') => {
    const error = definition.errors.invalid([{ field, message }])
    return new GraphQLError(error.message, { originalError: error, extensions: error.extensions })
  }
  const checkInput = (document: DocumentNode, variables?: Record<string, unknown> | null): GraphQLError | undefined => {
    const variable = inspectInput(variables ?? {})
    if (variable) return inputError(`$${variable.field}`, variable.message)
    let literal = false
    visit(document, {
      StringValue(node) {
        if (node.value.includes('\u0000')) literal = true
      },
    })
    return literal ? inputError('query') : undefined
  }
  const prepare = (query: string, variables?: Record<string, unknown> | null): DocumentNode | readonly GraphQLError[] => {
    const prepared = parseAndValidate(query)
    if (!('kind' in prepared)) return prepared
    const refused = checkInput(prepared, variables)
    return refused ? [refused] : prepared
  }
  const parseAndValidate = (query: string): DocumentNode | readonly GraphQLError[] => {
    const cached = documents.get(query)
    if (cached) return cached
    let prepared: DocumentNode | readonly GraphQLError[]
    try {
      const document = parse(query)
      const errors = validate(schema, document)
      prepared = errors.length ? errors : document
    } catch (error) {
      prepared = [error instanceof GraphQLError ? error : new GraphQLError(String(error))]
    }
    if (documents.size >= 1000) documents.delete(documents.keys().next().value as string)
    documents.set(query, prepared)
    return prepared
  }

  const maskError = (error: GraphQLError, requestId?: string): GraphQLError => {
    const original = error.originalError
    if (!original || isTesseraError(original) || original instanceof GraphQLError) return error
    definition.logFault?.(original, requestId)
    return new GraphQLError(`Internal error; quote request id ${requestId ?? 'unknown'} to support`, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } },
    })
  }

  const finish = (result: ExecutionResult, requestId?: string): ExecutionResult =>
    result.errors ? { ...result, errors: result.errors.map((e) => maskError(e, requestId)) } : result

  return {
    name: definition.name,
    schema,
    createContext: definition.createContext,
    maskError,
    checkInput,
    async execute(request, headers) {
      const document = prepare(request.query, request.variables)
      if (!('kind' in document)) return { errors: document.map((e) => e) }
      const contextValue = await definition.createContext(headers)
      const result = await execute({
        schema,
        document,
        variableValues: request.variables ?? undefined,
        operationName: request.operationName ?? undefined,
        contextValue,
      })
      return finish(result, contextValue.requestId)
    },
    async subscribe(request, headers) {
      const document = prepare(request.query, request.variables)
      if (!('kind' in document)) return { errors: document.map((e) => e) }
      const contextValue = await definition.createContext(headers)
      const result = await subscribe({
        schema,
        document,
        variableValues: request.variables ?? undefined,
        operationName: request.operationName ?? undefined,
        contextValue,
      })
      if (!(Symbol.asyncIterator in result)) return finish(result, contextValue.requestId)
      return mapAsyncIterator(result, (r) => finish(r, contextValue.requestId))
    },
  }
}
