import type { Database } from '../db/database.js'
import type { JobRunner } from '../jobs/job-runner.js'

/** How long published events stay in a service's outbox. */
export const OUTBOX_RETENTION_DAYS = 7

/**
 * Deletes a service's outbox events older than the retention period. Subscribers get events
 * live as they commit; the outbox keeps them a while for consumers that read back by id.
 */
export async function pruneOutbox(db: Database, schema: string, now: Date = new Date()): Promise<number> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name ${schema}`)
  const before = new Date(now.getTime() - OUTBOX_RETENTION_DAYS * 24 * 3600 * 1000)
  const rows = await db.query(`DELETE FROM "${schema}".outbox WHERE occurred_at < $1 RETURNING 1`, [before])
  return rows.length
}

/** Prunes a service's outbox hourly on the job queue (one replica per tick). */
export function scheduleOutboxPruning(jobs: JobRunner, db: Database, schema: string) {
  jobs.define<object>({
    name: `${schema}.outbox-prune`,
    cron: '17 * * * *',
    handle: async () => {
      await pruneOutbox(db, schema)
    },
  })
}
