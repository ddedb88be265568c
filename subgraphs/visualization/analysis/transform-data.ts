/**
 * `POST /data/transform`: filters, sorts and aggregates rows with arquero, one transformation
 * after another in the order given.
 *
 * User input never becomes code. arquero compiles string expressions with `Function`, so
 * predicates and sort keys are passed as `aq.escape`d closures, and column names only as
 * plain names to `groupby`, `desc` and the `op` helpers, which arquero quotes with
 * `JSON.stringify` before compiling.
 *
 * @module
 */

import * as aq from 'arquero'
import type { ColumnTable } from 'arquero'
import type { ValidationIssue } from '../../../platform/errors.js'
import { readRows, type Row } from './read-rows.js'
import { isRecord } from '../../../platform/validation/json-shapes.js'

/** Comparison operators of a filter item. `=` and `==` are the same strict equality. */
export const FILTER_OPERATORS = ['=', '==', '!=', '>', '>=', '<', '<=', 'in', 'not_in', 'contains', 'starts_with', 'is_null', 'not_null'] as const
export type FilterOperator = (typeof FILTER_OPERATORS)[number]

/** Aggregate functions of an aggregation item's operations. */
export const AGGREGATE_OPS = ['sum', 'mean', 'median', 'min', 'max', 'count', 'distinct'] as const
export type AggregateOp = (typeof AGGREGATE_OPS)[number]

/** Sort directions; `asc` when a sort item names none. */
export const SORT_ORDERS = ['asc', 'desc'] as const
export type SortOrder = (typeof SORT_ORDERS)[number]

/** Kinds of transformation. */
export type TransformationKind = 'filter' | 'sort' | 'aggregation'

/**
 * Accepted spellings of `type`. The spec names the kinds "filtering", "sorting" and
 * "aggregation" without showing the values, so both the noun and the verb form are accepted.
 */
export const TRANSFORMATION_TYPES: Readonly<Record<string, TransformationKind>> = {
  filter: 'filter',
  filtering: 'filter',
  sort: 'sort',
  sorting: 'sort',
  aggregate: 'aggregation',
  aggregation: 'aggregation',
}

/** Most transformations in one request. */
export const MAX_TRANSFORMATIONS = 50
/** Most values an `in` / `not_in` list may hold. */
export const MAX_IN_VALUES = 1000
/** Most operations one aggregation may compute. */
export const MAX_AGGREGATE_OPERATIONS = 50

// arquero keeps columns in a plain object, where this key would set the prototype instead.
const RESERVED_NAME = '__proto__'
// Columns listed in an "unknown field" issue; wide tables would drown the message.
const COLUMNS_NAMED = 20

/** Keeps the rows whose `field` satisfies `operator value`. */
export interface FilterStep {
  kind: 'filter'
  field: string
  operator: FilterOperator
  /** Absent for `is_null` / `not_null`; an array for `in` / `not_in`. */
  value?: unknown
}

/** Orders rows by `field`; ties keep their previous order (the sort is stable). */
export interface SortStep {
  kind: 'sort'
  field: string
  order: SortOrder
}

/** One aggregate column of an aggregation. */
export interface AggregateOperation {
  op: AggregateOp
  /** The column aggregated; absent only for `count`, which then counts rows. */
  field?: string
  /** Output column name; defaults to `<op>_<field>` (`count` for a row count). */
  as: string
}

/** Groups rows by `group_by` (one group of all rows when empty) and computes `operations` per group. */
export interface AggregationStep {
  kind: 'aggregation'
  group_by: string[]
  operations: AggregateOperation[]
}

/** A parsed transformation, with the `type` the client spelled. */
export type TransformationStep = (FilterStep | SortStep | AggregationStep) & { type: string }

/** What one transformation did, in `applied` of the result. */
export interface AppliedTransformation {
  index: number
  /** The `type` as the client sent it. */
  type: string
  rows_before: number
  rows_after: number
}

/** Response body of `POST /data/transform`. */
export interface TransformResult {
  /** Rows after the last transformation; every row has every column, missing cells are null. */
  data: Record<string, unknown>[]
  row_count: number
  columns: string[]
  applied: AppliedTransformation[]
}

/** Outcome of {@link transformData}. */
export type TransformDataOutcome = { ok: true; result: TransformResult } | { ok: false; issues: ValidationIssue[] }

const KEYS: Readonly<Record<TransformationKind, readonly string[]>> = {
  filter: ['type', 'field', 'operator', 'value'],
  sort: ['type', 'field', 'order'],
  aggregation: ['type', 'group_by', 'operations'],
}
const OPERATION_KEYS = ['op', 'field', 'as']

