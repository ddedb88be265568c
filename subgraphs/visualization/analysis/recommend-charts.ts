/**
 * `POST /analytics/recommend`: ranks chart types for row data and an analytic intent.
 *
 * In the spirit of Draco and AVA, recommendation is rules over a profile of the data: each
 * chart type has a prior for each intent (how well it serves the task at all) and a fit for
 * the data (whether the fields it needs exist, and penalties for what hurts it: too many
 * categories, negative values in a pie, too few points, more points than it can draw). The
 * confidence is their product, adjusted for the caller's preferences. Everything is
 * deterministic: same input, same output, ties broken by chart id.
 *
 * @module
 */

import type { ValidationIssue } from '../../../platform/errors.js'
import { findChartType, type ChartFeature } from '../render/chart-catalog.js'
import { profileFields, type FieldProfile } from './profile-fields.js'
import { readRows } from './read-rows.js'
import { isRecord } from '../../../platform/validation/json-shapes.js'

/** Analytic intents the spec lists. */
export const INTENTS = ['compare_trends', 'compare', 'distribution', 'correlation', 'composition'] as const
export type Intent = (typeof INTENTS)[number]

/** Complexity levels of `preferences.complexity`, simplest first. */
export const COMPLEXITIES = ['low', 'medium', 'high'] as const
export type Complexity = (typeof COMPLEXITIES)[number]

/** Chart types the recommender reasons about, in tie-break (id) order. */
export const RECOMMENDED_CHART_IDS = ['area', 'bar', 'heatmap', 'histogram', 'line', 'pie', 'scatter'] as const
export type RecommendedChartId = (typeof RECOMMENDED_CHART_IDS)[number]

/** Most recommendations returned. */
export const MAX_RECOMMENDATIONS = 5
/** Most recommendations returned when the caller asks for low complexity: a short, simple list. */
export const LOW_COMPLEXITY_MAX_RECOMMENDATIONS = 3

/**
 * How well each chart type serves each intent when the data fits it perfectly. A type absent
 * from an intent is never recommended for it (a pie shows no trend, a histogram no composition).
 */
export const INTENT_PRIORS: Readonly<Record<Intent, Readonly<Partial<Record<RecommendedChartId, number>>>>> = {
  compare_trends: { line: 1, area: 0.9, bar: 0.75, scatter: 0.6, heatmap: 0.5 },
  compare: { bar: 1, line: 0.75, scatter: 0.65, heatmap: 0.6, pie: 0.55, area: 0.5 },
  distribution: { histogram: 1, bar: 0.7, scatter: 0.7, heatmap: 0.4 },
  correlation: { scatter: 1, heatmap: 0.85, line: 0.6, bar: 0.4 },
  composition: { pie: 1, bar: 0.85, area: 0.75, heatmap: 0.45 },
}

/** How much a reader must decode: bars, lines and pies are read at a glance, a heatmap is not. */
export const CHART_COMPLEXITY: Readonly<Record<RecommendedChartId, Complexity>> = {
  bar: 'low',
  line: 'low',
  pie: 'low',
  area: 'medium',
  histogram: 'medium',
  scatter: 'medium',
  heatmap: 'high',
}

/** Types that show the same data another way, offered as `alternatives` when they apply too. */
const RELATED: Readonly<Record<RecommendedChartId, readonly RecommendedChartId[]>> = {
  area: ['line', 'bar'],
  bar: ['line', 'pie', 'heatmap'],
  heatmap: ['scatter', 'bar'],
  histogram: ['bar', 'scatter'],
  line: ['area', 'bar', 'scatter'],
  pie: ['bar'],
  scatter: ['heatmap', 'line'],
}

