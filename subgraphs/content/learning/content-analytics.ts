import type { ValidationIssue } from '../../../platform/errors.js'
import type { LearningVerb } from './learning-events.js'

/** The blocks `metrics` selects; all three by default. */
export const ANALYTICS_BLOCKS = ['engagement', 'effectiveness', 'usage'] as const
/** An analytics block. */
export type AnalyticsBlock = (typeof ANALYTICS_BLOCKS)[number]

const DAY_MS = 86_400_000
/** Presets of `timeRange`: the span ending now. `all` starts at the item's first event. */
export const TIME_RANGE_PRESETS: Record<string, number | null> = {
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
  '365d': 365 * DAY_MS,
  all: null,
}
/** The preset used when no timeRange is given. */
export const DEFAULT_TIME_RANGE = '30d'
/** Students with an event this close to the range's end are "active". */
export const ACTIVE_WINDOW_MS = 7 * DAY_MS

/** The fields of an event the figures read. */
export interface AnalyticsEvent {
  studentId: string
  verb: LearningVerb | string
  occurredAt: Date
  durationSeconds: number | null
  score: number | null
  assessment: string | null
  rating: number | null
}

/** A half-open range [start, end); `start` is null for `all` until the first event is known. */
export interface TimeRange {
  start: Date | null
  end: Date
}

const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/

/** An ISO 8601 duration in weeks, days, hours, minutes, seconds (no months or years: their length varies). */
function durationMs(text: string): number | null {
  const m = DURATION.exec(text)
  if (!m || text === 'P' || text.endsWith('T')) return null
  const [w, d, h, min, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number]
  return (((w * 7 + d) * 24 + h) * 60 + min) * 60_000 + s * 1000
}

/** An instant; a bare date is midnight UTC. */
function instant(text: string): Date | null {
  if (!INSTANT.test(text)) return null
  const t = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text)
  return Number.isNaN(t) ? null : new Date(t)
}

/**
 * Reads `timeRange`: a preset (`24h`, `7d`, `30d`, `90d`, `365d`, `all`), an ISO 8601 interval
 * (`start/end`, `start/duration`, `duration/end`) or `start,end`. Instants are date-times with a
 * zone or dates (midnight UTC); the range includes its start and excludes its end.
 */
export function parseTimeRange(value: string | undefined | null, now: Date, issues: ValidationIssue[]): TimeRange | null {
  const text = (value ?? DEFAULT_TIME_RANGE).trim()
  const bad = (message: string) => {
    issues.push({ field: 'timeRange', message })
    return null
  }
  if (text in TIME_RANGE_PRESETS) {
    const span = TIME_RANGE_PRESETS[text]!
    return { start: span === null ? null : new Date(now.getTime() - span), end: now }
  }
  const parts = text.includes('/') ? text.split('/') : text.split(',')
  if (parts.length !== 2)
    return bad(`must be a preset (${Object.keys(TIME_RANGE_PRESETS).join(', ')}), an ISO 8601 interval (start/end, start/P7D, P7D/end) or start,end`)
  const [a, b] = parts.map((p) => p.trim()) as [string, string]
  const startAt = instant(a)
  const endAt = instant(b)
  const startSpan = startAt ? null : durationMs(a)
  const endSpan = endAt ? null : durationMs(b)
  let start: Date | null = null
  let end: Date | null = null
  if (startAt && endAt) [start, end] = [startAt, endAt]
  else if (startAt && endSpan !== null) [start, end] = [startAt, new Date(startAt.getTime() + endSpan)]
  else if (startSpan !== null && endAt) [start, end] = [new Date(endAt.getTime() - startSpan), endAt]
  if (!start || !end) return bad('has an instant or duration that is not ISO 8601 (e.g. 2026-11-01T00:00:00Z/2026-11-08T00:00:00Z, 2026-11-01/P7D)')
  if (end.getTime() <= start.getTime()) return bad('must end after it starts')
  return { start, end }
}