type Scalar = string | number | boolean | null
type TableExpr = Parameters<ColumnTable['filter']>[0]
type OrderKey = Parameters<ColumnTable['orderby']>[0]
type RollupValues = NonNullable<Parameters<ColumnTable['rollup']>[0]>

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
}

function unknownFieldProblem(name: string, columns: readonly string[]): string | undefined {
  if (columns.includes(name)) return undefined
  const listed = columns
    .slice(0, COLUMNS_NAMED)
    .map((c) => `'${c}'`)
    .join(', ')
  const more = columns.length > COLUMNS_NAMED ? ` and ${columns.length - COLUMNS_NAMED} more` : ''
  return `unknown field '${name}'; columns at this step: ${columns.length ? listed + more : 'none'}`
}

/**
 * Parses `transformations` against the columns of `data`, following the columns from step to
 * step: a filter or sort keeps them, an aggregation replaces them with its group and output
 * columns. Every problem is reported, each under `transformations[i]...`.
 */
export function parseTransformations(
  value: unknown,
  initialColumns: readonly string[],
): { ok: true; steps: TransformationStep[] } | { ok: false; issues: ValidationIssue[] } {
  if (!Array.isArray(value)) return { ok: false, issues: [{ field: 'transformations', message: 'is required: an array of transformations' }] }
  if (value.length > MAX_TRANSFORMATIONS)
    return { ok: false, issues: [{ field: 'transformations', message: `must have at most ${MAX_TRANSFORMATIONS} items` }] }
  const issues: ValidationIssue[] = []
  const steps: TransformationStep[] = []
  let columns = [...initialColumns]
  value.forEach((item: unknown, i) => {
    const at = `transformations[${i}]`
    if (!isRecord(item)) {
      issues.push({ field: at, message: 'must be an object with a type' })
      return
    }
    const kind = typeof item.type === 'string' && Object.hasOwn(TRANSFORMATION_TYPES, item.type) ? TRANSFORMATION_TYPES[item.type] : undefined
    if (kind === undefined) {
      issues.push({
        field: `${at}.type`,
        message: `unknown transformation type ${JSON.stringify(item.type)}; use one of ${Object.keys(TRANSFORMATION_TYPES).join(', ')}`,
      })
      return
    }
    for (const key of Object.keys(item)) {
      if (!KEYS[kind].includes(key)) issues.push({ field: `${at}.${key}`, message: `is not a ${kind} key; allowed: ${KEYS[kind].join(', ')}` })
    }
    const type = item.type as string
    const before = issues.length
    if (kind === 'filter') {
      const step = parseFilter(item, at, columns, issues)
      if (step && issues.length === before) steps.push({ ...step, type })
    } else if (kind === 'sort') {
      const step = parseSort(item, at, columns, issues)
      if (step && issues.length === before) steps.push({ ...step, type })
    } else {
      const step = parseAggregation(item, at, columns, issues)
      if (issues.length === before) steps.push({ ...step, type })
      // Later steps see the columns this one produces, even when it has problems of its own.
      columns = [...step.group_by, ...step.operations.map((o) => o.as)]
    }
  })
  if (issues.length) return { ok: false, issues }
  return { ok: true, steps }
}

function parseField(item: Record<string, unknown>, at: string, columns: readonly string[], issues: ValidationIssue[]): string | undefined {
  if (typeof item.field !== 'string' || item.field === '') {
    issues.push({ field: `${at}.field`, message: 'is required: a column name' })
    return undefined
  }
  const problem = unknownFieldProblem(item.field, columns)
  if (problem) issues.push({ field: `${at}.field`, message: problem })
  return item.field
}

