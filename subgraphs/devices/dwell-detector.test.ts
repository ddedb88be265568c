import { describe, expect, it } from 'vitest'
import { DEFAULT_DWELL_CONFIG, feedGaze, validateDwellConfig, type DwellConfig, type DwellEvent, type DwellState, type GazePoint } from './dwell-detector.js'

const T0 = 1_700_000_000_000
const HZ30 = 1000 / 30

/** Samples at 30 Hz from `fromMs` (relative to T0) for `durationMs`, at (x, y) plus an optional wobble. */
function gaze(fromMs: number, durationMs: number, x: number, y: number, wobble: (k: number) => [number, number] = () => [0, 0]): GazePoint[] {
  const points: GazePoint[] = []
  for (let k = 0; k * HZ30 <= durationMs; k++) {
    const [dx, dy] = wobble(k)
    points.push({ x: x + dx, y: y + dy, t: T0 + fromMs + Math.round(k * HZ30) })
  }
  return points
}

/**
 * Feeds points one by one, like the service does per request. With
 * `roundTrip`, the state goes through JSON between points, as it would
 * through the database row.
 */
function feedAll(
  points: GazePoint[],
  config: DwellConfig = DEFAULT_DWELL_CONFIG,
  options: { roundTrip?: boolean; state?: DwellState } = {},
): { state: DwellState; events: DwellEvent[] } {
  let state: DwellState = options.state ?? null
  const events: DwellEvent[] = []
  for (const point of points) {
    const step = feedGaze(state, point, config)
    state = options.roundTrip ? (JSON.parse(JSON.stringify(step.state)) as DwellState) : step.state
    events.push(...step.events)
  }
  return { state, events }
}

const kinds = (events: DwellEvent[]) => events.map((e) => e.kind)
const selections = (events: DwellEvent[]) => events.filter((e): e is Extract<DwellEvent, { kind: 'selection' }> => e.kind === 'selection')

describe('feedGaze', () => {
  it('selects once after a steady 1 s gaze at 30 Hz', () => {
    const { events } = feedAll(gaze(0, 1500, 400, 300))
    expect(kinds(events)).toEqual(['dwell_started', 'selection'])
    const [started, selection] = events
    expect(started).toMatchObject({ kind: 'dwell_started', x: 400, y: 300, at: T0 + 33 })
    expect(selection).toMatchObject({ kind: 'selection', x: 400, y: 300, at: T0 + 1000, dwellMs: 1000 })
  })

  it('does not select a moment before dwellMs has passed', () => {
    const { events } = feedAll(gaze(0, 990, 400, 300))
    expect(kinds(events)).toEqual(['dwell_started'])
  })

  it('selects through jitter within the radius, at the centroid', () => {
    // ±20 px around (500, 500): always within 50 px of the running mean.
    const wobble = (k: number): [number, number] => [k % 2 === 0 ? 20 : -20, k % 3 === 0 ? 15 : -10]
    const points = gaze(0, 1100, 500, 500, wobble)
    const { events } = feedAll(points)
    const [selection] = selections(events)
    expect(selections(events)).toHaveLength(1)
    expect(selection!.at).toBeGreaterThanOrEqual(T0 + 1000)
    expect(selection!.dwellMs).toBeGreaterThanOrEqual(1000)
    const upTo = points.filter((p) => p.t <= selection!.at)
    const meanX = upTo.reduce((a, p) => a + p.x, 0) / upTo.length
    const meanY = upTo.reduce((a, p) => a + p.y, 0) / upTo.length
    expect(selection!.x).toBeCloseTo(meanX, 9)
    expect(selection!.y).toBeCloseTo(meanY, 9)
    expect(Math.hypot(selection!.x - 500, selection!.y - 500)).toBeLessThan(10)
  })

  it('cancels with "moved" when the gaze leaves before dwellMs', () => {
    const points = [...gaze(0, 500, 100, 100), ...gaze(533, 600, 400, 100)]
    const { events } = feedAll(points)
    expect(kinds(events)).toEqual(['dwell_started', 'dwell_cancelled', 'dwell_started'])
    expect(events[1]).toMatchObject({ kind: 'dwell_cancelled', reason: 'moved', x: 100, y: 100, at: T0 + 533 })
    expect(selections(events)).toHaveLength(0)
  })

  it('treats a point exactly on the radius as inside and one just beyond as outside', () => {
    const start = feedGaze(null, { x: 0, y: 0, t: T0 }).state
    expect(kinds(feedGaze(start, { x: 50, y: 0, t: T0 + 30 }).events)).toEqual(['dwell_started'])
    const outside = feedGaze(start, { x: 50.01, y: 0, t: T0 + 30 })
    expect(outside.events).toEqual([])
    expect(outside.state).toMatchObject({ centroidX: 50.01, count: 1, startedAt: T0 + 30 })
  })

  it('cancels with "gap" when the tracker loses the eye', () => {
    const points = [...gaze(0, 400, 200, 200), { x: 200, y: 200, t: T0 + 400 + 501 }]
    const { state, events } = feedAll(points)
    expect(kinds(events)).toEqual(['dwell_started', 'dwell_cancelled'])
    expect(events[1]).toMatchObject({ reason: 'gap', x: 200, y: 200 })
    // The sample after the gap starts afresh, so dwell time restarts too.
    expect(state).toMatchObject({ count: 1, startedAt: T0 + 901 })
  })

  it('does not cancel a lone candidate sample', () => {
    const first = feedGaze(null, { x: 0, y: 0, t: T0 })
    expect(feedGaze(first.state, { x: 500, y: 0, t: T0 + 30 }).events).toEqual([])
    expect(feedGaze(first.state, { x: 0, y: 0, t: T0 + 2000 }).events).toEqual([])
  })

  it('with rearm "leave", selects once while the gaze stays and again after leaving and returning', () => {
    const stay = feedAll(gaze(0, 3000, 300, 300))
    expect(selections(stay.events)).toHaveLength(1)

    const points = [
      ...gaze(0, 1500, 300, 300),
      ...gaze(1533, 300, 700, 300), // away, too briefly to select there
      ...gaze(1866, 1200, 300, 300), // back
    ]
    const { events } = feedAll(points)
    const found = selections(events)
    expect(found).toHaveLength(2)
    expect(found[1]!.at).toBeGreaterThanOrEqual(T0 + 1866 + 1000)
    // Leaving after a selection is not a cancellation; the brief look away is.
    expect(events.filter((e) => e.kind === 'dwell_cancelled')).toEqual([expect.objectContaining({ reason: 'moved', x: 700, y: 300 })])
  })

  it('with rearm "repeat", selects every dwellMs while the gaze stays', () => {
    const config: DwellConfig = { ...DEFAULT_DWELL_CONFIG, rearm: 'repeat' }
    const { events } = feedAll(gaze(0, 3500, 300, 300), config)
    const found = selections(events)
    expect(found.map((s) => s.at - T0)).toEqual([1000, 2000, 3000])
    expect(found.every((s) => s.dwellMs === 1000)).toBe(true)
    expect(kinds(events).filter((k) => k === 'dwell_started')).toHaveLength(1)
  })

  it('ignores points older than the last one', () => {
    const first = feedAll(gaze(0, 500, 100, 100))
    const late = feedGaze(first.state, { x: 900, y: 900, t: T0 + 200 })
    expect(late.events).toEqual([])
    expect(late.state).toBe(first.state)
    // The fixation continues as if the late sample never came.
    const { events } = feedAll(gaze(533, 600, 100, 100), DEFAULT_DWELL_CONFIG, { state: late.state })
    expect(kinds(events)).toEqual(['selection'])
  })

  it('ignores samples without a finite position or time', () => {
    const { state } = feedAll(gaze(0, 300, 100, 100))
    for (const bad of [
      { x: Number.NaN, y: 1, t: T0 + 400 },
      { x: 1, y: 1, t: Number.POSITIVE_INFINITY },
    ]) {
      const step = feedGaze(state, bad)
      expect(step.events).toEqual([])
      expect(step.state).toBe(state)
    }
  })

  it('does not mutate the state it is given', () => {
    const { state } = feedAll(gaze(0, 300, 100, 100))
    const snapshot = JSON.stringify(state)
    feedGaze(state, { x: 110, y: 100, t: T0 + 1200 })
    feedGaze(state, { x: 900, y: 100, t: T0 + 400 })
    expect(JSON.stringify(state)).toBe(snapshot)
  })

  it('behaves identically when the state round-trips through JSON between points', () => {
    const points = [
      ...gaze(0, 1500, 300, 300, (k) => [k % 5, -(k % 3)]),
      ...gaze(1533, 400, 900, 300),
      ...gaze(2500, 1200, 300, 300),
      { x: 300, y: 300, t: T0 + 2300 }, // out of order
    ]
    for (const rearm of ['leave', 'repeat'] as const) {
      const config = { ...DEFAULT_DWELL_CONFIG, rearm }
      const inMemory = feedAll(points, config)
      const persisted = feedAll(points, config, { roundTrip: true })
      expect(persisted.events).toEqual(inMemory.events)
      expect(persisted.state).toEqual(inMemory.state)
      expect(selections(persisted.events).length).toBeGreaterThanOrEqual(2)
    }
  })
})

