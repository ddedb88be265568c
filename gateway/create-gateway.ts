import { createHash } from 'node:crypto'
import { ApolloServer, HeaderMap, type BaseContext } from '@apollo/server'
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway'
import type { FastifyInstance } from 'fastify'
import { validate, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql'
import { WebSocketServer } from 'ws'
import { readCredential, type HeaderBag } from '../platform/auth/read-credential.js'
import { credentialInQuery } from '../platform/auth/url-credentials.js'
import { inspectInput } from '../platform/validation/inspect-input.js'
import type { Metrics } from '../platform/http/metrics.js'
import { RateLimitUnavailableError, rateLimitHeaders, type RateLimiter } from '../platform/rate-limit/rate-limiter.js'
import { createExplorerPage } from './explorer-page.js'
import { createDocumentCheck } from './document-cache.js'
import { createFastPath } from './fast-path.js'
import { guardDataSource } from './guard-data-source.js'
import { DEFAULT_DOCUMENT_LIMITS, createQueryLimitsRule, inputTooDeep, type DocumentLimits } from './query-limits.js'
import { createSubscriptionServer } from './subscription-forwarder.js'
import { createSubscriptionPlanner } from './subscription-planner.js'
import type { SubgraphEndpoint } from './subgraph-endpoint.js'

/** Per-request context of the gateway: what it forwards to subgraphs. */
export interface GatewayContext extends BaseContext {
  headers: HeaderBag
  requestId: string
}

/** Options of the gateway. */
export interface GatewayOptions {
  /** The composed supergraph SDL (schema/supergraph.graphql). */
  supergraphSdl: string
  /** How to reach each subgraph, by name. */
  endpoints: Record<string, SubgraphEndpoint>
  /** Allow introspection queries (the explorer needs them). */
  introspection: boolean
  maxDepth: number
  maxCost: number
  /** Most tokens a document may have (`TESSERA_MAX_QUERY_TOKENS`). */
  maxTokens?: number
  /** Most aliases in a document (`TESSERA_MAX_QUERY_ALIASES`). */
  maxAliases?: number
  /** Most directives in a document (`TESSERA_MAX_QUERY_DIRECTIVES`). */
  maxDirectives?: number
  /** Longest wait for one subgraph fetch, ms (`TESSERA_SUBGRAPH_TIMEOUT_MS`, default 10 s). */
  subgraphTimeoutMs?: number
  limiter: RateLimiter
  /** Answer single-fetch operations without Apollo's result shaping where that is identical (default on). */
  fastPath?: boolean
  metrics: Metrics
  logger: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void }
}

const FORWARDED_HEADERS = ['authorization', 'x-api-key', 'x-request-id']

// Fastify's body errors, as /graphql reports them.
const BODY_ERRORS: Record<string, [code: string, message: string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'Request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['BAD_REQUEST', 'Request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['BAD_REQUEST', 'Request body is empty but content-type is application/json'],
}

/**
 * The federated gateway: Apollo Server over an Apollo Gateway that plans each operation across
 * the subgraphs, served at /graphql on a Fastify server (POST and GET, an explorer page for
 * browsers) with graphql-ws subscriptions on the same path. Credentials are forwarded to the
 * subgraphs, which authorize; the gateway only limits shape (depth, cost) and rate.
 */
