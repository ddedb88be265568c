import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

interface Alert {
  alert_id: string
  status: string
  escalation_level: number
  escalated_at: string | null
}

const POLL_MS = 250
const MAX_WAIT_MS = 15_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// Each test raises its own alerts, so they run side by side to share the waiting.
describe.concurrent('escalation of unacknowledged alerts', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'], env: { TESSERA_ALERT_ESCALATE_HIGH_SECONDS: '1', TESSERA_ALERT_MAX_ESCALATIONS: '2' } })
  })
  afterAll(() => t.close())

  const raise = async (priority: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: `icu-${randomUUID()}`, priority } })
    expect(res.statusCode).toBe(201)
    return res.json() as Alert
  }
  const read = async (id: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/medical/alert/${id}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    return res.json() as Alert
  }
  const act = async (id: string, action: 'acknowledge' | 'resolve') => {
    const res = await t.app.inject({ method: 'POST', url: `/v1/medical/alert/${id}/${action}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
  }
  /** Polls the alert until it reaches `level`; fails after MAX_WAIT_MS. */
  const untilLevel = async (id: string, level: number) => {
    const deadline = Date.now() + MAX_WAIT_MS
    for (;;) {
      const alert = await read(id)
      if (alert.escalation_level >= level) return alert
      if (Date.now() > deadline) throw new Error(`alert ${id} still at level ${alert.escalation_level} after ${MAX_WAIT_MS} ms, wanted ${level}`)
      await sleep(POLL_MS)
    }
  }

  it('escalates a high alert nobody acknowledges every delay, up to the maximum level', async () => {
    const alert = await raise('high')
    expect(alert.escalation_level).toBe(0)
    const raisedAt = Date.now()

    const first = await untilLevel(alert.alert_id, 1)
    expect(first.escalation_level).toBe(1)
    expect(first.status).toBe('active')
    expect(first.escalated_at).not.toBeNull()
    // Not before the configured delay of 1 s (a little slack for clock rounding).
    expect(Date.now() - raisedAt).toBeGreaterThanOrEqual(900)

    const second = await untilLevel(alert.alert_id, 2)
    expect(second.escalation_level).toBe(2)
    expect(Date.parse(second.escalated_at!)).toBeGreaterThan(Date.parse(first.escalated_at!))

    // TESSERA_ALERT_MAX_ESCALATIONS=2: two more delays later it is still at 2.
    await sleep(2_500)
    const later = await read(alert.alert_id)
    expect(later.escalation_level).toBe(2)
    expect(later.escalated_at).toBe(second.escalated_at)
  })

  it('does not escalate an acknowledged or a resolved alert, while an ignored one escalates', async () => {
    const acknowledged = await raise('high')
    await act(acknowledged.alert_id, 'acknowledge')
    const resolved = await raise('high')
    await act(resolved.alert_id, 'resolve')
    const ignored = await raise('high')

    // The ignored alert escalating shows the delay has passed and the escalator is running.
    await untilLevel(ignored.alert_id, 1)
    await sleep(1_500)
    for (const id of [acknowledged.alert_id, resolved.alert_id]) {
      const alert = await read(id)
      expect(alert.escalation_level).toBe(0)
      expect(alert.escalated_at).toBeNull()
    }
  })

  it('stops escalating once an escalated alert is acknowledged', async () => {
    const alert = await raise('high')
    const escalated = await untilLevel(alert.alert_id, 1)
    await act(alert.alert_id, 'acknowledge')
    await sleep(2_500)
    const later = await read(alert.alert_id)
    expect(later.status).toBe('acknowledged')
    expect(later.escalation_level).toBe(escalated.escalation_level)
    expect(later.escalated_at).toBe(escalated.escalated_at)
  })

  it('leaves a medium alert alone within the high-priority delay (each priority has its own)', async () => {
    const medium = await raise('medium')
    const high = await raise('high')
    await untilLevel(high.alert_id, 1)
    await sleep(1_000)
    expect((await read(medium.alert_id)).escalation_level).toBe(0)
  })
})
