import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest'
import { build, type TestTessera } from '../helper.js'

/** A database of our own on the test cluster, with the source tables these tests read. */
async function createSourceDatabase(name: string) {
  const admin = new pg.Client({ connectionString: inject('postgresUrl') })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name}`)
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = `${inject('postgresBase')}${name}`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const { hostname, port } = new URL(url)
  return { client, settings: { host: hostname, port: Number(port), database: name, user: 'postgres', password: 'not-used-by-trust-auth' } }
}

describe('pipelines end to end', () => {
  let t: TestTessera
  let source: Awaited<ReturnType<typeof createSourceDatabase>>
  const post = (url: string, payload?: unknown) =>
    t.app.inject({ method: 'POST', url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) })
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth })

  async function runAndWait(pipelineId: string) {
    const started = await post(`/v1/pipelines/${pipelineId}/run`)
    expect(started.statusCode).toBe(202)
    const { run_id } = started.json()
    expect(started.json().status).toBe('running')
    const deadline = Date.now() + 30_000
    for (;;) {
      const runs = (await get(`/v1/pipelines/${pipelineId}/runs`)).json().runs as Array<{ run_id: string; status: string }>
      const run = runs.find((r) => r.run_id === run_id)
      if (run && run.status !== 'running')
        return {
          run: run as Record<string, any>,
          logs: (await get(`/v1/runs/${run_id}/logs`)).json().logs as Array<{ level: string; message: string; timestamp: string }>,
        }
      if (Date.now() > deadline) throw new Error(`run ${run_id} still running after 30 s`)
      await new Promise((r) => setTimeout(r, 150))
    }
  }

  async function create(body: Record<string, unknown>) {
    const res = await post('/v1/pipelines', body)
    expect(res.statusCode, res.body).toBe(201)
    return res.json().pipeline_id as string
  }

  beforeAll(async () => {
    t = await build()
    source = await createSourceDatabase('pipelines_flow')
    await source.client.query(`
      CREATE TABLE public.orders (id integer PRIMARY KEY, customer text NOT NULL, amount numeric NOT NULL, status text, updated_at timestamptz NOT NULL);
      INSERT INTO public.orders SELECT g, 'customer-' || (g % 7), g * 1.5, CASE WHEN g % 3 = 0 THEN 'cancelled' ELSE 'paid' END, timestamptz '2026-01-01' + g * interval '1 minute'
      FROM generate_series(1, 300) g;
      CREATE SCHEMA analytics;`)
  })
  afterAll(async () => {
    await source?.client.end()
    await t?.close()
  })

  it('lists only connectors that really work, with their settings schemas', async () => {
    const res = await get('/v1/connectors')
    expect(res.statusCode).toBe(200)
    const ids = (res.json().connectors as Array<{ id: string; type: string; category: string }>).map((c) => c.id).sort()
    expect(ids).toEqual(expect.arrayContaining(['csv', 'ndjson', 'postgres', 'warehouse']))
    for (const c of res.json().connectors) {
      expect(['source', 'destination', 'both']).toContain(c.type)
      // Exactly the document's categories (files count as warehouse staging).
      expect(['database', 'warehouse', 'streaming']).toContain(c.category)
      expect(c.settings_schema).toHaveProperty('properties')
    }
  })

  it('PostgreSQL → PostgreSQL with rename and filter, secrets encrypted and redacted', async () => {
    const id = await create({
      name: 'paid orders',
      source: { type: 'postgres', ...source.settings, schema: 'public', table: 'orders' },
      destination: { type: 'postgres', ...source.settings, schema: 'analytics', table: 'paid_orders' },
      transformations: [
        { type: 'rename', from: 'customer', to: 'customer_name' },
        { type: 'filter', condition: "status = 'paid' AND amount >= 30" },
      ],
    })
    const { run, logs } = await runAndWait(id)
    expect(run.status, JSON.stringify(logs)).toBe('success')
    const expected = (await source.client.query("SELECT count(*)::int AS n FROM public.orders WHERE status = 'paid' AND amount >= 30")).rows[0].n
    expect(run.records_processed).toBe(expected)
    const rows = (await source.client.query('SELECT * FROM analytics.paid_orders ORDER BY id')).rows
    expect(rows).toHaveLength(expected)
    expect(Object.keys(rows[0])).toContain('customer_name')
    expect(Object.keys(rows[0])).not.toContain('customer')
    expect(logs.map((l) => l.level)).toEqual(expect.arrayContaining(['INFO', 'SUCCESS']))
    expect(logs.every((l) => !Number.isNaN(Date.parse(l.timestamp)))).toBe(true)

    const detail = (await get(`/v1/pipelines/${id}`)).json()
    expect(detail).toMatchObject({ pipeline_id: id, status: 'active', last_run: { status: 'success', records_processed: expected }, next_run: null })
    expect(detail.source.password).toBe('********')
    expect(JSON.stringify(detail)).not.toContain('not-used-by-trust-auth')
    const stored = await t.db!.query<{ source: unknown }>('SELECT source FROM pipelines.pipelines WHERE id = $1', [id])
    expect(JSON.stringify(stored[0]!.source)).not.toContain('not-used-by-trust-auth')
  })

  it('PostgreSQL → embedded warehouse (the document’s warehouse fields), then incremental picks up only new rows', async () => {
    const id = await create({
      name: 'orders to warehouse',
      source: { type: 'postgres', ...source.settings, schema: 'public', table: 'orders' },
      destination: { type: 'warehouse', account: 'local', warehouse: 'analytics', database: 'sales', schema: 'main', table: 'orders' },
      sync: { mode: 'incremental', cursor_column: 'updated_at', write_mode: 'append' },
    })
    const first = await runAndWait(id)
    expect(first.run.status, JSON.stringify(first.logs)).toBe('success')
    expect(first.run.records_processed).toBe(300)
    await source.client.query(
      "INSERT INTO public.orders VALUES (301, 'new', 10, 'paid', timestamptz '2026-02-01'), (302, 'new', 20, 'paid', timestamptz '2026-02-02')",
    )
    const second = await runAndWait(id)
    expect(second.run.status).toBe('success')
    expect(second.run.records_processed).toBe(2)
    const third = await runAndWait(id)
    expect(third.run.records_processed).toBe(0)
    expect(third.logs.map((l) => l.level)).toContain('WARN')

    const file = path.join(t.dataDir, 'pipelines/warehouse/analytics/sales.duckdb')
    const duck = await DuckDBInstance.create(file)
    const conn = await duck.connect()
    const count = (await conn.runAndReadAll('SELECT count(*) AS n, count(DISTINCT id) AS d FROM main.orders')).getRowObjects()[0]!
    expect([Number(count.n), Number(count.d)]).toEqual([302, 302])
    conn.closeSync()
    duck.closeSync()
  })

  it('merge re-runs leave no duplicate rows', async () => {
    const id = await create({
      name: 'orders merged',
      source: { type: 'postgres', ...source.settings, schema: 'public', table: 'orders' },
      destination: { type: 'postgres', ...source.settings, schema: 'analytics', table: 'orders_merged' },
      sync: { write_mode: 'merge', primary_key: ['id'] },
    })
    expect((await runAndWait(id)).run.status).toBe('success')
    await source.client.query("UPDATE public.orders SET status = 'refunded' WHERE id = 1")
    expect((await runAndWait(id)).run.status).toBe('success')
    const rows = (await source.client.query('SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM analytics.orders_merged')).rows[0]
    expect(rows.n).toBe(rows.d)
    expect((await source.client.query('SELECT status FROM analytics.orders_merged WHERE id = 1')).rows[0].status).toBe('refunded')
  })

  it('CSV → PostgreSQL', async () => {
    const dir = path.join(t.dataDir, 'pipelines/files/in')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      path.join(dir, 'people.csv'),
      'id,name,age,joined\n1,Ada,36,2026-01-01T00:00:00Z\n2,"Lovelace, A.",27,2026-02-01T00:00:00Z\n3,Grace,,2026-03-01T00:00:00Z\n',
    )
    const id = await create({
      name: 'people',
      source: { type: 'csv', path: 'in/people.csv' },
      destination: { type: 'postgres', ...source.settings, schema: 'analytics', table: 'people' },
      transformations: [{ type: 'filter', condition: 'age IS NULL OR age > 30' }],
    })
    const { run, logs } = await runAndWait(id)
    expect(run.status, JSON.stringify(logs)).toBe('success')
    const rows = (await source.client.query('SELECT id, name, age FROM analytics.people ORDER BY id')).rows
    expect(rows.map((r: { name: string }) => r.name)).toEqual(['Ada', 'Grace'])
  })

  it('a failing source fails the run with CONN_001 in the run and its logs', async () => {
    const id = await create({
      name: 'doomed',
      source: { type: 'postgres', ...source.settings, schema: 'public', table: 'orders' },
      destination: { type: 'postgres', ...source.settings, schema: 'analytics', table: 'doomed' },
    })
    await t.db!.query(`UPDATE pipelines.pipelines SET source = jsonb_set(source, '{settings,port}', '1') WHERE id = $1`, [id])
    const { run, logs } = await runAndWait(id)
    expect(run.status).toBe('failed')
    expect(run.error.code).toBe('CONN_001')
    expect(logs.some((l) => l.level === 'ERROR' && l.message.includes('CONN_001'))).toBe(true)
    expect((await get(`/v1/pipelines/${id}`)).json().status).toBe('failed')
  })
})
