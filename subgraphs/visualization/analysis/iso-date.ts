/**
 * Recognises ISO 8601 dates in request data, for `date` columns in validation and temporal
 * fields in chart recommendation.
 *
 * @module
 */

// Calendar date, optionally with a time of day and a zone designator. Only the extended
// format (with separators) is accepted: `20240301` is far more often an id than a date.
// A space may stand for the T (RFC 3339 allows it; PostgreSQL prints timestamps so).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/
const YEAR_MONTH = /^(\d{4})-(\d{2})$/

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one; UTC avoids local DST gaps.
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/**
 * Whether `value` is an ISO 8601 calendar date (`2024-03-01`) or date-time
 * (`2024-03-01T12:00`, `2024-03-01T12:00:00.5Z`, `2024-03-01T12:00:00+02:00`) naming a real
 * instant: `2024-02-30` and `2024-03-01T25:00` are rejected, not rolled over as `Date.parse` does.
 */
export function isIsoDate(value: unknown): boolean {
  if (typeof value !== 'string') return false
  const m = DATE_TIME.exec(value)
  if (!m) return false
  const [, y, mo, d, h, mi, s, , oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  if (month < 1 || month > 12) return false
  const day = Number(d)
  if (day < 1 || day > daysInMonth(year, month)) return false
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59)) return false
  if (s !== undefined && Number(s) > 59) return false
  if (oh !== undefined && (Number(oh) > 23 || Number(om) > 59)) return false
  return true
}

/** Whether `value` is an ISO 8601 year and month (`2024-03`), a common key of monthly series. */
export function isIsoYearMonth(value: unknown): boolean {
  if (typeof value !== 'string') return false
  const m = YEAR_MONTH.exec(value)
  if (!m) return false
  const month = Number(m[2])
  return month >= 1 && month <= 12
}
