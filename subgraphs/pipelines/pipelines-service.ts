import { randomUUID } from 'node:crypto'
import type { SecretBox } from '../../platform/auth/secrets.js'
import { createAuthorizer } from '../../platform/auth/authorize.js'
import { checkPage } from '../../platform/validation/page.js'
import type { Principal } from '../../platform/auth/scopes.js'
import { isUuid } from '../../platform/validation/json-shapes.js'
import type { ValidationIssue } from '../../platform/errors.js'
import { outboxRow, writeOutbox, type EventBus } from '../../platform/events/event-bus.js'
import { mapAsyncIterator } from '../../platform/events/map-async-iterator.js'
import type { JobRunner } from '../../platform/jobs/job-runner.js'
import { connectorFailure, type Column, type ConnectorContext, type Row } from './connectors/connector.js'
import { CONNECTORS, findConnector } from './connectors/index.js'
import { removeTempFiles } from './connectors/file-connector.js'
import { pipelinesErrors as errors } from './errors.js'
import { Prisma, type PrismaClient } from './generated/prisma/client.js'
import { nextRunOf, openSecrets, parsePipelineConfig, redactSecrets, sealSecrets, type EndpointConfig, type SyncSettings } from './pipeline-config.js'
import {
  pipelineStatus,
  reviveRun,
  RUN_STATUSES,
  toRun,
  type LogLevel,
  type LogRecord,
  type PipelineRecord,
  type RunRecord,
  type RunStatus,
} from './records.js'
import { createRunEngine, RUN_EVENTS } from './run-engine.js'
import type { Transformation } from './transform/transformations.js'

export const RUN_QUEUE = 'pipelines.run'
export const SCHEDULER_QUEUE = 'pipelines.scheduler'
/** Default seconds between heartbeats of a running run (`TESSERA_PIPELINES_HEARTBEAT_SECONDS`). */
export const DEFAULT_HEARTBEAT_SECONDS = 5
// Heartbeats a run may miss before its worker counts as gone.
const MISSED_HEARTBEATS = 4
const SCHEMA = 'pipelines'
/** Run history page size: the document's default, and our maximum. */
export const RUNS_PAGE = { default: 20, max: 100 }
/** Page sizes of the pipeline listing. */
export const PIPELINES_PAGE = { default: 20, max: 100 }
/** Rows of a run's output a preview or chart may read. */
const PREVIEW_PAGE = { default: 100, max: 1000 }

/** A connector as listed by `GET /v1/connectors`. */
export interface ConnectorInfo {
  id: string
  name: string
  type: 'source' | 'destination' | 'both'
  category: string
  supportedVersions: readonly string[] | null
  settingsSchema: Record<string, unknown>
  secretFields: readonly string[]
}

/** Where a run wrote, for other subgraphs to build on (visualization charts it). */
export interface RunOutput {
  runId: string
  pipelineId: string
  destinationType: string
  /** Connector settings of the destination, secrets redacted. */
  destination: EndpointConfig
  recordsWritten: number
  status: RunStatus
}

/** What the pipelines service needs from the platform. */
export interface PipelinesServiceDeps {
  prisma: PrismaClient
  jobs: JobRunner
  events: EventBus
  secrets: SecretBox
  /** Folder for file paths and the embedded warehouse. */
  dataDir: string
  now?: () => Date
  /** Seconds between a running run's heartbeats; a run silent for 4 of them has lost its worker. */
  heartbeatSeconds?: number
  /**
   * True when no other process can be running this service's runs (the embedded database is
   * one process's): at start-up every run with a heartbeat is then known to be lost.
   */
  exclusive?: boolean
  /** Where lost runs are reported (ERROR). */
  logger?: { error(obj: object, msg: string): void }
}

/**
 * The data integration pipelines' domain: pipeline definitions with encrypted connector
 * secrets, runs on the job queue, run history and logs, cron schedules that fire once across
 * replicas, and live run events. REST handlers and GraphQL resolvers only translate.
 */
