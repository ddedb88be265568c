/**
 * `POST /data/validate`: checks rows against an expected tabular schema, cell by cell, and
 * reports suspicious data that is not wrong enough to be an error.
 *
 * A malformed request (no row array, an unusable schema) is rejected with issues; data that
 * does not match a well-formed schema is the normal outcome and is reported in the result.
 *
 * @module
 */

import type { ValidationIssue } from '../../../platform/errors.js'
import { isIsoDate } from './iso-date.js'
import { readRows, type Row } from './read-rows.js'

/** Column types a schema may declare. `date` is an ISO 8601 string; `any` accepts every non-null value. */
export const DECLARED_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'any'] as const
export type DeclaredType = (typeof DECLARED_TYPES)[number]

/** Schema kinds: only row objects with named columns are described by the spec. */
export const SCHEMA_KINDS = ['tabular'] as const

/** Most errors listed; past this many a warning says how many were left out. */
export const MAX_ERRORS = 1000

/** Most columns a schema may declare. */
export const MAX_SCHEMA_COLUMNS = 1000

/** Tukey's "far out" fence: values beyond this many interquartile ranges from a quartile. */
export const OUTLIER_IQR_FACTOR = 3

// Quartiles of fewer values are too unstable to call anything an outlier.
const MIN_VALUES_FOR_OUTLIERS = 4
// Rows named in one warning; the rest are counted.
const ROWS_NAMED = 5

/** Type of one cell as seen in the data. `integer` and `date` are the narrower `number` and `string`. */
export type ObservedType = 'string' | 'date' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null'

/** Type of a whole column in `statistics.data_types`: `mixed` when its values have several kinds. */
export type ColumnType = ObservedType | 'mixed'

/** A parsed `expected_schema`. */
export interface ExpectedSchema {
  type: 'tabular'
  columns: string[]
  types: DeclaredType[]
}

/** One cell that does not match the schema. */
export interface DataError {
  /** `missing_column`: the row has no such key; `type_mismatch`: the value has another type. */
  code: 'missing_column' | 'type_mismatch'
  /** 0-based index of the row in `data`. */
  row: number
  column: string
  expected: DeclaredType
  /** Observed type of the value, or `missing` when the row lacks the column. */
  actual: ObservedType | 'missing'
  message: string
}

/** Response body of `POST /data/validate`. */
export interface DataValidationReport {
  /** False when there is at least one error. */
  valid: boolean
  errors: DataError[]
  warnings: string[]
  statistics: {
    total_rows: number
    /** Null, undefined or missing cells of the schema's columns. */
    null_count: number
    /** Observed type of every column, schema columns first, then extra ones. */
    data_types: Record<string, ColumnType>
  }
}

/** Outcome of {@link validateData}: the report, or why the request cannot be validated. */
export type ValidateDataOutcome = { ok: true; report: DataValidationReport } | { ok: false; issues: ValidationIssue[] }

/** Type of one cell value. */
export function observedType(value: unknown): ObservedType {
  if (value === null || value === undefined) return 'null'
  switch (typeof value) {
    case 'string':
      return isIsoDate(value) ? 'date' : 'string'
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number'
    case 'bigint':
      return 'integer'
    case 'boolean':
      return 'boolean'
    default:
      return Array.isArray(value) ? 'array' : 'object'
  }
}

/** Whether a non-null `value` is acceptable in a column declared `type`. */
function matches(type: DeclaredType, value: unknown): boolean {
  switch (type) {
    case 'any':
      return true
    case 'string':
      return typeof value === 'string'
    case 'date':
      return isIsoDate(value)
    case 'number':
      // NaN and Infinity cannot come from JSON and cannot be charted.
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
  }
}

// Types of one family can share a column: integers among numbers, dates among strings.
function family(type: ObservedType): string {
  if (type === 'integer') return 'number'
  if (type === 'date') return 'string'
  return type
}