export async function createGateway(options: GatewayOptions) {
  // @apollo/gateway otherwise exports usage metrics to Apollo and probes cloud metadata
  // endpoints (AWS, GCP, Azure) to describe the host; a self-hosted gateway sends nothing out.
  process.env.APOLLO_TELEMETRY_DISABLED = 'true'
  let apiSchema: GraphQLSchema | undefined
  const timeoutMs = options.subgraphTimeoutMs ?? 10_000
  // One data source per subgraph, shared by query plans and by subscription events.
  const dataSources: Record<string, GraphQLDataSource<GatewayContext>> = {}
  const gateway = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService({ name, url }) {
      const endpoint = options.endpoints[name]
      if (!endpoint) {
        // A gateway may front only some services: the others' fields answer with an error.
        options.logger.warn({ subgraph: name, url }, 'no URL configured for this subgraph; its fields will return errors')
      }
      const source = !endpoint
        ? unconfiguredDataSource(name)
        : endpoint.kind === 'local'
          ? localDataSource(endpoint.subgraph)
          : remoteDataSource(endpoint.url, timeoutMs)
      dataSources[name] = guardDataSource(name, source, {
        timeoutMs,
        onBreakerChange: (subgraph, state) =>
          state === 'open'
            ? options.logger.error({ subgraph }, 'subgraph failing: breaker open, its fields fail fast')
            : options.logger.warn({ subgraph }, 'subgraph answering again: breaker closed'),
      })
      return dataSources[name]
    },
  })
  gateway.onSchemaLoadOrUpdate(({ apiSchema: schema }) => {
    apiSchema = schema
  })

  const limitsRule = createQueryLimitsRule({ maxDepth: options.maxDepth, maxCost: options.maxCost })
  const documentLimits: DocumentLimits = {
    maxTokens: options.maxTokens ?? DEFAULT_DOCUMENT_LIMITS.maxTokens,
    maxAliases: options.maxAliases ?? DEFAULT_DOCUMENT_LIMITS.maxAliases,
    maxDirectives: options.maxDirectives ?? DEFAULT_DOCUMENT_LIMITS.maxDirectives,
  }
  // A repeated operation text is checked against the size limits once (see document-cache.ts).
  const documentCheck = createDocumentCheck({ limits: documentLimits })
  // Apollo caches parsed documents, so a repeated operation is the same object: measure it once.
  const breaches = new WeakMap<DocumentNode, GraphQLError | null>()
  const limitBreach = (document: DocumentNode, schema: GraphQLSchema): GraphQLError | null => {
    let breach = breaches.get(document)
    if (breach === undefined) {
      breach = validate(schema, document, [limitsRule])[0] ?? null
      breaches.set(document, breach)
    }
    return breach
  }
  const explorerPage = createExplorerPage()
  // --- fast path: Apollo Server runs its whole pipeline (CSRF, parsing, validation, limits,
  // plugins) and then calls this executor, which skips result shaping where it changes nothing.
  const fastPath =
    options.fastPath === false
      ? undefined
      : createFastPath({ supergraphSdl: options.supergraphSdl, dataSources: dataSources as Record<string, GraphQLDataSource> })
  const executing: Pick<ApolloGateway, 'load' | 'onSchemaLoadOrUpdate' | 'stop'> = !fastPath
    ? gateway
    : {
        async load(loadOptions) {
          const loaded = await gateway.load(loadOptions)
          return { ...loaded, executor: fastPath.wrap(loaded.executor) }
        },
        onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
        stop: () => gateway.stop(),
      }
  // --- end fast path
  const apollo = new ApolloServer<GatewayContext>({
    gateway: executing,
    // The process owns SIGINT/SIGTERM and stops the gateway in its shutdown order; Apollo's
    // own handler would stop it early and re-send the signal.
    stopOnTerminationSignals: false,
    introspection: options.introspection,
    csrfPrevention: true,
    // The same token bound for every path into Apollo's parser (HTTP and graphql-ws operations).
    parseOptions: { maxTokens: documentLimits.maxTokens },
    includeStacktraceInErrorResponses: false,
    // The landing page is our own, self-contained explorer (no CDN), served by the route below.
    plugins: [
      {
        async requestDidStart() {
          let executed = false
          return {
            // Apollo would file a limit breach under GRAPHQL_VALIDATION_FAILED; checked here,
            // still before any planning, it keeps its own code and a 400.
            async didResolveOperation({ document, schema }) {
              const breach = limitBreach(document, schema)
              if (breach) throw breach
            },
            async executionDidStart() {
              executed = true
            },
            async willSendResponse({ operation, errors, response }) {
              options.metrics.graphqlOperations.inc({ type: operation?.operation ?? 'unknown', outcome: errors?.length ? 'error' : 'ok' })
              // An executed operation answers 200 with its errors in the body, as GraphQL over
              // HTTP expects; a service's status stays visible in each error's extensions.http.
              if (executed && response.body.kind === 'single' && response.body.singleResult.data !== undefined) response.http.status = 200
            },
          }
        },
      },
    ],
    // Apollo moves extensions.http into the response status; the services' contract is that
    // every GraphQL error also carries it, so it is put back.
    formatError(formatted, error) {
      const http = (error as { extensions?: { http?: { status?: unknown } } } | undefined)?.extensions?.http
      if (typeof http?.status !== 'number') return formatted
      return { ...formatted, extensions: { ...formatted.extensions, http: { status: http.status } } }
    },
  })
  await apollo.start()

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 })
  const subscriptions = createSubscriptionServer({
    wss,
    schema: () => apiSchema,
    planner: createSubscriptionPlanner(options.supergraphSdl),
    endpoints: options.endpoints,
    dataSources: dataSources as Record<string, GraphQLDataSource>,
    validationRules: [limitsRule],
    documentLimits,
    async executeOperation(request, headers) {
      const response = await apollo.executeOperation(
        { query: request.query, variables: request.variables, operationName: request.operationName },
        { contextValue: { headers, requestId: crypto.randomUUID() } },
      )
      return response.body.kind === 'single' ? (response.body.singleResult as ExecutionResult) : { errors: [] }
    },
    onActiveChange: (delta) => options.metrics.subscriptions.inc(delta),
  })

  return {
    /** Registers /graphql (HTTP) on a Fastify server. */
    async register(app: FastifyInstance) {
      app.route({
        method: ['GET', 'POST'],
        url: '/graphql',
        // What fails before the handler (an oversized or malformed body) answers in GraphQL's
        // error shape like everything else on /graphql, not in Fastify's.
        errorHandler(error, request, reply) {
          const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
          if (status === 500) request.log.error({ err: error, reqId: request.id }, 'unhandled error')
          const [code, message] =
            BODY_ERRORS[error.code] ??
            (status === 500 ? ['INTERNAL_SERVER_ERROR', `Internal error; quote request id ${request.id} to support`] : ['BAD_REQUEST', error.message])
          return reply.code(status).send({ errors: [{ message, extensions: { code, http: { status }, requestId: request.id } }] })
        },
        async handler(request, reply) {
          const credential = readCredential(request.headers)
          const key = credential ? `g:${createHash('sha256').update(credential).digest('base64url')}` : `gip:${request.ip}`
          let state
          try {
            state = await options.limiter.consume(key)
          } catch (error) {
            if (!(error instanceof RateLimitUnavailableError)) throw error
            return reply
              .code(503)
              .header('retry-after', String(error.retryAfterSeconds))
              .send({
                errors: [
                  {
                    message: `${error.message}; try again in ${error.retryAfterSeconds} s`,
                    extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } },
                  },
                ],
              })
          }
          reply.headers(rateLimitHeaders(state))
          if (!state.allowed) {
            return reply.code(429).send({
              errors: [
                {
                  message: `Rate limit exceeded: ${state.limit} requests per ${options.limiter.windowSeconds} s`,
                  extensions: { code: 'RATE_LIMITED', http: { status: 429 } },
                },
              ],
            })
          }
          const url = new URL(request.url, 'http://gateway')
          const inUrl = credentialInQuery(Object.fromEntries(url.searchParams))
          if (inUrl) {
            return reply.code(400).send({
              errors: [
                {
                  message: `${inUrl}: API keys and access tokens are not accepted in the URL; send Authorization: Bearer <key>`,
                  extensions: { code: 'BAD_REQUEST', http: { status: 400 }, details: { field: inUrl } },
                },
              ],
            })
          }
          if (request.method === 'GET' && !url.searchParams.has('query') && (request.headers.accept ?? '').includes('text/html')) {
            const page = explorerPage()
            reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('vary', 'accept-encoding')
            if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(page.gzip)
            return reply.send(page.html)
          }
          // Size limits come before Apollo's validation, whose work grows with aliases and
          // repeated fields (overlap checks compare fields pairwise).
          const query = request.method === 'GET' ? url.searchParams.get('query') : queryOf(request.body)
          if (typeof query === 'string') {
            const refused = documentCheck.check(query)
            if (refused) return reply.code(400).send({ errors: [refused.toJSON()] })
          }
          const nesting = inspectInput(request.method === 'GET' ? variablesOf(url) : request.body, '', { nul: false })
          if (nesting) return reply.code(400).send({ errors: [inputTooDeep(nesting).toJSON()] })
          const headers = new HeaderMap()
          for (const [name, value] of Object.entries(request.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
          }
          const response = await apollo.executeHTTPGraphQLRequest({
            httpGraphQLRequest: { method: request.method, headers, search: url.search, body: request.body },
            context: async () => ({ headers: request.headers, requestId: request.id }),
          })
          for (const [name, value] of response.headers) reply.header(name, value)
          reply.code(response.status ?? 200)
          if (response.body.kind === 'complete') return reply.send(response.body.string)
          let text = ''
          for await (const chunk of response.body.asyncIterator) text += chunk
          return reply.send(text)
        },
      })
    },
    /** How many operations took the fast path, were replayed into Apollo's shaping, or went to Apollo (none when it is off). */
    fastPathStats: fastPath?.stats,
    /** Takes over WebSocket upgrades of /graphql. */
    handleUpgrade: wss.handleUpgrade.bind(wss),
    wss,
    /** Ends every subscription (clients get close code 1001, going away) and refuses new ones. */
    async closeSubscriptions() {
      await subscriptions.dispose()
      for (const client of wss.clients) client.close(1001, 'Server shutting down')
      wss.close()
    },
    /** Stops the gateway; call after in-flight HTTP requests have finished. */
    async stop() {
      await apollo.stop()
    },
  }
}

