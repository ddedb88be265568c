/**
 * Value conversions shared by the `cast` transformation and the filter evaluator, so that a
 * filter compares `'42'` with `42` by the same rules a cast would turn one into the other.
 *
 * Everything here is time-zone independent: a timestamp without an offset is read as UTC,
 * never as the server's local time, so a pipeline gives the same result on every machine.
 *
 * @module
 */
import type { ColumnType } from '../connectors/connector.js'

/** Returned by {@link castValue} when the value cannot become the target type. */
export const CAST_FAILED: unique symbol = Symbol('cast failed')

/**
 * Largest number of digits an `integer` cast produces. 38 is what warehouses' widest exact
 * integers hold (NUMBER(38,0), DECIMAL(38)); it also stops `'1e999999'` from becoming a
 * million-digit string.
 */
export const MAX_INTEGER_DIGITS = 38

const NUMERIC_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/
const INTEGER_TEXT = /^[+-]?\d+$/
const TIMESTAMP_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/

/** Earliest and latest instants a JavaScript Date can hold, in ms from the epoch. */
const MAX_EPOCH_MS = 8.64e15

/**
 * Reads decimal text (`42`, `-1.5`, `.5`, `6.02e23`, surrounding whitespace allowed) as a
 * number. Integers too large for a double to hold exactly come back as `bigint`, so
 * `'9007199254740993'` stays distinct from `'9007199254740992'`. Anything else (hex, `NaN`,
 * `Infinity`, overflow, empty text) gives `undefined`.
 */
export function parseNumericText(text: string): number | bigint | undefined {
  const t = text.trim()
  const m = NUMERIC_TEXT.exec(t)
  // The pattern lets both digit runs be empty; at least one digit must be there.
  if (!m || (!m[2] && !m[3])) return undefined
  if (INTEGER_TEXT.test(t)) {
    const n = Number(t)
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n
    return BigInt(t)
  }
  const n = Number(t)
  return Number.isFinite(n) ? n : undefined
}

/**
 * Reads `true`/`false`/`yes`/`no`/`1`/`0` (any case, surrounding whitespace allowed) as a
 * boolean; anything else gives `undefined`.
 */
export function parseBooleanText(text: string): boolean | undefined {
  switch (text.trim().toLowerCase()) {
    case 'true':
    case 'yes':
    case '1':
      return true
    case 'false':
    case 'no':
    case '0':
      return false
    default:
      return undefined
  }
}

/**
 * Reads an ISO 8601 timestamp as milliseconds from the epoch: `2024-05-01`,
 * `2024-05-01T12:30`, `2024-05-01 12:30:15.250Z`, `2024-05-01T12:30:15+02:00`. A date alone
 * is midnight UTC and a time without an offset is UTC. Impossible dates (`2023-02-29`) and
 * times give `undefined`; fractions beyond milliseconds are truncated.
 */
export function parseTimestampText(text: string): number | undefined {
  const m = TIMESTAMP_TEXT.exec(text.trim())
  if (!m) return undefined
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4] ?? 0)
  const minute = Number(m[5] ?? 0)
  const second = Number(m[6] ?? 0)
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'))
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  let offsetMinutes = 0
  if (m[9] !== undefined) {
    const offsetHours = Number(m[10])
    const offsetMins = Number(m[11] ?? 0)
    if (offsetHours > 23 || offsetMins > 59) return undefined
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins)
  }
  // setUTCFullYear rather than Date.UTC, which reads years 0–99 as 1900–1999.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  // A day past the month's end rolls over into the next month: that is how 02-30 shows up.
  if (date.getUTCDate() !== day) return undefined
  date.setUTCHours(hour, minute, second, ms)
  return date.getTime() - offsetMinutes * 60_000
}

/**
 * Exact integer value of decimal text (`'42'`, `'4.2e1'`, `'42.000'`), or `undefined` when the
 * text is not numeric, not integral, or longer than {@link MAX_INTEGER_DIGITS} digits. Safe
 * integers come back as numbers, larger ones as strings of digits (the {@link Row} convention).
 */
