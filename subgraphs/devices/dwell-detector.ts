/**
 * Dwell (fixation) selection for eye-tracker gaze streams, in the style of
 * OptiKey: looking at roughly the same spot for long enough "clicks" it.
 *
 * Written as a pure state machine over plain JSON data: the service keeps one
 * {@link DwellState} per device in a database row, shared by several server
 * replicas, and advances it inside a transaction. Hence no timers, no clocks
 * (time comes only from the gaze samples) and no module-level state.
 *
 * @module
 */

/** Tuning of the dwell detector. */
export type DwellConfig = {
  /** Maximum distance from the fixation centroid, in gaze coordinate units (screen pixels). */
  radius: number
  /** How long the gaze must stay within `radius` to make a selection, in ms. */
  dwellMs: number
  /** Longest gap between two samples before the fixation is dropped (eye lost), in ms. */
  maxGapMs: number
  /**
   * What happens after a selection while the gaze stays put: `'leave'` waits
   * until the gaze leaves the radius, `'repeat'` selects again every further
   * `dwellMs` (like key repeat).
   */
  rearm: 'leave' | 'repeat'
}

/** Defaults matching a typical desktop eye tracker and OptiKey-like keyboard. */
export const DEFAULT_DWELL_CONFIG: Readonly<DwellConfig> = Object.freeze({
  radius: 50,
  dwellMs: 1000,
  maxGapMs: 500,
  rearm: 'leave',
})

/**
 * Persistent detector state for one device: the current fixation candidate,
 * or `null` when there is none. Plain JSON so it can live in a database row.
 * Times are epoch milliseconds taken from the gaze samples.
 */
export type DwellState = {
  /** Running mean x of the samples in the current fixation. */
  centroidX: number
  /** Running mean y of the samples in the current fixation. */
  centroidY: number
  /** Number of samples in the current fixation (1 = only a candidate). */
  count: number
  /** Time of the fixation's first sample; dwell time is measured from here. */
  startedAt: number
  /** Time of the latest accepted sample; older samples are ignored. */
  lastAt: number
  /** Whether this fixation has already produced a selection. */
  selected: boolean
  /** Time of this fixation's latest selection, `null` if none yet. */
  lastSelectionAt: number | null
} | null

/** One gaze sample: screen position and epoch-millisecond timestamp. */
export type GazePoint = { x: number; y: number; t: number }

/** Something the UI may react to; `x`,`y` is always the fixation centroid. */
export type DwellEvent =
  | { kind: 'dwell_started'; x: number; y: number; at: number }
  | { kind: 'selection'; x: number; y: number; at: number; dwellMs: number }
  | { kind: 'dwell_cancelled'; x: number; y: number; at: number; reason: 'moved' | 'gap' }

/** Result of {@link feedGaze}: the state to persist and the events to publish. */
export type DwellStep = { state: DwellState; events: DwellEvent[] }

/** A validation problem in a dwell configuration. */
export type DwellConfigIssue = { field: string; message: string }

function candidateAt(point: GazePoint): NonNullable<DwellState> {
  return {
    centroidX: point.x,
    centroidY: point.y,
    count: 1,
    startedAt: point.t,
    lastAt: point.t,
    selected: false,
    lastSelectionAt: null,
  }
}

/**
 * Advances the detector by one gaze sample. Never mutates its arguments.
 *
 * Rules, in order:
 * - a sample with a non-finite coordinate or time, or older than the last
 *   accepted one (out of order, e.g. from another replica's late request), is
 *   ignored: same state back, no events;
 * - a gap longer than `maxGapMs` drops the fixation (`dwell_cancelled`/`gap`
 *   if it had started and not yet selected) and the sample starts a new candidate;
 * - a sample farther than `radius` from the centroid ends the fixation
 *   (`dwell_cancelled`/`moved` likewise) and starts a new candidate there;
 * - otherwise the sample joins the fixation and moves its centroid (running
 *   mean); the second sample emits `dwell_started`; once the fixation has
 *   lasted `dwellMs` it emits `selection` (with `'repeat'`, again every
 *   further `dwellMs` after the previous selection).
 *
 * A selection's `dwellMs` is the time actually dwelt before it: since the
 * fixation's first sample, or since the previous selection when repeating.
 *
 * @param state - the persisted state, `null` when there is no fixation.
 * @param point - the new gaze sample.
 * @param config - detector tuning, normally from {@link validateDwellConfig}.
 */
