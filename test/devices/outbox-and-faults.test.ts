import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pruneOutbox } from '../../platform/events/outbox-retention.js'
import { build, type TestTessera } from '../helper.js'

describe('device gateway outbox retention', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  it('writes an outbox event with each change and prunes only events past retention', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: 'prune-1', priority: 'low' } })
    const id = res.json().alert_id
    const rows = await t.db!.query<{ type: string }>("SELECT type FROM platform.outbox WHERE service = 'devices' AND aggregate_id = $1", [id])
    expect(rows.map((r) => r.type)).toEqual(['alert.raised'])
    expect(await pruneOutbox(t.db!)).toBe(0)
    await t.db!.query("UPDATE platform.outbox SET occurred_at = now() - interval '8 days' WHERE aggregate_id = $1", [id])
    expect(await pruneOutbox(t.db!)).toBe(1)
    expect(await t.db!.query('SELECT 1 FROM platform.outbox WHERE aggregate_id = $1', [id])).toEqual([])
  })

  it('schedules the pruning hourly on the job queue', async () => {
    const schedules = await t.db!.query<{ name: string; cron: string }>('SELECT name, cron FROM pgboss.schedule')
    expect(schedules).toContainEqual(expect.objectContaining({ name: 'platform.outbox-prune', cron: '17 * * * *' }))
  })
})

describe('faults are masked', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
    // A fault the code cannot expect: the table it reads is gone.
    await t.db!.exec('ALTER TABLE devices.circuits RENAME TO circuits_moved')
  })
  afterAll(() => t.close())

  it('answers REST with 500 SERVER_ERROR and the request id, never the cause', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/quantum/circuit/${randomUUID()}`, headers: t.auth })
    expect(res.statusCode).toBe(500)
    const { error } = res.json()
    expect(error.code).toBe('SERVER_ERROR')
    expect(error.requestId).toBe(res.headers['x-request-id'])
    expect(error.message).toContain(error.requestId)
    expect(res.body).not.toMatch(/circuits|relation|prisma/i)
  })

  it('answers GraphQL with INTERNAL_SERVER_ERROR and no detail', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...t.auth },
      payload: { query: `{ circuit(id: "${randomUUID()}") { id } }` },
    })
    const [error] = res.json().errors
    expect(error.extensions.code).toBe('INTERNAL_SERVER_ERROR')
    expect(JSON.stringify(error)).not.toMatch(/circuits|relation|prisma/i)
  })
})
