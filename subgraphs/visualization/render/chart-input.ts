/**
 * Validation of a render request (`POST /charts/render`): the chart type, its data items, the
 * configuration and the image size, normalised into a {@link RenderInput}.
 *
 * @module
 */

import type { ValidationIssue } from '../../../platform/errors.js'
import { CHART_TYPE_IDS, findChartType, isChartTypeId, type ChartTypeId } from './chart-catalog.js'
import { isRecord } from '../../../platform/validation/json-shapes.js'

/** Image size when the request names none, as the spec documents. */
export const DEFAULT_WIDTH = 800
export const DEFAULT_HEIGHT = 600
/** Bounds of `width` and `height`, in pixels. Below 50 nothing but the title fits; above 4000 a PNG at 2× is 64 megapixels. */
export const MIN_SIZE = 50
export const MAX_SIZE = 4000
/** Longest accepted title, in characters. */
export const MAX_TITLE_LENGTH = 200
/** Longest accepted item label, in characters: an axis label longer than this is unreadable anyway. */
export const MAX_LABEL_LENGTH = 200
/** Most colours a palette may list; more than the largest chart's categories is pointless. */
export const MAX_COLORS = 100
/**
 * Item problems reported at most. A request with a hundred thousand bad items would otherwise
 * answer with a hundred thousand issues; past this many, one issue on `data` says more exist.
 */
export const MAX_ITEM_ISSUES = 100

/** `#rgb` or `#rrggbb`, the hex colours the spec's `colors` takes. */
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/
/** ISO 8601 calendar dates and date-times, e.g. `2024-03-01`, `2024-03-01T12:00`, `2024-03-01T12:00:00.5+02:00`. */

/** The `config` keys the spec documents; any other key is a mistake worth reporting. */
const CONFIG_KEYS = ['title', 'colors', 'showLegend', 'animate'] as const

/** Rendering options, with defaults applied. */
export interface ChartConfig {
  /** Shown above the chart; absent or empty means no title. */
  title?: string
  /** Palette, hex colours; absent means the renderer's default palette. */
  colors?: string[]
  /** Whether chart types with a legend (pie, donut, heatmap) draw it. Default true. */
  showLegend: boolean
  /** Whether a live embed animates transitions. A static image ignores it. Default false. */
  animate: boolean
}

/** A category or time point and its value: bar, line, area, pie and donut items. */
export interface LabelledValue {
  label: string
  value: number
}

/** One observation of a histogram; its label is carried to tooltips only. */
export interface HistogramValue {
  value: number
  label?: string
}

/** A point of a scatter plot. */
export interface ScatterPoint {
  x: number
  y: number
  label?: string
}

/** A cell of a heatmap: its column `x`, its row `y` and the value its colour shows. */
export interface HeatmapCell {
  x: string | number
  y: string | number
  value: number
}

/** Fields every render input shares. */
interface RenderCommon {
  config: ChartConfig
  /** Pixels, the whole image including title, axes and legend. */
  width: number
  height: number
}

/** A validated render request, its data normalised to the item shape of its chart type. */
export type RenderInput = RenderCommon &
  (
    | { chartType: 'bar' | 'line' | 'area' | 'pie' | 'donut'; data: LabelledValue[] }
    | { chartType: 'scatter'; data: ScatterPoint[] }
    | { chartType: 'histogram'; data: HistogramValue[] }
    | { chartType: 'heatmap'; data: HeatmapCell[] }
  )

// One notion of "an ISO 8601 date" for the whole service: the analysis module's strict one.
export { isIsoDate } from '../analysis/iso-date.js'