// Decimal and exponent notation, and thousands separators: what a spreadsheet export
// turns numbers into when a column is formatted as text.
const NUMERIC_TEXT = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$|^\s*[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?\s*$/

/** Parses `expected_schema`, or lists what is wrong with it. */
export function parseExpectedSchema(value: unknown): { ok: true; schema: ExpectedSchema } | { ok: false; issues: ValidationIssue[] } {
  const field = 'expected_schema'
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ field, message: 'is required: an object with type, columns and types' }] }
  }
  const s = value as Record<string, unknown>
  const issues: ValidationIssue[] = []
  if (s.type !== undefined && !(SCHEMA_KINDS as readonly unknown[]).includes(s.type)) {
    issues.push({ field: `${field}.type`, message: `unknown schema type ${JSON.stringify(s.type)}; the supported type is ${SCHEMA_KINDS.join(', ')}` })
  }
  const columns: string[] = []
  if (!Array.isArray(s.columns) || s.columns.length === 0) {
    issues.push({ field: `${field}.columns`, message: 'is required: a non-empty array of column names' })
  } else if (s.columns.length > MAX_SCHEMA_COLUMNS) {
    issues.push({ field: `${field}.columns`, message: `must have at most ${MAX_SCHEMA_COLUMNS} columns` })
  } else {
    const seen = new Set<string>()
    s.columns.forEach((name: unknown, i) => {
      if (typeof name !== 'string' || name === '') issues.push({ field: `${field}.columns[${i}]`, message: 'must be a non-empty string' })
      else if (seen.has(name)) issues.push({ field: `${field}.columns[${i}]`, message: `repeats column '${name}'` })
      else seen.add(name)
      if (typeof name === 'string') columns.push(name)
    })
  }
  const types: DeclaredType[] = []
  if (!Array.isArray(s.types)) {
    issues.push({ field: `${field}.types`, message: `is required: an array with one type per column (${DECLARED_TYPES.join(', ')})` })
  } else {
    s.types.forEach((type: unknown, i) => {
      if (typeof type === 'string' && (DECLARED_TYPES as readonly string[]).includes(type)) types.push(type as DeclaredType)
      else issues.push({ field: `${field}.types[${i}]`, message: `unknown type ${JSON.stringify(type)}; use one of ${DECLARED_TYPES.join(', ')}` })
    })
    if (Array.isArray(s.columns) && s.types.length !== s.columns.length) {
      issues.push({ field: `${field}.types`, message: `has ${s.types.length} types for ${s.columns.length} columns; give one type per column` })
    }
  }
  if (issues.length) return { ok: false, issues }
  return { ok: true, schema: { type: 'tabular', columns, types } }
}

/** What one pass over the rows learns about one column. */
interface ColumnStats {
  present: number
  nonNull: number
  types: Map<ObservedType, number>
  numbers: { row: number; value: number }[]
  numericText: { row: number; value: string }[]
}

function newStats(): ColumnStats {
  return { present: 0, nonNull: 0, types: new Map(), numbers: [], numericText: [] }
}

/**
 * Validates `{ data, expected_schema }` (the `POST /data/validate` body).
 *
 * Every row is checked against every schema column: a missing key is a `missing_column`
 * error, a value of another type a `type_mismatch` error; null is allowed in any column and
 * counted. Errors are listed up to {@link MAX_ERRORS}. Warnings flag extra columns, columns
 * that are entirely null, columns with values of several types, numbers sent as text in
 * `string` columns, outliers beyond {@link OUTLIER_IQR_FACTOR} IQR and duplicate rows.
 */
export function validateData(input: unknown): ValidateDataOutcome {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, issues: [{ field: 'body', message: 'must be an object with data and expected_schema' }] }
  }
  const body = input as Record<string, unknown>
  const read = readRows(body.data)
  const schema = parseExpectedSchema(body.expected_schema)
  const issues = [...(read.ok ? [] : read.issues), ...(schema.ok ? [] : schema.issues)]
  if (!read.ok || !schema.ok) return { ok: false, issues }
  return { ok: true, report: check(read.rows, read.columns, schema.schema) }
}

function check(rows: Row[], observedColumns: string[], schema: ExpectedSchema): DataValidationReport {
  const expected = new Set(schema.columns)
  const extra = observedColumns.filter((c) => !expected.has(c))
  const allColumns = [...schema.columns, ...extra]
  const stats = new Map(allColumns.map((c) => [c, newStats()]))
  const declared = new Map<string, DeclaredType>(schema.columns.map((c, i) => [c, schema.types[i] ?? 'any']))

  const errors: DataError[] = []
  let errorCount = 0
  let nullCount = 0
  const report = (error: DataError) => {
    errorCount++
    if (errors.length < MAX_ERRORS) errors.push(error)
  }

  rows.forEach((row, r) => {
    for (const column of allColumns) {
      const st = stats.get(column)
      if (!st) continue
      const type = declared.get(column)
      const has = Object.hasOwn(row, column)
      const value = has ? row[column] : undefined
      if (has) st.present++
      if (value === null || value === undefined) {
        if (type === undefined) continue
        nullCount++
        if (!has) report({ code: 'missing_column', row: r, column, expected: type, actual: 'missing', message: `row ${r}: column '${column}' is missing` })
        continue
      }
      const actual = observedType(value)
      st.nonNull++
      st.types.set(actual, (st.types.get(actual) ?? 0) + 1)
      if (typeof value === 'number' && Number.isFinite(value)) st.numbers.push({ row: r, value })
      if (type === 'string' && typeof value === 'string' && NUMERIC_TEXT.test(value)) st.numericText.push({ row: r, value })
      if (type !== undefined && !matches(type, value)) {
        report({
          code: 'type_mismatch',
          row: r,
          column,
          expected: type,
          actual,
          message: `row ${r}: column '${column}' expected ${type}, got ${actual} ${preview(value)}`,
        })
      }
    }
  })

  const warnings: string[] = []
  for (const column of extra) {
    const st = stats.get(column)
    warnings.push(`Column '${column}' is not in expected_schema (present in ${plural(st?.present ?? 0, 'row')})`)
  }
  for (const column of allColumns) {
    const st = stats.get(column)
    if (st && rows.length > 0 && st.nonNull === 0) warnings.push(`Column '${column}' is null or missing in all ${plural(rows.length, 'row')}`)
  }
  for (const column of allColumns) {
    const st = stats.get(column)
    if (!st) continue
    const families = new Map<string, number>()
    for (const [type, n] of st.types) families.set(family(type), (families.get(family(type)) ?? 0) + n)
    if (families.size > 1) {
      const parts = [...families].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([t, n]) => `${t} (${plural(n, 'row')})`)
      warnings.push(`Column '${column}' has mixed types: ${parts.join(', ')}`)
    }
  }
  for (const column of schema.columns) {
    const found = stats.get(column)?.numericText ?? []
    if (found.length) {
      warnings.push(
        `Column '${column}' is declared string but ${plural(found.length, 'value')} ${found.length === 1 ? 'looks' : 'look'} like numbers: ` +
          `${listRows(found.map((f) => `row ${f.row} (${JSON.stringify(f.value)})`))}; send numbers if the column holds quantities`,
      )
    }
  }
  for (const column of allColumns) {
    const st = stats.get(column)
    if (!st || !isNumericColumn(st, declared.get(column))) continue
    const warning = outlierWarning(column, st.numbers)
    if (warning) warnings.push(warning)
  }
  const duplicates = duplicateRows(rows)
  if (duplicates.length) {
    warnings.push(`${plural(duplicates.length, 'duplicate row')}: ${listRows(duplicates.map(([r, first]) => `row ${r} repeats row ${first}`))}`)
  }
  if (errorCount > errors.length) {
    warnings.push(`${errorCount - errors.length} more errors were omitted; only the first ${MAX_ERRORS} of ${errorCount} are listed`)
  }

  const dataTypes = Object.fromEntries(allColumns.map((c) => [c, columnType(stats.get(c))])) as Record<string, ColumnType>
  return {
    valid: errorCount === 0,
    errors,
    warnings,
    statistics: { total_rows: rows.length, null_count: nullCount, data_types: dataTypes },
  }
}