// GET carries variables as JSON text; text that does not parse is Apollo's to refuse.
function variablesOf(url: URL): unknown {
  const text = url.searchParams.get('variables')
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// The operation text of a POST body, when it has one (Apollo answers every other shape).
function queryOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' && 'query' in body ? body.query : undefined
}

/** A running gateway. */
export type Gateway = Awaited<ReturnType<typeof createGateway>>

// The gateway's own request id travels on, so a subgraph's log lines join the gateway's.
function forwardedHeaders(context: GatewayContext): HeaderBag {
  const out: HeaderBag = {}
  for (const name of FORWARDED_HEADERS) if (context.headers[name] !== undefined) out[name] = context.headers[name]
  out['x-request-id'] = context.requestId
  return out
}

// Embedded mode: the subgraph runs in this process; no serialisation, no loopback socket.
function localDataSource(subgraph: Extract<SubgraphEndpoint, { kind: 'local' }>['subgraph']): GraphQLDataSource<GatewayContext> {
  return {
    async process(request: GraphQLDataSourceProcessOptions<GatewayContext>) {
      // Health checks and schema loading carry no caller; operations carry the gateway context.
      const context = (request as { context?: Partial<GatewayContext> }).context
      const headers = context?.headers && context.requestId ? forwardedHeaders(context as GatewayContext) : {}
      const result = await subgraph.execute(
        { query: request.request.query ?? '', variables: request.request.variables, operationName: request.request.operationName },
        headers,
      )
      return result as never
    },
  }
}

// Failing the fetch (rather than answering errors) lets the guard name the subgraph and the
// paths, as for a subgraph that is down.
function unconfiguredDataSource(name: string): GraphQLDataSource<GatewayContext> {
  return {
    async process() {
      throw new Error(`no URL is configured for ${name} on this gateway`)
    },
  }
}

function remoteDataSource(url: string, timeoutMs: number): GraphQLDataSource<GatewayContext> {
  return new RemoteGraphQLDataSource<GatewayContext>({
    url,
    // Node's fetch keeps connections alive across requests; a request to a hung subgraph is
    // cut at the timeout rather than left holding a socket.
    fetcher: ((input: string, init: RequestInit) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) })) as never,
    willSendRequest({ request, context }) {
      const headers = 'headers' in context && context.headers ? forwardedHeaders(context as GatewayContext) : {}
      for (const [name, value] of Object.entries(headers)) {
        if (typeof value === 'string') request.http?.headers.set(name, value)
      }
    },
  })
}
