import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

interface DwellEvent {
  event_id: string
  device_id: string
  kind: 'dwell_started' | 'selection' | 'dwell_cancelled'
  x: number
  y: number
  dwell_ms: number | null
  reason: string | null
  occurred_at: string
}

interface Sample {
  x: number
  y: number
  at: number
}

const DEFAULTS = { radius: 50, dwell_ms: 1000, max_gap_ms: 500, rearm: 'leave' }

/** Gaze samples at 30 Hz for `ms` milliseconds, wobbling by at most 2 px around (cx, cy). */
function fixation(cx: number, cy: number, start: number, ms: number): Sample[] {
  const samples: Sample[] = []
  for (let i = 0; Math.round((i * 1000) / 30) <= ms; i++) {
    samples.push({ x: cx + (((i * 7) % 5) - 2), y: cy + (((i * 3) % 5) - 2), at: start + Math.round((i * 1000) / 30) })
  }
  return samples
}

describe('dwell selection from eye-tracker signals', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  const newDevice = () => `eye-${randomUUID()}`
  // Readings are dated a minute back so that every sample time is well within the accepted skew.
  const start = () => Date.now() - 60_000

  /** Posts the samples in order; returns the dwell_events of each response. */
  async function feed(device: string, samples: Sample[]): Promise<DwellEvent[][]> {
    const out: DwellEvent[][] = []
    for (const s of samples) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/aac/signal',
        headers: t.auth,
        payload: { type: 'eye_tracker', device_id: device, data: { gaze_point: { x: s.x, y: s.y }, timestamp: s.at } },
      })
      expect(res.statusCode).toBe(201)
      out.push(res.json().dwell_events)
    }
    return out
  }
  const kinds = (events: DwellEvent[][]) => events.flat().map((e) => e.kind)
  const listEvents = async (device: string, query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/aac/devices/${device}/events${query}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    return res.json() as { device_id: string; events: DwellEvent[] }
  }
  const putDwell = (device: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PUT', url: `/v1/aac/devices/${device}/dwell`, headers: t.auth, payload })
  const getDwell = (device: string) => t.app.inject({ method: 'GET', url: `/v1/aac/devices/${device}/dwell`, headers: t.auth })

  it('reports dwell_started, then exactly one selection once the gaze has stayed for dwell_ms', async () => {
    const device = newDevice()
    const samples = fixation(400, 300, start(), 1200)
    const perSample = await feed(device, samples)

    expect(perSample[0]).toEqual([])
    expect(perSample[1]!.map((e) => e.kind)).toEqual(['dwell_started'])
    expect(kinds(perSample)).toEqual(['dwell_started', 'selection'])

    // The selection comes with the first sample 1000 ms after the fixation began, not before.
    const due = samples.findIndex((s) => s.at - samples[0]!.at >= 1000)
    const selection = perSample[due]!.find((e) => e.kind === 'selection')
    expect(selection).toBeDefined()
    expect(
      perSample
        .slice(0, due)
        .flat()
        .some((e) => e.kind === 'selection'),
    ).toBe(false)
    expect(selection!.dwell_ms).toBe(samples[due]!.at - samples[0]!.at)
    expect(selection!.occurred_at).toBe(new Date(samples[due]!.at).toISOString())
    expect(selection!.device_id).toBe(device)
    expect(Math.abs(selection!.x - 400)).toBeLessThanOrEqual(2)
    expect(Math.abs(selection!.y - 300)).toBeLessThanOrEqual(2)
  })

  it('lists the events of a device, newest first, with the ids the signal responses gave', async () => {
    const device = newDevice()
    const posted = (await feed(device, fixation(100, 100, start(), 1100))).flat()
    const listed = await listEvents(device)
    expect(listed.device_id).toBe(device)
    expect(listed.events.map((e) => e.kind)).toEqual(['selection', 'dwell_started'])
    expect(listed.events.map((e) => e.event_id).sort()).toEqual(posted.map((e) => e.event_id).sort())
    expect(listed.events).toEqual([...posted].reverse())
  })

  it('lists only the newest events when asked for a limit, and nothing of other devices', async () => {
    const device = newDevice()
    await feed(device, fixation(100, 100, start(), 1050))
    const newest = await listEvents(device, '?limit=1')
    expect(newest.events.map((e) => e.kind)).toEqual(['selection'])
    expect((await listEvents(newDevice())).events).toEqual([])
  })

  it('does not select again while the gaze stays put after a selection', async () => {
    const device = newDevice()
    const perSample = await feed(device, fixation(250, 250, start(), 2300))
    expect(kinds(perSample).filter((k) => k === 'selection')).toHaveLength(1)
  })

  it('cancels a started dwell when the gaze moves away, and never selects it', async () => {
    const device = newDevice()
    const first = fixation(200, 200, start(), 300)
    const last = first[first.length - 1]!
    const away = fixation(700, 200, last.at + 33, 600)
    const perSample = await feed(device, [...first, ...away])

    const cancelled = perSample[first.length]!
    expect(cancelled.map((e) => e.kind)).toEqual(['dwell_cancelled'])
    expect(cancelled[0]!.reason).toBe('moved')
    expect(Math.abs(cancelled[0]!.x - 200)).toBeLessThanOrEqual(2)
    // The new spot was looked at for 600 ms only, and the old one was left: no selection at all.
    expect(kinds(perSample)).not.toContain('selection')
    expect((await listEvents(device)).events.map((e) => e.kind)).toContain('dwell_cancelled')
  })

  it('cancels a started dwell when the tracker loses the eye for longer than max_gap_ms', async () => {
    const device = newDevice()
    const first = fixation(200, 200, start(), 200)
    const resumed = { x: 200, y: 200, at: first[first.length - 1]!.at + 800 }
    const perSample = await feed(device, [...first, resumed])
    expect(perSample[first.length]!.map((e) => [e.kind, e.reason])).toEqual([['dwell_cancelled', 'gap']])
  })

  it('gives a device never configured the default dwell settings', async () => {
    const device = newDevice()
    const res = await getDwell(device)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ device_id: device, ...DEFAULTS })
  })

  it('changes radius and dwell_ms with PUT, and GET shows the new settings', async () => {
    const device = newDevice()
    const res = await putDwell(device, { radius: 20, dwell_ms: 300 })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ device_id: device, radius: 20, dwell_ms: 300, max_gap_ms: 500, rearm: 'leave' })
    expect((await getDwell(device)).json()).toEqual(res.json())
  })

  it('selects sooner after dwell_ms is made smaller, while an unconfigured device does not', async () => {
    const quick = newDevice()
    const normal = newDevice()
    expect((await putDwell(quick, { dwell_ms: 300 })).statusCode).toBe(200)
    const samples = fixation(500, 500, start(), 400)

    const quickEvents = await feed(quick, samples)
    const due = samples.findIndex((s) => s.at - samples[0]!.at >= 300)
    expect(quickEvents[due]!.map((e) => e.kind)).toEqual(['selection'])
    expect(quickEvents[due]![0]!.dwell_ms).toBe(samples[due]!.at - samples[0]!.at)

    expect(kinds(await feed(normal, samples))).toEqual(['dwell_started'])
  })

  it('cancels on a smaller movement after the radius is made smaller', async () => {
    const tight = newDevice()
    const loose = newDevice()
    expect((await putDwell(tight, { radius: 20 })).statusCode).toBe(200)
    const first = fixation(300, 300, start(), 200)
    const nudge = { x: 330, y: 300, at: first[first.length - 1]!.at + 33 }

    const tightEvents = await feed(tight, [...first, nudge])
    expect(tightEvents[first.length]!.map((e) => [e.kind, e.reason])).toEqual([['dwell_cancelled', 'moved']])
    const looseEvents = await feed(loose, [...first, nudge])
    expect(looseEvents[first.length]).toEqual([])
  })

  it('keeps the settings a PUT does not name, and repeats selections with rearm "repeat"', async () => {
    const device = newDevice()
    expect((await putDwell(device, { radius: 30, dwell_ms: 200 })).statusCode).toBe(200)
    const res = await putDwell(device, { rearm: 'repeat' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ device_id: device, radius: 30, dwell_ms: 200, max_gap_ms: 500, rearm: 'repeat' })

    const selections = (await feed(device, fixation(50, 50, start(), 700))).flat().filter((e) => e.kind === 'selection')
    expect(selections).toHaveLength(3)
    for (const s of selections) expect(s.dwell_ms).toBeGreaterThanOrEqual(200)
  })

  it('refuses out-of-range or unknown dwell settings with 400 naming the field, and keeps the old ones', async () => {
    const device = newDevice()
    expect((await putDwell(device, { radius: 40 })).statusCode).toBe(200)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ radius: 0 }, 'radius'],
      [{ radius: -5 }, 'radius'],
      [{ radius: 10_001 }, 'radius'],
      [{ radius: 'wide' }, 'radius'],
      [{ dwell_ms: '500' }, 'dwell_ms'],
      [{ rearm: 'sometimes' }, 'rearm'],
      [{ rearm: 1 }, 'rearm'],
      [{ dwellMs: 500 }, 'dwellMs'],
    ]
    for (const [payload, field] of cases) {
      const res = await putDwell(device, payload)
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().error.code).toBe('INVALID_REQUEST')
      expect(res.json().error.details.field, JSON.stringify(payload)).toBe(field)
    }
    expect((await getDwell(device)).json()).toEqual({ device_id: device, ...DEFAULTS, radius: 40 })
  })

  it('names dwell_ms and max_gap_ms as sent when they are out of range', async () => {
    const device = newDevice()
    for (const [payload, field] of [
      [{ dwell_ms: 50 }, 'dwell_ms'],
      [{ dwell_ms: 60_001 }, 'dwell_ms'],
      [{ max_gap_ms: 5 }, 'max_gap_ms'],
    ] as const) {
      const res = await putDwell(device, payload)
      expect(res.statusCode).toBe(400)
      expect(res.json().error.details.field).toBe(field)
    }
  })

  it('serves the dwell settings and events of a device with a long but valid id', async () => {
    const device = `d${'x'.repeat(119)}`
    const signal = await t.app.inject({
      method: 'POST',
      url: '/v1/aac/signal',
      headers: t.auth,
      payload: { type: 'eye_tracker', device_id: device, data: { gaze_point: { x: 1, y: 1 } } },
    })
    expect(signal.statusCode).toBe(201)
    expect((await getDwell(device)).statusCode).toBe(200)
    expect((await putDwell(device, { radius: 10 })).statusCode).toBe(200)
    const events = await t.app.inject({ method: 'GET', url: `/v1/aac/devices/${device}/events`, headers: t.auth })
    expect(events.statusCode).toBe(200)
  })
})