/**
 * Validates a render request `{ chart_type, data, config?, width?, height? }` and returns every
 * problem found, each naming its field (`chart_type`, `data[3].value`, `config.colors[1]`).
 * Unknown top-level keys are ignored; unknown `config` keys are reported.
 *
 * Item shapes per chart type (keys other than these are ignored and dropped):
 * - `bar`, `pie`, `donut`: `{ label: string, value: number }`; labels unique (each is one bar
 *   or slice); pie and donut values ≥ 0 with at least one above 0.
 * - `line`, `area`: `{ label: string, value: number }`, labels unique. When every label is an
 *   ISO 8601 date or date-time (see {@link isIsoDate}) the x axis is temporal, otherwise the
 *   labels are ordinal categories in data order.
 * - `scatter`: `{ x: number, y: number, label?: string }`, or `{ label: string, value: number }`
 *   meaning x = the item's index and y = value. All items take the shape of `data[0]`.
 * - `histogram`: `{ value: number, label?: string }`; values are binned, labels only reach tooltips.
 * - `heatmap`: `{ x: string | number, y: string | number, value: number }`, each (x, y) cell once.
 *
 * Labels are non-empty strings of at most {@link MAX_LABEL_LENGTH} characters; numbers are
 * finite. `data` holds 1 to the type's `maxDataPoints` items. At most {@link MAX_ITEM_ISSUES}
 * item problems are listed.
 */
export function validateRenderInput(input: unknown): { ok: true; value: RenderInput } | { ok: false; issues: ValidationIssue[] } {
  if (!isRecord(input)) return { ok: false, issues: [{ field: 'body', message: 'must be an object' }] }
  const issues: ValidationIssue[] = []

  const chartType = input.chart_type
  if (chartType === undefined) issues.push({ field: 'chart_type', message: `is required: one of ${CHART_TYPE_IDS.join(', ')}` })
  else if (!isChartTypeId(chartType)) issues.push({ field: 'chart_type', message: `must be one of ${CHART_TYPE_IDS.join(', ')}` })

  const data = validateData(input.data, isChartTypeId(chartType) ? chartType : undefined, issues)
  const config = validateConfig(input.config, issues)
  const width = validateSize(input.width, 'width', DEFAULT_WIDTH, issues)
  const height = validateSize(input.height, 'height', DEFAULT_HEIGHT, issues)

  if (issues.length > 0 || !isChartTypeId(chartType) || data === undefined) return { ok: false, issues }
  // validateData produced the item shape of chartType, so the pairing holds.
  return { ok: true, value: { chartType, data, config, width, height } as RenderInput }
}

/** A validated data item of any chart type. */
export type Item = LabelledValue | ScatterPoint | HistogramValue | HeatmapCell

/** Collects item issues up to the cap; {@link validateData} notes once on `data` that more exist. */
class ItemIssues {
  private seen = 0
  constructor(private readonly issues: ValidationIssue[]) {}

  /** Item problems found so far, listed or not. */
  get count(): number {
    return this.seen
  }

  /** Whether a problem beyond the cap turned up, so looking further is pointless. */
  get overflowed(): boolean {
    return this.seen > MAX_ITEM_ISSUES
  }

  add(field: string, message: string): void {
    this.seen++
    if (this.seen <= MAX_ITEM_ISSUES) this.issues.push({ field, message })
  }
}

