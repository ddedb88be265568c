import { createClient, type Client } from 'graphql-ws'
import { useServer } from 'graphql-ws/use/ws'
import {
  GraphQLError,
  Kind,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql'
import WebSocket, { type WebSocketServer } from 'ws'
import type { HeaderBag } from '../platform/auth/read-credential.js'
import type { SubgraphEndpoint } from './subgraph-endpoint.js'

/** Options of the gateway's graphql-ws endpoint. */
export interface SubscriptionServerOptions {
  wss: WebSocketServer
  /** The supergraph's API schema, once loaded. */
  schema: () => GraphQLSchema | undefined
  /** Subscription root field → owning subgraph. */
  owners: Map<string, string>
  endpoints: Record<string, SubgraphEndpoint>
  validationRules: readonly ValidationRule[]
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
        const headers: HeaderBag = {}
        const params = normalise(ctx.connectionParams ?? {})
        const nested = typeof params.headers === 'object' && params.headers ? normalise(params.headers as Record<string, unknown>) : {}
        for (const name of FORWARDED) {
          const value = params[name] ?? nested[name] ?? ctx.extra.request.headers[name]
          if (typeof value === 'string') headers[name] = value
        }
        stateOf(ctx.extra).headers = headers
        return true
      },
      onSubscribe(ctx, _id, payload) {
        const schema = options.schema()
        if (!schema) return [new GraphQLError('The graph is not loaded yet', { extensions: { code: 'SERVICE_UNAVAILABLE' } })]
        let document
        try {
          document = parse(payload.query)
        } catch (error) {
          return [error as GraphQLError]
        }
        const errors = validate(schema, document, [...specifiedRules, ...options.validationRules])
        if (errors.length) return errors
        return {
          schema,
          document,
          variableValues: payload.variables ?? undefined,
          operationName: payload.operationName ?? undefined,
          contextValue: { extra: ctx.extra, payload },
        }
      },
      async execute(args: ExecutionArgs) {
        const { extra, payload } = args.contextValue as { extra: object; payload: { query: string; variables?: Record<string, unknown>; operationName?: string } }
        return options.executeOperation(payload, stateOf(extra).headers)
      },
      async subscribe(args: ExecutionArgs) {
        const { extra, payload } = args.contextValue as { extra: object; payload: { query: string; variables?: Record<string, unknown> | null; operationName?: string | null } }
        const operation = getOperationAST(args.document, args.operationName)
        const root = operation?.selectionSet.selections[0]
        const field = root?.kind === Kind.FIELD ? root.name.value : undefined
        const owner = field ? options.owners.get(field) : undefined
        const endpoint = owner ? options.endpoints[owner] : undefined
        if (!endpoint || !owner) {
          return { errors: [new GraphQLError(`No subgraph serves the subscription field ${field ?? '(none)'}`, { extensions: { code: 'BAD_REQUEST' } })] }
        }
        const state = stateOf(extra)
        const request = { query: payload.query, variables: payload.variables ?? null, operationName: payload.operationName ?? null }
        const stream =
          endpoint.kind === 'local'
            ? await endpoint.subgraph.subscribe(request, state.headers)
            : remoteSubscribe(clientFor(state, owner, endpoint.wsUrl), request)
        if (!(Symbol.asyncIterator in stream)) return stream
        options.onActiveChange?.(1)
        return counted(stream, () => options.onActiveChange?.(-1))
      },
      async onClose(ctx) {
        const state = states.get(ctx.extra)
        if (state) for (const client of state.clients.values()) await client.dispose()
      },
    },
    options.wss,
  )
}

// One downstream connection per client connection and subgraph, so credentials never mix.
function clientFor(state: ConnectionState, owner: string, url: string): Client {
  let client = state.clients.get(owner)
  if (!client) {
    client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { ...state.headers }, lazy: true, retryAttempts: 0 })
    state.clients.set(owner, client)
  }
  return client
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
        const message = Array.isArray(error) ? String((error[0] as { message?: string })?.message) : error instanceof Error ? error.message : 'Subgraph connection closed'
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
