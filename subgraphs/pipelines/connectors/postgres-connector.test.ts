import { createServer, type Server } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPipelinesDatabase, type PipelinesDatabase } from '../../../test/support/pipelines-postgres.js'
import { ConnectionError, ConnectorConfigError, type Column, type Row, type WriteTarget } from './connector.js'
import { postgresConnector as postgres, type PostgresSettings } from './postgres-connector.js'
import { STRESS_COLUMNS, stressRows } from './stress-rows.js'

const context = { dataDir: '/nonexistent' }
let sandbox: PipelinesDatabase
let admin: pg.Client
let db: pg.Client
let database: string
let base: Omit<PostgresSettings, 'table'>

beforeAll(async () => {
  sandbox = await createPipelinesDatabase('tessera_pg_connector')
  admin = sandbox.admin
  base = sandbox.connection
  database = sandbox.name
  db = new pg.Client(sandbox.url)
  await db.connect()
})

afterAll(async () => {
  await db?.end()
  await sandbox?.drop()
})

const settings = (table: string, more: Partial<PostgresSettings> = {}): PostgresSettings => ({ ...base, table, ...more })

async function readAll(s: PostgresSettings, batchSize = 1000, cursor?: { column: string; after: unknown }): Promise<{ rows: Row[]; sizes: number[] }> {
  const rows: Row[] = []
  const sizes: number[] = []
  for await (const batch of postgres.read(s, context, { batchSize, ...(cursor ? { cursor } : {}) })) {
    sizes.push(batch.length)
    rows.push(...batch)
  }
  return { rows, sizes }
}

async function write(s: PostgresSettings, target: WriteTarget, ...batches: Row[][]): Promise<void> {
  const writer = await postgres.openWriter(s, context, target)
  for (const batch of batches) await writer.write(batch)
  await writer.commit()
}

async function expectError<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(type)
  return error as E
}

const SIMPLE: Column[] = [
  { name: 'id', type: 'integer', nullable: false },
  { name: 'name', type: 'string', nullable: true },
]

describe('postgres connector: check', () => {
  it('connects and, for a source, finds the table', async () => {
    await db.query('CREATE TABLE checked (id int PRIMARY KEY)')
    await postgres.check(settings('checked'), context)
    await postgres.check(settings('checked'), context, 'source')
    // A destination may not exist yet: the writer creates it.
    await postgres.check(settings('not_yet'), context, 'destination')
    await postgres.check(settings('not_yet'), context)
  })

  it('reports a missing source table as a configuration error on `table`', async () => {
    const error = await expectError(postgres.check(settings('no_such_table'), context, 'source'), ConnectorConfigError)
    expect(error.field).toBe('table')
    expect((await expectError(postgres.discover(settings('no_such_table'), context), ConnectorConfigError)).field).toBe('table')
  })

  it('reports a refused login as a ConnectionError that does not show the password', async () => {
    // The test cluster trusts every local login, so a password alone cannot fail; a role
    // that may not log in is refused at authentication all the same.
    await admin.query(`DROP ROLE IF EXISTS tessera_nologin; CREATE ROLE tessera_nologin NOLOGIN PASSWORD 'right-password-123'`)
    const password = 'Wr0ng-Secret-Pa55word'
    const error = await expectError(postgres.check(settings('checked', { user: 'tessera_nologin', password }), context), ConnectionError)
    expect(error.message).toContain('tessera_nologin')
    expect(error.message).not.toContain(password)
    const unknown = await expectError(postgres.check(settings('checked', { user: 'no_such_role', password }), context), ConnectionError)
    expect(unknown.message).not.toContain(password)
  })

  it('reports a closed port as a ConnectionError without the password', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    const password = 'Secret-On-A-Closed-Port'
    const error = await expectError(postgres.check(settings('checked', { host: '127.0.0.1', port, password }), context), ConnectionError)
    expect(error.message).toMatch(/ECONNREFUSED/)
    expect(error.message).not.toContain(password)
  })

  it('gives up after connect_timeout_seconds on a server that never answers', async () => {
    const silent: Server = createServer(() => {}).listen(0, '127.0.0.1')
    await new Promise((resolve) => silent.once('listening', resolve))
    const address = silent.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const started = Date.now()
    try {
      await expectError(postgres.check(settings('checked', { host: '127.0.0.1', port, connect_timeout_seconds: 1 }), context), ConnectionError)
      expect(Date.now() - started).toBeLessThan(5000)
    } finally {
      silent.close()
    }
  })

  it('reports a missing database as a configuration error on `database`', async () => {
    const error = await expectError(postgres.check(settings('checked', { database: 'no_such_database_here' }), context), ConnectorConfigError)
    expect(error.field).toBe('database')
  })
})

