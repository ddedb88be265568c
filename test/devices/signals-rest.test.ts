import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('POST /v1/aac/signal and GET /v1/aac/signal/:id', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  const submit = (payload: unknown, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method: 'POST', url: '/v1/aac/signal', headers, payload: payload as Record<string, unknown> })
  const read = (id: string) => t.app.inject({ method: 'GET', url: `/v1/aac/signal/${id}`, headers: t.auth })

  it('stores an eye-tracker gaze point and reads the same record back by id', async () => {
    const device = `tracker-${randomUUID()}`
    const at = new Date(Date.now() - 5_000).toISOString()
    const res = await submit({ type: 'eye_tracker', device_id: device, data: { gaze_point: { x: 640.5, y: 360 }, timestamp: at } })
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body.signal_id).toMatch(UUID)
    expect(body).toMatchObject({ device_id: device, type: 'eye_tracker', data: { gaze_point: { x: 640.5, y: 360 } }, observed_at: at, dwell_events: [] })
    expect(Date.parse(body.received_at)).not.toBeNaN()

    const again = await read(body.signal_id)
    expect(again.statusCode).toBe(200)
    const { dwell_events: _, ...stored } = body
    expect(again.json()).toEqual(stored)
  })

  it('takes the reading time from data.timestamp given in epoch milliseconds', async () => {
    const at = Date.now() - 60_000
    const res = await submit({ type: 'eye_tracker', device_id: `tracker-${randomUUID()}`, data: { gaze_point: { x: 1, y: 2 }, timestamp: at } })
    expect(res.statusCode).toBe(201)
    expect(res.json().observed_at).toBe(new Date(at).toISOString())
  })

  it('stamps a reading without data.timestamp with the time it was received', async () => {
    const before = Date.now()
    const res = await submit({ type: 'eye_tracker', device_id: `tracker-${randomUUID()}`, data: { gaze_point: { x: 1, y: 2 } } })
    const after = Date.now()
    expect(res.statusCode).toBe(201)
    const observed = Date.parse(res.json().observed_at)
    expect(observed).toBeGreaterThanOrEqual(before - 5)
    expect(observed).toBeLessThanOrEqual(after + 5)
  })

  it('accepts a switch press, giving it the default switch_id, and stores it', async () => {
    const res = await submit({ type: 'switch', device_id: 'switch-1', data: { state: 'pressed' } })
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body).toMatchObject({ type: 'switch', device_id: 'switch-1', data: { switch_id: '1', state: 'pressed' }, dwell_events: [] })
    expect((await read(body.signal_id)).json().data).toEqual({ switch_id: '1', state: 'pressed' })
  })

  it('accepts a named switch being released', async () => {
    const res = await submit({ type: 'switch', device_id: 'switch-2', data: { switch_id: 'left', state: 'released' } })
    expect(res.statusCode).toBe(201)
    expect(res.json().data).toEqual({ switch_id: 'left', state: 'released' })
  })

  it('accepts a sip-and-puff reading with its pressure and stores it', async () => {
    const res = await submit({ type: 'sip_puff', device_id: 'straw-1', data: { action: 'puff', pressure: 3.5 } })
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body).toMatchObject({ type: 'sip_puff', device_id: 'straw-1', data: { action: 'puff', pressure: 3.5 } })
    expect((await read(body.signal_id)).json().data).toEqual({ action: 'puff', pressure: 3.5 })
  })

  it('accepts a sip without a pressure', async () => {
    const res = await submit({ type: 'sip_puff', device_id: 'straw-1', data: { action: 'sip' } })
    expect(res.statusCode).toBe(201)
    expect(res.json().data).toEqual({ action: 'sip' })
  })

  it('keeps only the documented keys of a reading', async () => {
    const res = await submit({ type: 'eye_tracker', device_id: 'tracker-x', data: { gaze_point: { x: 5, y: 6 }, pupil: 3, extra: 'x' } })
    expect(res.statusCode).toBe(201)
    expect(res.json().data).toEqual({ gaze_point: { x: 5, y: 6 } })
  })

  it('defaults device_id to the id of the key that submitted the signal', async () => {
    const { key, info } = await t.credentials!.createApiKey({ name: 'tablet', scopes: ['devices:read', 'devices:write'] })
    const res = await submit({ type: 'switch', data: { state: 'pressed' } }, { authorization: `Bearer ${key}` })
    expect(res.statusCode).toBe(201)
    expect(res.json().device_id).toBe(info.id)
    expect((await read(res.json().signal_id)).json().device_id).toBe(info.id)
  })

  it('keeps signals of different submissions apart', async () => {
    const a = (await submit({ type: 'switch', device_id: 'sw-a', data: { state: 'pressed' } })).json()
    const b = (await submit({ type: 'switch', device_id: 'sw-b', data: { state: 'released' } })).json()
    expect(a.signal_id).not.toBe(b.signal_id)
    expect((await read(a.signal_id)).json()).toMatchObject({ device_id: 'sw-a', data: { state: 'pressed' } })
    expect((await read(b.signal_id)).json()).toMatchObject({ device_id: 'sw-b', data: { state: 'released' } })
  })
})