/** Observed type of a column: the common type of its non-null values, `mixed` when they differ in kind. */
function columnType(st: ColumnStats | undefined): ColumnType {
  if (!st || st.types.size === 0) return 'null'
  const kinds = [...st.types.keys()]
  const families = new Set(kinds.map(family))
  if (families.size > 1) return 'mixed'
  if (kinds.length === 1) return kinds[0] ?? 'null'
  // Two kinds of one family: integers with fractions are numbers, dates with other text strings.
  return families.has('number') ? 'number' : 'string'
}

function isNumericColumn(st: ColumnStats, declared: DeclaredType | undefined): boolean {
  if (declared === 'number' || declared === 'integer') return true
  if (declared !== undefined && declared !== 'any') return false
  return st.nonNull > 0 && st.numbers.length === st.nonNull
}

/** Linear interpolation between closest ranks (R-7, as spreadsheets and d3 compute quartiles). */
function quantile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p
  const lo = Math.floor(h)
  const a = sorted[lo] ?? 0
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] ?? a
  return a + (h - lo) * (b - a)
}

function outlierWarning(column: string, numbers: { row: number; value: number }[]): string | undefined {
  if (numbers.length < MIN_VALUES_FOR_OUTLIERS) return undefined
  const sorted = numbers.map((n) => n.value).sort((a, b) => a - b)
  const q1 = quantile(sorted, 0.25)
  const q3 = quantile(sorted, 0.75)
  const iqr = q3 - q1
  const low = q1 - OUTLIER_IQR_FACTOR * iqr
  const high = q3 + OUTLIER_IQR_FACTOR * iqr
  const outliers = numbers.filter((n) => n.value < low || n.value > high)
  if (!outliers.length) return undefined
  return (
    `Column '${column}' has ${plural(outliers.length, 'outlier')} beyond ${OUTLIER_IQR_FACTOR}×IQR ` +
    `(outside ${formatNumber(low)} to ${formatNumber(high)}): ${listRows(outliers.map((o) => `row ${o.row} (${formatNumber(o.value)})`))}`
  )
}

/** Pairs `[row, first row with the same content]` for every row that repeats an earlier one. */
function duplicateRows(rows: Row[]): [number, number][] {
  const firstSeen = new Map<string, number>()
  const duplicates: [number, number][] = []
  rows.forEach((row, r) => {
    const key = canonical(row)
    const first = firstSeen.get(key)
    if (first === undefined) firstSeen.set(key, r)
    else duplicates.push([r, first])
  })
  return duplicates
}

// Key order does not make rows different; undefined cells are dropped as JSON drops them.
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  if (typeof value === 'bigint') return `${value}n`
  return JSON.stringify(value) ?? 'null'
}

function listRows(items: string[]): string {
  const shown = items.slice(0, ROWS_NAMED).join(', ')
  return items.length > ROWS_NAMED ? `${shown} and ${items.length - ROWS_NAMED} more` : shown
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function preview(value: unknown): string {
  let text: string
  try {
    text = typeof value === 'bigint' ? `${value}` : (JSON.stringify(value) ?? String(value))
  } catch {
    text = String(value)
  }
  return `(${text.length > 40 ? `${text.slice(0, 37)}...` : text})`
}

// Short and stable: messages must not change with floating-point noise.
function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)))
}
