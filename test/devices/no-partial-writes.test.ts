import { randomUUID } from 'node:crypto'
import type { InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

describe('a rejected request leaves no half-written records', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  const alertTotal = async (query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/medical/alerts?limit=1${query}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    return res.json().total as number
  }
  const postAlert = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: { ...t.auth, ...headers }, payload: payload as InjectOptions['payload'] })

  it('stores no alert when the alert is refused, whatever the reason', async () => {
    const device = `rejected-${randomUUID()}`
    const before = await alertTotal()
    const refused = [
      await postAlert({ device_id: device, priority: 'urgent' }),
      await postAlert({ device_id: device, priority: 5 }),
      await postAlert({ device_id: device }),
      await postAlert({ device_id: device, priority: 'high', message: 'm'.repeat(2001) }),
      await postAlert({ device_id: `${device} with spaces`, priority: 'high' }),
      await postAlert(`{"device_id":"${device}","priority":"high"`, { 'content-type': 'application/json' }),
      await postAlert(`<alert device_id="${device}"/>`, { 'content-type': 'application/xml' }),
      // A message PostgreSQL cannot store fails inside the transaction; nothing may survive it.
      await postAlert({ device_id: device, priority: 'high', message: 'a\u0000b' }),
    ]
    for (const res of refused) expect(res.statusCode).toBeGreaterThanOrEqual(400)
    expect(await alertTotal()).toBe(before)
    expect(await alertTotal(`&device_id=${device}`)).toBe(0)

    // The same device can raise a valid alert afterwards, and it is the only one.
    expect((await postAlert({ device_id: device, priority: 'high' })).statusCode).toBe(201)
    expect(await alertTotal()).toBe(before + 1)
    expect(await alertTotal(`&device_id=${device}`)).toBe(1)
  })

  it('stores no alert for a caller without the write scope', async () => {
    const { key } = await t.credentials!.createApiKey({ name: 'viewer', scopes: ['devices:read'] })
    const before = await alertTotal()
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/medical/alert',
      headers: { authorization: `Bearer ${key}` },
      payload: { device_id: 'pump', priority: 'high' },
    })
    expect(res.statusCode).toBe(403)
    expect(await alertTotal()).toBe(before)
  })

  it('does not let a refused gaze sample move the dwell detector', async () => {
    const device = `eye-${randomUUID()}`
    const start = Date.now() - 60_000
    const post = (x: number, at: number | string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/aac/signal',
        headers: t.auth,
        payload: { type: 'eye_tracker', device_id: device, data: { gaze_point: { x, y: 100 }, timestamp: at } },
      })

    // Half a second of fixation, then a far-away sample that is refused for its timestamp:
    // had it been applied, it would have cancelled the fixation.
    for (let i = 0; i <= 15; i++) expect((await post(100, start + i * 33)).statusCode).toBe(201)
    const refused = await post(900, 'not a time')
    expect(refused.statusCode).toBe(400)
    expect(refused.json().error.details.field).toBe('data.timestamp')

    const kinds: string[] = []
    for (let i = 16; i <= 33; i++) kinds.push(...(await post(100, start + i * 33)).json().dwell_events.map((e: { kind: string }) => e.kind))
    expect(kinds).toEqual(['selection'])
    const events = (await t.app.inject({ method: 'GET', url: `/v1/aac/devices/${device}/events`, headers: t.auth })).json().events
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(['selection', 'dwell_started'])
  })

  it('applies none of a dwell update when one of its settings is refused', async () => {
    const device = `eye-${randomUUID()}`
    expect(
      (await t.app.inject({ method: 'PUT', url: `/v1/aac/devices/${device}/dwell`, headers: t.auth, payload: { radius: 40, dwell_ms: 800 } })).statusCode,
    ).toBe(200)
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/aac/devices/${device}/dwell`,
      headers: t.auth,
      payload: { radius: 10, dwell_ms: 800, rearm: 'often' },
    })
    expect(res.statusCode).toBe(400)
    const now = (await t.app.inject({ method: 'GET', url: `/v1/aac/devices/${device}/dwell`, headers: t.auth })).json()
    expect(now).toMatchObject({ radius: 40, dwell_ms: 800, rearm: 'leave' })
  })

  it('leaves an alert as it was when an action on it is refused', async () => {
    const alert = (await postAlert({ device_id: `bed-${randomUUID()}`, priority: 'low' })).json()
    const resolved = (await t.app.inject({ method: 'POST', url: `/v1/medical/alert/${alert.alert_id}/resolve`, headers: t.auth })).json()
    const refused = await t.app.inject({ method: 'POST', url: `/v1/medical/alert/${alert.alert_id}/acknowledge`, headers: t.auth })
    expect(refused.statusCode).toBe(409)
    const now = (await t.app.inject({ method: 'GET', url: `/v1/medical/alert/${alert.alert_id}`, headers: t.auth })).json()
    expect(now).toEqual(resolved)
    expect(now.acknowledged_at).toBeNull()
  })
})