/** Reads `metrics`: a comma list of blocks; all when absent or empty. */
export function parseMetrics(value: string | undefined | null, issues: ValidationIssue[]): AnalyticsBlock[] {
  if (value === undefined || value === null || !value.trim()) return [...ANALYTICS_BLOCKS]
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const n of names) {
    if (!(ANALYTICS_BLOCKS as readonly string[]).includes(n))
      issues.push({ field: 'metrics', message: `has the unknown block "${n}"; blocks: ${ANALYTICS_BLOCKS.join(', ')}` })
  }
  return ANALYTICS_BLOCKS.filter((b) => names.includes(b))
}

/** Figures of one item over one range, as GET /analytics shows them. */
export interface ContentAnalytics {
  engagement?: { views: number; completionRate: number; averageTimeOnContent: number; interactionRate: number; returnRate: number }
  effectiveness?: {
    averageLearningGain: number
    retentionRate: number
    satisfactionScore: number
    pairedScores: number
    delayedScores: number
    ratings: number
  }
  usage?: { totalStudents: number; activeStudents: number; completedStudents: number }
}

const INTERACTIONS = new Set(['progressed', 'interacted', 'answered'])
const round = (n: number, places = 4) => Math.round(n * 10 ** places) / 10 ** places
const ratio = (part: number, whole: number) => (whole ? round(part / whole) : 0)
const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0)

/**
 * The figures, from the events already limited to the range (definitions in the README):
 * every rate is a share of the range's students; learning gain pairs each student's first
 * `pre` with their last `post` score; retention compares a student's last `delayed` with their
 * last `post` score; satisfaction is the mean of each student's last rating.
 */
export function computeAnalytics(events: readonly AnalyticsEvent[], range: { end: Date }, blocks: readonly AnalyticsBlock[]): ContentAnalytics {
  const sorted = [...events].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())
  const students = new Map<string, AnalyticsEvent[]>()
  for (const e of sorted) {
    const list = students.get(e.studentId)
    if (list) list.push(e)
    else students.set(e.studentId, [e])
  }
  const total = students.size
  const completed = [...students.values()].filter((list) => list.some((e) => e.verb === 'completed')).length
  const result: ContentAnalytics = {}
  if (blocks.includes('engagement')) {
    const seconds = sorted.reduce((sum, e) => sum + (e.durationSeconds ?? 0), 0)
    const interacting = [...students.values()].filter((list) => list.some((e) => INTERACTIONS.has(e.verb))).length
    const returning = [...students.values()].filter((list) => new Set(list.map((e) => e.occurredAt.toISOString().slice(0, 10))).size >= 2).length
    result.engagement = {
      views: sorted.filter((e) => e.verb === 'viewed').length,
      completionRate: ratio(completed, total),
      averageTimeOnContent: total ? round(seconds / total, 1) : 0,
      interactionRate: ratio(interacting, total),
      returnRate: ratio(returning, total),
    }
  }
  if (blocks.includes('effectiveness')) {
    const gains: number[] = []
    const kept: number[] = []
    const ratings: number[] = []
    for (const list of students.values()) {
      const scored = (phase: string) => list.filter((e) => e.verb === 'scored' && e.assessment === phase && e.score !== null)
      const pre = scored('pre')[0]
      const post = scored('post').at(-1)
      const delayed = scored('delayed').at(-1)
      if (pre && post) gains.push(post.score! - pre.score!)
      if (post && delayed && post.score! > 0) kept.push(Math.min(1, delayed.score! / post.score!))
      const rating = list.filter((e) => e.verb === 'rated' && e.rating !== null).at(-1)
      if (rating) ratings.push(rating.rating!)
    }
    result.effectiveness = {
      averageLearningGain: round(mean(gains)),
      retentionRate: round(mean(kept)),
      satisfactionScore: round(mean(ratings), 2),
      pairedScores: gains.length,
      delayedScores: kept.length,
      ratings: ratings.length,
    }
  }
  if (blocks.includes('usage')) {
    const activeFrom = range.end.getTime() - ACTIVE_WINDOW_MS
    result.usage = {
      totalStudents: total,
      activeStudents: [...students.values()].filter((list) => list.some((e) => e.occurredAt.getTime() >= activeFrom)).length,
      completedStudents: completed,
    }
  }
  return result
}
