/**
 * The chart types the visualization service can render, as the records `GET /charts` lists.
 *
 * Every type listed here is really rendered by `buildSpec` (see `vega-lite-spec.ts`); the
 * catalog is data so the listing, the input validation and the spec builder cannot drift apart.
 *
 * @module
 */

/** Interactive features a chart type offers in a live embed; a static image shows none of them. */
export const CHART_FEATURES = ['zoom', 'pan', 'tooltip', 'legend', 'animation'] as const
export type ChartFeature = (typeof CHART_FEATURES)[number]

/** Shape of the data a chart type is drawn from, as the spec names it. */
export type ChartDataFormat = 'tabular' | 'time_series'

/** What a chart type is for, used to filter the listing and to recommend types. */
export type ChartCategory = 'comparison' | 'trend' | 'composition' | 'distribution' | 'relationship'

/** Identifiers of every chart type the service renders. */
export const CHART_TYPE_IDS = ['bar', 'line', 'area', 'pie', 'donut', 'scatter', 'histogram', 'heatmap'] as const
export type ChartTypeId = (typeof CHART_TYPE_IDS)[number]

/** A chart type record: the fields of `GET /charts` items, in camelCase. */
export interface ChartType {
  readonly id: ChartTypeId
  readonly name: string
  readonly category: ChartCategory
  readonly supportedFeatures: readonly ChartFeature[]
  readonly dataFormat: ChartDataFormat
  /** Most data items one render accepts; more is rejected, not sampled. */
  readonly maxDataPoints: number
}

// Limits follow what stays readable and renders in about a second: every bar, slice and cell
// is its own mark with its own label or colour, while lines, areas and point clouds stay
// legible at ten thousand points and a histogram only draws its bins.
const TYPES: readonly ChartType[] = [
  { id: 'bar', name: 'Bar chart', category: 'comparison', supportedFeatures: ['tooltip', 'animation'], dataFormat: 'tabular', maxDataPoints: 1000 },
  {
    id: 'line',
    name: 'Line chart',
    category: 'trend',
    supportedFeatures: ['zoom', 'pan', 'tooltip', 'animation'],
    dataFormat: 'time_series',
    maxDataPoints: 10_000,
  },
  {
    id: 'area',
    name: 'Area chart',
    category: 'trend',
    supportedFeatures: ['zoom', 'pan', 'tooltip', 'animation'],
    dataFormat: 'time_series',
    maxDataPoints: 10_000,
  },
  { id: 'pie', name: 'Pie chart', category: 'composition', supportedFeatures: ['tooltip', 'legend', 'animation'], dataFormat: 'tabular', maxDataPoints: 50 },
  {
    id: 'donut',
    name: 'Donut chart',
    category: 'composition',
    supportedFeatures: ['tooltip', 'legend', 'animation'],
    dataFormat: 'tabular',
    maxDataPoints: 50,
  },
  {
    id: 'scatter',
    name: 'Scatter plot',
    category: 'relationship',
    supportedFeatures: ['zoom', 'pan', 'tooltip', 'animation'],
    dataFormat: 'tabular',
    maxDataPoints: 10_000,
  },
  { id: 'histogram', name: 'Histogram', category: 'distribution', supportedFeatures: ['tooltip', 'animation'], dataFormat: 'tabular', maxDataPoints: 100_000 },
  { id: 'heatmap', name: 'Heatmap', category: 'relationship', supportedFeatures: ['tooltip', 'legend'], dataFormat: 'tabular', maxDataPoints: 10_000 },
]

/** Every chart type, in listing order. Frozen: callers share these records. */
export const CHART_TYPES: readonly ChartType[] = Object.freeze(
  TYPES.map((type) => Object.freeze({ ...type, supportedFeatures: Object.freeze([...type.supportedFeatures]) })),
)

const BY_ID = new Map<string, ChartType>(CHART_TYPES.map((type) => [type.id, type]))

/** Whether `id` names a chart type the service renders. */
export function isChartTypeId(id: unknown): id is ChartTypeId {
  return typeof id === 'string' && BY_ID.has(id)
}

/** The chart type called `id`, or `undefined` for an unknown id. */
export function findChartType(id: string): ChartType | undefined {
  return BY_ID.get(id)
}

/** Paging and filtering of {@link listChartTypes}. */
export interface ListChartTypesOptions {
  /**
   * Keeps the types of this category. The spec's own example filters by `bar`, `line`, `pie`
   * or `scatter`, which are type ids rather than categories, so a value naming a type id keeps
   * that type: both readings of the documented parameter work.
   */
  category?: string
  /** Page size, at least 0; the spec's default is 50. */
  limit: number
  /** Items to skip, at least 0. */
  offset: number
}

/**
 * One page of the chart types, optionally filtered by category, with the number of types that
 * match the filter before paging (`total`).
 */
export function listChartTypes(options: ListChartTypesOptions): { items: ChartType[]; total: number } {
  const { category } = options
  const matching = category === undefined ? CHART_TYPES : CHART_TYPES.filter((type) => type.category === category || type.id === category)
  const offset = Math.max(0, Math.trunc(options.offset))
  const limit = Math.max(0, Math.trunc(options.limit))
  return { items: matching.slice(offset, offset + limit), total: matching.length }
}
