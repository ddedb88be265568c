const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

/**
 * Parses an ISO 8601 date or date-time (`2024-05-01`, `2024-05-01T12:30:00.123+02:00`,
 * `2024-05-01 12:30`), or returns undefined. A time without a zone is taken as UTC: the same
 * text must give the same instant on every server, whatever its local zone.
 *
 * Checks the calendar (no 30 February) instead of relying on `Date.parse`, which is lenient
 * in some engines and local-time in others.
 */
export function parseTimestamp(text: string): Date | undefined {
  const m = ISO_8601.exec(text)
  if (!m) return undefined
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (hour > 23 || minute > 59 || second > 59) return undefined
  const millis = Number(frac.slice(0, 3).padEnd(3, '0'))
  const date = new Date(0)
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, millis)
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined
  let offsetMinutes = 0
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const zoneHours = Number(digits.slice(0, 2))
    const zoneMinutes = Number(digits.slice(2) || '0')
    if (zoneHours > 23 || zoneMinutes > 59) return undefined
    offsetMinutes = sign * (zoneHours * 60 + zoneMinutes)
  }
  return new Date(date.getTime() - offsetMinutes * 60_000)
}
