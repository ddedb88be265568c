import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyServerOptions } from 'fastify'
import { createGateway, type Gateway, type SubgraphEndpoint } from '../gateway/index.js'
import { createCredentialStore, type CredentialStore } from '../platform/auth/credential-store.js'
import type { PlatformConfig } from '../platform/config.js'
import { ConfigError } from '../platform/config.js'
import { createDatabase, type Database } from '../platform/db/database.js'
import { applyMigrations } from '../platform/db/migrate.js'
import { defineErrors } from '../platform/errors.js'
import { createEventBus, type EventBus } from '../platform/events/event-bus.js'
import { scheduleOutboxPruning } from '../platform/events/outbox-retention.js'
import { PrismaClient as PlatformPrisma } from '../platform/generated/prisma/client.js'
import { createHttpApp } from '../platform/http/create-http-app.js'
import { serveApiReference } from '../platform/http/api-reference.js'
import { installRestEdge } from '../platform/http/rest-edge.js'
import { registerTokenRoute } from '../platform/http/token-route.js'
import { routeUpgrades } from '../platform/http/route-upgrades.js'
import { createJobRunner, type JobRunner } from '../platform/jobs/job-runner.js'
import { createMemoryRateLimitStore, createPostgresRateLimitStore, createRateLimiter } from '../platform/rate-limit/rate-limiter.js'
import type { ServiceInstance } from '../platform/service-kit/index.js'
import { STANDARD_ERRORS, STANDARD_ROLES, standardErrorBody } from '../platform/standard-errors.js'
import { bootstrapCredentials } from './bootstrap-credentials.js'
import { allMigrations, describeUrl, loadSecretBox, lockDataDir, openPostgres, PLATFORM_MIGRATIONS, SECRET_KEY_REQUIRED } from './open-data.js'
import { serveSubgraph } from './serve-subgraph.js'
import { KNOWN_SCOPES, SERVICES } from './services.js'

export { allMigrations, lockDataDir, PLATFORM_MIGRATIONS } from './open-data.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Which part of Tessera this process runs. */
export type ProcessMode =
  | { kind: 'all'; /** Only these services (tests that need a few); every one by default. */ services?: readonly string[] }
  | { kind: 'service'; service: string }
  | { kind: 'gateway'; subgraphUrls: Record<string, string> }

/** Options of a Tessera process. */
export interface ProcessOptions {
  mode: ProcessMode
  config: PlatformConfig
  env?: NodeJS.ProcessEnv
  /** Fastify logger options; pino at config.logLevel by default. */
  logger?: FastifyServerOptions['logger']
  /** An already open database (tests hand in a PGlite made from a snapshot). */
  database?: Database
  /** Where the one-time development credentials are printed (stdout by default). */
  announce?: (text: string) => void
  /** Reports each start-up step as it completes (the command line prints them). */
  progress?: (step: string) => void
}

/**
 * Builds one Tessera process: everything (embedded default), one service with its REST
 * adapter and subgraph server, or the gateway alone over subgraph URLs. The returned app is
 * ready to `listen`; `close` shuts it down gracefully (in-flight requests finish, running
 * jobs finish or are left to be retried, subscriptions end, the database closes last).
 */
