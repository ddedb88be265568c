import { randomUUID } from 'node:crypto'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { redactUrl } from '../auth/url-credentials.js'
import { createMetrics, type Metrics } from './metrics.js'
import type { UpgradeHandler } from './route-upgrades.js'

/** Options of the HTTP app. */
export interface HttpAppOptions {
  /** pino options, or false in tests that want silence. */
  logger: FastifyServerOptions['logger']
  /** Largest accepted request body, bytes. */
  bodyLimit: number
  /**
   * Whether the process is ready for traffic (database reachable, jobs started), optionally
   * with the state of each part, which /ready shows.
   */
  readiness?: () => Promise<boolean | { ready: boolean; checks: Record<string, string> }>
  metrics?: Metrics
}

/** How an interface answers requests under its paths that never reach one of its routes. */
export interface PrefixHandlers {
  notFound(request: FastifyRequest, reply: FastifyReply): Promise<unknown>
  frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
    /** Gives the paths under `prefix` their interface's 404 and URL errors (error body, rate-limit headers). */
    claimPrefix(prefix: string, handlers: PrefixHandlers): void
    /** WebSocket endpoints of the interfaces, by path; the process routes upgrades to them. */
    webSocketRoutes: Record<string, UpgradeHandler>
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * The one Fastify server of a process: request ids (an incoming `X-Request-Id` is kept when
 * sane), structured logs with credentials redacted, strict body validation, and the
 * operational routes /health, /ready and /metrics. Interfaces are registered onto it.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  // Several interfaces share /v1, so answers outside any route go by the longest claimed prefix.
  const claims: Array<{ prefix: string; handlers: PrefixHandlers }> = []
  const ownerOf = (url: string) => {
    const path = url.split('?')[0] ?? '/'
    return claims.find((c) => path === c.prefix || path.startsWith(`${c.prefix}/`))?.handlers
  }
  const app = Fastify({
    logger: withRedactedUrls(options.logger),
    bodyLimit: options.bodyLimit,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Ids of up to a few hundred characters must reach the routes, which set their own limits.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    frameworkErrors: (error, request, reply) => {
      const owner = ownerOf(request.url)
      if (owner) return void owner.frameworkError(error, request, reply)
      void (reply as FastifyReply).code(400).send({ error: { code: 'INVALID_REQUEST', message: error.message, requestId: request.id } })
    },
  })

  // Bodies are validated strictly: "2" is not an integer, and unknown types are not coerced.
  // Query strings and path parameters are text on the wire, so there coercion is right.
  const strict = addFormats.default(new Ajv.default({ allErrors: true, coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false }))
  const coercing = addFormats.default(new Ajv.default({ allErrors: true, coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false }))
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema))

  const metrics = options.metrics ?? createMetrics()
  app.decorate('metrics', metrics)

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  app.addHook('onResponse', async (request, reply) => {
    // The route's pattern, never the URL: labels must hold no query string (and no credential).
    metrics.observeHttp(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
  })

  app.decorate('webSocketRoutes', {})
  app.decorate('claimPrefix', (prefix: string, handlers: PrefixHandlers) => {
    claims.push({ prefix: prefix.replace(/\/$/, ''), handlers })
    claims.sort((a, b) => b.prefix.length - a.prefix.length)
  })
  app.setNotFoundHandler((request, reply) => {
    const owner = ownerOf(request.url)
    if (owner) return owner.notFound(request, reply)
    return reply.code(404).send({ error: { code: 'NOT_FOUND', message: `No route ${request.method} ${request.url.split('?')[0]}`, requestId: request.id } })
  })

  app.get('/health', { logLevel: 'warn' }, async () => ({ status: 'ok' }))
  app.get('/ready', { logLevel: 'warn' }, async (_request, reply) => {
    const result = options.readiness ? await options.readiness().catch(() => false) : true
    const { ready, checks } = typeof result === 'boolean' ? { ready: result, checks: undefined } : result
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', ...(checks ? { checks } : {}) })
  })
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType)
    return metrics.registry.metrics()
  })
  return app
}

// Embed tokens travel in URLs by design and clients put keys there by mistake: the request log
// shows every URL with its query-string credentials redacted.
function withRedactedUrls(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return logger
  const base = typeof logger === 'object' ? logger : {}
  return {
    ...base,
    serializers: {
      ...base.serializers,
      req: (request: { method: string; url: string; headers: Record<string, unknown>; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  }
}
