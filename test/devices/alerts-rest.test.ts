import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

interface Alert {
  alert_id: string
  device_id: string
  priority: string
  message: string | null
  status: string
  escalation_level: number
  raised_at: string
  acknowledged_at: string | null
  acknowledged_by: string | null
  resolved_at: string | null
  resolved_by: string | null
  escalated_at: string | null
}

describe('medical alerts over /v1/medical', () => {
  let t: TestTessera
  let nurse: { headers: Record<string, string>; principal: string }
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
    const { key, info } = await t.credentials!.createApiKey({ name: 'ward 3 nurse station', scopes: ['devices:read', 'devices:write'] })
    nurse = { headers: { authorization: `Bearer ${key}` }, principal: `key:${info.id}` }
  })
  afterAll(() => t.close())

  const raise = async (payload: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload })
    expect(res.statusCode).toBe(201)
    return res.json() as Alert
  }
  const get = (id: string) => t.app.inject({ method: 'GET', url: `/v1/medical/alert/${id}`, headers: t.auth })
  const act = (id: string, action: 'acknowledge' | 'resolve', headers = nurse.headers) =>
    t.app.inject({ method: 'POST', url: `/v1/medical/alert/${id}/${action}`, headers })
  const list = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/medical/alerts?${query}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    return res.json() as { data: Alert[]; total: number; limit: number; offset: number }
  }

  it('raises an alert: 201, a Location that reads it back, and an active record', async () => {
    const before = Date.now()
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/medical/alert',
      headers: t.auth,
      payload: { device_id: 'pump-7', priority: 'high', message: 'Occlusion downstream' },
    })
    expect(res.statusCode).toBe(201)
    const alert = res.json() as Alert
    expect(res.headers.location).toBe(`/v1/medical/alert/${alert.alert_id}`)
    expect(alert).toMatchObject({
      device_id: 'pump-7',
      priority: 'high',
      message: 'Occlusion downstream',
      status: 'active',
      escalation_level: 0,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
      escalated_at: null,
    })
    expect(Date.parse(alert.raised_at)).toBeGreaterThanOrEqual(before - 1000)

    const read = await t.app.inject({ method: 'GET', url: res.headers.location as string, headers: t.auth })
    expect(read.statusCode).toBe(200)
    expect(read.json()).toEqual(alert)
  })

  it('raises an alert without a message, for each documented priority', async () => {
    for (const priority of ['high', 'medium', 'low']) {
      const alert = await raise({ device_id: 'monitor-1', priority })
      expect(alert.priority).toBe(priority)
      expect(alert.message).toBeNull()
      expect((await get(alert.alert_id)).json().priority).toBe(priority)
    }
  })

  it('refuses a message longer than 2000 characters, naming the field', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/medical/alert',
      headers: t.auth,
      payload: { device_id: 'pump-7', priority: 'low', message: 'm'.repeat(2001) },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.details.field).toBe('message')
  })

  it('acknowledges and then resolves an alert, recording who did each and when', async () => {
    const alert = await raise({ device_id: `bed-${randomUUID()}`, priority: 'medium' })

    const acked = await act(alert.alert_id, 'acknowledge')
    expect(acked.statusCode).toBe(200)
    const a = acked.json() as Alert
    expect(a).toMatchObject({ alert_id: alert.alert_id, status: 'acknowledged', acknowledged_by: nurse.principal, resolved_at: null })
    expect(Date.parse(a.acknowledged_at!)).toBeGreaterThanOrEqual(Date.parse(alert.raised_at))
    expect((await get(alert.alert_id)).json()).toEqual(a)

    const resolved = await act(alert.alert_id, 'resolve')
    expect(resolved.statusCode).toBe(200)
    const r = resolved.json() as Alert
    expect(r).toMatchObject({ status: 'resolved', acknowledged_at: a.acknowledged_at, acknowledged_by: nurse.principal, resolved_by: nurse.principal })
    expect(Date.parse(r.resolved_at!)).toBeGreaterThanOrEqual(Date.parse(a.acknowledged_at!))
    expect((await get(alert.alert_id)).json()).toEqual(r)
  })

  it('resolves an active alert directly, without an acknowledgement', async () => {
    const alert = await raise({ device_id: `bed-${randomUUID()}`, priority: 'low' })
    const res = await act(alert.alert_id, 'resolve')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'resolved', acknowledged_at: null, acknowledged_by: null, resolved_by: nurse.principal })
  })

  it('answers 409 CONFLICT with details when acknowledging a resolved alert, and changes nothing', async () => {
    const alert = await raise({ device_id: `bed-${randomUUID()}`, priority: 'high' })
    const resolved = (await act(alert.alert_id, 'resolve')).json() as Alert

    const res = await act(alert.alert_id, 'acknowledge')
    expect(res.statusCode).toBe(409)
    const { error } = res.json()
    expect(error.code).toBe('CONFLICT')
    expect(error.message).toContain(alert.alert_id)
    expect(error.details).toMatchObject({ field: 'status', reason: 'already resolved' })
    expect(error.requestId).toBe(res.headers['x-request-id'])
    expect((await get(alert.alert_id)).json()).toEqual(resolved)
  })

  it('answers 409 CONFLICT when resolving an alert twice, keeping the first resolution', async () => {
    const alert = await raise({ device_id: `bed-${randomUUID()}`, priority: 'high' })
    const first = await act(alert.alert_id, 'resolve')
    expect(first.statusCode).toBe(200)
    const second = await act(alert.alert_id, 'resolve', t.auth)
    expect(second.statusCode).toBe(409)
    expect(second.json().error).toMatchObject({ code: 'CONFLICT', details: { field: 'status', reason: 'already resolved' } })
    const stored = (await get(alert.alert_id)).json() as Alert
    expect(stored.resolved_at).toBe(first.json().resolved_at)
    expect(stored.resolved_by).toBe(nurse.principal)
  })

  it('answers 409 CONFLICT when acknowledging an alert twice', async () => {
    const alert = await raise({ device_id: `bed-${randomUUID()}`, priority: 'medium' })
    expect((await act(alert.alert_id, 'acknowledge')).statusCode).toBe(200)
    const again = await act(alert.alert_id, 'acknowledge')
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toMatchObject({ code: 'CONFLICT', details: { field: 'status', reason: 'already acknowledged' } })
  })

  it('lets only one of two simultaneous resolutions succeed', async () => {
    const alert = await raise({ device_id: `bed-${randomUUID()}`, priority: 'high' })
    const results = await Promise.all([act(alert.alert_id, 'resolve'), act(alert.alert_id, 'resolve')])
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409])
  })

  it('lists alerts filtered by device, status and priority, with totals', async () => {
    const device = `ward-${randomUUID()}`
    const high = await raise({ device_id: device, priority: 'high' })
    const medium = await raise({ device_id: device, priority: 'medium' })
    const low = await raise({ device_id: device, priority: 'low' })
    await raise({ device_id: `other-${randomUUID()}`, priority: 'high' })
    await act(medium.alert_id, 'acknowledge')
    await act(low.alert_id, 'resolve')

    const all = await list(`device_id=${device}`)
    expect(all.total).toBe(3)
    expect(all.data.map((a) => a.alert_id).sort()).toEqual([high, medium, low].map((a) => a.alert_id).sort())
    expect(all).toMatchObject({ limit: 20, offset: 0 })

    const active = await list(`device_id=${device}&status=active`)
    expect(active.total).toBe(1)
    expect(active.data.map((a) => a.alert_id)).toEqual([high.alert_id])

    const acknowledged = await list(`device_id=${device}&status=acknowledged`)
    expect(acknowledged.data.map((a) => a.alert_id)).toEqual([medium.alert_id])

    const resolved = await list(`device_id=${device}&status=resolved`)
    expect(resolved.data.map((a) => a.alert_id)).toEqual([low.alert_id])

    const lows = await list(`device_id=${device}&priority=low`)
    expect(lows.total).toBe(1)
    expect(lows.data[0]).toMatchObject({ alert_id: low.alert_id, status: 'resolved' })

    expect((await list(`device_id=${device}&status=active&priority=low`)).total).toBe(0)

    const everyHigh = await list('priority=high&limit=100')
    expect(everyHigh.total).toBeGreaterThanOrEqual(2)
    for (const a of everyHigh.data) expect(a.priority).toBe('high')
  })

  it('pages through alerts with limit and offset, newest first, without overlap', async () => {
    const device = `ward-${randomUUID()}`
    const raised: Alert[] = []
    for (let i = 0; i < 5; i++) raised.push(await raise({ device_id: device, priority: 'low', message: `#${i}` }))

    const first = await list(`device_id=${device}&limit=2`)
    const second = await list(`device_id=${device}&limit=2&offset=2`)
    const third = await list(`device_id=${device}&limit=2&offset=4`)
    expect([first.total, second.total, third.total]).toEqual([5, 5, 5])
    expect([first.data.length, second.data.length, third.data.length]).toEqual([2, 2, 1])
    expect(second).toMatchObject({ limit: 2, offset: 2 })

    const paged = [...first.data, ...second.data, ...third.data]
    expect(new Set(paged.map((a) => a.alert_id)).size).toBe(5)
    const times = paged.map((a) => Date.parse(a.raised_at))
    expect(times).toEqual([...times].sort((x, y) => y - x))
    // The last one raised is the first one listed.
    expect(paged[0]!.alert_id).toBe(raised[4]!.alert_id)

    expect((await list(`device_id=${device}&offset=10`)).data).toEqual([])
  })
})