describe('postgres connector: discover and read', () => {
  beforeAll(async () => {
    await db.query(`
      CREATE DOMAIN positive_int AS int4 CHECK (VALUE > 0);
      CREATE TABLE typed (
        tenant int2 NOT NULL, id int8 NOT NULL, i4 int4, dom positive_int, num numeric(12, 3), f4 float4, f8 float8,
        ok bool, ts timestamp, tstz timestamptz, d date, j json, jb jsonb, t text, vc varchar(20), u uuid, arr int4[],
        PRIMARY KEY (tenant, id)
      );
      INSERT INTO typed VALUES
        (1, 9007199254740993, 7, 3, 1234.5, 1.5, 2.25, true, '2024-05-01 12:30:00.5', '2024-05-01 12:30:00+02', '2024-05-01',
         '{"a": [1, 2]}', '{"b": {"c": null}}', 'text', 'varchar', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,2,3}'),
        (1, 2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    `)
  })

  it('maps column types, nullability and the primary key', async () => {
    const schema = await postgres.discover(settings('typed'), context)
    expect(schema.primaryKey).toEqual(['tenant', 'id'])
    expect(schema.columns).toEqual([
      { name: 'tenant', type: 'integer', nullable: false },
      { name: 'id', type: 'integer', nullable: false },
      { name: 'i4', type: 'integer', nullable: true },
      { name: 'dom', type: 'integer', nullable: true },
      { name: 'num', type: 'number', nullable: true },
      { name: 'f4', type: 'number', nullable: true },
      { name: 'f8', type: 'number', nullable: true },
      { name: 'ok', type: 'boolean', nullable: true },
      { name: 'ts', type: 'timestamp', nullable: true },
      { name: 'tstz', type: 'timestamp', nullable: true },
      { name: 'd', type: 'timestamp', nullable: true },
      { name: 'j', type: 'json', nullable: true },
      { name: 'jb', type: 'json', nullable: true },
      { name: 't', type: 'string', nullable: true },
      { name: 'vc', type: 'string', nullable: true },
      { name: 'u', type: 'string', nullable: true },
      { name: 'arr', type: 'string', nullable: true },
    ])
  })

  it('converts values to the Row conventions, in primary-key order', async () => {
    const { rows } = await readAll(settings('typed'))
    expect(rows).toEqual([
      {
        tenant: 1,
        id: 2,
        i4: null,
        dom: null,
        num: null,
        f4: null,
        f8: null,
        ok: null,
        ts: null,
        tstz: null,
        d: null,
        j: null,
        jb: null,
        t: null,
        vc: null,
        u: null,
        arr: null,
      },
      {
        tenant: 1,
        id: '9007199254740993',
        i4: 7,
        dom: 3,
        num: 1234.5,
        f4: 1.5,
        f8: 2.25,
        ok: true,
        ts: new Date('2024-05-01T12:30:00.500Z'),
        tstz: new Date('2024-05-01T10:30:00.000Z'),
        d: new Date('2024-05-01T00:00:00.000Z'),
        j: { a: [1, 2] },
        jb: { b: { c: null } },
        t: 'text',
        vc: 'varchar',
        u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        arr: '{1,2,3}',
      },
    ])
  })

  it('reads 25k rows in batches of at most batchSize, each row once', async () => {
    await db.query(`CREATE TABLE many AS SELECT g AS id, 'row ' || g AS label, now() - g * interval '1 second' AS at FROM generate_series(1, 25000) g`)
    await db.query('ALTER TABLE many ADD PRIMARY KEY (id)')
    const { rows, sizes } = await readAll(settings('many'), 1000)
    expect(sizes).toHaveLength(25)
    expect(Math.max(...sizes)).toBe(1000)
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 25000 }, (_, i) => i + 1))
    const odd = await readAll(settings('many'), 999)
    expect(Math.max(...odd.sizes)).toBeLessThanOrEqual(999)
    expect(odd.rows).toHaveLength(25000)
  })

  it('stops and releases the connection when the consumer stops early', async () => {
    for await (const batch of postgres.read(settings('many'), context, { batchSize: 100 })) {
      expect(batch).toHaveLength(100)
      break
    }
    // A backend leaves pg_stat_activity a moment after its client disconnects.
    await expect
      .poll(
        async () =>
          (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tessera-pipelines'`, [database])).rows[0]
            .n,
        { timeout: 3000 },
      )
      .toBe(0)
  })

  it('refuses a batch size that is not a positive integer', async () => {
    await expect(readAll(settings('many'), 0)).rejects.toThrow(RangeError)
  })

  it('reads incrementally: rows past the cursor, in cursor order, NULL cursors only on the first run', async () => {
    await db.query(`CREATE TABLE events (id int PRIMARY KEY, updated timestamptz, seq int8)`)
    await db.query(
      `INSERT INTO events VALUES (1, '2024-01-03', 30), (2, '2024-01-01', 10), (3, NULL, NULL), (4, '2024-01-02', 9007199254740995), (5, '2024-01-04', 40)`,
    )
    const first = await readAll(settings('events'), 2, { column: 'updated', after: null })
    expect(first.rows.map((r) => r.id)).toEqual([3, 2, 4, 1, 5])
    expect(Math.max(...first.sizes)).toBe(2)
    const next = await readAll(settings('events'), 10, { column: 'updated', after: new Date('2024-01-02T00:00:00Z') })
    expect(next.rows.map((r) => r.id)).toEqual([1, 5])
    // A saved cursor comes back from JSON as text.
    const fromText = await readAll(settings('events'), 10, { column: 'updated', after: '2024-01-03T00:00:00.000Z' })
    expect(fromText.rows.map((r) => r.id)).toEqual([5])
    const big = await readAll(settings('events'), 10, { column: 'seq', after: '9007199254740994' })
    expect(big.rows.map((r) => r.seq)).toEqual(['9007199254740995'])
    await expect(readAll(settings('events'), 10, { column: 'nope', after: null })).rejects.toBeInstanceOf(ConnectorConfigError)
  })
})