function integerOfText(text: string): number | string | undefined {
  const m = NUMERIC_TEXT.exec(text.trim())
  if (!m || (!m[2] && !m[3])) return undefined
  const sign = m[1] === '-' ? '-' : ''
  const digits = (m[2] ?? '') + (m[3] ?? '')
  const firstNonZero = digits.search(/[1-9]/)
  if (firstNonZero === -1) return 0
  // Where the decimal point falls in `digits` once the exponent has moved it.
  const exponent = m[4] === undefined ? 0 : Number(m[4])
  const point = (m[2] ?? '').length + exponent
  // Digits after the point must all be zero for the value to be an integer.
  if (point < digits.length && /[1-9]/.test(digits.slice(Math.max(point, 0)))) return undefined
  const integerDigits = point - firstNonZero
  if (integerDigits > MAX_INTEGER_DIGITS) return undefined
  const whole = digits.slice(firstNonZero, Math.min(point, digits.length)).padEnd(integerDigits, '0')
  return integerOfDigits(sign, whole)
}

function integerOfDigits(sign: string, digits: string): number | string {
  const n = Number(sign + digits)
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n
  return sign + digits
}

function toInteger(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return CAST_FAILED
    if (Number.isSafeInteger(value)) return value === 0 ? 0 : value
    // The double already lost whatever precision it had; spell out the integer it holds.
    return integerOfBigint(BigInt(value))
  }
  if (typeof value === 'bigint') return integerOfBigint(value)
  if (typeof value === 'string') return integerOfText(value) ?? CAST_FAILED
  return CAST_FAILED
}

function integerOfBigint(value: bigint): number | string | typeof CAST_FAILED {
  const text = value.toString()
  const sign = value < 0n ? '-' : ''
  const digits = sign ? text.slice(1) : text
  return digits.length > MAX_INTEGER_DIGITS ? CAST_FAILED : integerOfDigits(sign, digits)
}

function toNumber(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : CAST_FAILED
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'string') {
    const n = parseNumericText(value)
    return n === undefined ? CAST_FAILED : Number(n)
  }
  return CAST_FAILED
}

function toBoolean(value: unknown): unknown {
  if (typeof value === 'boolean') return value
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (value == 1) return true
    if (value == 0) return false
    return CAST_FAILED
  }
  if (typeof value === 'string') return parseBooleanText(value) ?? CAST_FAILED
  return CAST_FAILED
}

function toTimestamp(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? CAST_FAILED : value
  if (typeof value === 'number') {
    return Number.isFinite(value) && Math.abs(value) <= MAX_EPOCH_MS ? new Date(value) : CAST_FAILED
  }
  if (typeof value === 'string') {
    const ms = parseTimestampText(value)
    return ms === undefined || Math.abs(ms) > MAX_EPOCH_MS ? CAST_FAILED : new Date(ms)
  }
  return CAST_FAILED
}

function toJson(value: unknown): unknown {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as unknown
    } catch {
      return CAST_FAILED
    }
  }
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) return value
  if (typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : CAST_FAILED
  return CAST_FAILED
}

function toText(value: unknown): unknown {
  if (typeof value === 'string') return value
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? CAST_FAILED : value.toISOString()
  if (typeof value === 'object' && value !== null) {
    // String() of an object says `[object Object]`; its JSON text is what anyone wants.
    try {
      return JSON.stringify(value)
    } catch {
      return CAST_FAILED
    }
  }
  return String(value)
}

/**
 * Converts one value to a column type, or returns {@link CAST_FAILED}. `null` (and a missing
 * value) stays `null` whatever the target. The rules:
 *
 * - `string`: strings as they are; Date → ISO 8601 (`toISOString`); objects and arrays → JSON
 *   text; anything else → `String(value)`.
 * - `integer`: integral finite numbers and integral decimal text (`'42'`, `'4.2e1'`, `' 7 '`);
 *   beyond 2^53 the result is a string of digits, exact when the input was text; at most
 *   {@link MAX_INTEGER_DIGITS} digits. `'4.5'`, `4.5`, booleans and dates fail.
 * - `number`: finite numbers, bigints and decimal text.
 * - `boolean`: booleans; 1 and 0; `true`/`false`/`yes`/`no`/`1`/`0` in any case.
 * - `timestamp`: valid Dates (returned as they are); ISO 8601 text, UTC unless it has an
 *   offset (see {@link parseTimestampText}); numbers as epoch milliseconds. Results are Dates.
 * - `json`: text is parsed as JSON; objects, arrays, booleans and finite numbers pass as they are.
 */
export function castValue(value: unknown, to: ColumnType): unknown {
  if (value === null || value === undefined) return null
  switch (to) {
    case 'string':
      return toText(value)
    case 'integer':
      return toInteger(value)
    case 'number':
      return toNumber(value)
    case 'boolean':
      return toBoolean(value)
    case 'timestamp':
      return toTimestamp(value)
    case 'json':
      return toJson(value)
  }
}
