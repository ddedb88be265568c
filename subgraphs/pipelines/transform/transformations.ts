/**
 * A pipeline's `transformations`: checked when the pipeline is saved
 * ({@link validateTransformations}), checked again against the source's columns when a run
 * starts ({@link planTransformations}), then applied to every batch the run reads.
 *
 * @module
 */
import type { Column, ColumnType, Row } from '../connectors/connector.js'
import { CAST_FAILED, castValue, parseBooleanText, parseNumericText, parseTimestampText } from './cast-value.js'
import { columnsOf, compileFilterWith, parseFilter, predicatesOf, type FilterNode, type LiteralNode, type ValueNode } from './filter-expression.js'

/** Renames a column; its type, nullability and position stay. */
export interface RenameTransformation {
  type: 'rename'
  from: string
  to: string
}

/** Keeps only the rows for which `condition` (see `filter-expression.ts`) is true. */
export interface FilterTransformation {
  type: 'filter'
  condition: string
}

/** Converts a column's values to another type (see `castValue`); a value that will not convert fails the run. */
export interface CastTransformation {
  type: 'cast'
  column: string
  to: ColumnType
}

/** Removes columns. */
export interface DropTransformation {
  type: 'drop'
  columns: string[]
}

/** One step of a pipeline's transformations, applied in the order given. */
export type Transformation = RenameTransformation | FilterTransformation | CastTransformation | DropTransformation

/** A problem with the transformations; `field` is a path such as `transformations[2].condition`. */
export interface TransformationIssue {
  field: string
  message: string
}

/** Kinds of transformation, in the order error messages list them. */
export const TRANSFORMATION_TYPES = ['rename', 'filter', 'cast', 'drop'] as const

/** Column types a cast can produce. */
export const COLUMN_TYPES: readonly ColumnType[] = ['string', 'integer', 'number', 'boolean', 'timestamp', 'json']

/** Most transformations one pipeline may have. */
export const MAX_TRANSFORMATIONS = 100

/** Longest column name, PostgreSQL's identifier limit. */
export const MAX_COLUMN_NAME_LENGTH = 63

const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
// Control characters in a name are never intended and would garble logs and SQL error text.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

const FIELDS: Readonly<Record<Transformation['type'], readonly string[]>> = {
  rename: ['type', 'from', 'to'],
  filter: ['type', 'condition'],
  cast: ['type', 'column', 'to'],
  drop: ['type', 'columns'],
}

/**
 * Problem with a name the transformation creates (`rename.to`): it must be a plain
 * identifier, so every destination can hold it without quoting surprises.
 */
function newNameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is required: a column name'
  if (value.length > MAX_COLUMN_NAME_LENGTH) return `must be at most ${MAX_COLUMN_NAME_LENGTH} characters`
  if (!COLUMN_NAME.test(value)) return 'must start with a letter or _ and contain only letters, digits and _'
  return undefined
}

/**
 * Problem with a name that refers to an existing column (`rename.from`, `cast.column`,
 * `drop.columns`). Sources may have columns such as `First Name`; a rename must be able to
 * reach them, so only length and control characters are checked here. Whether the column
 * exists is for {@link planTransformations}.
 */
function existingNameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is required: a column name'
  if (value.length > MAX_COLUMN_NAME_LENGTH) return `must be at most ${MAX_COLUMN_NAME_LENGTH} characters`
  if (CONTROL_CHARACTER.test(value)) return 'must not contain control characters'
  return undefined
}