export function createPipelinesService(deps: PipelinesServiceDeps) {
  const { prisma, jobs, events, secrets } = deps
  const now = deps.now ?? (() => new Date())
  const connectorContext: ConnectorContext = { dataDir: deps.dataDir }
  const heartbeatMs = (deps.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS) * 1000
  const engine = createRunEngine({ prisma, secrets, connectorContext, now, heartbeatMs })
  let sweeper: NodeJS.Timeout | undefined

  const authorize = createAuthorizer(errors, 'pipelines')
  const pipelineNotFound = (id: string) => errors.create('PIPE_001', `Pipeline ${id} not found`, { field: 'pipeline_id', reason: 'not found' })

  // A connector's failure in the interface's codes; anything else passes on as a fault.
  const interfaceError = (error: unknown, side: 'source' | 'destination') => {
    const failure = connectorFailure(error, side)
    if (!failure) return error
    return failure.code === 'PIPE_002'
      ? errors.invalid([{ field: failure.field, message: failure.message }])
      : errors.create(failure.code, failure.message, { field: failure.field, reason: (error as Error).message })
  }

  async function loadPipeline(id: string) {
    const row = isUuid(id) ? await prisma.pipeline.findUnique({ where: { id } }) : null
    if (!row) throw pipelineNotFound(id)
    return row
  }

  async function latestRun(pipelineId: string): Promise<RunRecord | null> {
    const row = await prisma.run.findFirst({ where: { pipelineId }, orderBy: [{ startedAt: 'desc' }, { id: 'desc' }] })
    return row ? toRun(row) : null
  }

  async function toRecord(row: {
    id: string
    name: string
    source: unknown
    destination: unknown
    transformations: unknown
    schedule: string | null
    sync: unknown
    createdAt: Date
  }): Promise<PipelineRecord> {
    const lastRun = await latestRun(row.id)
    return {
      id: row.id,
      name: row.name,
      status: pipelineStatus(lastRun),
      source: redactSecrets(row.source as EndpointConfig),
      destination: redactSecrets(row.destination as EndpointConfig),
      transformations: row.transformations as Transformation[],
      schedule: row.schedule,
      sync: row.sync as SyncSettings,
      createdAt: row.createdAt,
      lastRun,
      nextRun: nextRunOf(row.schedule, now()),
    }
  }

  // Starts a run: the row and its job are written together, and the partial unique index on
  // running runs makes a second concurrent start fail here, whichever replica tries.
  async function startRun(tx: Prisma.TransactionClient, pipelineId: string, trigger: RunRecord['trigger']): Promise<RunRecord | null> {
    const id = randomUUID()
    try {
      await tx.$executeRaw`SAVEPOINT start_run`
      const row = await tx.run.create({ data: { id, pipelineId, status: 'running', trigger, startedAt: now() } })
      await tx.$executeRaw`RELEASE SAVEPOINT start_run`
      const run = toRun(row)
      const at = now()
      await tx.runLog.create({ data: { runId: id, level: 'INFO', message: `Run queued (${trigger})`, timestamp: at } })
      await writeOutbox(tx, 'pipelines', [
        outboxRow(RUN_EVENTS.updated, id, run),
        outboxRow(RUN_EVENTS.log, id, { runId: id, timestamp: at.toISOString(), level: 'INFO', message: `Run queued (${trigger})` }),
      ])
      await jobs.send(RUN_QUEUE, { runId: id }, { tx })
      return run
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        await tx.$executeRaw`ROLLBACK TO SAVEPOINT start_run`
        return null
      }
      throw error
    }
  }

  const service = {
    /** The connectors this installation can use. */
    listConnectors(actor: Principal | null): ConnectorInfo[] {
      authorize(actor, 'read')
      return CONNECTORS.map((c) => ({
        id: c.id,
        name: c.name,
        type: c.role,
        category: c.category,
        supportedVersions: c.supportedVersions ?? null,
        settingsSchema: c.settingsSchema,
        secretFields: c.secretFields,
      }))
    },

    /**
     * Validates a pipeline, checks that both connectors can connect (CONN_001 / CONN_002, as
     * Airbyte's `check`), and stores it with its secrets encrypted.
     */
    async createPipeline(actor: Principal | null, body: unknown): Promise<PipelineRecord> {
      const who = authorize(actor, 'write')
      const parsed = parsePipelineConfig(body)
      if (!parsed.ok) throw errors.invalid(parsed.issues)
      const { config } = parsed
      for (const [side, endpoint] of [
        ['source', config.source],
        ['destination', config.destination],
      ] as const) {
        const connector = findConnector(endpoint.type)!
        try {
          await connector.check(endpoint.settings, connectorContext, side)
        } catch (error) {
          throw interfaceError(error, side)
        }
      }
      const row = await prisma.pipeline.create({
        data: {
          id: randomUUID(),
          name: config.name,
          source: sealSecrets(config.source, secrets) as unknown as Prisma.InputJsonObject,
          destination: sealSecrets(config.destination, secrets) as unknown as Prisma.InputJsonObject,
          transformations: config.transformations as unknown as Prisma.InputJsonArray,
          sync: config.sync as unknown as Prisma.InputJsonObject,
          schedule: config.schedule,
          nextRunAt: nextRunOf(config.schedule, now()),
          createdAt: now(),
          updatedAt: now(),
          createdBy: who.id,
        },
      })
      return toRecord(row)
    },

    async getPipeline(actor: Principal | null, id: string): Promise<PipelineRecord> {
      authorize(actor, 'read')
      return toRecord(await loadPipeline(id))
    },

    async listPipelines(actor: Principal | null, page: { limit?: number; offset?: number }) {
      authorize(actor, 'read')
      const issues: ValidationIssue[] = []
      const { limit, offset } = checkPage(page, PIPELINES_PAGE, issues)
      if (issues.length) throw errors.invalid(issues)
      const [rows, total] = await prisma.$transaction([
        prisma.pipeline.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset }),
        prisma.pipeline.count(),
      ])
      return { items: await Promise.all(rows.map(toRecord)), total, limit, offset }
    },

    /**
     * Deletes a pipeline with its runs and logs. A run in progress is cancelled: its row goes
     * with the pipeline; the engine notices within about a second and rolls its writes back.
     */
    async deletePipeline(actor: Principal | null, id: string): Promise<{ id: string; cancelledRun: string | null; message: string }> {
      authorize(actor, 'write')
      await loadPipeline(id)
      return prisma.$transaction(async (tx) => {
        const running = await tx.run.findFirst({ where: { pipelineId: id, status: 'running' } })
        if (running) {
          await tx.run.update({ where: { id: running.id }, data: { status: 'cancelled', completedAt: now(), errorMessage: 'Pipeline deleted' } })
          await writeOutbox(tx, 'pipelines', [outboxRow(RUN_EVENTS.updated, running.id, { ...toRun(running), status: 'cancelled', completedAt: now() })])
        }
        await tx.pipeline.delete({ where: { id } })
        const cancelledRun = running?.id ?? null
        // The one wording both faces show.
        const message = cancelledRun ? `Pipeline ${id} deleted; its running run ${cancelledRun} was cancelled` : `Pipeline ${id} deleted`
        return { id, cancelledRun, message }
      })
    },

    /** Starts a run now; PIPE_003 when one is already running. */
    async runPipeline(actor: Principal | null, id: string): Promise<RunRecord> {
      authorize(actor, 'write')
      await loadPipeline(id)
      const run = await prisma.$transaction((tx) => startRun(tx, id, 'manual'))
      if (!run) throw errors.create('PIPE_003', `Pipeline ${id} already has a run in progress`, { field: 'pipeline_id', reason: 'running' })
      return run
    },

    async listRuns(actor: Principal | null, pipelineId: string, filter: { limit?: number; status?: string }): Promise<RunRecord[]> {
      authorize(actor, 'read')
      const issues: ValidationIssue[] = []
      const { limit } = checkPage(filter, RUNS_PAGE, issues)
      if (filter.status !== undefined && !RUN_STATUSES.includes(filter.status as RunStatus))
        issues.push({ field: 'status', message: `must be one of: ${RUN_STATUSES.join(', ')}` })
      if (issues.length) throw errors.invalid(issues)
      await loadPipeline(pipelineId)
      const rows = await prisma.run.findMany({
        where: { pipelineId, ...(filter.status ? { status: filter.status } : {}) },
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
        take: limit,
      })
      return rows.map(toRun)
    },

    async getRun(actor: Principal | null, runId: string): Promise<RunRecord> {
      authorize(actor, 'read')
      const row = isUuid(runId) ? await prisma.run.findUnique({ where: { id: runId } }) : null
      if (!row) throw errors.create('RUN_001', `Run ${runId} not found`, { field: 'run_id', reason: 'not found' })
      return toRun(row)
    },

    /** Runs by id in the order asked, null for unknown ids (batched entity loading). */
    async getRunsByIds(actor: Principal | null, ids: readonly string[]): Promise<(RunRecord | null)[]> {
      authorize(actor, 'read')
      const valid = ids.filter((id) => isUuid(id))
      const rows = valid.length ? await prisma.run.findMany({ where: { id: { in: valid } } }) : []
      const byId = new Map(rows.map((r) => [r.id, toRun(r)]))
      return ids.map((id) => byId.get(id) ?? null)
    },

    async getRunLogs(actor: Principal | null, runId: string): Promise<LogRecord[]> {
      await service.getRun(actor, runId)
      const rows = await prisma.runLog.findMany({ where: { runId }, orderBy: { id: 'asc' } })
      return rows.map((r) => ({ runId: r.runId, timestamp: r.timestamp, level: r.level as LogLevel, message: r.message }))
    },

    /** Where a run wrote, as an entity other subgraphs extend. */
    async getRunOutput(actor: Principal | null, runId: string): Promise<RunOutput> {
      const run = await service.getRun(actor, runId)
      const pipeline = await loadPipeline(run.pipelineId)
      const destination = pipeline.destination as unknown as EndpointConfig
      return {
        runId,
        pipelineId: run.pipelineId,
        destinationType: destination.type,
        destination: redactSecrets(destination),
        recordsWritten: run.recordsProcessed,
        status: run.status,
      }
    },

    /**
     * The first rows of what a pipeline's destination now holds (at most `limit`, ≤ 1000), for
     * previews and charts; read through the destination connector.
     */
    async previewOutput(actor: Principal | null, runId: string, limit = 100): Promise<{ columns: Column[]; rows: Row[] }> {
      const run = await service.getRun(actor, runId)
      const issues: ValidationIssue[] = []
      checkPage({ limit }, PREVIEW_PAGE, issues)
      if (issues.length) throw errors.invalid(issues)
      const pipeline = await loadPipeline(run.pipelineId)
      const destination = openSecrets(pipeline.destination as unknown as EndpointConfig, secrets)
      const connector = findConnector(destination.type)
      if (!connector?.read) throw errors.invalid([{ field: 'destination.type', message: `${destination.type} cannot be read back` }])
      try {
        const schema = await connector.discover(destination.settings, connectorContext)
        const rows: Row[] = []
        for await (const batch of connector.read(destination.settings, connectorContext, { batchSize: limit })) {
          rows.push(...batch.slice(0, limit - rows.length))
          if (rows.length >= limit) break
        }
        return { columns: schema.columns, rows }
      } catch (error) {
        throw interfaceError(error, 'destination')
      }
    },

    /** The run job: executes one run (see the run engine). */
    execute: (runId: string) => engine.execute(runId),

    /**
     * The scheduler tick: starts a run of every pipeline whose schedule is due. Claiming moves
     * `next_run_at` forward under a row lock, so each due time starts one run however many
     * replicas tick; a pipeline still running skips that time (logged on the skipped tick).
     */
    async runDueSchedules(at: Date = now()): Promise<string[]> {
      const due = await prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<{ id: string; schedule: string }[]>`
          SELECT id, schedule FROM pipelines.pipelines
          WHERE schedule IS NOT NULL AND next_run_at <= ${at}
          ORDER BY next_run_at FOR UPDATE SKIP LOCKED LIMIT 100`
        const started: string[] = []
        for (const row of rows) {
          await tx.pipeline.update({ where: { id: row.id }, data: { nextRunAt: nextRunOf(row.schedule, at) } })
          const run = await startRun(tx, row.id, 'schedule')
          if (run) started.push(run.id)
        }
        return started
      })
      return due
    },

    /** Live updates of a run (status and progress). */
    watchRun(actor: Principal | null, runId: string): AsyncIterable<RunRecord> {
      authorize(actor, 'read')
      const stream = events.subscribe<RunRecord>({ schema: SCHEMA, types: [RUN_EVENTS.updated], where: (e) => e.aggregateId === runId })
      return mapAsyncIterator(stream, (e) => reviveRun(e.payload))
    },

    /** Live log lines of a run. */
    watchRunLogs(actor: Principal | null, runId: string): AsyncIterable<LogRecord> {
      authorize(actor, 'read')
      const stream = events.subscribe<LogRecord>({ schema: SCHEMA, types: [RUN_EVENTS.log], where: (e) => e.aggregateId === runId })
      return mapAsyncIterator(stream, (e) => ({ ...e.payload, timestamp: new Date(e.payload.timestamp) }))
    },

    /**
     * Fails every run whose worker stopped beating (a killed or frozen process) and removes
     * temporary files no live run is writing. Runs every heartbeat in every replica (the
     * update is idempotent); `everyRunLost` at start-up of the only process of a data folder.
     */
    async sweepLostRuns(everyRunLost = false): Promise<string[]> {
      const staleBefore = new Date(now().getTime() - MISSED_HEARTBEATS * heartbeatMs)
      const running = await prisma.run.findMany({
        where: { status: 'running', heartbeatAt: { not: null } },
        select: { id: true, pipelineId: true, heartbeatAt: true },
      })
      const failed: string[] = []
      const live = new Set<string>()
      for (const run of running) {
        if (!everyRunLost && run.heartbeatAt! >= staleBefore) {
          live.add(run.id)
          continue
        }
        if (await engine.failLost(run.id, run.pipelineId, run.heartbeatAt)) {
          failed.push(run.id)
          deps.logger?.error({ runId: run.id, pipelineId: run.pipelineId, lastHeartbeat: run.heartbeatAt }, 'pipeline run lost its worker; marked failed')
        }
      }
      await removeTempFiles(connectorContext, (runId) => live.has(runId))
      return failed
    },

    /** Stops the lost-run sweep. */
    async close() {
      clearInterval(sweeper)
    },

    /** Registers the pipelines' background work. */
    registerJobs() {
      const sweep = (everyRunLost: boolean) =>
        service.sweepLostRuns(everyRunLost).catch((error: unknown) => deps.logger?.error({ err: error }, 'pipeline run sweep failed'))
      void sweep(deps.exclusive ?? false)
      sweeper = setInterval(() => void sweep(false), heartbeatMs)
      sweeper.unref()
      jobs.define<{ runId: string }>({
        name: RUN_QUEUE,
        handle: (data) => engine.execute(data.runId),
        // A run may take long. A run whose process died is failed by the heartbeat sweep long
        // before this expiry; the retry that follows the expiry then finds it ended and stops.
        expireInSeconds: 6 * 3600,
        retryLimit: 2,
        pollingIntervalSeconds: 0.5,
      })
      jobs.define<object>({
        name: SCHEDULER_QUEUE,
        cron: '* * * * *',
        handle: async () => {
          await service.runDueSchedules()
        },
      })
    },
  }
  return service
}

/** The pipelines domain service. */
export type PipelinesService = ReturnType<typeof createPipelinesService>
