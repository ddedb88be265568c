/** A period as a range of years, inclusive; negative years are BCE (there is no year 0). */
export interface YearRange {
  start: number
  end: number
}

/** The result of reading a period: its years, or why it could not be read. */
export type PeriodParse = { ok: true; range: YearRange } | { ok: false; reason: string }

/**
 * Named periods Tessera knows, with the spans the PeriodO gazetteer's common authorities give
 * them (dynasties by their conventional founding and fall; archaeological ages for the Near
 * East and Europe, whose regional spans differ — the widely cited one is used). Keys are
 * lower case without "the", "dynasty", "period" or "era".
 */
export const PERIOD_GAZETTEER: Readonly<Record<string, YearRange>> = {
  'stone age': { start: -3300000, end: -3300 },
  neolithic: { start: -10000, end: -2000 },
  'bronze age': { start: -3300, end: -1200 },
  'iron age': { start: -1200, end: -550 },
  'old kingdom': { start: -2686, end: -2181 },
  'middle kingdom': { start: -2055, end: -1650 },
  'new kingdom': { start: -1550, end: -1069 },
  archaic: { start: -800, end: -480 },
  classical: { start: -480, end: -323 },
  hellenistic: { start: -323, end: -31 },
  'roman republic': { start: -509, end: -27 },
  'roman empire': { start: -27, end: 476 },
  byzantine: { start: 330, end: 1453 },
  'middle ages': { start: 500, end: 1500 },
  medieval: { start: 500, end: 1500 },
  renaissance: { start: 1400, end: 1600 },
  baroque: { start: 1600, end: 1750 },
  shang: { start: -1600, end: -1046 },
  zhou: { start: -1046, end: -256 },
  qin: { start: -221, end: -206 },
  han: { start: -206, end: 220 },
  tang: { start: 618, end: 907 },
  song: { start: 960, end: 1279 },
  yuan: { start: 1271, end: 1368 },
  ming: { start: 1368, end: 1644 },
  qing: { start: 1644, end: 1912 },
  heian: { start: 794, end: 1185 },
  kamakura: { start: 1185, end: 1333 },
  edo: { start: 1603, end: 1868 },
  joseon: { start: 1392, end: 1897 },
  'classic maya': { start: 250, end: 900 },
  aztec: { start: 1300, end: 1521 },
  inca: { start: 1438, end: 1533 },
}

/** Largest year Tessera accepts either side of year 1. */
const MAX_YEAR = 3_300_000
const ERA = String.raw`(bce|bc|ce|ad)`
const YEAR = new RegExp(String.raw`^(?:c\.?\s*|circa\s+|ca\.?\s*)?(?:(ad|ce)\s+)?(\d{1,7})(?:\s*${ERA})?$`)
const CENTURY = new RegExp(String.raw`^(?:(early|mid|middle|late)[\s-]+)?(\d{1,2})(?:st|nd|rd|th)\s+(century|millennium)(?:\s+${ERA})?$`)

const isBce = (era: string | undefined) => era === 'bce' || era === 'bc'

/** One side of a range: a year with an optional era, e.g. `500 BCE`, `AD 1450`, `c. 1200`. */
function readYear(text: string): { year: number; era: string | undefined } | undefined {
  const m = YEAR.exec(text)
  if (!m) return undefined
  const value = Number(m[2])
  if (value === 0 || value > MAX_YEAR) return undefined
  return { year: value, era: m[3] ?? m[1] }
}

/** `[early|mid|late] Nth century|millennium [BCE|CE]` as a year range. */
function readCentury(text: string): YearRange | undefined {
  const m = CENTURY.exec(text)
  if (!m) return undefined
  const [, part, n, unit, era] = m
  const ordinal = Number(n)
  if (ordinal < 1) return undefined
  const span = unit === 'millennium' ? 1000 : 100
  // In CE a century runs from its …01 year to its …00 year; in BCE from its …00 year forward
  // to its …01 year. Early, mid and late are thirds of it in the direction time runs.
  let start = isBce(era) ? -ordinal * span : (ordinal - 1) * span + 1
  let end = start + span - 1
  const third = Math.floor(span / 3)
  if (part === 'early') end = start + third - 1
  else if (part === 'mid' || part === 'middle') {
    start += third
    end = start + third - 1
  } else if (part === 'late') start += 2 * third
  return { start, end }
}

function readNamed(text: string): YearRange | undefined {
  const key = text
    .replace(/^the\s+/, '')
    .replace(/\s+(dynasty|period|era)$/, '')
    .trim()
  return PERIOD_GAZETTEER[key]
}

/**
 * Reads a period written the way catalogues write them into a range of years. The grammar
 * (case-insensitive, en dash or hyphen or "to" between the ends):
 *
 * - a year or a range of years: `1450`, `1200-1400`, `1200 CE to 1400 CE`, `500 BCE-200 CE`,
 *   `500-200 BCE` (the first end takes the second's era when it has none), `c. 1450`;
 * - a century or millennium, optionally its early/mid/late third: `5th century BCE`,
 *   `early 15th century`, `2nd millennium BCE`, and ranges of them (`15th-16th century`);
 * - a named period from {@link PERIOD_GAZETTEER}: `Ming dynasty`, `Bronze Age`, `the Heian period`.
 */
export function parsePeriod(input: string): PeriodParse {
  const text = input.trim().toLowerCase().replace(/\s+/g, ' ')
  if (!text) return { ok: false, reason: 'is empty' }
  if (text.length > 200) return { ok: false, reason: 'is longer than 200 characters' }
  const named = readNamed(text)
  if (named) return { ok: true, range: { ...named } }
  const century = readCentury(text)
  if (century) return { ok: true, range: century }
  const single = readYear(text)
  if (single) {
    const year = isBce(single.era) ? -single.year : single.year
    return { ok: true, range: { start: year, end: year } }
  }
  const parts = text.split(/\s*(?:–|—|-|\bto\b|\buntil\b)\s*/).filter((p) => p !== '')
  if (parts.length === 2) {
    const [left, right] = parts as [string, string]
    // `15th-16th century`: the unit written once, at the end.
    const unit = /\s(century|millennium)(\s|$)/.exec(right)?.[1]
    const leftCentury = readCentury(unit && /^\S+$/.test(left) ? `${left} ${right.replace(/^\S+\s/, '')}` : left)
    const rightCentury = readCentury(right)
    if (leftCentury && rightCentury) return ordered({ start: leftCentury.start, end: rightCentury.end })
    const a = readYear(left)
    const b = readYear(right)
    if (a && b) {
      const leftEra = a.era ?? b.era
      return ordered({ start: isBce(leftEra) ? -a.year : a.year, end: isBce(b.era) ? -b.year : b.year })
    }
  }
  return {
    ok: false,
    reason:
      'is not a period Tessera can read: write years (1200-1400, 500 BCE-200 CE), a century (early 15th century, 5th century BCE) or a named period (Ming dynasty, Bronze Age)',
  }
}

function ordered(range: YearRange): PeriodParse {
  if (range.start > range.end) return { ok: false, reason: `runs backwards (${formatYear(range.start)} is after ${formatYear(range.end)})` }
  return { ok: true, range }
}

/** `-500` → `500 BCE`, `1450` → `1450 CE`. */
export function formatYear(year: number): string {
  return year < 0 ? `${-year} BCE` : `${year} CE`
}

/** True when two ranges share at least one year. */
export function overlaps(a: YearRange, b: YearRange): boolean {
  return a.start <= b.end && b.start <= a.end
}