function validateData(data: unknown, chartType: ChartTypeId | undefined, issues: ValidationIssue[]): Item[] | undefined {
  if (!Array.isArray(data)) {
    issues.push({ field: 'data', message: data === undefined ? 'is required: a non-empty array of items' : 'must be an array of items' })
    return undefined
  }
  if (data.length === 0) {
    issues.push({ field: 'data', message: 'must hold at least one item' })
    return undefined
  }
  // Without a known type there is no item shape to check against.
  if (chartType === undefined) return undefined
  const max = findChartType(chartType)?.maxDataPoints ?? 0
  if (data.length > max) {
    issues.push({ field: 'data', message: `holds ${data.length} items; a ${chartType} chart takes at most ${max} (max_data_points)` })
  }

  const itemIssues = new ItemIssues(issues)
  const items: Item[] = []
  // Scatter data takes one shape throughout, decided by the first item.
  const pointShape = chartType === 'scatter' && isRecord(data[0]) && ('x' in data[0] || 'y' in data[0])
  const seen = new Map<string, number>()
  for (let i = 0; i < data.length && !itemIssues.overflowed; i++) {
    const raw: unknown = data[i]
    const at = `data[${i}]`
    if (!isRecord(raw)) {
      itemIssues.add(at, 'must be an object')
      continue
    }
    const item = validateItem(raw, i, at, chartType, pointShape, itemIssues)
    if (item === undefined) continue
    const key = uniquenessKey(chartType, item)
    if (key !== undefined) {
      const first = seen.get(key)
      if (first === undefined) seen.set(key, i)
      else
        itemIssues.add(
          chartType === 'heatmap' ? at : `${at}.label`,
          `repeats data[${first}]: each ${chartType === 'heatmap' ? 'cell (x, y)' : 'label'} appears once`,
        )
    }
    items.push(item)
  }
  if (itemIssues.overflowed) {
    issues.push({ field: 'data', message: `has more invalid items; only the first ${MAX_ITEM_ISSUES} problems are listed` })
  }

  if ((chartType === 'pie' || chartType === 'donut') && items.length === data.length && !items.some((item) => (item as LabelledValue).value > 0)) {
    issues.push({ field: 'data', message: `a ${chartType} chart needs at least one value above 0` })
  }
  return items.length === data.length ? items : undefined
}

function validateItem(
  raw: Record<string, unknown>,
  index: number,
  at: string,
  chartType: ChartTypeId,
  pointShape: boolean,
  itemIssues: ItemIssues,
): Item | undefined {
  const before = itemIssues.count
  switch (chartType) {
    case 'bar':
    case 'line':
    case 'area':
    case 'pie':
    case 'donut': {
      const label = requireLabel(raw.label, `${at}.label`, itemIssues)
      const value = requireNumber(raw.value, `${at}.value`, itemIssues)
      if ((chartType === 'pie' || chartType === 'donut') && value !== undefined && value < 0) {
        itemIssues.add(`${at}.value`, 'must be 0 or more: a slice cannot be negative')
      }
      return itemIssues.count === before ? { label: label as string, value: value as number } : undefined
    }
    case 'scatter': {
      if (pointShape) {
        const x = requireNumber(raw.x, `${at}.x`, itemIssues)
        const y = requireNumber(raw.y, `${at}.y`, itemIssues)
        const label = raw.label === undefined ? undefined : requireLabel(raw.label, `${at}.label`, itemIssues)
        if (itemIssues.count !== before) return undefined
        return label === undefined ? { x: x as number, y: y as number } : { x: x as number, y: y as number, label }
      }
      const label = requireLabel(raw.label, `${at}.label`, itemIssues, 'like data[0], { label, value } or give every item x and y')
      const value = requireNumber(raw.value, `${at}.value`, itemIssues)
      return itemIssues.count === before ? { x: index, y: value as number, label: label as string } : undefined
    }
    case 'histogram': {
      const value = requireNumber(raw.value, `${at}.value`, itemIssues)
      const label = raw.label === undefined ? undefined : requireLabel(raw.label, `${at}.label`, itemIssues)
      if (itemIssues.count !== before) return undefined
      return label === undefined ? { value: value as number } : { value: value as number, label }
    }
    case 'heatmap': {
      const x = requireCategory(raw.x, `${at}.x`, itemIssues)
      const y = requireCategory(raw.y, `${at}.y`, itemIssues)
      const value = requireNumber(raw.value, `${at}.value`, itemIssues)
      return itemIssues.count === before ? { x: x as string | number, y: y as string | number, value: value as number } : undefined
    }
  }
}

