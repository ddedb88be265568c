import type { SecretBox } from '../../platform/auth/secrets.js'
import { outboxRow, writeOutbox } from '../../platform/events/event-bus.js'
import { ConnectorConfigError, connectorFailure, type ConnectorContext, type Row, type Writer } from './connectors/connector.js'
import { findConnector } from './connectors/index.js'
import type { Prisma, PrismaClient } from './generated/prisma/client.js'
import { openSecrets, type EndpointConfig, type SyncSettings } from './pipeline-config.js'
import { toRun, type LogLevel, type RunRecord } from './records.js'
import { planTransformations, TransformError, type Transformation } from './transform/transformations.js'

/** Names of the events runs publish (outbox `type`). */
export const RUN_EVENTS = { updated: 'run.updated', log: 'run.log' } as const

/** A run that ended in failure, with the interface's code (CONN_001, CONN_002, PIPE_002, …). */
class RunFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** What the engine needs. */
export interface RunEngineDeps {
  prisma: PrismaClient
  secrets: SecretBox
  connectorContext: ConnectorContext
  now: () => Date
  /** How often a running run's worker records that it is alive (ms). */
  heartbeatMs: number
}

// Progress is saved and published at most once a second (saving it also tells the run whether
// it was cancelled), and logged only now and then.
const LOG_EVERY_ROWS = 100_000
const PROGRESS_EVERY_MS = 1000

/**
 * Executes a run: check and read the source in batches, apply the transformations, write
 * every batch to the destination, commit once at the end (so a failed run leaves the
 * destination as it was), then record the outcome and the incremental cursor. Failures are
 * recorded on the run (status failed, code, ERROR log) rather than thrown, so the job queue
 * retries only runs whose process died. A run whose row is no longer `running` (its pipeline
 * was deleted) stops at the next batch and rolls back.
 */
