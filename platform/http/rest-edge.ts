import { createHash } from 'node:crypto'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { readCredential } from '../auth/read-credential.js'
import { credentialInQuery } from '../auth/url-credentials.js'
import type { Principal } from '../auth/scopes.js'
import { TesseraError, type ErrorRegistry, type ValidationIssue } from '../errors.js'
import { RateLimitUnavailableError, rateLimitHeaders, type RateLimiter, type RateLimitPolicy } from '../rate-limit/rate-limiter.js'
import { inspectInput } from '../validation/inspect-input.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller; set by the REST edge before any handler runs. */
    principal: Principal | null
  }
  interface FastifyContextConfig {
    /** True for routes that take no credential (token endpoints, signed downloads). */
    public?: boolean
  }
}

/** What an interface's REST edge needs to know. */
export interface RestEdgeOptions {
  /** The service's coded errors. */
  errors: ErrorRegistry
  /** The interface's documented error body for an error. */
  errorBody(error: TesseraError, request: FastifyRequest): unknown
  /** Resolves a credential to its principal (null when unknown or revoked). */
  verify(credential: string): Promise<Principal | null>
  limiter: RateLimiter
  /** Value of `WWW-Authenticate` on 401s (RFC 6750 §3); omit for interfaces that use API keys only. */
  realm?: string
  /**
   * A verified caller's own limit (e.g. by the credential's tier); undefined keeps the
   * limiter's. Unknown credentials and anonymous calls always get the limiter's own limit.
   */
  rateLimit?(principal: Principal): RateLimitPolicy | undefined
}

/**
 * Installs an interface's edge into its encapsulated Fastify context: rate limiting with
 * X-RateLimit-* on every response, authentication and scopes, and one error handler that
 * renders every failure — validation, malformed JSON, oversize bodies, domain errors — in the
 * interface's documented body. Returns the 404 handler for the interface's paths.
 */
export function installRestEdge(scope: FastifyInstance, options: RestEdgeOptions) {
  const { errors } = options

  // Limiting comes before authentication so that guessing keys is throttled too; the bucket
  // is the credential itself (hashed) or, without one, the client address.
  // With a per-caller policy the credential is verified here already; authentication reuses it.
  const verified = new WeakMap<FastifyRequest, Principal | null>()
  const verifyOnce = async (request: FastifyRequest, credential: string): Promise<Principal | null> => {
    if (verified.has(request)) return verified.get(request) ?? null
    const principal = await options.verify(credential)
    verified.set(request, principal)
    return principal
  }
  // A caller with its own policy is counted by principal, so every access token of one OAuth
  // client shares the client's bucket (a new token is not a new allowance).
  const policyFor = async (request: FastifyRequest, credential: string | null | undefined): Promise<{ key: string; policy: RateLimitPolicy } | undefined> => {
    if (!options.rateLimit || !credential) return undefined
    const principal = await verifyOnce(request, credential)
    const policy = principal ? options.rateLimit(principal) : undefined
    return principal && policy ? { key: `p:${principal.id}`, policy } : undefined
  }
  const limit = async (request: FastifyRequest, reply: FastifyReply) => {
    const credential = readCredential(request.headers)
    const own = await policyFor(request, credential)
    const key = own?.key ?? (credential ? `c:${createHash('sha256').update(credential).digest('base64url')}` : `ip:${request.ip}`)
    const policy = own?.policy
    const state = await options.limiter.consume(key, policy)
    reply.headers(rateLimitHeaders(state))
    if (!state.allowed) {
      throw errors.forRole('rateLimited', `Rate limit exceeded: ${state.limit} requests per ${policy?.windowSeconds ?? options.limiter.windowSeconds} s`, {
        limit: state.limit,
        retryAfterSeconds: state.reset,
      })
    }
  }

  // The interfaces take JSON; Fastify's built-in text/plain parser would turn a text body into
  // a string and a confusing "must be object" instead of a clear 415.
  scope.removeContentTypeParser('text/plain')
  scope.decorateRequest('principal', null)
  scope.addHook('onRequest', limit)
  // Verifies the request's credential: the principal, or a coded 401/429.
  const authenticate = async (request: FastifyRequest): Promise<Principal> => {
    const credential = readCredential(request.headers)
    const challenge = (error: string, description: string) =>
      options.realm ? { 'www-authenticate': `Bearer realm="${options.realm}", error="${error}", error_description="${description}"` } : undefined
    if (credential === undefined) {
      throw errors.forRole(
        'unauthorized',
        'Missing credentials: send Authorization: Bearer <key>',
        undefined,
        options.realm ? { 'www-authenticate': `Bearer realm="${options.realm}"` } : undefined,
      )
    }
    const principal = credential ? await verifyOnce(request, credential) : null
    if (!principal) {
      // Every guess is a new credential, and so a new bucket above; failures also count
      // against the client address, so guessing keys is throttled.
      const failures = await options.limiter.failedAuthentication(request.ip)
      if (!failures.allowed) {
        throw errors.forRole(
          'rateLimited',
          'Too many failed authentications from this address',
          { retryAfterSeconds: failures.reset },
          rateLimitHeaders(failures),
        )
      }
      throw errors.forRole('unauthorized', 'Invalid, expired or revoked credentials', undefined, challenge('invalid_token', 'The access token is invalid'))
    }
    // Scopes are checked by the domain operation both faces call, not here.
    return principal
  }
  scope.addHook('onRequest', async (request) => {
    const inUrl = credentialInQuery(request.query)
    if (inUrl) {
      throw errors.invalid([
        {
          field: inUrl,
          message:
            'must not carry an API key or access token: URLs end up in logs and browser history. Send it as Authorization: Bearer <key>, and revoke a key that was sent in a URL',
        },
      ])
    }
    if (request.routeOptions.config.public) return
    request.principal = await authenticate(request)
  })
  scope.addHook('preValidation', async (request) => {
    // NUL characters and over-deep nesting are refused before schema validation walks the body.
    const problem = inspectInput(request.params) ?? inspectInput(request.query) ?? inspectInput(request.body)
    if (problem) throw errors.invalid([problem])
  })

  const send = (error: TesseraError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.headers) reply.headers(error.headers)
    // A scope the domain found missing is a Bearer "insufficient_scope" (RFC 6750 §3.1).
    if (options.realm && error.code === errors.roles.forbidden && !error.headers?.['www-authenticate']) {
      const scope = typeof error.details?.requiredScope === 'string' ? error.details.requiredScope : undefined
      reply.header('www-authenticate', `Bearer realm="${options.realm}", error="insufficient_scope"${scope ? `, scope="${scope}"` : ''}`)
    }
    return reply.code(error.status).send(options.errorBody(error, request))
  }

  scope.setErrorHandler((error: FastifyError | TesseraError, request, reply) => {
    const mapped = toTesseraError(error, errors)
    if (mapped) return send(mapped, request, reply)
    // Anything unexpected is a bug: logged in full against the request id, masked for the caller.
    request.log.error({ err: error, reqId: request.id }, 'unhandled error')
    return send(errors.forRole('internal', `Internal error; quote request id ${request.id} to support`), request, reply)
  })

  return {
    /** Verifies a request's credential; public routes that also take credentials call it themselves. */
    authenticate,
    /** Answers a path of this interface that no route matches. */
    async notFound(request: FastifyRequest, reply: FastifyReply) {
      try {
        await limit(request, reply)
      } catch (error) {
        return send(toTesseraError(error as TesseraError, errors) ?? errors.forRole('internal'), request, reply)
      }
      return send(errors.forRole('notFound', `No route ${request.method} ${request.url.split('?')[0]}`), request, reply)
    },
    /** Answers what the router refuses before any route runs (a malformed or over-long URL). */
    async frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const reason = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is too long' : 'is not a valid URL'
      return send(errors.invalid([{ field: 'path', message: reason }]), request, reply)
    },
  }
}