function parseFilter(item: Record<string, unknown>, at: string, columns: readonly string[], issues: ValidationIssue[]): FilterStep | undefined {
  const field = parseField(item, at, columns, issues)
  const operator = item.operator
  if (typeof operator !== 'string' || !(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    issues.push({ field: `${at}.operator`, message: `unknown operator ${JSON.stringify(operator)}; use one of ${FILTER_OPERATORS.join(' ')}` })
    return undefined
  }
  const op = operator as FilterOperator
  const problem = filterValueProblem(op, item.value)
  if (problem) issues.push({ field: `${at}.value`, message: problem })
  if (field === undefined) return undefined
  return op === 'is_null' || op === 'not_null' ? { kind: 'filter', field, operator: op } : { kind: 'filter', field, operator: op, value: item.value }
}

function filterValueProblem(operator: FilterOperator, value: unknown): string | undefined {
  switch (operator) {
    case 'is_null':
    case 'not_null':
      return value === undefined || value === null ? undefined : `must be omitted for ${operator}`
    case '=':
    case '==':
    case '!=':
      return value !== undefined && isScalar(value) ? undefined : `is required for ${operator}: a string, number, boolean or null`
    case '>':
    case '>=':
    case '<':
    case '<=':
      return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string'
        ? undefined
        : `is required for ${operator}: a number or a string`
    case 'in':
    case 'not_in':
      if (!Array.isArray(value)) return `is required for ${operator}: an array of values`
      if (value.length > MAX_IN_VALUES) return `must have at most ${MAX_IN_VALUES} values`
      return value.every(isScalar) ? undefined : 'must hold only strings, numbers, booleans or null'
    case 'contains':
    case 'starts_with':
      return typeof value === 'string' ? undefined : `is required for ${operator}: a string`
  }
}

function parseSort(item: Record<string, unknown>, at: string, columns: readonly string[], issues: ValidationIssue[]): SortStep | undefined {
  const field = parseField(item, at, columns, issues)
  const order = item.order ?? 'asc'
  if (typeof order !== 'string' || !(SORT_ORDERS as readonly string[]).includes(order)) {
    issues.push({ field: `${at}.order`, message: `unknown order ${JSON.stringify(order)}; use asc or desc` })
    return undefined
  }
  return field === undefined ? undefined : { kind: 'sort', field, order: order as SortOrder }
}

function parseAggregation(item: Record<string, unknown>, at: string, columns: readonly string[], issues: ValidationIssue[]): AggregationStep {
  const groupBy: string[] = []
  if (item.group_by !== undefined && !Array.isArray(item.group_by)) {
    issues.push({ field: `${at}.group_by`, message: 'must be an array of column names' })
  } else {
    const names = (item.group_by ?? []) as unknown[]
    names.forEach((name, k) => {
      const where = `${at}.group_by[${k}]`
      if (typeof name !== 'string' || name === '') issues.push({ field: where, message: 'must be a column name' })
      else if (groupBy.includes(name)) issues.push({ field: where, message: `repeats '${name}'` })
      else {
        const problem = unknownFieldProblem(name, columns)
        if (problem) issues.push({ field: where, message: problem })
        groupBy.push(name)
      }
    })
  }
  const operations: AggregateOperation[] = []
  if (item.operations !== undefined && !Array.isArray(item.operations)) {
    issues.push({ field: `${at}.operations`, message: 'must be an array of { field, op, as? }' })
  } else {
    const list = (item.operations ?? []) as unknown[]
    if (list.length > MAX_AGGREGATE_OPERATIONS) issues.push({ field: `${at}.operations`, message: `must have at most ${MAX_AGGREGATE_OPERATIONS} items` })
    if (list.length === 0 && groupBy.length === 0)
      issues.push({ field: `${at}.operations`, message: 'is required when group_by is empty: at least one { field, op, as? }' })
    const names = new Set(groupBy)
    list.slice(0, MAX_AGGREGATE_OPERATIONS).forEach((entry, j) => {
      const where = `${at}.operations[${j}]`
      const operation = parseOperation(entry, where, columns, issues)
      if (!operation) return
      if (operation.as === RESERVED_NAME) issues.push({ field: `${where}.as`, message: `'${RESERVED_NAME}' cannot name a column` })
      else if (names.has(operation.as)) issues.push({ field: `${where}.as`, message: `output column '${operation.as}' already exists; give a different as` })
      names.add(operation.as)
      operations.push(operation)
    })
  }
  return { kind: 'aggregation', group_by: groupBy, operations }
}

function parseOperation(entry: unknown, where: string, columns: readonly string[], issues: ValidationIssue[]): AggregateOperation | undefined {
  if (!isRecord(entry)) {
    issues.push({ field: where, message: 'must be an object { field, op, as? }' })
    return undefined
  }
  for (const key of Object.keys(entry)) {
    if (!OPERATION_KEYS.includes(key)) issues.push({ field: `${where}.${key}`, message: `is not an operation key; allowed: ${OPERATION_KEYS.join(', ')}` })
  }
  const op = entry.op
  if (typeof op !== 'string' || !(AGGREGATE_OPS as readonly string[]).includes(op)) {
    issues.push({ field: `${where}.op`, message: `unknown aggregate ${JSON.stringify(op)}; use one of ${AGGREGATE_OPS.join(', ')}` })
    return undefined
  }
  let field: string | undefined
  if (entry.field === undefined && op === 'count') field = undefined
  else if (typeof entry.field !== 'string' || entry.field === '') {
    issues.push({ field: `${where}.field`, message: `is required for ${op}: a column name` })
    return undefined
  } else {
    field = entry.field
    const problem = unknownFieldProblem(field, columns)
    if (problem) issues.push({ field: `${where}.field`, message: problem })
  }
  if (entry.as !== undefined && (typeof entry.as !== 'string' || entry.as === '')) {
    issues.push({ field: `${where}.as`, message: 'must be a non-empty string' })
    return undefined
  }
  const as = (entry.as as string | undefined) ?? (field === undefined ? 'count' : `${op}_${field}`)
  return field === undefined ? { op: op as AggregateOp, as } : { op: op as AggregateOp, field, as }
}

/**
 * Applies `{ data, transformations }` (the `POST /data/transform` body) in order.
 *
 * Filters: `=`/`==`/`!=` compare with strict equality (`'5'` is not `5`; `!=` keeps nulls);
 * `>`, `>=`, `<`, `<=` compare numbers with numbers and strings with strings (so ISO dates
 * compare as dates) and drop other values; `in`/`not_in` test membership in a list;
 * `contains`/`starts_with` match strings, case-sensitively; `is_null`/`not_null` test for
 * null or missing. Sorts are stable; values of different types never compare with each
 * other: numbers come before strings, then booleans, then other values, and nulls last in
 * both orders. Aggregations ignore nulls; an aggregate of no values is null (`count` and
 * `distinct` are 0).
 */
export function transformData(input: unknown): TransformDataOutcome {
  if (!isRecord(input)) return { ok: false, issues: [{ field: 'body', message: 'must be an object with data and transformations' }] }
  const read = readRows(input.data)
  if (!read.ok) return read
  if (read.columns.includes(RESERVED_NAME)) {
    return { ok: false, issues: [{ field: 'data', message: `'${RESERVED_NAME}' cannot name a column` }] }
  }
  const parsed = parseTransformations(input.transformations, read.columns)
  if (!parsed.ok) return parsed

  let columns = read.columns
  let current = toTable(read.rows, columns)
  const applied: AppliedTransformation[] = []
  for (const [index, step] of parsed.steps.entries()) {
    const rowsBefore = current.numRows()
    if (step.kind === 'filter') current = current.filter(escaped(filterPredicate(step))).reify()
    else if (step.kind === 'sort') current = sortTable(current, step)
    else {
      const issues = aggregationTypeIssues(current, step, `transformations[${index}]`)
      if (issues.length) return { ok: false, issues }
      const result = aggregate(current, step)
      current = result.table
      columns = result.columns
    }
    applied.push({ index, type: step.type, rows_before: rowsBefore, rows_after: current.numRows() })
  }
  const data = toObjects(current, columns)
  return { ok: true, result: { data, row_count: data.length, columns, applied } }
}

function toTable(rows: readonly Row[], columns: readonly string[]): ColumnTable {
  const data: Record<string, unknown[]> = {}
  for (const column of columns) {
    // Missing and undefined cells become null: arquero would otherwise group them apart from nulls.
    data[column] = rows.map((row) => (Object.hasOwn(row, column) ? (row[column] ?? null) : null))
  }
  return aq.table(data, [...columns])
}

function toObjects(t: ColumnTable, columns: readonly string[]): Record<string, unknown>[] {
  const arrays = columns.map((c) => t.array(c) as ArrayLike<unknown>)
  const out: Record<string, unknown>[] = []
  for (let r = 0; r < t.numRows(); r++) {
    // fromEntries defines own properties, so no column name can reach a prototype.
    out.push(Object.fromEntries(columns.map((c, k) => [c, arrays[k]?.[r] ?? null])))
  }
  return out
}

// arquero types escape() as a bare object; it is a valid table expression everywhere it is used here.
function escaped(fn: (d: Record<string, unknown>) => unknown): TableExpr {
  return aq.escape(fn) as unknown as TableExpr
}

function equal(a: unknown, b: Scalar): boolean {
  return b === null ? a === null || a === undefined : a === b
}

/** The row test of a filter step; a closure over the user's value, never compiled from it. */
function filterPredicate(step: FilterStep): (d: Record<string, unknown>) => boolean {
  const { field } = step
  const value = step.value
  switch (step.operator) {
    case '=':
    case '==':
      return (d) => equal(d[field], value as Scalar)
    case '!=':
      return (d) => !equal(d[field], value as Scalar)
    case '>':
    case '>=':
    case '<':
    case '<=': {
      const bound = value as number | string
      const test = comparison(step.operator)
      return (d) => {
        const v = d[field]
        return typeof v === typeof bound && test(v as number | string, bound)
      }
    }
    case 'in':
    case 'not_in': {
      const list = value as Scalar[]
      const keep = step.operator === 'in'
      return (d) => list.some((item) => equal(d[field], item)) === keep
    }
    case 'contains': {
      const needle = value as string
      return (d) => {
        const v = d[field]
        return typeof v === 'string' && v.includes(needle)
      }
    }
    case 'starts_with': {
      const prefix = value as string
      return (d) => {
        const v = d[field]
        return typeof v === 'string' && v.startsWith(prefix)
      }
    }
    case 'is_null':
      return (d) => d[field] === null || d[field] === undefined
    case 'not_null':
      return (d) => d[field] !== null && d[field] !== undefined
  }
}

function comparison(operator: '>' | '>=' | '<' | '<='): (a: number | string, b: number | string) => boolean {
  switch (operator) {
    case '>':
      return (a, b) => a > b
    case '>=':
      return (a, b) => a >= b
    case '<':
      return (a, b) => a < b
    case '<=':
      return (a, b) => a <= b
  }
}

/** Sort rank of a value's type, so values of different types never compare with each other. */
function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 4
  if (typeof value === 'number') return 0
  if (typeof value === 'string') return 1
  if (typeof value === 'boolean') return 2
  return 3
}