/**
 * The key that must be unique among items of types where a repeat would draw over itself: a
 * bar's, slice's or time point's label, a heatmap cell's (x, y); none for scatter and
 * histogram items. Live data pushes update the item with the same key in place.
 */
export function uniquenessKey(chartType: ChartTypeId, item: Item): string | undefined {
  switch (chartType) {
    case 'bar':
    case 'line':
    case 'area':
    case 'pie':
    case 'donut':
      return (item as LabelledValue).label
    case 'heatmap': {
      const cell = item as HeatmapCell
      // JSON keeps 1 and "1" apart, as the ordinal axes do.
      return JSON.stringify([cell.x, cell.y])
    }
    default:
      return undefined
  }
}

function requireLabel(value: unknown, field: string, itemIssues: ItemIssues, hint?: string): string | undefined {
  if (typeof value === 'string' && value.trim().length > 0 && value.length <= MAX_LABEL_LENGTH) return value
  const suffix = hint === undefined ? '' : ` (${hint})`
  if (value === undefined) itemIssues.add(field, `is required: a non-empty string${suffix}`)
  else itemIssues.add(field, `must be a non-empty string of at most ${MAX_LABEL_LENGTH} characters${suffix}`)
  return undefined
}

function requireNumber(value: unknown, field: string, itemIssues: ItemIssues): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  itemIssues.add(field, value === undefined ? 'is required: a finite number' : 'must be a finite number')
  return undefined
}

function requireCategory(value: unknown, field: string, itemIssues: ItemIssues): string | number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim().length > 0 && value.length <= MAX_LABEL_LENGTH) return value
  itemIssues.add(
    field,
    value === undefined
      ? 'is required: a finite number or a non-empty string'
      : `must be a finite number or a non-empty string of at most ${MAX_LABEL_LENGTH} characters`,
  )
  return undefined
}

function validateConfig(config: unknown, issues: ValidationIssue[]): ChartConfig {
  const normalised: ChartConfig = { showLegend: true, animate: false }
  if (config === undefined || config === null) return normalised
  if (!isRecord(config)) {
    issues.push({ field: 'config', message: 'must be an object' })
    return normalised
  }
  for (const key of Object.keys(config)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      issues.push({ field: `config.${key}`, message: `is not a chart option; known options: ${CONFIG_KEYS.join(', ')}` })
    }
  }
  const { title, colors, showLegend, animate } = config
  if (title !== undefined) {
    if (typeof title !== 'string' || title.length > MAX_TITLE_LENGTH) {
      issues.push({ field: 'config.title', message: `must be a string of at most ${MAX_TITLE_LENGTH} characters` })
    } else if (title.trim().length > 0) {
      normalised.title = title
    }
  }
  if (colors !== undefined) {
    if (!Array.isArray(colors) || colors.length === 0 || colors.length > MAX_COLORS) {
      issues.push({ field: 'config.colors', message: `must be an array of 1 to ${MAX_COLORS} hex colours (#rgb or #rrggbb)` })
    } else {
      colors.forEach((color: unknown, i) => {
        if (typeof color !== 'string' || !HEX_COLOR.test(color)) {
          issues.push({ field: `config.colors[${i}]`, message: 'must be a hex colour: #rgb or #rrggbb' })
        }
      })
      normalised.colors = colors.map((color) => String(color).toLowerCase())
    }
  }
  for (const [key, value] of [
    ['showLegend', showLegend],
    ['animate', animate],
  ] as const) {
    if (value === undefined) continue
    if (typeof value !== 'boolean') issues.push({ field: `config.${key}`, message: 'must be true or false' })
    else normalised[key] = value
  }
  return normalised
}

function validateSize(value: unknown, field: 'width' | 'height', fallback: number, issues: ValidationIssue[]): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_SIZE || value > MAX_SIZE) {
    issues.push({ field, message: `must be a whole number of pixels from ${MIN_SIZE} to ${MAX_SIZE}` })
    return fallback
  }
  return value
}