export async function createTesseraProcess(options: ProcessOptions) {
  const { config, mode } = options
  const env = options.env ?? process.env
  const announce = options.announce ?? ((text: string) => process.stdout.write(`${text}\n`))
  const cleanups: Array<() => Promise<void>> = []
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse().splice(0)) await cleanup().catch(() => {})
  }

  const progress = options.progress ?? (() => {})
  const started = performance.now()
  const elapsed = () => `${Math.round(performance.now() - started)} ms`

  try {
    const serviceNames = mode.kind === 'all' ? [...(mode.services ?? Object.keys(SERVICES))] : mode.kind === 'service' ? [mode.service] : []
    for (const name of serviceNames) if (!SERVICES[name]) throw new ConfigError(`Unknown service "${name}"; known: ${Object.keys(SERVICES).join(', ')}`)
    // Every setting is checked before anything is opened or written.
    if (config.databaseUrl && mode.kind !== 'gateway' && !config.secretKeyHex) throw new ConfigError(SECRET_KEY_REQUIRED)
    // Services load (their imports are the slow part of a start) while the database opens.
    const loading = Promise.all(serviceNames.map((name) => SERVICES[name]!.load()))
    loading.catch(() => {})

    // --- Data ----------------------------------------------------------------------------
    let db: Database | undefined = options.database
    if (!db && (mode.kind !== 'gateway' || config.databaseUrl)) {
      if (!config.databaseUrl) await lockDataDir(config.dataDir, cleanups)
      db = config.databaseUrl ? await openPostgres(config.databaseUrl) : await createDatabase({ kind: 'embedded', dataDir: config.dataDir })
      const opened = db
      cleanups.push(() => opened.close())
      progress(
        `database: ${config.databaseUrl ? `PostgreSQL at ${describeUrl(config.databaseUrl)}` : `embedded PostgreSQL in ${path.resolve(config.dataDir)}`} (${elapsed()})`,
      )
    }
    const loaded = await loading
    for (const service of loaded) service.core.checkConfig(env)
    // A gateway with a database keeps only its rate-limit counters there: the platform schema.
    if (db) {
      const reports = await applyMigrations(db, mode.kind === 'gateway' ? [PLATFORM_MIGRATIONS] : allMigrations(serviceNames))
      const applied = reports.flatMap((r) => r.applied.map((m) => `${r.schema}/${m}`))
      progress(`migrations: ${applied.length ? `applied ${applied.length} (${applied.join(', ')})` : 'up to date'} (${elapsed()})`)
    }

    const limiter = createRateLimiter({
      store: db?.handle.kind === 'postgres' ? createPostgresRateLimitStore(db) : createMemoryRateLimitStore(),
      max: config.rateLimit.max,
      windowSeconds: config.rateLimit.windowSeconds,
      // Request limits fail open to per-process counters; the store's failure is logged.
      onStoreError: (error) => app.log.warn({ err: error }, 'rate-limit store unavailable; counting in this process'),
    })

    let jobs: JobRunner | undefined
    let events: EventBus | undefined
    let credentials: CredentialStore | undefined
    const services: Record<string, ServiceInstance<unknown>> = {}

    const app = createHttpApp({
      logger: options.logger ?? {
        level: config.logLevel,
        redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
      },
      bodyLimit: config.bodyLimit,
      readiness: async () => {
        const database = db
          ? await db.query('SELECT 1').then(
              () => 'ok',
              () => 'unreachable',
            )
          : 'none'
        const checks = { database, jobs: !jobs ? 'none' : jobs.isRunning ? 'running' : 'stopped', events: events?.listener ?? 'none' }
        return { ready: database !== 'unreachable' && checks.jobs !== 'stopped' && checks.events !== 'reconnecting', checks }
      },
    })

    if (db && mode.kind !== 'gateway') {
      const platformPrisma = new PlatformPrisma(db.prismaOptions())
      cleanups.push(() => platformPrisma.$disconnect())
      credentials = createCredentialStore(platformPrisma, { tokenTtlSeconds: config.tokenTtlSeconds, knownScopes: KNOWN_SCOPES })
      await bootstrapCredentials(credentials, config, announce)
      const secrets = await loadSecretBox(config, db)
      events = await createEventBus(db, {
        onError: (error) => app.log.error({ err: error }, 'event bus'),
        onListenerChange: (change) =>
          change.state === 'lost'
            ? app.log.error({ err: change.error }, 'event bus: listening connection lost; reconnecting (live events wait)')
            : app.log.info(
                { downMs: change.downMs, attempts: change.attempts, replayed: change.replayed },
                'event bus: listening again; missed events replayed from the outbox',
              ),
      })
      const bus = events
      cleanups.push(() => bus.close())
      jobs = createJobRunner(db, { onError: (error) => app.log.error({ err: error }, 'job runner') })
      // Every service writes its events to the platform outbox; old events are pruned hourly.
      scheduleOutboxPruning(jobs, db)

      for (const service of loaded) {
        const name = service.name
        const instance = await service.core.start({
          db,
          jobs,
          events,
          credentials,
          limiter,
          logger: app.log,
          env,
          secrets,
          dataDir: path.resolve(config.dataDir),
        })
        services[name] = instance
        cleanups.push(() => instance.close())
        const store = credentials
        await app.register(service.rest, { domain: instance.domain as never, verify: (c) => store.verify(c), limiter })
      }

      serveApiReference(
        app,
        loaded.map((service) => ({ name: service.name, title: service.title })),
      )
      progress(`services: ${serviceNames.join(', ')} (${elapsed()})`)

      // The OAuth 2.0 token endpoint for the development client and any client created with
      // `tessera clients create`; interfaces whose documents name a token path add their own.
      const store = credentials
      await app.register(async (scope) => {
        installRestEdge(scope, {
          errors: defineErrors(STANDARD_ERRORS, STANDARD_ROLES),
          errorBody: (error, request) => standardErrorBody(error, request.id),
          verify: (c) => store.verify(c),
          limiter,
        })
        await registerTokenRoute(scope, { path: '/oauth/token', store })
      })
    }

    // --- GraphQL -------------------------------------------------------------------------
    let gateway: Gateway | undefined
    if (mode.kind === 'service') {
      await serveSubgraph(app, services[mode.service]!.subgraph)
      routeUpgrades(app.server, app.webSocketRoutes)
    } else {
      const endpoints: Record<string, SubgraphEndpoint> = {}
      if (mode.kind === 'all') {
        for (const [name, instance] of Object.entries(services)) endpoints[name] = { kind: 'local', subgraph: instance.subgraph }
      } else {
        for (const [name, url] of Object.entries(mode.subgraphUrls)) endpoints[name] = { kind: 'remote', url, wsUrl: url.replace(/^http/, 'ws') }
      }
      gateway = await createGateway({
        supergraphSdl: await readFile(path.join(root, 'schema/supergraph.graphql'), 'utf8'),
        endpoints,
        ...config.gateway,
        limiter,
        metrics: app.metrics,
        logger: app.log,
      })
      const gw = gateway
      await gw.register(app)
      routeUpgrades(app.server, {
        ...app.webSocketRoutes,
        '/graphql': (req, socket, head) => gw.handleUpgrade(req, socket, head, (ws) => gw.wss.emit('connection', ws, req)),
      })
      cleanups.push(() => gw.stop())
    }

    if (jobs) {
      const runner = jobs
      await runner.start()
      cleanups.push(() => runner.stop(config.shutdownGraceMs))
      progress(`job runner: started (${elapsed()})`)
    }
    if (gateway) progress(`gateway: ${mode.kind === 'gateway' ? Object.keys(mode.subgraphUrls).join(', ') : serviceNames.join(', ')} composed (${elapsed()})`)
    // Cleanups run in reverse: subscriptions end, then the server stops taking connections and
    // lets in-flight requests finish, then running jobs finish, and only then do the gateway,
    // the services and the database close.
    cleanups.push(() => app.close())
    if (gateway) {
      const gw = gateway
      cleanups.push(() => gw.closeSubscriptions())
    }

    return {
      app,
      db,
      credentials,
      services,
      gateway,
      /** Listens on config.host:config.port; returns the base URL. */
      async listen(): Promise<string> {
        return app.listen({ host: config.host, port: config.port })
      },
      /** Graceful shutdown, in reverse order of start. */
      close: closeAll,
    }
  } catch (error) {
    await closeAll()
    throw error
  }
}

/** A running Tessera process. */
export type TesseraProcess = Awaited<ReturnType<typeof createTesseraProcess>>