// Fit penalties, as factors on the fit. Each is named where it applies, with its reason.
const PIE_MAX_SLICES = 7
const BAR_MAX_CATEGORIES = 20
const BAR_CROWDED_CATEGORIES = 50
const BAR_MAX_TIME_POINTS = 30
const HEATMAP_MAX_SIDE = 30
const MIN_TREND_POINTS = 3
const MIN_SCATTER_POINTS = 5
const HISTOGRAM_GOOD_VALUES = 20
const HISTOGRAM_MIN_VALUES = 10
const OVER_LIMIT_FACTOR = 0.5
// One level above the requested complexity costs this much; two levels exclude the type.
const COMPLEXITY_FACTOR = 0.7
// Asked for interactivity, a type without zoom and pan serves it less well.
const NOT_EXPLORABLE_FACTOR = 0.9

/** Caller preferences, with defaults applied. */
export interface RecommendPreferences {
  interactive: boolean
  complexity: Complexity
}

/** One item of `recommendations`. */
export interface ChartRecommendation {
  chart_type: RecommendedChartId
  /** In (0, 1], two decimals. */
  confidence: number
  /** Cites the rows, the fields and their types, and every penalty applied. */
  reasoning: string
  /** Related chart types that also apply to this data; absent when there are none. */
  alternatives?: RecommendedChartId[]
}

/** Outcome of {@link recommendCharts}: the ranked list and the field profiles it was drawn from. */
export type RecommendChartsOutcome = { ok: true; recommendations: ChartRecommendation[]; fields: FieldProfile[] } | { ok: false; issues: ValidationIssue[] }

/** What a chart type would show of the data, and how well. */
interface Assessment {
  /** In (0, 1]: 1 when the data has exactly what the chart needs. */
  fit: number
  /** Fields the chart encodes, described in the reasoning. */
  fields: FieldProfile[]
  /** No quantitative field is encoded: the chart counts rows. */
  countsRows: boolean
  /** What the chart would show, e.g. `line shows how 'revenue' changes over 'month'`. */
  shows: string
  penalties: string[]
  /** Marks the chart draws, against its `max_data_points`. */
  points: number
}

interface Context {
  intent: Intent
  rows: number
  fields: FieldProfile[]
  temporal: FieldProfile[]
  /** Nominal and ordinal fields. */
  categorical: FieldProfile[]
  quantitative: FieldProfile[]
}

function parsePreferences(value: unknown, issues: ValidationIssue[]): RecommendPreferences {
  const preferences: RecommendPreferences = { interactive: false, complexity: 'medium' }
  if (value === undefined) return preferences
  if (!isRecord(value)) {
    issues.push({ field: 'preferences', message: 'must be an object with interactive and complexity' })
    return preferences
  }
  if (value.interactive !== undefined) {
    if (typeof value.interactive === 'boolean') preferences.interactive = value.interactive
    else issues.push({ field: 'preferences.interactive', message: 'must be a boolean' })
  }
  if (value.complexity !== undefined) {
    if (typeof value.complexity === 'string' && (COMPLEXITIES as readonly string[]).includes(value.complexity)) {
      preferences.complexity = value.complexity as Complexity
    } else {
      issues.push({ field: 'preferences.complexity', message: `unknown complexity ${JSON.stringify(value.complexity)}; use one of ${COMPLEXITIES.join(', ')}` })
    }
  }
  return preferences
}

/**
 * Recommends chart types for `{ data, intent, preferences }` (the `POST /analytics/recommend`
 * body): at most {@link MAX_RECOMMENDATIONS} (3 at low complexity), highest confidence first.
 */
export function recommendCharts(input: unknown): RecommendChartsOutcome {
  if (!isRecord(input)) return { ok: false, issues: [{ field: 'body', message: 'must be an object with data, intent and preferences' }] }
  const issues: ValidationIssue[] = []
  const read = readRows(input.data)
  if (!read.ok) issues.push(...read.issues)
  else if (read.rows.length === 0) issues.push({ field: 'data', message: 'must have at least one row' })
  const intent = input.intent
  if (typeof intent !== 'string' || !(INTENTS as readonly string[]).includes(intent)) {
    issues.push({ field: 'intent', message: `unknown intent ${JSON.stringify(intent)}; use one of ${INTENTS.join(', ')}` })
  }
  const preferences = parsePreferences(input.preferences, issues)
  if (issues.length || !read.ok) return { ok: false, issues }

  const fields = profileFields(read.rows, read.columns)
  if (fields.length === 0) {
    return { ok: false, issues: [{ field: 'data', message: 'has no field a chart can encode: every column is null or holds arrays or objects' }] }
  }
  const ctx: Context = {
    intent: intent as Intent,
    rows: read.rows.length,
    fields,
    temporal: fields.filter((f) => f.type === 'temporal'),
    categorical: fields.filter((f) => f.type === 'nominal' || f.type === 'ordinal'),
    quantitative: fields.filter((f) => f.type === 'quantitative'),
  }
  return { ok: true, recommendations: rank(ctx, preferences), fields }
}

