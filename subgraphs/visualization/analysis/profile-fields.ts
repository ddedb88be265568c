/**
 * Infers the measurement type of each field of row data, the way visualization recommenders
 * (Voyager, Draco, AVA) describe data before choosing encodings.
 *
 * @module
 */

import { isIsoDate, isIsoYearMonth } from './iso-date.js'
import type { Row } from './read-rows.js'

/** Measurement types of the Vega-Lite / Draco vocabulary. */
export type FieldType = 'nominal' | 'ordinal' | 'quantitative' | 'temporal'

/** What the data says about one field. */
export interface FieldProfile {
  name: string
  type: FieldType
  /** Why the field is temporal: its values are ISO dates, or its name says so (`month`, `created_at`). */
  temporalBy?: 'values' | 'name'
  /** Non-null values. */
  count: number
  /** Distinct non-null values. */
  distinct: number
  /** Smallest and largest value of a numeric field. */
  min?: number
  max?: number
}

/**
 * Field names that name a time unit. Singular only: `hours` or `days` are more often
 * durations (quantities) than points in time.
 */
const TEMPORAL_WORDS = new Set(['date', 'time', 'timestamp', 'datetime', 'day', 'week', 'month', 'year', 'quarter', 'period', 'hour', 'minute'])
// `created_at`, `shipped_on`.
const TEMPORAL_SUFFIXES = new Set(['at', 'on'])

/** Low-cardinality integers are levels (ratings, ranks), not measures: at most this many distinct values… */
export const ORDINAL_MAX_DISTINCT = 10
// …spanning a short range (1–5 stars, not 100, 200, 300 dollars)…
const ORDINAL_MAX_SPAN = 20

/** Lower-case words of a field name: `createdAt`, `created_at` and `Created At` give `created`, `at`. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

/** Whether a field's name says it holds points in time. */
export function hasTemporalName(name: string): boolean {
  const words = nameWords(name)
  const last = words[words.length - 1]
  if (last === undefined) return false
  return TEMPORAL_WORDS.has(last) || (words.length > 1 && TEMPORAL_SUFFIXES.has(last))
}

/**
 * Profiles every column of `rows` that can be charted. Columns with no non-null value, or
 * holding arrays or objects, are left out: no chart type encodes them.
 *
 * Types: strings that are all ISO dates (or `YYYY-MM`) are temporal, as are strings and
 * integers in a field named like a time unit (`month`, `year`, `created_at`); numbers are
 * quantitative, except integers with at most {@link ORDINAL_MAX_DISTINCT} distinct values over a
 * short range that repeat (each value twice on average), which are ordinal; everything else
 * (text, booleans, mixed values) is nominal.
 */
export function profileFields(rows: readonly Row[], columns: readonly string[]): FieldProfile[] {
  const profiles: FieldProfile[] = []
  for (const name of columns) {
    let count = 0
    let strings = 0
    let dates = 0
    let numbers = 0
    let integers = 0
    let unsupported = 0
    let min = Infinity
    let max = -Infinity
    const distinct = new Set<string>()
    for (const row of rows) {
      const value = Object.hasOwn(row, name) ? row[name] : undefined
      if (value === null || value === undefined) continue
      count++
      if (typeof value === 'string') {
        strings++
        if (isIsoDate(value) || isIsoYearMonth(value)) dates++
        distinct.add(`s${value}`)
      } else if (typeof value === 'number' && Number.isFinite(value)) {
        numbers++
        if (Number.isInteger(value)) integers++
        if (value < min) min = value
        if (value > max) max = value
        distinct.add(`n${value}`)
      } else if (typeof value === 'boolean') {
        distinct.add(`b${value}`)
      } else {
        unsupported++
      }
    }
    if (count === 0 || unsupported > 0) continue
    const base = { name, count, distinct: distinct.size }
    const range = numbers > 0 ? { min, max } : {}
    if (strings === count && dates === count) {
      profiles.push({ ...base, type: 'temporal', temporalBy: 'values' })
    } else if (hasTemporalName(name) && (strings === count || integers === count)) {
      profiles.push({ ...base, ...range, type: 'temporal', temporalBy: 'name' })
    } else if (numbers === count) {
      const ordinal = integers === count && distinct.size <= ORDINAL_MAX_DISTINCT && distinct.size * 2 <= count && max - min <= ORDINAL_MAX_SPAN
      profiles.push({ ...base, ...range, type: ordinal ? 'ordinal' : 'quantitative' })
    } else {
      profiles.push({ ...base, type: 'nominal' })
    }
  }
  return profiles
}