function validateItem(item: unknown, at: string, issues: TransformationIssue[]): Transformation | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    issues.push({ field: at, message: 'must be an object with a type' })
    return undefined
  }
  const t = item as Record<string, unknown>
  const type = t.type
  if (typeof type !== 'string' || !(TRANSFORMATION_TYPES as readonly string[]).includes(type)) {
    const kinds = `one of ${TRANSFORMATION_TYPES.join(', ')}`
    issues.push({ field: `${at}.type`, message: type === undefined ? `is required: ${kinds}` : `must be ${kinds}` })
    return undefined
  }
  const kind = type as Transformation['type']
  const before = issues.length
  const check = (field: string, problem: string | undefined) => {
    if (problem !== undefined) issues.push({ field: `${at}.${field}`, message: problem })
  }
  // A misspelt field (`colums`) would otherwise be silently ignored.
  for (const key of Object.keys(t)) {
    if (!FIELDS[kind].includes(key)) {
      issues.push({ field: `${at}.${key}`, message: `is not a field of ${kind}; it takes ${FIELDS[kind].slice(1).join(', ')}` })
    }
  }
  switch (kind) {
    case 'rename': {
      check('from', existingNameProblem(t.from))
      check('to', newNameProblem(t.to))
      if (typeof t.from === 'string' && t.from !== '' && t.from === t.to) check('to', "must differ from 'from'")
      return issues.length === before ? { type: 'rename', from: t.from as string, to: t.to as string } : undefined
    }
    case 'filter': {
      const condition = t.condition
      if (typeof condition !== 'string' || condition.trim() === '') {
        check('condition', 'is required: a condition such as amount > 0')
        return undefined
      }
      const parsed = parseFilter(condition)
      if (!parsed.ok) check('condition', parsed.error.message)
      return issues.length === before ? { type: 'filter', condition } : undefined
    }
    case 'cast': {
      check('column', existingNameProblem(t.column))
      if (typeof t.to !== 'string' || !(COLUMN_TYPES as readonly string[]).includes(t.to)) {
        check('to', `${t.to === undefined ? 'is required: ' : 'must be '}one of ${COLUMN_TYPES.join(', ')}`)
      }
      return issues.length === before ? { type: 'cast', column: t.column as string, to: t.to as ColumnType } : undefined
    }
    case 'drop': {
      const columns = t.columns
      if (!Array.isArray(columns) || columns.length === 0) {
        check('columns', 'is required: an array of one or more column names')
        return undefined
      }
      const seen = new Set<string>()
      columns.forEach((name: unknown, j) => {
        const problem = existingNameProblem(name)
        if (problem !== undefined) check(`columns[${j}]`, problem)
        else if (seen.has(name as string)) check(`columns[${j}]`, `lists ${name as string} twice`)
        else seen.add(name as string)
      })
      return issues.length === before ? { type: 'drop', columns: [...(columns as string[])] } : undefined
    }
  }
}

/**
 * Checks a pipeline's `transformations` as sent by a client: an array of at most
 * {@link MAX_TRANSFORMATIONS} objects, each a known kind with its fields present and well
 * formed, filter conditions parsing, and no unknown fields. Every item is checked, so all
 * problems are reported at once. Returns fresh objects holding only the known fields.
 */
export function validateTransformations(input: unknown): { ok: true; transformations: Transformation[] } | { ok: false; issues: TransformationIssue[] } {
  if (!Array.isArray(input)) return { ok: false, issues: [{ field: 'transformations', message: 'must be an array' }] }
  if (input.length > MAX_TRANSFORMATIONS) {
    return { ok: false, issues: [{ field: 'transformations', message: `must have at most ${MAX_TRANSFORMATIONS} items` }] }
  }
  const issues: TransformationIssue[] = []
  const transformations: Transformation[] = []
  input.forEach((item: unknown, i) => {
    const t = validateItem(item, `transformations[${i}]`, issues)
    if (t) transformations.push(t)
  })
  return issues.length ? { ok: false, issues } : { ok: true, transformations }
}

/**
 * Raised by a plan's `apply` when a cast meets a value it cannot convert. The run fails;
 * `rowIndex` is the row's position in the batch handed to `apply`.
 */
export class TransformError extends Error {
  override name = 'TransformError'
  constructor(
    readonly rowIndex: number,
    /** The column's name at the cast, after earlier renames. */
    readonly column: string,
    readonly value: unknown,
    readonly to: ColumnType,
    /** Index of the cast in the pipeline's transformations. */
    readonly step: number,
  ) {
    super(`transformations[${step}]: cannot cast ${describeValue(value)} in column ${column} (row ${rowIndex} of the batch) to ${to}`)
  }
}

function describeValue(value: unknown): string {
  let text: string
  if (typeof value === 'string') text = JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  else if (value instanceof Date) text = Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()
  else if (typeof value === 'object' && value !== null) text = Array.isArray(value) ? 'an array' : 'an object'
  else text = String(value)
  const type = value instanceof Date ? 'Date' : typeof value
  return `${text} (${type})`
}

/** A checked transformation list, ready to apply to batches of rows. */
export interface TransformationPlan {
  ok: true
  /** The columns of the rows `apply` returns, in order. */
  columns: Column[]
  /**
   * Transforms one batch: returns new rows (inputs are left as they are) holding exactly
   * `columns`, with the rows filters rejected left out. A missing value becomes `null`.
   * Throws {@link TransformError} when a cast fails.
   */
  apply(rows: Row[]): Row[]
}

