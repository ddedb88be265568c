/**
 * Reads the `data` array the visualization analysis endpoints share (`POST /data/validate`,
 * `POST /data/transform`, `POST /analytics/recommend`): an array of row objects.
 *
 * @module
 */

import type { ValidationIssue } from '../../../platform/errors.js'

/** Most rows one request may carry; bounds the memory and CPU one request can take. */
export const MAX_ROWS = 100_000

// A body of a hundred thousand bad rows would otherwise answer with as many issues.
const MAX_ROW_ISSUES = 20

/** One row of request data: column name to cell value. */
export type Row = Readonly<Record<string, unknown>>

/** Rows accepted by {@link readRows}, with every column any row has. */
export interface RowSet {
  rows: Row[]
  /** Own keys of the rows, in the order they are first seen. */
  columns: string[]
}

/**
 * Checks that `value` is an array of at most {@link MAX_ROWS} objects and collects their
 * columns. Rows may have different keys: a key one row lacks is a missing cell, not an error.
 * `field` names the value in issues (`data`, `data[3]`).
 */
export function readRows(value: unknown, field = 'data'): ({ ok: true } & RowSet) | { ok: false; issues: ValidationIssue[] } {
  if (!Array.isArray(value)) return { ok: false, issues: [{ field, message: 'is required: an array of row objects' }] }
  if (value.length > MAX_ROWS) {
    return { ok: false, issues: [{ field, message: `must have at most ${MAX_ROWS} rows (got ${value.length})` }] }
  }
  const issues: ValidationIssue[] = []
  let bad = 0
  const columns = new Set<string>()
  for (let i = 0; i < value.length; i++) {
    const row: unknown = value[i]
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      bad++
      if (bad <= MAX_ROW_ISSUES) issues.push({ field: `${field}[${i}]`, message: `must be an object of column values (got ${describe(row)})` })
      continue
    }
    for (const key of Object.keys(row)) columns.add(key)
  }
  if (bad > MAX_ROW_ISSUES) issues.push({ field, message: `${bad - MAX_ROW_ISSUES} more rows are not objects` })
  if (issues.length) return { ok: false, issues }
  return { ok: true, rows: value as Row[], columns: [...columns] }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
