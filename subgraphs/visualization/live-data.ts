/**
 * Live data: how points pushed to a chart (`POST /charts/{chart_id}/data`) combine with the
 * points it has.
 *
 * @module
 */

import type { ValidationIssue } from '../../platform/errors.js'
import { isRecord } from '../../platform/validation/json-shapes.js'
import { findChartType, type ChartTypeId } from './render/chart-catalog.js'
import { uniquenessKey, type Item } from './render/chart-input.js'

/** How pushed points combine with the chart's: added to them, or in place of them. */
export const PUSH_MODES = ['append', 'replace'] as const
export type PushMode = (typeof PUSH_MODES)[number]

/** A validated push: the points (raw; validated against the chart type later), mode and window. */
export interface DataPush {
  data: unknown[]
  mode: PushMode
  /** Keep at most this many points, dropping the oldest; default the type's `max_data_points`. */
  window: number | undefined
}

const PUSH_KEYS = ['data', 'mode', 'window']

/** Reads `{ data, mode?, window? }`; every problem names its field. */
export function parseDataPush(body: unknown): { ok: true; push: DataPush } | { ok: false; issues: ValidationIssue[] } {
  if (!isRecord(body)) return { ok: false, issues: [{ field: 'body', message: 'must be an object with data' }] }
  const input = body as Record<string, unknown>
  const issues: ValidationIssue[] = []
  for (const key of Object.keys(input))
    if (!PUSH_KEYS.includes(key)) issues.push({ field: key, message: `is not a field of a data push; use ${PUSH_KEYS.join(', ')}` })
  if (!Array.isArray(input.data))
    issues.push({ field: 'data', message: input.data === undefined ? 'is required: an array of data items' : 'must be an array of data items' })
  else if (input.data.length === 0) issues.push({ field: 'data', message: 'must hold at least one item' })
  const mode = input.mode === undefined ? 'append' : input.mode
  if (typeof mode !== 'string' || !(PUSH_MODES as readonly string[]).includes(mode))
    issues.push({ field: 'mode', message: `must be one of ${PUSH_MODES.join(', ')}` })
  const window = input.window
  if (window !== undefined && (typeof window !== 'number' || !Number.isInteger(window) || window < 1))
    issues.push({ field: 'window', message: 'must be a positive integer' })
  if (issues.length) return { ok: false, issues }
  return { ok: true, push: { data: input.data as unknown[], mode: mode as PushMode, window: window as number | undefined } }
}

/**
 * The chart's points after a push of already validated `incoming` points: `replace` takes
 * them as they are; `append` updates the point with the same key (see `uniquenessKey`: a
 * bar's label, a heatmap cell) in place — a bar's new value — and adds the rest at the end;
 * scatter and histogram points are always added. Then only the newest `window` points (default: the type's
 * `max_data_points`) are kept, so a live chart scrolls instead of refusing new points.
 */
export function mergeDataPoints(
  chartType: ChartTypeId,
  current: readonly Record<string, unknown>[],
  incoming: readonly Record<string, unknown>[],
  push: Pick<DataPush, 'mode' | 'window'>,
): Record<string, unknown>[] {
  let merged: Record<string, unknown>[]
  if (push.mode === 'replace') {
    merged = [...incoming]
  } else {
    merged = [...current]
    const at = new Map<string, number>()
    merged.forEach((item, index) => {
      const id = uniquenessKey(chartType, item as unknown as Item)
      if (id !== undefined) at.set(id, index)
    })
    for (const item of incoming) {
      const id = uniquenessKey(chartType, item as unknown as Item)
      const index = id === undefined ? undefined : at.get(id)
      if (index !== undefined) {
        merged[index] = item
      } else {
        if (id !== undefined) at.set(id, merged.length)
        merged.push(item)
      }
    }
  }
  const keep = Math.min(push.window ?? Infinity, findChartType(chartType)?.maxDataPoints ?? Infinity)
  return merged.length > keep ? merged.slice(merged.length - keep) : merged
}
