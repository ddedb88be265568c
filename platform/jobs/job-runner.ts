import { PgBoss, fromPrisma, type Db as IDatabase, type PrismaTransactionLike } from 'pg-boss'
import type { PGlite } from '@electric-sql/pglite'
import type { Database } from '../db/database.js'

/** A Prisma transaction client, as far as pg-boss needs one. */
export type PrismaTransaction = PrismaTransactionLike

/** How a queue behaves. */
export interface QueueDefinition<T> {
  name: string
  handle(data: T): Promise<void>
  /** Attempts after the first failure (default 3), with exponential backoff from `retryDelaySeconds`. */
  retryLimit?: number
  retryDelaySeconds?: number
  /** How often an idle worker looks for due jobs (default 1 s; pg-boss's minimum is 0.5). */
  pollingIntervalSeconds?: number
  /** A cron expression (UTC) on which the job is enqueued; one replica enqueues each tick. */
  cron?: string
  /** How long a job may run before it counts as lost and is retried (default 15 min). */
  expireInSeconds?: number
  /** Jobs of this queue one process runs at once (default 1), e.g. deliveries waiting on slow receivers. */
  concurrency?: number
}

/** Options of the job runner. */
export interface JobRunnerOptions {
  onError?: (error: unknown) => void
}

/**
 * Postgres-backed jobs (pg-boss) on the same database as the data, so a job can be enqueued
 * in the transaction that makes it necessary, survives restarts, runs once across replicas,
 * and is retried after a failure.
 */
export function createJobRunner(db: Database, options: JobRunnerOptions = {}) {
  const handle = db.handle
  const boss =
    handle.kind === 'embedded'
      ? new PgBoss({ db: pgliteDatabase(handle.pglite), backend: 'pglite', schema: 'pgboss' })
      : new PgBoss({ connectionString: handle.url, schema: 'pgboss', max: 4 })
  boss.on('error', (error) => options.onError?.(error))
  const queues: QueueDefinition<never>[] = []
  let started = false

  return {
    /** Declares a queue and its handler; call before `start`. */
    define<T>(queue: QueueDefinition<T>) {
      if (started) throw new Error(`Queue ${queue.name} defined after start`)
      queues.push(queue as QueueDefinition<never>)
    },

    /** Installs pg-boss's schema (first time), creates the queues and starts the workers. */
    async start() {
      await boss.start()
      for (const q of queues) {
        await boss.createQueue(q.name, {
          retryLimit: q.retryLimit ?? 3,
          retryDelay: q.retryDelaySeconds ?? 2,
          retryBackoff: true,
          ...(q.expireInSeconds ? { expireInSeconds: q.expireInSeconds } : {}),
        })
        if (q.cron) await boss.schedule(q.name, q.cron, {}, { tz: 'UTC' })
        await boss.work<object>(
          q.name,
          { pollingIntervalSeconds: q.pollingIntervalSeconds ?? 1, batchSize: 1, localConcurrency: q.concurrency ?? 1 },
          async (jobs) => {
            for (const job of jobs) await q.handle(job.data as never)
          },
        )
      }
      started = true
    },

    /**
     * Enqueues a job. With `tx` (a Prisma interactive transaction) the job is written in that
     * transaction and exists only if it commits.
     */
    async send(queue: string, data: object, opts: { startAfter?: Date; tx?: PrismaTransaction; singletonKey?: string } = {}) {
      return boss.send(queue, data, {
        startAfter: opts.startAfter,
        singletonKey: opts.singletonKey,
        db: opts.tx ? fromPrisma(opts.tx) : undefined,
      })
    },

    /** Stops taking jobs and waits (up to `timeoutMs`) for the running ones to finish. */
    async stop(timeoutMs = 10_000) {
      if (!started) return
      started = false
      await boss.stop({ graceful: true, close: true, timeout: timeoutMs })
    },

    get isRunning() {
      return started
    },
  }
}

/** The job runner of a process. */
export type JobRunner = ReturnType<typeof createJobRunner>

// pg-boss's own PGlite adapter rolls back a failed multi-statement block only after PGlite's
// lock is released, so an unrelated query can land in the aborted transaction (25P02). Running
// those blocks inside `pglite.transaction` keeps the rollback under the same lock.
function pgliteDatabase(pglite: PGlite): IDatabase {
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (values?.length) return pglite.query(text, values)
      return pglite.transaction(async (tx) => {
        const results = await tx.exec(text)
        return { rows: results.flatMap((r) => r.rows ?? []) }
      })
    },
    async listen(channel: string, onNotification: (payload: string) => void, onReconnect: () => void) {
      const unlisten = await pglite.listen(channel, onNotification)
      onReconnect()
      return { close: async () => unlisten() }
    },
  } as IDatabase
}