function rank(ctx: Context, preferences: RecommendPreferences): ChartRecommendation[] {
  const priors = INTENT_PRIORS[ctx.intent]
  const scored: { chart: RecommendedChartId; confidence: number; reasoning: string }[] = []
  for (const chart of RECOMMENDED_CHART_IDS) {
    const prior = priors[chart]
    const type = findChartType(chart)
    if (prior === undefined || type === undefined) continue
    const gap = COMPLEXITIES.indexOf(CHART_COMPLEXITY[chart]) - COMPLEXITIES.indexOf(preferences.complexity)
    if (gap >= 2) continue
    const assessment = ASSESSORS[chart](ctx)
    if (!assessment) continue
    if (assessment.points > type.maxDataPoints) {
      penalize(assessment, OVER_LIMIT_FACTOR, `${assessment.points} data points exceed the ${type.maxDataPoints} a ${chart} chart draws`)
    }
    let factor = 1
    const notes: string[] = []
    if (gap === 1) {
      factor *= COMPLEXITY_FACTOR
      notes.push(`more complex than the requested '${preferences.complexity}' complexity`)
    }
    const features = type.supportedFeatures
    const explorable = features.includes('zoom') && features.includes('pan')
    if (preferences.interactive && !explorable) factor *= NOT_EXPLORABLE_FACTOR
    const confidence = Math.max(0.01, Math.min(1, Math.round(prior * assessment.fit * factor * 100) / 100))
    scored.push({ chart, confidence, reasoning: reasoning(ctx, assessment, notes, preferences.interactive ? features : undefined) })
  }
  scored.sort((a, b) => b.confidence - a.confidence || (a.chart < b.chart ? -1 : a.chart > b.chart ? 1 : 0))
  const applicable = new Set(scored.map((s) => s.chart))
  const limit = preferences.complexity === 'low' ? LOW_COMPLEXITY_MAX_RECOMMENDATIONS : MAX_RECOMMENDATIONS
  return scored.slice(0, limit).map(({ chart, confidence, reasoning }) => {
    const alternatives = RELATED[chart].filter((id) => applicable.has(id))
    return alternatives.length ? { chart_type: chart, confidence, reasoning, alternatives } : { chart_type: chart, confidence, reasoning }
  })
}

function penalize(a: Assessment, factor: number, reason: string): void {
  a.fit *= factor
  a.penalties.push(reason)
}

function reasoning(ctx: Context, a: Assessment, notes: string[], features: readonly ChartFeature[] | undefined): string {
  const facts = [plural(ctx.rows, 'row'), ...a.fields.map(describe)]
  if (a.countsRows) facts.push('no quantitative field, so rows are counted')
  let text = `${facts.join(', ')} → ${a.shows}.`
  const caveats = [...a.penalties, ...notes]
  if (caveats.length) text += ` Penalties: ${caveats.join('; ')}.`
  if (features) {
    const offered = features.filter((f) => f === 'zoom' || f === 'pan' || f === 'tooltip' || f === 'legend')
    const explorable = features.includes('zoom') && features.includes('pan')
    text += offered.length ? ` Interactive: supports ${list(offered)}${explorable ? '' : ', but no zoom or pan'}.` : ' Interactive: no tooltip, zoom or pan.'
  }
  return text
}