describe('postgres connector: writes', () => {
  const count = async (table: string) => (await db.query(`SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(table)}`)).rows[0].n as number
  const names = async (table: string) => (await db.query(`SELECT id::int, name FROM ${pg.escapeIdentifier(table)} ORDER BY id`)).rows

  it('creates the table, with its key, on the first write', async () => {
    await write(settings('created'), { columns: SIMPLE, mode: 'append', primaryKey: ['id'] }, [{ id: 1, name: 'a' }])
    const schema = await postgres.discover(settings('created'), context)
    expect(schema.columns).toEqual(SIMPLE)
    expect(schema.primaryKey).toEqual(['id'])
    const types = await db.query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'created' ORDER BY ordinal_position`)
    expect(types.rows).toEqual([
      { column_name: 'id', data_type: 'bigint' },
      { column_name: 'name', data_type: 'text' },
    ])
  })

  it('creates a missing schema too', async () => {
    await write(settings('t', { schema: 'fresh_schema' }), { columns: SIMPLE, mode: 'replace', primaryKey: [] }, [{ id: 1, name: 'x' }])
    expect((await db.query('SELECT count(*)::int AS n FROM fresh_schema.t')).rows[0].n).toBe(1)
  })

  it('replace leaves exactly the new rows, keeping the table, its views and grants', async () => {
    await db.query(
      `CREATE TABLE replaced (id int8 PRIMARY KEY, name text, extra text DEFAULT 'kept'); INSERT INTO replaced VALUES (1, 'old', 'x'), (2, 'old', 'y'), (3, 'old', 'z')`,
    )
    await db.query('CREATE VIEW replaced_view AS SELECT id, name FROM replaced')
    await write(settings('replaced'), { columns: SIMPLE, mode: 'replace', primaryKey: ['id'] }, [{ id: 2, name: 'new' }], [{ id: 4, name: 'newer' }])
    expect(await names('replaced')).toEqual([
      { id: 2, name: 'new' },
      { id: 4, name: 'newer' },
    ])
    expect((await db.query('SELECT extra FROM replaced ORDER BY id')).rows).toEqual([{ extra: 'kept' }, { extra: 'kept' }])
    expect(await count('replaced_view')).toBe(2)
  })

  it('append adds rows', async () => {
    await write(settings('appended'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 1, name: 'a' }])
    await write(settings('appended'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [
      { id: 2, name: 'b' },
      { id: 1, name: 'a again' },
    ])
    expect(await count('appended')).toBe(3)
  })

  it('merge upserts: the same rows twice leave no duplicates, changed rows are updated', async () => {
    const target: WriteTarget = { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] }
    const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, name: `v1 ${i}` }))
    await write(settings('merged'), target, rows.slice(0, 250), rows.slice(250))
    await write(settings('merged'), target, rows)
    expect(await count('merged')).toBe(500)
    await write(settings('merged'), target, [
      { id: 7, name: 'v2' },
      { id: 1000, name: 'new' },
    ])
    expect(await count('merged')).toBe(501)
    expect((await db.query(`SELECT name FROM merged WHERE id IN (7, 8) ORDER BY id`)).rows).toEqual([{ name: 'v2' }, { name: 'v1 8' }])
  })

  it('merge keeps the last of several rows with one key in a run', async () => {
    const target: WriteTarget = { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] }
    await write(
      settings('merged_dupes'),
      target,
      [{ id: 1, name: 'first' }],
      [
        { id: 1, name: 'second' },
        { id: 2, name: 'x' },
        { id: 1, name: 'last' },
      ],
    )
    expect(await names('merged_dupes')).toEqual([
      { id: 1, name: 'last' },
      { id: 2, name: 'x' },
    ])
  })

  it('merge works on a composite key and on a unique index that is not the primary key', async () => {
    await db.query('CREATE TABLE merged_unique (surrogate serial PRIMARY KEY, a int NOT NULL, b text NOT NULL, v text, UNIQUE (b, a))')
    const columns: Column[] = [
      { name: 'a', type: 'integer', nullable: false },
      { name: 'b', type: 'string', nullable: false },
      { name: 'v', type: 'string', nullable: true },
    ]
    const target: WriteTarget = { columns, mode: 'merge', primaryKey: ['a', 'b'] }
    await write(settings('merged_unique'), target, [
      { a: 1, b: 'x', v: '1' },
      { a: 1, b: 'y', v: '2' },
    ])
    await write(settings('merged_unique'), target, [{ a: 1, b: 'x', v: '3' }])
    expect((await db.query('SELECT a, b, v FROM merged_unique ORDER BY b')).rows).toEqual([
      { a: 1, b: 'x', v: '3' },
      { a: 1, b: 'y', v: '2' },
    ])
  })

  it('merge refuses an existing table without a unique key on the merge columns, and rows without a key', async () => {
    await db.query('CREATE TABLE no_key (id int8, name text)')
    const error = await expectError(
      postgres.openWriter(settings('no_key'), context, { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] }),
      ConnectorConfigError,
    )
    expect(error.field).toBe('table')
    expect(error.message).toMatch(/merge needs a primary key or unique index on \(id\)/)
    await expect(postgres.openWriter(settings('no_key'), context, { columns: SIMPLE, mode: 'merge', primaryKey: [] })).rejects.toBeInstanceOf(
      ConnectorConfigError,
    )
    const writer = await postgres.openWriter(settings('keyed_merge'), context, { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] })
    await expect(writer.write([{ id: null, name: 'x' }])).rejects.toThrow(/no value for key column "id"/)
    await writer.abort()
  })

  it('refuses an existing table that lacks a written column', async () => {
    await db.query('CREATE TABLE narrow (id int8)')
    const error = await expectError(postgres.openWriter(settings('narrow'), context, { columns: SIMPLE, mode: 'append', primaryKey: [] }), ConnectorConfigError)
    expect(error.message).toMatch(/no column "name"/)
  })

  it('abort leaves the destination as it was, for every mode', async () => {
    await db.query(`CREATE TABLE guarded (id int8 PRIMARY KEY, name text); INSERT INTO guarded VALUES (1, 'keep'), (2, 'keep')`)
    for (const mode of ['replace', 'append', 'merge'] as const) {
      const writer = await postgres.openWriter(settings('guarded'), context, { columns: SIMPLE, mode, primaryKey: ['id'] })
      await writer.write([
        { id: 1, name: 'changed' },
        { id: 3, name: 'new' },
      ])
      await writer.abort()
      expect(await names('guarded')).toEqual([
        { id: 1, name: 'keep' },
        { id: 2, name: 'keep' },
      ])
    }
    const writer = await postgres.openWriter(settings('never_created'), context, { columns: SIMPLE, mode: 'replace', primaryKey: [] })
    await writer.write([{ id: 1, name: 'x' }])
    await writer.abort()
    expect((await db.query(`SELECT to_regclass('never_created') AS t`)).rows[0].t).toBeNull()
  })

  it('a row the database refuses fails the commit and leaves the destination untouched', async () => {
    await db.query(`CREATE TABLE strict (id int8 PRIMARY KEY, name text NOT NULL); INSERT INTO strict VALUES (1, 'keep')`)
    const writer = await postgres.openWriter(settings('strict'), context, { columns: SIMPLE, mode: 'replace', primaryKey: ['id'] })
    await writer.write([{ id: 2, name: 'fine' }])
    await writer.write([{ id: 3, name: null }])
    await expect(writer.commit()).rejects.toThrow(/null value/)
    expect(await names('strict')).toEqual([{ id: 1, name: 'keep' }])
    const bad = await postgres.openWriter(settings('strict'), context, { columns: SIMPLE, mode: 'append', primaryKey: [] })
    // Straight into the table: the server reports the bad row while the client still sends,
    // so whichever of the following writes or the commit comes next fails.
    const run = async () => {
      await bad.write(Array.from({ length: 20_000 }, (_, i) => ({ id: i + 10, name: i === 5 ? null : 'x' })))
      await bad.write([{ id: 99_999, name: 'y' }])
      await bad.commit()
    }
    await expect(run()).rejects.toThrow(/null value/)
    await bad.abort()
    expect(await names('strict')).toEqual([{ id: 1, name: 'keep' }])
  })

  it('writes values that stress COPY escaping and reads them back unchanged', async () => {
    const target: WriteTarget = { columns: [...STRESS_COLUMNS], mode: 'replace', primaryKey: ['id'] }
    await write(settings('stress'), target, stressRows().slice(0, 5), stressRows().slice(5))
    const { rows } = await readAll(settings('stress'))
    expect(rows).toEqual(stressRows())
    const direct = await db.query(`SELECT text, text IS NULL AS is_null FROM stress WHERE id IN (5, 6) ORDER BY id`)
    expect(direct.rows).toEqual([
      { text: '', is_null: false },
      { text: null, is_null: true },
    ])
    // merge stages through a temporary table: the same values survive that path too.
    await write(settings('stress'), { ...target, mode: 'merge' }, stressRows())
    expect((await readAll(settings('stress'))).rows).toEqual(stressRows())
  })

  it('quotes every identifier: odd table, schema and column names are data, not SQL', async () => {
    const odd = settings('we"ird; DROP TABLE guarded; --', { schema: 'Odd Schema' })
    const columns: Column[] = [
      { name: 'id', type: 'integer', nullable: false },
      { name: 'Mixed Case "col"', type: 'string', nullable: true },
    ]
    await write(odd, { columns, mode: 'merge', primaryKey: ['id'] }, [{ id: 1, 'Mixed Case "col"': 'ok' }])
    await write(odd, { columns, mode: 'merge', primaryKey: ['id'] }, [{ id: 1, 'Mixed Case "col"': 'still ok' }])
    expect((await readAll(odd)).rows).toEqual([{ id: 1, 'Mixed Case "col"': 'still ok' }])
    expect(await count('guarded')).toBe(2)
  })
})
