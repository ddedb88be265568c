// The Prisma schema engine cannot run here, so nothing in Prisma checks that the hand-written
// migration SQL creates what the models describe. This suite does: it migrates empty
// databases on both backends and compares their catalogs with every generated client's models.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { allMigrations } from '../bin/create-process.js'
import { createDatabase, type Database, type SqlExecutor } from '../platform/db/database.js'
import { applyMigrations, MigrationDriftError, type MigrationReport, type MigrationSet } from '../platform/db/migrate.js'
import { compareWithModels, findGeneratedClients, loadGeneratedModels, parsePrismaSchema } from './support/compare-models.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const clients = findGeneratedClients(root)
const models = clients.map((c) => loadGeneratedModels(c.dir))
const sets = allMigrations()

const migrationNames = (set: MigrationSet) =>
  readdirSync(set.dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex')

// Lets a test break the schema on purpose without the next test seeing it: DDL is
// transactional in Postgres, so the rollback undoes every ALTER.
async function inRolledBackTransaction<T>(db: Database, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  const rollback = new Error('rollback')
  let result: T | undefined
  await db
    .transaction(async (tx) => {
      result = await fn(tx)
      throw rollback
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error
    })
  return result as T
}

interface Opened {
  db: Database
  close(): Promise<void>
}

// CREATE DATABASE rather than the shared test database, which other suites may have migrated.
async function freshPostgres(): Promise<Opened> {
  const name = `tessera_migrations_${process.pid}_${Date.now()}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: inject('postgresUrl') })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  const db = await createDatabase({ kind: 'postgres', url: `${inject('postgresBase')}${name}`, poolSize: 2 })
  return {
    db,
    async close() {
      await db.close()
      await admin(`DROP DATABASE IF EXISTS ${name}`)
    },
  }
}

// A cold PGlite, not the run's snapshot: the snapshot was itself made by these migrations.
async function freshPglite(): Promise<Opened> {
  const db = await createDatabase({ kind: 'embedded', dataDir: null })
  return { db, close: () => db.close() }
}

describe('generated Prisma clients', () => {
  it('exist for the platform and every service with a schema.prisma, each with a migration set', () => {
    const services = readdirSync(path.join(root, 'subgraphs')).filter((s) => existsSync(path.join(root, 'subgraphs', s, 'prisma/schema.prisma')))
    expect(clients.map((c) => c.name).sort()).toEqual(['platform', ...services].sort())
    expect(models.flatMap((m) => m.schemas).sort()).toEqual(sets.map((s) => s.schema).sort())
  })

  // Otherwise the suite would prove the migrations against models nobody runs any more.
  it.each(clients)('$name was generated from its current schema.prisma (else run npm run prisma:generate)', (client) => {
    expect(loadGeneratedModels(client.dir)).toEqual(parsePrismaSchema(readFileSync(client.schemaFile, 'utf8')))
  })
})

describe.each([
  { backend: 'a fresh in-memory PGlite', open: freshPglite },
  { backend: 'a fresh PostgreSQL database', open: freshPostgres },
])('migrations on $backend', ({ open }) => {
  let opened: Opened | undefined
  let db: Database
  let firstRun: MigrationReport[]
  beforeAll(async () => {
    opened = await open()
    db = opened.db
    firstRun = await applyMigrations(db, sets)
  })
  afterAll(() => opened?.close())

  it('create every table, column, key, index and foreign key the Prisma models describe, and nothing else', async () => {
    expect(await compareWithModels(db, models)).toEqual([])
  })

  it('are reported as drift, every difference at once, when the database is altered', async () => {
    const problems = await inRolledBackTransaction(db, async (tx) => {
      await tx.exec(`
        ALTER TABLE devices.alerts ALTER COLUMN message SET NOT NULL;
        ALTER TABLE devices.alerts ALTER COLUMN escalation_level TYPE bigint;
        ALTER TABLE devices.alerts DROP COLUMN escalated_at;
        ALTER TABLE devices.alerts ADD COLUMN note text;
        DROP INDEX devices.alerts_status_raised_at_idx;
        CREATE TABLE devices.stray (id integer);
        DROP INDEX platform.api_keys_key_hash_key;
        ALTER TABLE platform.oauth_tokens DROP CONSTRAINT oauth_tokens_client_id_fkey;
        ALTER TABLE platform.rate_limit_counters DROP CONSTRAINT rate_limit_counters_pkey, ADD PRIMARY KEY (key);
      `)
      return compareWithModels(tx, models)
    })
    expect(problems).toEqual([
      'platform.api_keys: model says unique (key_hash), database has no unique index on (key_hash)',
      'platform.oauth_tokens: model says foreign key (client_id) → platform.oauth_clients (client_id) ON DELETE CASCADE ON UPDATE CASCADE, database has no foreign key on (client_id)',
      'platform.rate_limit_counters: model says primary key (key, window_start), database has primary key (key)',
      'devices.alerts.message: model says nullable text, database has NOT NULL text',
      'devices.alerts.escalation_level: model says NOT NULL integer, database has NOT NULL bigint',
      'devices.alerts.escalated_at: model says nullable timestamp(3) with time zone, database has no such column',
      'devices.alerts.note: database has nullable text column that no field of model Alert maps to',
      'devices.alerts: model says index (status, raised_at), database has no index on (status, raised_at)',
      'devices.stray: database has a table that no model maps to',
    ])
    expect(await compareWithModels(db, models)).toEqual([])
  })

  it('apply every migration of every set, platform first, on an empty database', () => {
    expect(firstRun).toEqual(sets.map((s) => ({ schema: s.schema, applied: migrationNames(s) })))
    expect(firstRun[0]?.schema).toBe('platform')
  })

  it('apply nothing on a second run', async () => {
    expect(await applyMigrations(db, sets)).toEqual(sets.map((s) => ({ schema: s.schema, applied: [] })))
  })

  it("record each migration in its schema's _prisma_migrations with the sha256 of its migration.sql", async () => {
    for (const set of sets) {
      const rows = await db.query(
        `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NULL AS kept
         FROM "${set.schema}"."_prisma_migrations" ORDER BY migration_name`,
      )
      expect(rows).toEqual(
        migrationNames(set).map((name) => ({ migration_name: name, checksum: sha256(path.join(set.dir, name, 'migration.sql')), finished: true, kept: true })),
      )
    }
  })

  it('refuse to run once an applied migration no longer matches its recorded checksum', async () => {
    // The last set, so the sets before it are seen to pass before the drift stops the run.
    const set = sets.at(-1)!
    const name = migrationNames(set)[0]!
    const table = `"${set.schema}"."_prisma_migrations"`
    const [recorded] = await db.query<{ checksum: string }>(`SELECT checksum FROM ${table} WHERE migration_name = $1`, [name])
    const checksum = recorded!.checksum
    await db.query(`UPDATE ${table} SET checksum = $1 WHERE migration_name = $2`, ['0'.repeat(64), name])
    try {
      const error = await applyMigrations(db, sets).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(MigrationDriftError)
      expect((error as Error).message).toContain(`${set.schema}/${name}`)
    } finally {
      await db.query(`UPDATE ${table} SET checksum = $1 WHERE migration_name = $2`, [checksum, name])
    }
  })

  // The real schemas use a handful of types; this covers the rest of the mapping (defaults,
  // native types, enums, lists, composite keys, relations) against DDL written the way
  // `prisma migrate` writes it, on both servers.
  const SCRATCH_SCHEMA = `
    datasource db {
      provider = "postgresql"
      schemas  = ["scratch"]
    }

    enum Mood {
      HAPPY
      SAD @map("sad")

      @@map("mood")
      @@schema("scratch")
    }

    model Everything {
      id        Int      @id @default(autoincrement())
      text      String   @default("see https://example.com/a//b") // not a comment inside the string
      uuid      String?  @db.Uuid
      varchar   String   @db.VarChar(40)
      char      String   @db.Char(2)
      small     Int      @db.SmallInt
      big       BigInt
      float     Float
      real      Float    @db.Real
      decimal   Decimal
      money     Decimal  @db.Decimal(10, 2)
      flag      Boolean
      at        DateTime
      atTz      DateTime @db.Timestamptz(6)
      day       DateTime @db.Date
      json      Json
      plainJson Json     @db.Json
      bytes     Bytes
      mood      Mood     @default(HAPPY)
      moods     Mood[]
      tags      String[]
      counts    Int[]
      email     String   @unique @map("e_mail")
      owner     Owner    @relation(fields: [ownerA, ownerB], references: [a, b])
      ownerA    String   @map("owner_a")
      ownerB    Int      @map("owner_b")

      @@unique([small, big(sort: Desc)])
      @@index([ownerA, ownerB])
      @@map("everything")
      @@schema("scratch")
    }

    model Owner {
      a      String
      b      Int
      things Everything[]

      @@id([a, b])
      @@schema("scratch")
    }
  `
  const SCRATCH_SQL = `
    CREATE SCHEMA "scratch";
    CREATE TYPE "scratch"."mood" AS ENUM ('HAPPY', 'sad');
    CREATE TABLE "scratch"."everything" (
      "id" SERIAL NOT NULL,
      "text" TEXT NOT NULL DEFAULT 'see https://example.com/a//b',
      "uuid" UUID,
      "varchar" VARCHAR(40) NOT NULL,
      "char" CHAR(2) NOT NULL,
      "small" SMALLINT NOT NULL,
      "big" BIGINT NOT NULL,
      "float" DOUBLE PRECISION NOT NULL,
      "real" REAL NOT NULL,
      "decimal" DECIMAL(65,30) NOT NULL,
      "money" DECIMAL(10,2) NOT NULL,
      "flag" BOOLEAN NOT NULL,
      "at" TIMESTAMP(3) NOT NULL,
      "atTz" TIMESTAMPTZ(6) NOT NULL,
      "day" DATE NOT NULL,
      "json" JSONB NOT NULL,
      "plainJson" JSON NOT NULL,
      "bytes" BYTEA NOT NULL,
      "mood" "scratch"."mood" NOT NULL DEFAULT 'HAPPY',
      "moods" "scratch"."mood"[],
      "tags" TEXT[],
      "counts" INTEGER[],
      "e_mail" TEXT NOT NULL,
      "owner_a" TEXT NOT NULL,
      "owner_b" INTEGER NOT NULL,
      CONSTRAINT "everything_pkey" PRIMARY KEY ("id")
    );
    CREATE TABLE "scratch"."Owner" (
      "a" TEXT NOT NULL,
      "b" INTEGER NOT NULL,
      CONSTRAINT "Owner_pkey" PRIMARY KEY ("a", "b")
    );
    CREATE UNIQUE INDEX "everything_e_mail_key" ON "scratch"."everything"("e_mail");
    CREATE UNIQUE INDEX "everything_small_big_key" ON "scratch"."everything"("small", "big" DESC);
    CREATE INDEX "everything_owner_a_owner_b_idx" ON "scratch"."everything"("owner_a", "owner_b");
    ALTER TABLE "scratch"."everything" ADD CONSTRAINT "everything_owner_a_owner_b_fkey" FOREIGN KEY ("owner_a", "owner_b")
      REFERENCES "scratch"."Owner"("a", "b") ON DELETE RESTRICT ON UPDATE CASCADE;
  `

  it('map every Prisma type, native type, enum, list, key and relation the way prisma migrate creates them', async () => {
    const problems = await inRolledBackTransaction(db, async (tx) => {
      await tx.exec(SCRATCH_SQL)
      return compareWithModels(tx, [parsePrismaSchema(SCRATCH_SCHEMA)])
    })
    expect(problems).toEqual([])
  })

  it('report enum, foreign-key, precision, list and extra-index drift', async () => {
    const problems = await inRolledBackTransaction(db, async (tx) => {
      await tx.exec(`${SCRATCH_SQL}
        ALTER TYPE scratch.mood RENAME VALUE 'sad' TO 'SAD';
        CREATE TYPE scratch.unused AS ENUM ('x');
        ALTER TABLE scratch.everything ALTER COLUMN "atTz" TYPE timestamptz(3);
        ALTER TABLE scratch.everything ALTER COLUMN moods TYPE text[] USING moods::text[];
        CREATE UNIQUE INDEX extra_idx ON scratch.everything (text);
        ALTER TABLE scratch.everything DROP CONSTRAINT everything_owner_a_owner_b_fkey,
          ADD CONSTRAINT everything_owner_a_owner_b_fkey FOREIGN KEY (owner_a, owner_b)
            REFERENCES scratch."Owner" (a, b) ON DELETE CASCADE ON UPDATE CASCADE;
      `)
      return compareWithModels(tx, [parsePrismaSchema(SCRATCH_SCHEMA)])
    })
    expect(problems).toEqual([
      'scratch.everything.atTz: model says NOT NULL timestamp(6) with time zone, database has NOT NULL timestamp(3) with time zone',
      'scratch.everything.moods: model says nullable enum scratch.mood[], database has nullable text[]',
      'scratch.everything: database has unique index extra_idx (text) that model Everything does not declare',
      'scratch.everything: model says foreign key (owner_a, owner_b) → scratch.Owner (a, b) ON DELETE RESTRICT ON UPDATE CASCADE, database has foreign key (owner_a, owner_b) → scratch.Owner (a, b) ON DELETE CASCADE ON UPDATE CASCADE',
      'scratch.mood: enum Mood says values (HAPPY, sad), database has values (HAPPY, SAD)',
      'scratch.unused: database has an enum type that no Prisma enum maps to',
    ])
  })
})