export function createRunEngine(deps: RunEngineDeps) {
  const { prisma } = deps

  async function log(runId: string, level: LogLevel, message: string) {
    await prisma.$transaction(async (tx) => {
      const row = await tx.runLog.create({ data: { runId, level, message, timestamp: deps.now() } })
      await writeOutbox(tx, 'pipelines', [outboxRow(RUN_EVENTS.log, runId, { runId, timestamp: row.timestamp.toISOString(), level, message })])
    })
  }

  async function publishRun(tx: Prisma.TransactionClient, run: RunRecord) {
    await writeOutbox(tx, 'pipelines', [outboxRow(RUN_EVENTS.updated, run.id, run)])
  }

  async function finish(
    runId: string,
    outcome: { status: 'success' | 'failed'; code?: string; message?: string; cursorTo?: unknown; read: number; processed: number },
    pipelineId: string,
    cursorColumn: string | null,
  ) {
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: runId, status: 'running' },
        data: {
          status: outcome.status,
          completedAt: deps.now(),
          recordsRead: outcome.read,
          recordsProcessed: outcome.processed,
          errorCode: outcome.code ?? null,
          errorMessage: outcome.message ?? null,
          ...(outcome.cursorTo !== undefined ? { cursorTo: { value: toJson(outcome.cursorTo) } } : {}),
        },
      })
      if (count === 0) return
      if (outcome.status === 'success' && cursorColumn && outcome.cursorTo !== undefined && outcome.cursorTo !== null) {
        await tx.pipeline.update({ where: { id: pipelineId }, data: { cursorState: { column: cursorColumn, value: toJson(outcome.cursorTo) } } })
      }
      await publishRun(tx, toRun(await tx.run.findUniqueOrThrow({ where: { id: runId } })))
    })
  }

  return {
    async execute(runId: string): Promise<void> {
      const run = await prisma.run.findUnique({ where: { id: runId }, include: { pipeline: true } })
      if (!run || run.status !== 'running') return
      const pipeline = run.pipeline
      const sync = pipeline.sync as unknown as SyncSettings
      const source = openSecrets(pipeline.source as unknown as EndpointConfig, deps.secrets)
      const destination = openSecrets(pipeline.destination as unknown as EndpointConfig, deps.secrets)
      const sourceConnector = findConnector(source.type)
      const destinationConnector = findConnector(destination.type)
      const ctx: ConnectorContext = { ...deps.connectorContext, runId }
      // The heartbeat runs beside the work, so a slow batch does not look like a dead worker.
      const beat = () => prisma.run.updateMany({ where: { id: runId, status: 'running' }, data: { heartbeatAt: deps.now() } })
      await beat()
      const heartbeat = setInterval(() => void beat().catch(() => {}), deps.heartbeatMs)
      heartbeat.unref()
      let read = 0
      let processed = 0
      let writer: Writer | undefined
      let cursorTo: unknown
      try {
        if (!sourceConnector?.read) throw new RunFailure('PIPE_002', `source type ${source.type} cannot be read`)
        if (!destinationConnector?.openWriter) throw new RunFailure('PIPE_002', `destination type ${destination.type} cannot be written`)
        await log(runId, 'INFO', `Run started (${run.trigger}): ${sourceConnector.name} → ${destinationConnector.name}, ${sync.mode}, ${sync.writeMode}`)

        const schema = await attempt('source', () =>
          sourceConnector.check(source.settings, ctx, 'source').then(() => sourceConnector.discover(source.settings, ctx)),
        )
        await log(runId, 'INFO', `Source ${schema.name}: ${schema.columns.length} columns (${schema.columns.map((c) => `${c.name} ${c.type}`).join(', ')})`)
        const transformations = pipeline.transformations as unknown as Transformation[]
        const plan = planTransformations(transformations, schema.columns)
        if (!plan.ok) throw new RunFailure('PIPE_002', plan.issues.map((i) => `${i.field}: ${i.message}`).join('; '))
        // Without steps a source's rows already have exactly its columns: pass them through.
        const apply = transformations.length ? plan.apply : (rows: Row[]) => rows
        if (sync.cursorColumn && !schema.columns.some((c) => c.name === sync.cursorColumn)) {
          throw new RunFailure('PIPE_002', `sync.cursor_column: the source has no column ${sync.cursorColumn}`)
        }
        const primaryKey = sync.primaryKey.length ? sync.primaryKey : schema.primaryKey
        if (sync.writeMode === 'merge') {
          const missing = primaryKey.filter((k) => !plan.columns.some((c) => c.name === k))
          if (!primaryKey.length) throw new RunFailure('PIPE_002', 'sync.primary_key: merge needs a key and the source has none; set sync.primary_key')
          if (missing.length) throw new RunFailure('PIPE_002', `sync.primary_key: the transformed rows have no column ${missing.join(', ')}`)
        }

        writer = await attempt('destination', async () => {
          await destinationConnector.check(destination.settings, ctx, 'destination')
          return destinationConnector.openWriter!(destination.settings, ctx, { columns: plan.columns, mode: sync.writeMode, primaryKey })
        })

        const after = sync.mode === 'incremental' ? ((pipeline.cursorState as { value?: unknown } | null)?.value ?? null) : undefined
        if (sync.mode === 'incremental') {
          await prisma.run.update({ where: { id: runId }, data: { cursorFrom: { value: toJson(after) } } })
          await log(
            runId,
            'INFO',
            after === null
              ? `Incremental: first run, reading everything by ${sync.cursorColumn}`
              : `Incremental: reading rows with ${sync.cursorColumn} > ${String(after)}`,
          )
        }
        const batches = sourceConnector
          .read(source.settings, ctx, {
            batchSize: sync.batchSize,
            ...(sync.mode === 'incremental' && sync.cursorColumn ? { cursor: { column: sync.cursorColumn, after } } : {}),
          })
          [Symbol.asyncIterator]()
        let nextLog = LOG_EVERY_ROWS
        let published = 0
        for (;;) {
          const next = await attempt('source', () => batches.next())
          if (next.done) break
          const batch: Row[] = next.value
          read += batch.length
          if (sync.cursorColumn && batch.length) cursorTo = batch[batch.length - 1]![sync.cursorColumn]
          const out = apply(batch)
          await attempt('destination', () => writer!.write(out))
          processed += out.length
          if (Date.now() - published >= PROGRESS_EVERY_MS) {
            published = Date.now()
            // Saving progress also tells the run whether it was cancelled (its pipeline deleted).
            const { count } = await prisma.run.updateMany({ where: { id: runId, status: 'running' }, data: { recordsRead: read, recordsProcessed: processed } })
            if (count === 0) {
              await batches.return?.()
              await writer.abort()
              return
            }
            const progress = toRun(await prisma.run.findUniqueOrThrow({ where: { id: runId } }))
            await writeOutbox(prisma, 'pipelines', [outboxRow(RUN_EVENTS.updated, runId, progress)])
          }
          if (read >= nextLog) {
            nextLog += LOG_EVERY_ROWS
            await log(runId, 'INFO', `Read ${read} rows, wrote ${processed}`)
          }
        }
        await attempt('destination', () => writer!.commit())
        writer = undefined
        if (read === 0) await log(runId, 'WARN', sync.mode === 'incremental' ? 'No new rows since the last run' : 'The source has no rows')
        else if (processed < read) await log(runId, 'WARN', `Filters dropped ${read - processed} of ${read} rows`)
        await log(runId, 'SUCCESS', `Run succeeded: read ${read} rows, wrote ${processed} to ${destinationConnector.name} (${sync.writeMode})`)
        await finish(
          runId,
          { status: 'success', read, processed, ...(sync.cursorColumn ? { cursorTo: cursorTo ?? after ?? null } : {}) },
          pipeline.id,
          sync.cursorColumn,
        )
      } catch (error) {
        await writer?.abort().catch(() => {})
        const failure =
          error instanceof RunFailure
            ? error
            : error instanceof TransformError || error instanceof ConnectorConfigError
              ? new RunFailure('PIPE_002', error.message)
              : new RunFailure('SERVER_ERROR', `Internal error: ${(error as Error).message ?? String(error)}`)
        // The pipeline may be gone (deleted mid-run): then there is nothing left to record.
        if (!(await prisma.run.findUnique({ where: { id: runId } }))) return
        await log(runId, 'ERROR', `${failure.code}: ${failure.message}`)
        await finish(runId, { status: 'failed', code: failure.code, message: failure.message, read, processed }, pipeline.id, null)
      } finally {
        clearInterval(heartbeat)
      }
    },

    /**
     * Fails a run whose worker is gone (no heartbeat since `lastBeat`): an ERROR log line with
     * the reason, status `failed`, its event. The destination was never committed, so it is as
     * it was. Returns false when the run was no longer running.
     */
    async failLost(runId: string, pipelineId: string, lastBeat: Date | null): Promise<boolean> {
      const message = `The worker executing this run stopped${lastBeat ? ` (last heartbeat ${lastBeat.toISOString()})` : ''}; the destination was left as it was. Start the pipeline again.`
      const run = await prisma.run.findUnique({ where: { id: runId }, select: { status: true, recordsRead: true, recordsProcessed: true } })
      if (run?.status !== 'running') return false
      await log(runId, 'ERROR', `SERVER_ERROR: ${message}`)
      await finish(runId, { status: 'failed', code: 'SERVER_ERROR', message, read: run.recordsRead, processed: run.recordsProcessed }, pipelineId, null)
      return true
    },
  }
}

/** Runs a connector call, turning a connection failure into the run's code for that side. */
async function attempt<T>(side: 'source' | 'destination', work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const failure = connectorFailure(error, side)
    if (!failure) throw error
    throw new RunFailure(failure.code, failure.code === 'PIPE_002' ? `${failure.field}: ${failure.message}` : failure.message)
  }
}

function toJson(value: unknown): Prisma.InputJsonValue {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'bigint') return value.toString()
  return value as Prisma.InputJsonValue
}