function sortTable(t: ColumnTable, step: SortStep): ColumnTable {
  const rank = escaped((d) => typeRank(d[step.field]))
  const key = (step.order === 'desc' ? aq.desc(step.field) : step.field) as OrderKey
  // reify() applies the order to the data, so a later sort breaks ties in this order.
  return t.orderby(rank as OrderKey, key).reify()
}

const NUMERIC_OPS: ReadonlySet<AggregateOp> = new Set(['sum', 'mean', 'median'])

/** Values an aggregate cannot work on: text summed, or min/max over numbers and text together. */
function aggregationTypeIssues(t: ColumnTable, step: AggregationStep, at: string): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  step.operations.forEach((operation, j) => {
    const { field, op } = operation
    if (field === undefined || !(NUMERIC_OPS.has(op) || op === 'min' || op === 'max')) return
    const values = t.array(field) as ArrayLike<unknown>
    const kinds = new Set<string>()
    let example: unknown
    for (let r = 0; r < values.length; r++) {
      const v = values[r]
      if (v === null || v === undefined) continue
      const kind = typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : 'other'
      if (!kinds.has(kind)) {
        kinds.add(kind)
        if (kind !== 'number') example = v
      }
    }
    const where = `${at}.operations[${j}].field`
    if (NUMERIC_OPS.has(op) && (kinds.has('string') || kinds.has('other'))) {
      issues.push({ field: where, message: `'${field}' must hold numbers for ${op}; it holds ${JSON.stringify(example)}` })
    } else if (kinds.has('other') || kinds.size > 1) {
      issues.push({ field: where, message: `'${field}' must hold only numbers or only strings for ${op}` })
    }
  })
  return issues
}

