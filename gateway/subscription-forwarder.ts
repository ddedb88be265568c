import { createClient, type Client } from 'graphql-ws'
import { useServer } from 'graphql-ws/use/ws'
import { randomUUID } from 'node:crypto'
import type { GraphQLDataSource } from '@apollo/gateway'
import { GraphQLError, specifiedRules, validate, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type ValidationRule } from 'graphql'
import WebSocket, { type WebSocketServer } from 'ws'
import type { HeaderBag } from '../platform/auth/read-credential.js'
import { mapAsyncIterator } from '../platform/events/map-async-iterator.js'
import { inspectInput } from '../platform/validation/inspect-input.js'
import { inputTooDeep, parseWithinLimits, type DocumentLimits } from './query-limits.js'
import type { SubgraphEndpoint } from './subgraph-endpoint.js'
import type { PlannedSubscription, SubscriptionPlanner } from './subscription-planner.js'

/** Options of the gateway's graphql-ws endpoint. */
export interface SubscriptionServerOptions {
  wss: WebSocketServer
  /** The supergraph's API schema, once loaded. */
  schema: () => GraphQLSchema | undefined
  /** Splits each subscription between its owning subgraph and the others (query planner). */
  planner: SubscriptionPlanner
  endpoints: Record<string, SubgraphEndpoint>
  /** The gateway's data sources, for the fields other subgraphs add to each event. */
  dataSources: Record<string, GraphQLDataSource>
  validationRules: readonly ValidationRule[]
  /** Bounds on each document's tokens, aliases and directives, checked as it is parsed. */
  documentLimits: DocumentLimits
  /** Runs queries and mutations sent over the socket through the gateway's normal pipeline. */
  executeOperation(request: { query: string; variables?: Record<string, unknown>; operationName?: string }, headers: HeaderBag): Promise<ExecutionResult>
  onActiveChange?(delta: 1 | -1): void
}

interface ConnectionState {
  headers: HeaderBag
  clients: Map<string, Client>
}

const FORWARDED = ['authorization', 'x-api-key']

/**
 * graphql-ws on the gateway's /graphql. Apollo's gateway plans no subscriptions, so each one
 * is validated against the supergraph and forwarded to the subgraph that owns its root field:
 * in-process in embedded mode, over graphql-ws in split mode, with the caller's credentials
 * (from connection_init or the upgrade request) forwarded so the service authorizes it.
 */
export function createSubscriptionServer(options: SubscriptionServerOptions) {
  const states = new WeakMap<object, ConnectionState>()
  const stateOf = (extra: object): ConnectionState => {
    let state = states.get(extra)
    if (!state) {
      state = { headers: {}, clients: new Map() }
      states.set(extra, state)
    }
    return state
  }

  return useServer<Record<string, unknown> | undefined, { request: { headers: HeaderBag } }>(
    {
      onConnect(ctx) {
        stateOf(ctx.extra).headers = credentialsFrom(ctx.connectionParams ?? {}, ctx.extra.request.headers)
        return true
      },
      onSubscribe(ctx, _id, payload) {
        const schema = options.schema()
        if (!schema) return [new GraphQLError('The graph is not loaded yet', { extensions: { code: 'SERVICE_UNAVAILABLE' } })]
        const parsed = parseWithinLimits(payload.query, options.documentLimits)
        if ('error' in parsed) return [parsed.error]
        const nesting = inspectInput(payload.variables, 'variables', { nul: false })
        if (nesting) return [inputTooDeep(nesting)]
        const document = parsed.document
        const errors = validate(schema, document, [...specifiedRules, ...options.validationRules])
        if (errors.length) return errors
        return {
          schema,
          document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
          // GraphiQL (and other clients) send the headers of its editor with each operation,
          // in `extensions.headers`; those win over the connection's for that operation.
          contextValue: { extra: ctx.extra, payload, headers: credentialsFrom(payload.extensions ?? {}, stateOf(ctx.extra).headers) },
        }
      },
      async execute(args: ExecutionArgs) {
        const { payload, headers } = args.contextValue as {
          payload: { query: string; variables?: Record<string, unknown>; operationName?: string }
          headers: HeaderBag
        }
        return options.executeOperation(payload, headers)
      },
      async subscribe(args: ExecutionArgs) {
        const { extra, headers } = args.contextValue as { extra: object; headers: HeaderBag }
        let planned: PlannedSubscription
        try {
          planned = options.planner.plan(args.document, args.operationName ?? undefined)
        } catch (error) {
          return { errors: [new GraphQLError(`Cannot plan this subscription: ${(error as Error).message}`, { extensions: { code: 'BAD_REQUEST' } })] }
        }
        const owner = planned.primary.serviceName
        const endpoint = options.endpoints[owner]
        if (!endpoint)
          return { errors: [new GraphQLError(`Subgraph ${owner} is not configured on this gateway`, { extensions: { code: 'SUBGRAPH_NOT_CONFIGURED' } })] }
        const state = stateOf(extra)
        const variables = (args.variableValues ?? {}) as Record<string, unknown>
        // The owner gets the planner's subscription: its own fields and the keys others need.
        const request = {
          query: planned.primary.operation,
          variables: Object.fromEntries((planned.primary.variableUsages ?? []).map((name) => [name, variables[name]])),
          operationName: planned.primary.operationName ?? null,
        }
        const stream =
          endpoint.kind === 'local'
            ? await endpoint.subgraph.subscribe(request, headers)
            : remoteSubscribe(clientFor(state, owner, endpoint.wsUrl, headers), request)
        if (!(Symbol.asyncIterator in stream)) return stream
        const context = { headers, requestId: randomUUID() }
        const completed = mapAsyncIterator(stream, (event) =>
          event.data ? options.planner.resolve(planned, event, variables, options.dataSources, context) : event,
        )
        options.onActiveChange?.(1)
        return counted(completed, () => options.onActiveChange?.(-1))
      },
      async onClose(ctx) {
        const state = states.get(ctx.extra)
        if (state) for (const client of state.clients.values()) await client.dispose()
      },
    },
    options.wss,
  )
}

