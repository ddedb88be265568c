import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPipelinesDatabase, type PipelinesDatabase } from '../../../test/support/pipelines-postgres.js'
import type { ConnectorDefinition, Row } from './connector.js'
import { postgresConnector, type PostgresSettings } from './postgres-connector.js'
import { warehouseConnector, type WarehouseSettings } from './warehouse-connector.js'

const ROWS = 200_000
const BATCH = 10_000
const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-throughput-'))
const context = { dataDir }
let sandbox: PipelinesDatabase
let source: PostgresSettings

beforeAll(async () => {
  sandbox = await createPipelinesDatabase('tessera_throughput')
  source = { ...sandbox.connection, table: 'orders' }
  const db = new pg.Client(sandbox.url)
  await db.connect()
  await db.query(`
    CREATE TABLE orders AS
    SELECT g::int8 AS id, 'customer ' || (g % 1000) AS customer, round((g % 10000) * 1.37, 2)::float8 AS amount,
           timestamptz '2024-01-01' + g * interval '1 minute' AS created, g % 3 = 0 AS paid,
           jsonb_build_object('sku', 'SKU-' || (g % 500), 'qty', g % 7) AS details
      FROM generate_series(1, ${ROWS}) g;
    ALTER TABLE orders ADD PRIMARY KEY (id);
  `)
  await db.end()
})

afterAll(async () => {
  await sandbox?.drop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** Moves every row from one connector to another the way a run does: read a batch, write it. */
async function copy<S extends Record<string, unknown>, D extends Record<string, unknown>>(
  from: ConnectorDefinition<S>,
  fromSettings: S,
  to: ConnectorDefinition<D>,
  toSettings: D,
): Promise<{ rows: number; perSecond: number }> {
  const started = performance.now()
  const schema = await from.discover(fromSettings, context)
  const writer = await to.openWriter!(toSettings, context, { columns: schema.columns, mode: 'replace', primaryKey: schema.primaryKey })
  let rows = 0
  try {
    for await (const batch of from.read!(fromSettings, context, { batchSize: BATCH }) as AsyncIterable<Row[]>) {
      expect(batch.length).toBeLessThanOrEqual(BATCH)
      await writer.write(batch)
      rows += batch.length
    }
    await writer.commit()
  } catch (error) {
    await writer.abort()
    throw error
  }
  const seconds = (performance.now() - started) / 1000
  return { rows, perSecond: Math.round(rows / seconds) }
}

describe('throughput (a sanity check of the order of magnitude, not a timed assertion)', () => {
  const warehouse: WarehouseSettings = { warehouse: 'bench', database: 'sales', table: 'orders' }

  it(`moves ${ROWS / 1000}k rows PostgreSQL → warehouse and back in batches of ${BATCH / 1000}k`, async () => {
    const toWarehouse = await copy(postgresConnector, source, warehouseConnector, warehouse)
    console.log(`postgres → warehouse: ${toWarehouse.rows} rows, ${toWarehouse.perSecond} rows/s`)
    expect(toWarehouse.rows).toBe(ROWS)

    const back = await copy(warehouseConnector, warehouse, postgresConnector, { ...source, table: 'orders_copy' })
    console.log(`warehouse → postgres: ${back.rows} rows, ${back.perSecond} rows/s`)
    expect(back.rows).toBe(ROWS)

    const db = new pg.Client(sandbox.url)
    await db.connect()
    try {
      const differences = await db.query(`SELECT count(*)::int AS n FROM (SELECT * FROM orders EXCEPT SELECT * FROM orders_copy) d`)
      expect(differences.rows[0].n).toBe(0)
    } finally {
      await db.end()
    }
  })
})