export function feedGaze(state: DwellState, point: GazePoint, config: DwellConfig = DEFAULT_DWELL_CONFIG): DwellStep {
  const { x, y, t } = point
  // A sample without a usable position or time cannot be placed, so it must not move the state.
  if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(t)) return { state, events: [] }
  if (state === null) return { state: candidateAt(point), events: [] }
  if (t < state.lastAt) return { state, events: [] }

  const events: DwellEvent[] = []
  // A fixation that already selected has delivered its result; ending it is not a cancellation.
  const pending = state.count >= 2 && !state.selected

  if (t - state.lastAt > config.maxGapMs) {
    if (pending) {
      events.push({ kind: 'dwell_cancelled', x: state.centroidX, y: state.centroidY, at: t, reason: 'gap' })
    }
    return { state: candidateAt(point), events }
  }

  if (Math.hypot(x - state.centroidX, y - state.centroidY) > config.radius) {
    if (pending) {
      events.push({ kind: 'dwell_cancelled', x: state.centroidX, y: state.centroidY, at: t, reason: 'moved' })
    }
    return { state: candidateAt(point), events }
  }

  const count = state.count + 1
  const next: NonNullable<DwellState> = {
    ...state,
    centroidX: state.centroidX + (x - state.centroidX) / count,
    centroidY: state.centroidY + (y - state.centroidY) / count,
    count,
    lastAt: t,
  }

  if (count === 2) {
    events.push({ kind: 'dwell_started', x: next.centroidX, y: next.centroidY, at: t })
  }

  if (!next.selected) {
    const dwelt = t - next.startedAt
    if (dwelt >= config.dwellMs) {
      next.selected = true
      next.lastSelectionAt = t
      events.push({ kind: 'selection', x: next.centroidX, y: next.centroidY, at: t, dwellMs: dwelt })
    }
  } else if (config.rearm === 'repeat') {
    // A state written before lastSelectionAt existed falls back to the fixation start.
    const since = next.lastSelectionAt ?? next.startedAt
    const dwelt = t - since
    if (dwelt >= config.dwellMs) {
      next.lastSelectionAt = t
      events.push({ kind: 'selection', x: next.centroidX, y: next.centroidY, at: t, dwellMs: dwelt })
    }
  }

  return { state: next, events }
}

const CONFIG_KEYS = ['radius', 'dwellMs', 'maxGapMs', 'rearm'] as const

function show(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value))
}

function checkNumber(issues: DwellConfigIssue[], field: string, value: unknown, check: (n: number) => boolean, rule: string): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && check(value)) return value
  issues.push({ field, message: `${field} must be ${rule}, got ${show(value)}` })
  return undefined
}

/**
 * Validates a (partial) dwell configuration and merges it over
 * {@link DEFAULT_DWELL_CONFIG}. `undefined`/`null` mean "all defaults".
 * Unknown properties are reported, since a misspelt key (`dwellMS`) would
 * otherwise silently fall back to the default.
 *
 * Limits: `radius` in (0, 10000], `dwellMs` in [100, 60000], `maxGapMs` in
 * [10, 60000], `rearm` `'leave'` or `'repeat'`.
 */
export function validateDwellConfig(input: unknown): { ok: true; config: DwellConfig } | { ok: false; issues: DwellConfigIssue[] } {
  if (input === undefined || input === null) return { ok: true, config: { ...DEFAULT_DWELL_CONFIG } }
  if (typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ field: 'config', message: 'dwell config must be an object with radius, dwellMs, maxGapMs and/or rearm' }],
    }
  }
  const raw: { radius?: unknown; dwellMs?: unknown; maxGapMs?: unknown; rearm?: unknown } = input
  const issues: DwellConfigIssue[] = []
  const config: DwellConfig = { ...DEFAULT_DWELL_CONFIG }

  for (const key of Object.keys(input)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      issues.push({ field: key, message: `unknown setting "${key}"; expected one of ${CONFIG_KEYS.join(', ')}` })
    }
  }

  if (raw.radius !== undefined) {
    const v = checkNumber(issues, 'radius', raw.radius, (n) => n > 0 && n <= 10000, 'a number greater than 0 and at most 10000')
    if (v !== undefined) config.radius = v
  }
  if (raw.dwellMs !== undefined) {
    const v = checkNumber(issues, 'dwellMs', raw.dwellMs, (n) => n >= 100 && n <= 60000, 'a number of milliseconds from 100 to 60000')
    if (v !== undefined) config.dwellMs = v
  }
  if (raw.maxGapMs !== undefined) {
    const v = checkNumber(issues, 'maxGapMs', raw.maxGapMs, (n) => n >= 10 && n <= 60000, 'a number of milliseconds from 10 to 60000')
    if (v !== undefined) config.maxGapMs = v
  }
  if (raw.rearm !== undefined) {
    if (raw.rearm === 'leave' || raw.rearm === 'repeat') {
      config.rearm = raw.rearm
    } else {
      issues.push({ field: 'rearm', message: `rearm must be "leave" or "repeat", got ${show(raw.rearm)}` })
    }
  }

  return issues.length > 0 ? { ok: false, issues } : { ok: true, config }
}