// One downstream connection per client connection, subgraph and credential, so credentials never mix.
function clientFor(state: ConnectionState, owner: string, url: string, headers: HeaderBag): Client {
  const key = `${owner}\n${FORWARDED.map((name) => headers[name] ?? '').join('\n')}`
  let client = state.clients.get(key)
  if (!client) {
    client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { ...headers }, lazy: true, retryAttempts: 0 })
    state.clients.set(key, client)
  }
  return client
}

// The credential headers in a connection_init payload or an operation's extensions: at the
// top level (`authorization`) or under `headers`, any case; `fallback` fills the rest.
function credentialsFrom(record: Record<string, unknown>, fallback: HeaderBag): HeaderBag {
  const params = normalise(record)
  const nested = typeof params.headers === 'object' && params.headers ? normalise(params.headers as Record<string, unknown>) : {}
  const headers: HeaderBag = {}
  for (const name of FORWARDED) {
    const value = params[name] ?? nested[name] ?? fallback[name]
    if (typeof value === 'string') headers[name] = value
  }
  return headers
}

function remoteSubscribe(
  client: Client,
  request: { query: string; variables: Record<string, unknown> | null; operationName: string | null },
): AsyncIterableIterator<ExecutionResult> {
  const iterator = client.iterate({ query: request.query, variables: request.variables ?? undefined, operationName: request.operationName ?? undefined })
  const wrapped: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      try {
        return (await iterator.next()) as IteratorResult<ExecutionResult>
      } catch (error) {
        // A dropped subgraph connection ends the subscription with an error the client can see.
        const message = Array.isArray(error)
          ? String((error[0] as { message?: string })?.message)
          : error instanceof Error
            ? error.message
            : 'Subgraph connection closed'
        await iterator.return?.()
        return { value: { errors: [new GraphQLError(message, { extensions: { code: 'SUBGRAPH_UNAVAILABLE' } })] }, done: false }
      }
    },
    async return() {
      await iterator.return?.()
      return { value: undefined, done: true }
    },
    [Symbol.asyncIterator]() {
      return wrapped
    },
  }
  return wrapped
}

function counted<T>(source: AsyncIterableIterator<T>, onEnd: () => void): AsyncIterableIterator<T> {
  let ended = false
  const end = () => {
    if (!ended) {
      ended = true
      onEnd()
    }
  }
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      const r = await source.next()
      if (r.done) end()
      return r
    },
    async return() {
      end()
      await source.return?.()
      return { value: undefined, done: true }
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }
  return iterator
}

function normalise(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k.toLowerCase(), v]))
}