function describe(f: FieldProfile): string {
  switch (f.type) {
    case 'temporal':
      return `'${f.name}' is temporal with ${plural(f.distinct, 'distinct value')}`
    case 'quantitative':
      return `'${f.name}' is quantitative (${formatNumber(f.min ?? 0)} to ${formatNumber(f.max ?? 0)})`
    case 'ordinal':
      return `'${f.name}' is ordinal with ${plural(f.distinct, 'level')}`
    case 'nominal':
      return `'${f.name}' is nominal with ${plural(f.distinct, 'category', 'categories')}`
  }
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)))
}

function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

function quote(f: FieldProfile | undefined): string {
  return f ? `'${f.name}'` : 'the row count'
}

/**
 * A categorical field to split by: the first (in column order) with 2 to `limit` values, else
 * the one with fewest values above one, else any.
 */
function pickCategory(candidates: readonly FieldProfile[], limit: number, exclude: readonly FieldProfile[] = []): FieldProfile | undefined {
  const usable = candidates.filter((f) => !exclude.includes(f))
  const fitting = usable.find((f) => f.distinct >= 2 && f.distinct <= limit)
  if (fitting) return fitting
  const several = usable.filter((f) => f.distinct >= 2).sort((a, b) => a.distinct - b.distinct)
  return several[0] ?? usable[0]
}

function measure(ctx: Context, exclude: readonly FieldProfile[]): FieldProfile | undefined {
  return ctx.quantitative.find((f) => !exclude.includes(f))
}

function assessment(fit: number, fields: (FieldProfile | undefined)[], shows: string, points: number): Assessment {
  const used = fields.filter((f): f is FieldProfile => f !== undefined)
  return { fit, fields: used, countsRows: !used.some((f) => f.type === 'quantitative'), shows, penalties: [], points }
}

const SEQUENCE_FIT: Readonly<Record<FieldProfile['type'], number>> = { temporal: 1, ordinal: 0.8, quantitative: 0.7, nominal: 0.45 }

/** x and y of a line or area: time if there is any, else levels, else a second measure, else categories. */
function sequence(ctx: Context): { x: FieldProfile; y: FieldProfile | undefined } | undefined {
  const x =
    ctx.temporal[0] ??
    ctx.fields.find((f) => f.type === 'ordinal') ??
    (ctx.quantitative.length >= 2 ? ctx.quantitative[0] : undefined) ??
    ctx.fields.find((f) => f.type === 'nominal')
  return x ? { x, y: measure(ctx, [x]) } : undefined
}

function sequencePenalties(a: Assessment, chart: 'line' | 'area', x: FieldProfile, y: FieldProfile | undefined): void {
  if (x.type === 'nominal') a.penalties.push(`'${x.name}' is nominal, so the order of points and slopes between them mean nothing`)
  if (!y) penalize(a, 0.8, `no quantitative field: the ${chart} plots row counts`)
  if (x.distinct < MIN_TREND_POINTS) penalize(a, 0.5, `only ${plural(x.distinct, `distinct '${x.name}' value`)}: too few points for a trend`)
}

function assessLine(ctx: Context): Assessment | undefined {
  const enc = sequence(ctx)
  if (!enc) return undefined
  const { x, y } = enc
  const shows = x.type === 'temporal' ? `line shows how ${quote(y)} changes over '${x.name}'` : `line connects ${quote(y)} along '${x.name}'`
  const a = assessment(SEQUENCE_FIT[x.type], [x, y], shows, y ? ctx.rows : x.distinct)
  sequencePenalties(a, 'line', x, y)
  return a
}