/** A column while planning: its current shape and the slot its value lives in during apply. */
interface Slot {
  column: Column
  slot: number
}

type Operation = { kind: 'cast'; slot: number; to: ColumnType; step: number; name: string } | { kind: 'filter'; test: (values: unknown[]) => boolean }

function listNames(columns: Map<string, Slot>): string {
  const names = [...columns.keys()]
  return names.length > 20 ? `${names.slice(0, 20).join(', ')}, …` : names.join(', ')
}

/**
 * Why comparing a column of `type` with `literal` could never be true, if that is so: the
 * declared type says what values will arrive, and e.g. no integer equals `'abc'`. Catching it
 * here fails the pipeline with a message instead of silently writing nothing.
 */
function literalMismatch(type: ColumnType, literal: LiteralNode): string | undefined {
  const shown = literal.kind === 'string' ? `'${literal.value}'` : literal.kind === 'number' ? literal.text : ''
  switch (type) {
    case 'integer':
    case 'number':
      if (literal.kind === 'string' && parseNumericText(literal.value) === undefined) return `${shown} is not a number`
      return undefined
    case 'boolean':
      if (literal.kind === 'string' && parseBooleanText(literal.value) === undefined) return `${shown} is not a boolean`
      if (literal.kind === 'number' && literal.value !== 0 && literal.value !== 1) return `${shown} is not a boolean (only 1 and 0 are)`
      return undefined
    case 'timestamp':
      if (literal.kind === 'string' && parseTimestampText(literal.value) === undefined) return `${shown} is not an ISO 8601 timestamp`
      if (literal.kind === 'boolean') return `${literal.value ? 'TRUE' : 'FALSE'} is not a timestamp`
      return undefined
    default:
      return undefined
  }
}

/** Type problems of a condition against the columns it reads. */
function filterTypeProblems(ast: FilterNode, columns: Map<string, Slot>): string[] {
  const problems: string[] = []
  const pair = (a: ValueNode, b: ValueNode) => {
    for (const [col, lit] of [
      [a, b],
      [b, a],
    ] as const) {
      if (col.kind !== 'column' || lit.kind === 'column') continue
      const type = columns.get(col.name)?.column.type
      const mismatch = type === undefined ? undefined : literalMismatch(type, lit)
      if (mismatch) problems.push(`column ${col.name} is ${type} and ${mismatch}, so the comparison is never true`)
    }
  }
  for (const node of predicatesOf(ast)) {
    switch (node.kind) {
      case 'compare':
        pair(node.left, node.right)
        break
      case 'between':
        pair(node.operand, node.low)
        pair(node.operand, node.high)
        break
      case 'in':
        for (const value of node.values) pair(node.operand, value)
        break
      case 'like': {
        if (node.operand.kind !== 'column') break
        const type = columns.get(node.operand.name)?.column.type
        if (type !== undefined && type !== 'string' && type !== 'json') {
          problems.push(`column ${node.operand.name} is ${type}; LIKE applies to strings (cast it to string first)`)
        }
        break
      }
      case 'isNull':
        break
    }
  }
  return problems
}

/**
 * Checks transformations against the columns the source discovered and prepares them for a
 * run. Steps apply in the order given and each sees the columns as the steps before it left
 * them, so `rename a → b` then `filter b > 1` is right and `filter a > 1` after it is an
 * issue. Issues: renaming, casting, dropping or filtering on a column that does not exist at
 * that step; renaming onto an existing column; dropping every column; a filter literal that no
 * value of the column's type can equal (`amount = 'abc'` on an integer column); LIKE on a
 * non-string column.
 *
 * The output columns: rename changes the name in place; cast changes the type and keeps
 * nullability; drop removes; filter changes nothing.
 */