describe('validateDwellConfig', () => {
  it('fills in defaults for missing settings', () => {
    expect(validateDwellConfig(undefined)).toEqual({ ok: true, config: DEFAULT_DWELL_CONFIG })
    expect(validateDwellConfig({})).toEqual({ ok: true, config: DEFAULT_DWELL_CONFIG })
    expect(validateDwellConfig({ radius: 80, rearm: 'repeat' })).toEqual({
      ok: true,
      config: { radius: 80, dwellMs: 1000, maxGapMs: 500, rearm: 'repeat' },
    })
  })

  it('accepts the boundary values', () => {
    expect(validateDwellConfig({ radius: 10000, dwellMs: 100, maxGapMs: 10 }).ok).toBe(true)
    expect(validateDwellConfig({ radius: 0.5, dwellMs: 60000, maxGapMs: 60000 }).ok).toBe(true)
  })

  it.each([
    ['radius', 0],
    ['radius', 10001],
    ['radius', '50'],
    ['radius', Number.NaN],
    ['dwellMs', 99],
    ['dwellMs', 60001],
    ['maxGapMs', 9],
    ['maxGapMs', 60001],
    ['rearm', 'never'],
    ['rearm', null],
  ])('rejects %s = %s', (field, value) => {
    const result = validateDwellConfig({ [field]: value })
    expect(result).toEqual({ ok: false, issues: [{ field, message: expect.stringContaining(field) }] })
  })

  it('reports every issue, including misspelt settings', () => {
    const result = validateDwellConfig({ radius: -1, dwellMs: 5, dwellMS: 800 })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.issues.map((i) => i.field).sort()).toEqual(['dwellMS', 'dwellMs', 'radius'])
  })

  it('rejects a config that is not an object', () => {
    expect(validateDwellConfig([1])).toEqual({ ok: false, issues: [{ field: 'config', message: expect.any(String) }] })
    expect(validateDwellConfig('fast').ok).toBe(false)
  })
})
