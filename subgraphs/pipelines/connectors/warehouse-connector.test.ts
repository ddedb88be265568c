import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { ConnectorConfigError, type Column, type Row, type WriteTarget } from './connector.js'
import { STRESS_COLUMNS, stressRows } from './stress-rows.js'
import { warehouseConnector as warehouse, type WarehouseSettings } from './warehouse-connector.js'

const root = mkdtempSync(path.join(tmpdir(), 'tessera-warehouse-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let context: { dataDir: string }
let counter = 0
beforeEach(() => {
  context = { dataDir: path.join(root, `case-${++counter}`) }
  mkdirSync(context.dataDir)
})

const settings = (table: string, more: Partial<WarehouseSettings> = {}): WarehouseSettings => ({
  account: 'local',
  warehouse: 'analytics',
  database: 'main_db',
  table,
  ...more,
})

const SIMPLE: Column[] = [
  { name: 'id', type: 'integer', nullable: false },
  { name: 'name', type: 'string', nullable: true },
]

async function readAll(s: WarehouseSettings, batchSize = 1000, cursor?: { column: string; after: unknown }): Promise<{ rows: Row[]; sizes: number[] }> {
  const rows: Row[] = []
  const sizes: number[] = []
  for await (const batch of warehouse.read(s, context, { batchSize, ...(cursor ? { cursor } : {}) })) {
    sizes.push(batch.length)
    rows.push(...batch)
  }
  return { rows, sizes }
}

async function write(s: WarehouseSettings, target: WriteTarget, ...batches: Row[][]): Promise<void> {
  const writer = await warehouse.openWriter(s, context, target)
  for (const batch of batches) await writer.write(batch)
  await writer.commit()
}

const byId = (rows: Row[]) => [...rows].sort((a, b) => Number(a.id) - Number(b.id))

/** Runs SQL on the database file directly, as another client would (after the connector closed it). */
async function query(sql: string, s: WarehouseSettings = settings('x')): Promise<Record<string, unknown>[]> {
  const folder = path.join(context.dataDir, 'warehouse', s.warehouse)
  mkdirSync(folder, { recursive: true })
  const instance = await DuckDBInstance.create(path.join(folder, `${s.database}.duckdb`))
  const connection = await instance.connect()
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS()
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

describe('warehouse connector: settings', () => {
  it('accepts the account "local" or none, and refuses any other', async () => {
    await warehouse.check(settings('t'), context)
    await warehouse.check(settings('t', { account: undefined }), context)
    const error = await warehouse.check(settings('t', { account: 'xy12345.us-east-1' }), context).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectorConfigError)
    expect(error).toMatchObject({ field: 'account', message: 'only the embedded warehouse "local" is available' })
  })

  it('refuses warehouse and database names that could leave the data folder', async () => {
    for (const [field, bad] of [
      ['warehouse', '..'],
      ['warehouse', 'a/b'],
      ['warehouse', ''],
      ['database', '../../etc'],
      ['database', 'x'.repeat(64)],
      ['database', 'dot.ted'],
    ] as const) {
      const error = await warehouse
        .openWriter(settings('t', { [field]: bad }), context, { columns: SIMPLE, mode: 'append', primaryKey: [] })
        .catch((e: unknown) => e)
      expect(error, `${field} = ${bad}`).toBeInstanceOf(ConnectorConfigError)
      expect(error).toMatchObject({ field })
    }
    expect(readdirSync(context.dataDir).flatMap((d) => readdirSync(path.join(context.dataDir, d)))).toEqual([])
  })

  it('refuses a warehouse folder that is a symlink to elsewhere', async () => {
    const outside = mkdtempSync(path.join(root, 'outside-'))
    mkdirSync(path.join(context.dataDir, 'warehouse'))
    symlinkSync(outside, path.join(context.dataDir, 'warehouse', 'linked'))
    const error = await warehouse
      .openWriter(settings('t', { warehouse: 'linked' }), context, { columns: SIMPLE, mode: 'append', primaryKey: [] })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ field: 'warehouse' })
    expect(readdirSync(outside)).toEqual([])
  })

  it('keeps the database at <dataDir>/warehouse/<warehouse>/<database>.duckdb', async () => {
    await write(settings('t', { warehouse: 'wh-1', database: 'sales_2024' }), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 1, name: 'a' }])
    expect(existsSync(path.join(context.dataDir, 'warehouse', 'wh-1', 'sales_2024.duckdb'))).toBe(true)
  })

  it('holds the database file only while a write is open, so other processes can use it between runs', async () => {
    const file = path.join(context.dataDir, 'warehouse', 'analytics', 'main_db.duckdb')
    // Another process opening the file for writing, as a BI tool or a second server would.
    const other = () =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `require('@duckdb/node-api').DuckDBInstance.create(${JSON.stringify(file)}).then(i => { i.closeSync(); console.log('opened') }, e => console.log(e.message))`,
        ],
        { cwd: process.cwd(), encoding: 'utf8' },
      ).stdout.trim()
    const writer = await warehouse.openWriter(settings('t'), context, { columns: SIMPLE, mode: 'replace', primaryKey: [] })
    await writer.write([{ id: 1, name: 'a' }])
    expect(other()).toMatch(/lock/i)
    await writer.commit()
    expect(other()).toBe('opened')
    for await (const _ of warehouse.read(settings('t'), context, { batchSize: 10 })) break
    expect(other()).toBe('opened')
  })

  it('lets two runs in this process write one database at once without losing either', async () => {
    const first = await warehouse.openWriter(settings('one'), context, { columns: SIMPLE, mode: 'replace', primaryKey: [] })
    const second = await warehouse.openWriter(settings('two'), context, { columns: SIMPLE, mode: 'replace', primaryKey: [] })
    await first.write(Array.from({ length: 5000 }, (_, i) => ({ id: i, name: 'one' })))
    await second.write(Array.from({ length: 5000 }, (_, i) => ({ id: i, name: 'two' })))
    await first.commit()
    await second.commit()
    expect((await readAll(settings('one'))).rows).toHaveLength(5000)
    expect((await readAll(settings('two'))).rows).toHaveLength(5000)
  })

  it('checks a source: the database file and the table must exist', async () => {
    expect(await warehouse.check(settings('t'), context, 'source').catch((e: unknown) => e)).toMatchObject({ field: 'database' })
    await write(settings('t'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 1, name: 'a' }])
    await warehouse.check(settings('t'), context, 'source')
    expect(await warehouse.check(settings('other'), context, 'source').catch((e: unknown) => e)).toMatchObject({ field: 'table' })
    expect(await warehouse.discover(settings('other'), context).catch((e: unknown) => e)).toMatchObject({ field: 'table' })
    await warehouse.check(settings('other'), context, 'destination')
  })
})