export function planTransformations(
  transformations: readonly Transformation[],
  inputColumns: readonly Column[],
): TransformationPlan | { ok: false; issues: TransformationIssue[] } {
  const issues: TransformationIssue[] = []
  const current = new Map<string, Slot>()
  inputColumns.forEach((column, slot) => {
    if (current.has(column.name)) issues.push({ field: 'columns', message: `the source has two columns named ${column.name}` })
    current.set(column.name, { column: { ...column }, slot })
  })
  const inputNames = inputColumns.map((c) => c.name)
  const operations: Operation[] = []

  transformations.forEach((t, i) => {
    const at = `transformations[${i}]`
    switch (t.type) {
      case 'rename': {
        const source = current.get(t.from)
        if (!source) {
          issues.push({ field: `${at}.from`, message: `no column ${t.from} at this step; columns: ${listNames(current)}` })
          return
        }
        if (current.has(t.to)) {
          issues.push({ field: `${at}.to`, message: `column ${t.to} already exists` })
          return
        }
        // Rebuild the map so the renamed column keeps its position in the output.
        const entries = [...current.entries()]
        current.clear()
        for (const [name, slot] of entries) {
          if (name === t.from) current.set(t.to, { column: { ...slot.column, name: t.to }, slot: slot.slot })
          else current.set(name, slot)
        }
        return
      }
      case 'filter': {
        const parsed = parseFilter(t.condition)
        if (!parsed.ok) {
          issues.push({ field: `${at}.condition`, message: parsed.error.message })
          return
        }
        const unknown = columnsOf(parsed.ast).filter((name) => !current.has(name))
        if (unknown.length) {
          issues.push({
            field: `${at}.condition`,
            message: `no column ${unknown.join(', ')} at this step; columns: ${listNames(current)}`,
          })
          return
        }
        const problems = filterTypeProblems(parsed.ast, current)
        if (problems.length) {
          issues.push(...problems.map((message) => ({ field: `${at}.condition`, message })))
          return
        }
        // Resolve names to slots now: a later rename must not change what this filter reads.
        const slots = new Map([...current].map(([name, s]) => [name, s.slot]))
        const test = compileFilterWith<unknown[]>(parsed.ast, (name) => {
          const slot = slots.get(name) as number
          return (values) => values[slot]
        })
        operations.push({ kind: 'filter', test })
        return
      }
      case 'cast': {
        const target = current.get(t.column)
        if (!target) {
          issues.push({ field: `${at}.column`, message: `no column ${t.column} at this step; columns: ${listNames(current)}` })
          return
        }
        current.set(t.column, { column: { ...target.column, type: t.to }, slot: target.slot })
        operations.push({ kind: 'cast', slot: target.slot, to: t.to, step: i, name: t.column })
        return
      }
      case 'drop': {
        const before = issues.length
        t.columns.forEach((name, j) => {
          if (!current.has(name)) {
            issues.push({ field: `${at}.columns[${j}]`, message: `no column ${name} at this step; columns: ${listNames(current)}` })
          }
        })
        if (issues.length > before) return
        if (t.columns.length >= current.size) {
          issues.push({ field: `${at}.columns`, message: 'would drop every column' })
          return
        }
        for (const name of t.columns) current.delete(name)
        return
      }
    }
  })
  if (issues.length) return { ok: false, issues }

  const columns = [...current.values()].map((s) => s.column)
  const outputNames = columns.map((c) => c.name)
  const outputSlots = [...current.values()].map((s) => s.slot)
  const slotCount = inputNames.length
  // Names such as `constructor` are inherited by every object: read those only as own
  // properties, or a row without the column would yield Object.prototype's function.
  const inherited = inputNames.map((name) => name in Object.prototype)
  // Assigning `__proto__` would replace the row's prototype instead of adding a column.
  const defineOutput = outputNames.includes('__proto__')

  return {
    ok: true,
    columns,
    apply(rows: Row[]): Row[] {
      const out: Row[] = []
      // One scratch array per batch: each row's values are loaded into it, cast and filtered
      // in place, then copied into the output object, so rows cost no allocation but that one.
      const values: unknown[] = new Array<unknown>(slotCount)
      rows: for (let r = 0; r < rows.length; r++) {
        const row = rows[r] as Row
        for (let k = 0; k < slotCount; k++) {
          const name = inputNames[k] as string
          const v = inherited[k] && !Object.hasOwn(row, name) ? undefined : row[name]
          values[k] = v === undefined ? null : v
        }
        for (const op of operations) {
          if (op.kind === 'filter') {
            if (!op.test(values)) continue rows
          } else {
            const before = values[op.slot]
            const after = castValue(before, op.to)
            if (after === CAST_FAILED) throw new TransformError(r, op.name, before, op.to, op.step)
            values[op.slot] = after
          }
        }
        const result: Row = {}
        for (let j = 0; j < outputNames.length; j++) {
          const name = outputNames[j] as string
          const v = values[outputSlots[j] as number]
          if (defineOutput && name === '__proto__') {
            Object.defineProperty(result, name, { value: v, enumerable: true, writable: true, configurable: true })
          } else result[name] = v
        }
        out.push(result)
      }
      return out
    },
  }
}