function aggregate(t: ColumnTable, step: AggregationStep): { table: ColumnTable; columns: string[] } {
  const values: Record<string, unknown> = {}
  for (const { op, field, as } of step.operations) values[as] = aggregateExpr(op, field)
  const grouped = step.group_by.length ? t.groupby(...step.group_by) : t
  const rolled = grouped.rollup(values as RollupValues)
  const columns = [...step.group_by, ...step.operations.map((o) => o.as)]
  const distinctOutputs = new Set(step.operations.filter((o) => o.op === 'distinct').map((o) => o.as))
  // Rebuilt so output cells are plain: null instead of undefined/NaN, counts instead of sets.
  const data: Record<string, unknown[]> = {}
  for (const column of columns) {
    const source = rolled.array(column) as ArrayLike<unknown>
    data[column] = Array.from(source, (v) => {
      if (distinctOutputs.has(column)) return Array.isArray(v) ? v.filter((x) => x !== null && x !== undefined).length : 0
      return v === undefined || (typeof v === 'number' && Number.isNaN(v)) ? null : v
    })
  }
  return { table: aq.table(data, columns), columns }
}

function aggregateExpr(op: AggregateOp, field: string | undefined): unknown {
  if (field === undefined) return aq.op.count()
  switch (op) {
    case 'count':
      // Non-null values of the field, as SQL's COUNT(field).
      return aq.op.valid(field)
    case 'distinct':
      // arquero's distinct counts null as a value; the distinct set is counted without it.
      return aq.op.array_agg_distinct(field)
    default:
      return aq.op[op](field)
  }
}