/** An interface's installed edge. */
export type RestEdge = ReturnType<typeof installRestEdge>

/** Maps framework errors to the service's codes; undefined for real faults. */
function toTesseraError(error: FastifyError | TesseraError, errors: ErrorRegistry): TesseraError | undefined {
  if (error instanceof TesseraError) return error
  // A fail-closed limiter whose store is down: the client may retry, nothing is wrong with it.
  if (error instanceof RateLimitUnavailableError) {
    return new TesseraError(
      'SERVICE_UNAVAILABLE',
      503,
      `${error.message}; try again in ${error.retryAfterSeconds} s`,
      { reason: 'rate limit store unavailable' },
      {
        'retry-after': String(error.retryAfterSeconds),
      },
    )
  }
  if (error.validation) {
    return errors.invalid(error.validation.map((v) => toIssue(v)))
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.forRole('payloadTooLarge', 'Request body is too large', { field: 'body', reason: 'too large' })
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.forRole('unsupportedMediaType', 'Send the body as application/json', { field: 'content-type', reason: 'unsupported media type' })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalid([{ field: 'body', message: 'is empty but content-type is application/json' }])
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalid([{ field: 'content-length', message: 'does not match the body' }])
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return errors.invalid([{ field: 'body', message: `is not valid JSON (${error.message})` }])
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return errors.invalid([{ field: 'request', message: error.message }])
  }
  return undefined
}

interface AjvIssue {
  instancePath: string
  message?: string
  keyword: string
  params: Record<string, unknown>
}

function toIssue(v: AjvIssue): ValidationIssue {
  let field = v.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part.replaceAll('~1', '/').replaceAll('~0', '~')}`))
    .join('')
    .replace(/^\./, '')
  const child = (name: unknown) => (field ? `${field}.${String(name)}` : String(name))
  let message = v.message ?? 'is invalid'
  if (v.keyword === 'required') {
    field = child(v.params.missingProperty)
    message = 'is required'
  } else if (v.keyword === 'additionalProperties') {
    field = child(v.params.additionalProperty)
    message = 'is not allowed'
  } else if (v.keyword === 'enum') {
    message = `must be one of: ${(v.params.allowedValues as unknown[]).join(', ')}`
  }
  return { field: field || 'body', message }
}
