import { createHash, randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Database } from './database.js'

/** A folder of migrations in Prisma's layout (`<timestamp>_<name>/migration.sql`) for one schema. */
export interface MigrationSet {
  /** Postgres schema the migrations own; the history table lives there too. */
  schema: string
  /** Absolute path of the `migrations` folder. */
  dir: string
}

/** What a migrate run did. */
export interface MigrationReport {
  schema: string
  applied: string[]
}

/** Raised when an applied migration's file changed afterwards: the database no longer matches the code. */
export class MigrationDriftError extends Error {
  override name = 'MigrationDriftError'
}

// Prisma's lock id, so a `prisma migrate deploy` run elsewhere and ours never overlap.
const ADVISORY_LOCK = 72707369

/**
 * Applies every pending migration of each set, in order, each set in one transaction.
 * The history table has Prisma's `_prisma_migrations` shape, so Prisma's own tools see the
 * same history. The engine that `prisma migrate` needs cannot be downloaded everywhere, so
 * Tessera applies the SQL itself.
 */
export async function applyMigrations(db: Database, sets: readonly MigrationSet[]): Promise<MigrationReport[]> {
  const reports: MigrationReport[] = []
  for (const set of sets) {
    if (!/^[a-z_][a-z0-9_]*$/.test(set.schema)) throw new Error(`Invalid schema name ${set.schema}`)
    const files = await readMigrations(set.dir)
    const applied = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK])
      await tx.exec(`CREATE SCHEMA IF NOT EXISTS "${set.schema}";
        CREATE TABLE IF NOT EXISTS "${set.schema}"."_prisma_migrations" (
          "id" VARCHAR(36) PRIMARY KEY NOT NULL,
          "checksum" VARCHAR(64) NOT NULL,
          "finished_at" TIMESTAMPTZ,
          "migration_name" VARCHAR(255) NOT NULL,
          "logs" TEXT,
          "rolled_back_at" TIMESTAMPTZ,
          "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
          "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`)
      const done = await tx.query<{ migration_name: string; checksum: string }>(
        `SELECT migration_name, checksum FROM "${set.schema}"."_prisma_migrations"
         WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      const known = new Map(done.map((r) => [r.migration_name, r.checksum]))
      const names: string[] = []
      for (const file of files) {
        const checksum = known.get(file.name)
        if (checksum !== undefined) {
          if (checksum !== file.checksum) {
            throw new MigrationDriftError(`Migration ${set.schema}/${file.name} was changed after it was applied; add a new migration instead`)
          }
          continue
        }
        await tx.exec(file.sql)
        await tx.query(
          `INSERT INTO "${set.schema}"."_prisma_migrations"
             (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), file.checksum, file.name],
        )
        names.push(file.name)
      }
      return names
    })
    reports.push({ schema: set.schema, applied })
  }
  return reports
}

async function readMigrations(dir: string) {
  const entries = await readdir(dir, { withFileTypes: true })
  const folders = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
  return Promise.all(
    folders.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8')
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') }
    }),
  )
}
