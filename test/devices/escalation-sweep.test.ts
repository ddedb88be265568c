import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('escalation sweep: batched, on time, and recovered after a crash', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'], env: { TESSERA_ALERT_ESCALATE_HIGH_SECONDS: '1', TESSERA_ALERT_MAX_ESCALATIONS: '1' } })
  })
  afterAll(() => t.close())

  const levels = (ids: string[]) =>
    t.db!.query<{ id: string; escalation_level: number; late_ms: number | null }>(
      `SELECT id, escalation_level, EXTRACT(EPOCH FROM (escalated_at - raised_at))::float8 * 1000 - 1000 AS late_ms FROM devices.alerts WHERE id = ANY($1::uuid[])`,
      [ids],
    )

  it('escalates an alert whose escalation was due while its process was dead within a second of the next start', async () => {
    // What a process killed mid-escalation leaves: an active alert, due ten minutes ago.
    const id = randomUUID()
    await t.db!.query(
      `INSERT INTO devices.alerts (id, device_id, priority, status, raised_at, raised_by, next_escalation_at)
       VALUES ($1, 'icu-crashed', 'high', 'active', now() - interval '11 minutes', 'key:test', now() - interval '10 minutes')`,
      [id],
    )
    const seen = Date.now()
    for (;;) {
      const [row] = await levels([id])
      if (row?.escalation_level === 1) break
      if (Date.now() - seen > 2000) throw new Error('overdue alert not escalated within 2 s')
      await sleep(50)
    }
    expect(Date.now() - seen).toBeLessThan(2000)
  })

  it('escalates 200 alerts raised at once, each within 2 s of its due time, once each', async () => {
    const raised = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: `burst-${i}`, priority: 'high' } })
        return res.json().alert_id as string
      }),
    )
    const deadline = Date.now() + 15_000
    let rows = await levels(raised)
    while (rows.some((r) => r.escalation_level < 1)) {
      if (Date.now() > deadline) throw new Error('not every alert escalated')
      await sleep(100)
      rows = await levels(raised)
    }
    await sleep(1500)
    rows = await levels(raised)
    // The maximum level is 1: nothing escalates twice.
    expect(rows.every((r) => r.escalation_level === 1)).toBe(true)
    expect(Math.max(...rows.map((r) => r.late_ms ?? Infinity))).toBeLessThan(2000)
  })
})