function assessArea(ctx: Context): Assessment | undefined {
  const enc = sequence(ctx)
  if (!enc) return undefined
  const { x, y } = enc
  let a: Assessment
  if (ctx.intent === 'composition') {
    const part = pickCategory(ctx.categorical, 10, [x])
    const by = part ? `, stacked by '${part.name}'` : ''
    a = assessment(
      SEQUENCE_FIT[x.type],
      [x, y, part],
      `stacked area shows how the parts of ${quote(y)} add up over '${x.name}'${by}`,
      y ? ctx.rows : x.distinct,
    )
    if (x.type !== 'temporal') penalize(a, 0.5, 'no temporal field to stack the parts over')
  } else {
    a = assessment(
      SEQUENCE_FIT[x.type] * 0.95,
      [x, y],
      `area shows the trend of ${quote(y)} over '${x.name}', filled to show magnitude`,
      y ? ctx.rows : x.distinct,
    )
  }
  sequencePenalties(a, 'area', x, y)
  if (y && (y.min ?? 0) < 0) penalize(a, 0.7, `'${y.name}' has negative values, which an area filled from zero misrepresents`)
  return a
}

function assessBinnedBar(ctx: Context, fit: number): Assessment | undefined {
  const q = ctx.quantitative[0]
  if (!q) return undefined
  // Sturges' rule, the bin count a histogram would use.
  const bins = Math.ceil(Math.log2(Math.max(1, q.count))) + 1
  return assessment(fit, [q], `bar of binned '${q.name}' counts the rows in each of about ${bins} ranges`, bins)
}

function assessBar(ctx: Context): Assessment | undefined {
  if (ctx.intent === 'distribution') {
    const binned = assessBinnedBar(ctx, 1)
    if (binned) return binned
  }
  const x =
    ctx.intent === 'compare_trends'
      ? (ctx.temporal[0] ?? pickCategory(ctx.categorical, BAR_MAX_CATEGORIES))
      : (pickCategory(ctx.categorical, BAR_MAX_CATEGORIES) ?? ctx.temporal[0])
  if (!x) return assessBinnedBar(ctx, 0.6)
  const y = ctx.intent === 'distribution' ? undefined : measure(ctx, [x])
  const k = x.distinct
  const values = x.type === 'temporal' ? plural(k, `'${x.name}' value`) : plural(k, `'${x.name}' category`, `'${x.name}' categories`)
  const shows: Record<Intent, string> = {
    compare_trends: `bar shows ${quote(y)} for each of the ${values} side by side`,
    compare: `bar compares ${quote(y)} across the ${values}`,
    distribution: `bar counts the rows in each of the ${values}`,
    correlation: `bar shows ${quote(y)} for each of the ${values}`,
    composition: `bar shows the part of ${quote(y)} for each of the ${values}, easier to compare than slices`,
  }
  const a = assessment(1, [x, y], shows[ctx.intent], k)
  if (k < 2) penalize(a, 0.5, `only one '${x.name}' value to show`)
  else if (x.type === 'temporal') {
    if (k > BAR_MAX_TIME_POINTS) penalize(a, 0.5, `${k} time points make too many bars; a line suits them`)
    else penalize(a, 0.9, 'bars show time points as separate categories')
  } else if (k > BAR_CROWDED_CATEGORIES) penalize(a, 0.3, `${k} categories crowd a bar chart (≤ ${BAR_MAX_CATEGORIES} read well)`)
  else if (k > BAR_MAX_CATEGORIES) penalize(a, 0.6, `${k} categories crowd a bar chart (≤ ${BAR_MAX_CATEGORIES} read well)`)
  return a
}

function assessPie(ctx: Context): Assessment | undefined {
  const slices = ctx.categorical.length ? ctx.categorical : ctx.temporal
  const part = pickCategory(slices, PIE_MAX_SLICES)
  if (!part) return undefined
  const y = measure(ctx, [part])
  const k = part.distinct
  const a = assessment(1, [part, y], `pie shows each '${part.name}' share of the total ${y ? `'${y.name}'` : 'row count'}`, k)
  if (k > PIE_MAX_SLICES) penalize(a, Math.max(0.1, PIE_MAX_SLICES / k), `${k} categories are more slices than a pie reads well (≤ ${PIE_MAX_SLICES})`)
  if (k < 2) penalize(a, 0.3, `only one '${part.name}' value: the pie is a single full circle`)
  if (y && (y.min ?? 0) < 0) penalize(a, 0.2, `'${y.name}' has negative values, which a pie cannot show`)
  return a
}

