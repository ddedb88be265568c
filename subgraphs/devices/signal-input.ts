import type { ValidationIssue } from '../../platform/errors.js'

/** Kinds of assistive input device the gateway understands. */
export const SIGNAL_TYPES = ['eye_tracker', 'switch', 'sip_puff'] as const
export type SignalType = (typeof SIGNAL_TYPES)[number]

/** A validated signal, ready to store. */
export interface SignalInput {
  deviceId: string
  type: SignalType
  /** The reading, normalised (only the documented keys of its type). */
  data: Record<string, unknown>
  observedAt: Date
}

export const DEVICE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/
const COORDINATE_LIMIT = 1_000_000
// Readings older or newer than this are clock errors, not gaze data.
const MAX_CLOCK_SKEW_MS = 24 * 3600 * 1000

/**
 * Validates a signal body: `type` and its `data` shape, an optional `device_id` (defaulting to
 * the caller) and an optional reading time `data.timestamp` (ISO 8601 or epoch ms). Returns
 * every problem found, each naming its field.
 *
 * - eye_tracker: `{ gaze_point: { x, y }, timestamp? }` — screen coordinates, finite numbers.
 * - switch: `{ switch_id?, state: "pressed" | "released", timestamp? }`.
 * - sip_puff: `{ action: "sip" | "puff", pressure?: number (kPa, -20..20), timestamp? }`.
 */
export function parseSignal(
  body: { type?: unknown; data?: unknown; device_id?: unknown },
  defaultDeviceId: string,
  now: Date,
): { ok: true; signal: SignalInput } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  const deviceId = body.device_id ?? defaultDeviceId
  if (typeof deviceId !== 'string' || !DEVICE_ID_PATTERN.test(deviceId)) {
    issues.push({ field: 'device_id', message: 'must be 1-128 characters of letters, digits and . _ : -' })
  }
  if (!SIGNAL_TYPES.includes(body.type as SignalType)) {
    issues.push({ field: 'type', message: `must be one of: ${SIGNAL_TYPES.join(', ')}` })
  }
  const data = body.data
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    issues.push({ field: 'data', message: 'must be an object' })
    return { ok: false, issues }
  }
  const raw = data as Record<string, unknown>
  const observedAt = parseTimestamp(raw.timestamp, now, issues)
  let normalised: Record<string, unknown> = {}
  switch (body.type as SignalType) {
    case 'eye_tracker': {
      const gaze = raw.gaze_point
      if (typeof gaze !== 'object' || gaze === null || Array.isArray(gaze)) {
        issues.push({ field: 'data.gaze_point', message: 'is required: an object with numeric x and y' })
        break
      }
      const { x, y } = gaze as { x?: unknown; y?: unknown }
      for (const [name, value] of [
        ['x', x],
        ['y', y],
      ] as const) {
        if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > COORDINATE_LIMIT) {
          issues.push({ field: `data.gaze_point.${name}`, message: `must be a finite number within ±${COORDINATE_LIMIT}` })
        }
      }
      normalised = { gaze_point: { x, y } }
      break
    }
    case 'switch': {
      const switchId = raw.switch_id ?? '1'
      if (typeof switchId !== 'string' || switchId.length === 0 || switchId.length > 64) {
        issues.push({ field: 'data.switch_id', message: 'must be a string of 1-64 characters' })
      }
      if (raw.state !== 'pressed' && raw.state !== 'released') {
        issues.push({ field: 'data.state', message: 'must be "pressed" or "released"' })
      }
      normalised = { switch_id: switchId, state: raw.state }
      break
    }
    case 'sip_puff': {
      if (raw.action !== 'sip' && raw.action !== 'puff') issues.push({ field: 'data.action', message: 'must be "sip" or "puff"' })
      if (raw.pressure !== undefined && (typeof raw.pressure !== 'number' || !Number.isFinite(raw.pressure) || Math.abs(raw.pressure) > 20)) {
        issues.push({ field: 'data.pressure', message: 'must be a number of kPa from -20 to 20' })
      }
      normalised = { action: raw.action, ...(raw.pressure !== undefined ? { pressure: raw.pressure } : {}) }
      break
    }
  }
  if (issues.length) return { ok: false, issues }
  return { ok: true, signal: { deviceId: deviceId as string, type: body.type as SignalType, data: normalised, observedAt } }
}

function parseTimestamp(value: unknown, now: Date, issues: ValidationIssue[]): Date {
  if (value === undefined) return now
  const date = typeof value === 'number' ? new Date(value) : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : null
  if (!date || Number.isNaN(date.getTime()) || Math.abs(date.getTime() - now.getTime()) > MAX_CLOCK_SKEW_MS) {
    issues.push({ field: 'data.timestamp', message: 'must be an ISO 8601 time or epoch milliseconds within a day of now' })
    return now
  }
  return date
}
