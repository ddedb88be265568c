import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify'
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts'
import type { Principal } from '../auth/scopes.js'
import type { TesseraError } from '../errors.js'
import { serveOpenApi } from '../http/openapi.js'
import { installRestEdge, type RestEdge } from '../http/rest-edge.js'
import type { RateLimiter, RateLimitPolicy } from '../rate-limit/rate-limiter.js'
import { standardErrorBody } from '../standard-errors.js'
import type { ServiceCore } from './define-service-core.js'

/** A Fastify scope whose route handlers see request types inferred from their JSON schemas. */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, JsonSchemaToTsProvider>

/** What a service's REST face is handed when the process registers it. */
export interface RestContext<Domain> {
  domain: Domain
  /** The interface's edge: `authenticate` for public routes that also take credentials. */
  edge: RestEdge
  /** Resolves a credential (for WebSocket endpoints, which authenticate themselves). */
  verify(credential: string): Promise<Principal | null>
  limiter: RateLimiter
}

/** The REST face of a service: its document's v1 routes under its paths. */
export interface RestFace<Domain> {
  /** Path prefixes this interface owns: their 404s and URL errors come in its error body. */
  prefixes: readonly string[]
  /** Title and one-line description of the OpenAPI document at /openapi/<name>.json. */
  openapi: { title: string; description: string; servers?: ReadonlyArray<{ url: string; description?: string }> }
  /** `WWW-Authenticate` realm on 401s (RFC 6750); omit for interfaces that take API keys only. */
  realm?: string
  /** The interface's documented error body; Tessera's standard body by default. */
  errorBody?(error: TesseraError, request: FastifyRequest): unknown
  /** A verified caller's own rate limit (e.g. by tier); the process's limit when omitted or undefined. */
  rateLimit?(principal: Principal): RateLimitPolicy | undefined
  /** Adds the routes (and WebSocket endpoints) to the interface's encapsulated scope. */
  routes(app: TypedApp, context: RestContext<Domain>): void | Promise<void>
}

/** What the process hands a REST face. */
export interface RestAdapterOptions<Domain> {
  domain: Domain
  verify(credential: string): Promise<Principal | null>
  limiter: RateLimiter
}

/** One service, both faces: the domain and subgraph, and the REST interface over the same domain. */
export interface Service<Domain = unknown> {
  name: string
  /** The interface's title, as its OpenAPI document and the /docs reference show it. */
  title: string
  scopes: readonly string[]
  core: ServiceCore<Domain>
  /** The REST face as a Fastify plugin, registered by the process with the started domain. */
  rest: FastifyPluginAsync<RestAdapterOptions<Domain>>
}

/**
 * Joins a service's core with its REST face. The face gets an edge already installed (rate
 * limits, authentication and scopes, the error body), its prefixes claimed, and an OpenAPI
 * document built from the routes' schemas.
 */
export function defineService<Domain>(core: ServiceCore<Domain>, face: RestFace<Domain>): Service<Domain> {
  const rest: FastifyPluginAsync<RestAdapterOptions<Domain>> = async (app, options) => {
    const edge = installRestEdge(app, {
      errors: core.errors,
      errorBody: face.errorBody ?? ((error, request) => standardErrorBody(error, request.id)),
      verify: options.verify,
      limiter: options.limiter,
      realm: face.realm,
      rateLimit: face.rateLimit,
    })
    for (const prefix of face.prefixes) app.claimPrefix(prefix, edge)
    serveOpenApi(app, { service: core.name, errors: core.errors, ...face.openapi })
    await face.routes(app.withTypeProvider<JsonSchemaToTsProvider>(), { domain: options.domain, edge, verify: options.verify, limiter: options.limiter })
  }
  return { name: core.name, title: face.openapi.title, scopes: core.scopes, core, rest }
}
