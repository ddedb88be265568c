import type { Database } from '../db/database.js'
import type { JobRunner } from '../jobs/job-runner.js'

/** How long published events stay in the outbox. */
export const OUTBOX_RETENTION_DAYS = 7

/**
 * Deletes outbox events older than the retention period. Subscribers get events live as
 * they commit; the outbox keeps them a while for consumers that read back or catch up.
 */
export async function pruneOutbox(db: Database, now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - OUTBOX_RETENTION_DAYS * 24 * 3600 * 1000)
  const rows = await db.query('DELETE FROM platform.outbox WHERE occurred_at < $1 RETURNING 1', [before])
  return rows.length
}

/** Prunes the outbox hourly on the job queue (one replica per tick). */
export function scheduleOutboxPruning(jobs: JobRunner, db: Database) {
  jobs.define<object>({
    name: 'platform.outbox-prune',
    cron: '17 * * * *',
    handle: async () => {
      await pruneOutbox(db)
    },
  })
}