describe('warehouse connector: writes', () => {
  it('creates tables with the mapped DuckDB types, key and nullability', async () => {
    const columns: Column[] = [
      { name: 'i', type: 'integer', nullable: false },
      { name: 'n', type: 'number', nullable: true },
      { name: 'b', type: 'boolean', nullable: true },
      { name: 't', type: 'timestamp', nullable: true },
      { name: 'j', type: 'json', nullable: true },
      { name: 's', type: 'string', nullable: true },
    ]
    await write(settings('typed', { schema: 'staging' }), { columns, mode: 'replace', primaryKey: ['i'] }, [
      { i: 1, n: 1.5, b: true, t: new Date(0), j: { a: 1 }, s: 'x' },
    ])
    expect(
      await query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'staging' AND table_name = 'typed' ORDER BY ordinal_position`,
      ),
    ).toEqual([
      { column_name: 'i', data_type: 'BIGINT', is_nullable: 'NO' },
      { column_name: 'n', data_type: 'DOUBLE', is_nullable: 'YES' },
      { column_name: 'b', data_type: 'BOOLEAN', is_nullable: 'YES' },
      { column_name: 't', data_type: 'TIMESTAMP WITH TIME ZONE', is_nullable: 'YES' },
      { column_name: 'j', data_type: 'JSON', is_nullable: 'YES' },
      { column_name: 's', data_type: 'VARCHAR', is_nullable: 'YES' },
    ])
    const schema = await warehouse.discover(settings('typed', { schema: 'staging' }), context)
    expect(schema.columns).toEqual(columns)
    expect(schema.primaryKey).toEqual(['i'])
  })

  it('replace leaves exactly the new rows', async () => {
    const target: WriteTarget = { columns: SIMPLE, mode: 'replace', primaryKey: ['id'] }
    await write(settings('r'), target, [
      { id: 1, name: 'old' },
      { id: 2, name: 'old' },
      { id: 3, name: 'old' },
    ])
    await write(settings('r'), target, [{ id: 2, name: 'new' }], [{ id: 4, name: 'newer' }])
    expect(byId((await readAll(settings('r'))).rows)).toEqual([
      { id: 2, name: 'new' },
      { id: 4, name: 'newer' },
    ])
  })

  it('append adds rows, also to a table made by someone else with other column types and order', async () => {
    await write(settings('a'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 1, name: 'a' }])
    await write(settings('a'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [
      { id: 2, name: 'b' },
      { id: 1, name: 'a again' },
    ])
    expect((await readAll(settings('a'))).rows).toHaveLength(3)
    await query(`CREATE TABLE handmade (note VARCHAR DEFAULT 'n/a', name VARCHAR, id INTEGER)`)
    await write(settings('handmade'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 5, name: 'e' }])
    expect(await query('SELECT note, name, id FROM handmade')).toEqual([{ note: 'n/a', name: 'e', id: 5 }])
  })

  it('merge upserts without duplicates, with or without a key constraint on the table', async () => {
    const target: WriteTarget = { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] }
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `v1 ${i}` }))
    await write(settings('m'), target, rows.slice(0, 2500), rows.slice(2500))
    await write(settings('m'), target, rows)
    await write(settings('m'), target, [
      { id: 7, name: 'v2' },
      { id: 9000, name: 'new' },
      { id: 7, name: 'v3' },
    ])
    const merged = byId((await readAll(settings('m'))).rows)
    expect(merged).toHaveLength(5001)
    expect(merged[7]).toEqual({ id: 7, name: 'v3' })
    expect((await warehouse.discover(settings('m'), context)).primaryKey).toEqual(['id'])

    await query(`CREATE TABLE unkeyed (id BIGINT, name VARCHAR); INSERT INTO unkeyed VALUES (1, 'old'), (2, 'old')`)
    await write(settings('unkeyed'), target, [
      { id: 2, name: 'new' },
      { id: 3, name: 'new' },
    ])
    await write(settings('unkeyed'), target, [
      { id: 2, name: 'new' },
      { id: 3, name: 'new' },
    ])
    expect(byId((await readAll(settings('unkeyed'))).rows)).toEqual([
      { id: 1, name: 'old' },
      { id: 2, name: 'new' },
      { id: 3, name: 'new' },
    ])
  })

  it('merge refuses rows without a key value', async () => {
    const writer = await warehouse.openWriter(settings('mk'), context, { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] })
    await expect(writer.write([{ id: null, name: 'x' }])).rejects.toThrow(/no value for key column "id"/)
    await writer.abort()
  })

  it('abort leaves the destination as it was, for every mode, and releases the file', async () => {
    await write(settings('g'), { columns: SIMPLE, mode: 'replace', primaryKey: ['id'] }, [
      { id: 1, name: 'keep' },
      { id: 2, name: 'keep' },
    ])
    for (const mode of ['replace', 'append', 'merge'] as const) {
      const writer = await warehouse.openWriter(settings('g'), context, { columns: SIMPLE, mode, primaryKey: ['id'] })
      await writer.write([
        { id: 1, name: 'changed' },
        { id: 3, name: 'new' },
      ])
      await writer.abort()
      expect(byId((await readAll(settings('g'))).rows)).toEqual([
        { id: 1, name: 'keep' },
        { id: 2, name: 'keep' },
      ])
    }
    const writer = await warehouse.openWriter(settings('never'), context, { columns: SIMPLE, mode: 'replace', primaryKey: [] })
    await writer.write([{ id: 1, name: 'x' }])
    await writer.abort()
    expect(await query(`SELECT count(*)::INT AS n FROM information_schema.tables WHERE table_name IN ('never', 'tessera_stage')`)).toEqual([{ n: 0 }])
  })

  it('a failing commit rolls back: the destination keeps its rows', async () => {
    await write(settings('f'), { columns: SIMPLE, mode: 'replace', primaryKey: ['id'] }, [{ id: 1, name: 'keep' }])
    // Duplicate keys in an append break the table's primary key at commit.
    const writer = await warehouse.openWriter(settings('f'), context, { columns: SIMPLE, mode: 'append', primaryKey: ['id'] })
    await writer.write([
      { id: 2, name: 'x' },
      { id: 1, name: 'dup' },
    ])
    await expect(writer.commit()).rejects.toThrow()
    expect((await readAll(settings('f'))).rows).toEqual([{ id: 1, name: 'keep' }])
  })

  it('refuses values that do not fit the column type', async () => {
    const writer = await warehouse.openWriter(settings('v'), context, { columns: SIMPLE, mode: 'append', primaryKey: [] })
    await expect(writer.write([{ id: 1.5, name: 'x' }])).rejects.toThrow(/column "id": cannot write 1.5 as integer/)
    await writer.abort()
  })

  it('refuses an existing table that lacks a written column', async () => {
    await query('CREATE TABLE narrow (id BIGINT)')
    const error = await warehouse.openWriter(settings('narrow'), context, { columns: SIMPLE, mode: 'append', primaryKey: [] }).catch((e: unknown) => e)
    expect(error).toMatchObject({ field: 'table' })
  })

  it('writes values that stress escaping and reads them back unchanged, through every path', async () => {
    const target: WriteTarget = { columns: [...STRESS_COLUMNS], mode: 'replace', primaryKey: ['id'] }
    await write(settings('stress'), target, stressRows().slice(0, 5), stressRows().slice(5))
    expect((await readAll(settings('stress'))).rows).toEqual(stressRows())
    await write(settings('stress'), { ...target, mode: 'merge' }, stressRows())
    expect((await readAll(settings('stress'))).rows).toEqual(stressRows())
    await write(settings('stress2'), { ...target, mode: 'append' }, stressRows())
    await write(settings('stress2'), { ...target, mode: 'append', primaryKey: [] }, [])
    expect((await readAll(settings('stress2'))).rows).toEqual(stressRows())
  })

  it('quotes identifiers: odd schema, table and column names', async () => {
    const odd = settings('we"ird table; DROP TABLE x', { schema: 'Odd "Schema"' })
    const columns: Column[] = [
      { name: 'id', type: 'integer', nullable: false },
      { name: 'Mixed "Case" col', type: 'string', nullable: true },
    ]
    await write(odd, { columns, mode: 'merge', primaryKey: ['id'] }, [{ id: 1, 'Mixed "Case" col': 'a' }])
    await write(odd, { columns, mode: 'merge', primaryKey: ['id'] }, [{ id: 1, 'Mixed "Case" col': 'b' }])
    expect((await readAll(odd)).rows).toEqual([{ id: 1, 'Mixed "Case" col': 'b' }])
  })
})

describe('warehouse connector: reads', () => {
  it('reads 25k rows in batches of at most batchSize, in key order', async () => {
    const rows = Array.from({ length: 25_000 }, (_, i) => ({ id: 25_000 - i, name: `row ${i}` }))
    await write(settings('many'), { columns: SIMPLE, mode: 'replace', primaryKey: ['id'] }, rows.slice(0, 10_000), rows.slice(10_000))
    const { rows: read, sizes } = await readAll(settings('many'), 1000)
    expect(sizes).toEqual(Array.from({ length: 25 }, () => 1000))
    expect(read.map((r) => r.id)).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1))
    const odd = await readAll(settings('many'), 777)
    expect(Math.max(...odd.sizes)).toBe(777)
    expect(odd.rows).toHaveLength(25_000)
  })

  it('reads incrementally: past the cursor, in cursor order, NULL cursors only on the first run', async () => {
    const columns: Column[] = [
      { name: 'id', type: 'integer', nullable: false },
      { name: 'updated', type: 'timestamp', nullable: true },
      { name: 'seq', type: 'integer', nullable: true },
    ]
    await write(settings('events'), { columns, mode: 'replace', primaryKey: ['id'] }, [
      { id: 1, updated: new Date('2024-01-03T00:00:00Z'), seq: 30 },
      { id: 2, updated: new Date('2024-01-01T00:00:00Z'), seq: 10 },
      { id: 3, updated: null, seq: null },
      { id: 4, updated: new Date('2024-01-02T00:00:00Z'), seq: '9007199254740995' },
      { id: 5, updated: new Date('2024-01-04T00:00:00Z'), seq: 40 },
    ])
    const first = await readAll(settings('events'), 2, { column: 'updated', after: null })
    expect(first.rows.map((r) => r.id)).toEqual([3, 2, 4, 1, 5])
    expect(first.sizes).toEqual([2, 2, 1])
    expect((await readAll(settings('events'), 10, { column: 'updated', after: new Date('2024-01-02T00:00:00Z') })).rows.map((r) => r.id)).toEqual([1, 5])
    expect((await readAll(settings('events'), 10, { column: 'updated', after: '2024-01-03T00:00:00.000Z' })).rows.map((r) => r.id)).toEqual([5])
    expect((await readAll(settings('events'), 10, { column: 'seq', after: '9007199254740994' })).rows.map((r) => r.seq)).toEqual(['9007199254740995'])
    expect(await readAll(settings('events'), 10, { column: 'nope', after: null }).catch((e: unknown) => e)).toMatchObject({ field: 'cursor' })
  })

  it('reads tables it did not create: nested, decimal and other types as the Row conventions say', async () => {
    await write(settings('seed'), { columns: SIMPLE, mode: 'append', primaryKey: [] }, [])
    await query(`CREATE TABLE foreign_types AS SELECT 1::TINYINT AS tiny, 12.50::DECIMAL(5, 2) AS dec, DATE '2024-05-01' AS day,
      TIMESTAMP '2024-05-01 12:00:00' AS naive, {'a': 1, 'b': [1, 2]} AS nested, [1, 2, 3] AS list, uuid() IS NOT NULL AS flag,
      INTERVAL 3 DAY AS span, 170141183460469231731687303715884105727::HUGEINT AS huge`)
    const schema = await warehouse.discover(settings('foreign_types'), context)
    expect(Object.fromEntries(schema.columns.map((c) => [c.name, c.type]))).toEqual({
      tiny: 'integer',
      dec: 'number',
      day: 'timestamp',
      naive: 'timestamp',
      nested: 'json',
      list: 'json',
      flag: 'boolean',
      span: 'string',
      huge: 'integer',
    })
    const { rows } = await readAll(settings('foreign_types'))
    expect(rows).toEqual([
      {
        tiny: 1,
        dec: 12.5,
        day: new Date('2024-05-01T00:00:00Z'),
        naive: new Date('2024-05-01T12:00:00Z'),
        nested: { a: 1, b: [1, 2] },
        list: [1, 2, 3],
        flag: true,
        span: '3 days',
        huge: '170141183460469231731687303715884105727',
      },
    ])
  })
})