function assessScatter(ctx: Context): Assessment | undefined {
  const [q0, q1] = ctx.quantitative
  if (!q0) return undefined
  let a: Assessment
  if (ctx.intent === 'distribution' || !q1) {
    const level = ctx.temporal[0] ?? ctx.fields.find((f) => f.type === 'ordinal')
    if (ctx.intent !== 'distribution' && level) {
      a = assessment(0.6, [level, q0], `scatter plots '${q0.name}' against '${level.name}', one point per row`, ctx.rows)
    } else {
      const by = pickCategory(ctx.categorical, BAR_MAX_CATEGORIES)
      a = assessment(
        by ? 0.8 : 0.7,
        [q0, by],
        `scatter (strip plot) places every '${q0.name}' value${by ? ` per '${by.name}'` : ''} to show spread and outliers`,
        ctx.rows,
      )
      if (ctx.intent !== 'distribution') penalize(a, 0.7, `'${q0.name}' is the only quantitative field: nothing to correlate it with`)
    }
  } else {
    a = assessment(1, [q0, q1], `scatter plots '${q1.name}' against '${q0.name}', one point per row, to show how they relate`, ctx.rows)
  }
  if (ctx.rows < MIN_SCATTER_POINTS) penalize(a, 0.6, `only ${plural(ctx.rows, 'row')}: too few points to see a pattern`)
  return a
}

function assessHistogram(ctx: Context): Assessment | undefined {
  const q = ctx.quantitative[0]
  if (q) {
    const a = assessment(1, [q], `histogram bins the ${q.count} '${q.name}' values to show their distribution`, ctx.rows)
    if (q.count < HISTOGRAM_MIN_VALUES) penalize(a, 0.45, `only ${plural(q.count, 'value')}: the bins will be sparse`)
    else if (q.count < HISTOGRAM_GOOD_VALUES) penalize(a, 0.75, `only ${q.count} values: the bins will be sparse`)
    return a
  }
  const level = ctx.fields.find((f) => f.type === 'ordinal')
  if (!level) return undefined
  const a = assessment(0.6, [level], `histogram counts the rows at each '${level.name}' level`, ctx.rows)
  a.penalties.push(`'${level.name}' has only ${level.distinct} levels: a bar of counts per level shows the same`)
  return a
}

function assessHeatmap(ctx: Context): Assessment | undefined {
  const dims = ctx.fields.filter((f) => f.type !== 'quantitative' && f.distinct >= 2)
  const sized = dims.filter((f) => f.distinct <= HEATMAP_MAX_SIDE)
  const [a0, b0] = sized.length >= 2 ? sized : dims
  if (a0 && b0) {
    const y = measure(ctx, [a0, b0])
    const cells = a0.distinct * b0.distinct
    const a = assessment(1, [a0, b0, y], `heatmap colours ${quote(y)} for every '${a0.name}' × '${b0.name}' pair, showing how the two relate`, cells)
    if (a0.distinct > HEATMAP_MAX_SIDE || b0.distinct > HEATMAP_MAX_SIDE) {
      penalize(a, 0.6, `${a0.distinct} × ${b0.distinct} cells are too many rows or columns (≤ ${HEATMAP_MAX_SIDE} a side read well)`)
    }
    return a
  }
  const [q0, q1] = ctx.quantitative
  if (!q0 || !q1) return undefined
  // Binned two-dimensional density: a fixed 20 × 20 grid.
  return assessment(0.6, [q0, q1], `heatmap bins '${q0.name}' × '${q1.name}' and colours the row count of each cell`, 400)
}

const ASSESSORS: Readonly<Record<RecommendedChartId, (ctx: Context) => Assessment | undefined>> = {
  area: assessArea,
  bar: assessBar,
  heatmap: assessHeatmap,
  histogram: assessHistogram,
  line: assessLine,
  pie: assessPie,
  scatter: assessScatter,
}
