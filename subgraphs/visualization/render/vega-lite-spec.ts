/**
 * Vega-Lite specifications for validated render inputs: one builder per chart type, sharing
 * the size, title, palette, legend, tooltip and font settings.
 *
 * @module
 */

import type { TopLevelSpec } from 'vega-lite'
import { CHART_FONT } from './chart-font.js'
import { isIsoDate, type ChartConfig, type HeatmapCell, type HistogramValue, type LabelledValue, type RenderInput, type ScatterPoint } from './chart-input.js'
import { measureText } from './measure-text.js'

/** Single-series colour when the palette is not given: Vega-Lite's own first colour. */
const DEFAULT_COLOR = '#4c78a8'
/** Pale end of a heatmap gradient given a single colour. */
const HEATMAP_LOW = '#f2f2f2'
/** Room around the chart, in pixels. */
const PADDING = 8
const TITLE_FONT_SIZE = 16
/** Gap between the title and the plot. */
const TITLE_OFFSET = 10
/** Pie radius as a share of half the plot's shorter side, leaving room for slice labels. */
const PIE_RADIUS = 0.8
/** Slice labels sit this far outside the pie, in this font size. */
const SLICE_LABEL_DISTANCE = 8
const SLICE_LABEL_SIZE = 11
const AXIS_LABEL_SIZE = 10
/** Room one rotated axis label takes along the axis: a 10 px label and a small gap. */
const LABEL_SPACING = 14
/** Least space between two horizontal axis labels. */
const LABEL_GAP = 8
/** Room axes, ticks and padding take from the image before the plot; enough for thinning labels. */
const AXIS_ALLOWANCE = 80
/** Scatter points get their labels drawn beside them up to this many labelled points. */
const MAX_POINT_LABELS = 100
/**
 * Past this many marks, items carry no ARIA description: a static image has no screen reader
 * to read ten thousand of them, and each costs time and bytes in the SVG.
 */
const MAX_DESCRIBED_MARKS = 1000

type Spec = Record<string, unknown>

/**
 * The Vega-Lite spec drawing `input`.
 *
 * - The whole image is `width` × `height` pixels: autosize `fit` includes title, axes, legend
 *   and padding, as the render API's width and height describe the image.
 * - `config.title` becomes the chart title; `config.colors` the colour range (single-series
 *   charts take the first colour; a bar chart given several colours cycles them over its bars;
 *   pie and donut slices take them in order; a heatmap uses them as its gradient).
 * - `config.showLegend` shows or hides the legend of the types that have one (pie, donut,
 *   heatmap); a pie or donut without a legend labels its slices instead.
 * - Tooltip encodings are always included (a live embed shows them; Vega also turns them into
 *   ARIA descriptions of the marks).
 * - Line, area and scatter charts with continuous x scales carry an interval selection bound
 *   to the scales, the zoom and pan of a live embed; a static render is unaffected.
 * - `config.animate` cannot affect a static image: it is carried in `usermeta.tessera.animate`
 *   for the live embed only.
 * - Text is set in DejaVu Sans (`config.font`) so Vega lays text out with the font the
 *   renderers draw with.
 * - Axis label values are thinned on discrete axes with more categories than fit, so ten
 *   thousand categories do not draw ten thousand overlapping labels.
 */
export function buildSpec(input: RenderInput): TopLevelSpec {
  const { config, width, height } = input
  const body = chartBody(input)
  const spec: Spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width,
    height,
    autosize: { type: 'fit', contains: 'padding' },
    background: 'white',
    padding: PADDING,
    usermeta: { tessera: { chartType: input.chartType, animate: config.animate } },
    config: {
      font: CHART_FONT.family,
      title: { fontSize: TITLE_FONT_SIZE, anchor: 'middle', offset: TITLE_OFFSET },
      view: { stroke: null },
      axis: { labelFontSize: AXIS_LABEL_SIZE, titleFontSize: 11, labelOverlap: true, labelSeparation: 6 },
      legend: { labelFontSize: 11, titleFontSize: 11 },
    },
    ...body,
  }
  if (config.title !== undefined) {
    spec.title = { text: config.title }
    spec.description = config.title
  }
  // Built as plain records per chart type; the tests check every type against the Vega-Lite schema.
  return spec as unknown as TopLevelSpec
}

function chartBody(input: RenderInput): Spec {
  switch (input.chartType) {
    case 'bar':
      return barBody(input.data, input)
    case 'line':
    case 'area':
      return trendBody(input.chartType, input.data, input)
    case 'pie':
    case 'donut':
      return arcBody(input.chartType, input.data, input)
    case 'scatter':
      return scatterBody(input.data, input)
    case 'histogram':
      return histogramBody(input.data, input.config)
    case 'heatmap':
      return heatmapBody(input.data, input)
  }
}

function barBody(data: LabelledValue[], input: RenderInput): Spec {
  const colors = input.config.colors ?? []
  const encoding: Spec = {
    x: {
      field: 'label',
      type: 'nominal',
      sort: null,
      title: null,
      axis: discreteAxis(
        data.map((d) => d.label),
        input.width,
        'x',
      ),
    },
    y: { field: 'value', type: 'quantitative', title: null },
    tooltip: [
      { field: 'label', type: 'nominal' },
      { field: 'value', type: 'quantitative' },
    ],
  }
  // Several colours are cycled over the bars; the x axis already names them, so no legend.
  if (colors.length > 1) encoding.color = { field: 'label', type: 'nominal', sort: null, scale: { range: colors }, legend: null }
  return {
    data: { values: data.map(({ label, value }) => ({ label, value })) },
    mark: { type: 'bar', color: colors[0] ?? DEFAULT_COLOR, aria: data.length <= MAX_DESCRIBED_MARKS },
    encoding,
  }
}

function trendBody(type: 'line' | 'area', data: LabelledValue[], input: RenderInput): Spec {
  const temporal = data.every((d) => isIsoDate(d.label))
  const color = input.config.colors?.[0] ?? DEFAULT_COLOR
  // Dates become epoch milliseconds on a UTC scale: Vega parses a date-time without an offset
  // in the server's time zone, which would make the same request draw differently per machine.
  const values = data.map(({ label, value }) => (temporal ? { label, value, t: utcMillis(label) } : { label, value }))
  const x = temporal
    ? { field: 't', type: 'temporal', scale: { type: 'utc' }, title: null }
    : {
        field: 'label',
        type: 'ordinal',
        sort: null,
        title: null,
        axis: discreteAxis(
          data.map((d) => d.label),
          input.width,
          'x',
        ),
      }
  const mark: Spec = { type, color, aria: data.length <= MAX_DESCRIBED_MARKS }
  if (type === 'area') Object.assign(mark, { opacity: 0.7, line: { color } })
  const spec: Spec = {
    data: { values },
    mark,
    encoding: {
      x,
      y: { field: 'value', type: 'quantitative', title: null },
      tooltip: [
        { field: 'label', type: 'nominal' },
        { field: 'value', type: 'quantitative' },
      ],
    },
  }
  // Scale bindings need a continuous x; an ordinal axis has nothing to zoom.
  if (temporal) spec.params = [zoomParam()]
  return spec
}

function arcBody(type: 'pie' | 'donut', data: LabelledValue[], input: RenderInput): Spec {
  const { showLegend, colors } = input.config
  // Slices follow the data order: the stack and the colour domain both sort by index.
  const values = data.map(({ label, value }, i) => ({ label, value, i }))
  const outer = `min(width, height) / 2 * ${PIE_RADIUS}`
  const arc: Spec = { type: 'arc', outerRadius: { expr: outer } }
  if (type === 'donut') arc.innerRadius = { expr: `${outer} * 0.55` }
  const color: Spec = {
    field: 'label',
    type: 'nominal',
    sort: null,
    legend: showLegend ? { title: null } : null,
  }
  if (colors !== undefined) color.scale = { range: colors }
  const encoding: Spec = {
    theta: { field: 'value', type: 'quantitative', stack: true },
    color,
    order: { field: 'i', type: 'quantitative' },
    tooltip: [
      { field: 'label', type: 'nominal' },
      { field: 'value', type: 'quantitative' },
    ],
  }
  if (showLegend) return { data: { values }, mark: arc, encoding }
  // Without a legend the slices name themselves just outside the pie, each label running away
  // from it: the text layers take their angles from precomputed slice midpoints, one layer per
  // alignment, because a text's alignment cannot vary by datum within one Vega-Lite mark.
  const labels = sliceLabels(data, input)
  const aligns = distinct(labels.map((l) => l.align))
  return {
    layer: [
      { data: { values }, mark: arc, encoding },
      ...aligns.map((align) => ({
        data: { values: labels.filter((l) => l.align === align) },
        mark: {
          type: 'text',
          align,
          radius: { expr: `${outer} + ${SLICE_LABEL_DISTANCE}` },
          limit: { expr: `max(40, width / 2 - ${outer} - ${SLICE_LABEL_DISTANCE + 4})` },
          fontSize: SLICE_LABEL_SIZE,
          color: '#000',
        },
        encoding: {
          theta: { field: 'mid', type: 'quantitative', scale: null },
          text: { field: 'label', type: 'nominal' },
        },
      })),
    ],
  }
}

type SliceLabel = { label: string; mid: number; align: 'left' | 'right' | 'center' }

/**
 * Where slice labels go: each slice's middle angle (radians clockwise from 12 o'clock, as
 * Vega-Lite's theta) and the alignment that keeps its text clear of the pie. Labels that would
 * overlap one already placed are left out, larger slices placed first, so fifty thin slices do
 * not pile their names on top of each other. The geometry mirrors the spec's own expressions
 * (radius, limit) on the plot size estimated from the image size, padding and title.
 */
function sliceLabels(data: LabelledValue[], input: RenderInput): SliceLabel[] {
  const plotWidth = input.width - 2 * PADDING
  const plotHeight = input.height - 2 * PADDING - (input.config.title === undefined ? 0 : TITLE_FONT_SIZE + TITLE_OFFSET)
  const radius = (Math.min(plotWidth, plotHeight) / 2) * PIE_RADIUS + SLICE_LABEL_DISTANCE
  const limit = Math.max(40, plotWidth / 2 - radius - 4)
  const total = data.reduce((sum, d) => sum + d.value, 0)
  let start = 0
  const candidates: (SliceLabel & { value: number; box: [number, number, number, number] })[] = []
  for (const { label, value } of data) {
    // An empty slice has no room for a name.
    if (value > 0) {
      const mid = ((start + value / 2) / total) * 2 * Math.PI
      const side = Math.sin(mid)
      const align = Math.abs(side) < 0.1 ? 'center' : side > 0 ? 'left' : 'right'
      const x = side * radius
      const y = -Math.cos(mid) * radius
      const w = Math.min(measureText(label, SLICE_LABEL_SIZE), limit)
      const left = align === 'left' ? x : align === 'right' ? x - w : x - w / 2
      const half = SLICE_LABEL_SIZE / 2 + 1
      candidates.push({ label, mid, align, value, box: [left, y - half, left + w, y + half] })
    }
    start += value
  }
  const placed: [number, number, number, number][] = []
  const kept = new Set<SliceLabel>()
  for (const candidate of [...candidates].sort((a, b) => b.value - a.value)) {
    const [x1, y1, x2, y2] = candidate.box
    if (placed.some(([a1, b1, a2, b2]) => x1 < a2 && a1 < x2 && y1 < b2 && b1 < y2)) continue
    placed.push(candidate.box)
    kept.add(candidate)
  }
  return candidates.filter((c) => kept.has(c)).map(({ label, mid, align }) => ({ label, mid, align }))
}

function scatterBody(data: ScatterPoint[], input: RenderInput): Spec {
  const color = input.config.colors?.[0] ?? DEFAULT_COLOR
  const many = data.length > MAX_DESCRIBED_MARKS
  const labelled = data.filter((d) => d.label !== undefined).length
  const values = data.map(({ x, y, label }) => (label === undefined ? { x, y } : { x, y, label }))
  const tooltip: Spec[] = [
    { field: 'x', type: 'quantitative' },
    { field: 'y', type: 'quantitative' },
  ]
  if (labelled > 0) tooltip.unshift({ field: 'label', type: 'nominal' })
  const point: Spec = {
    mark: { type: 'point', filled: true, color, size: many ? 12 : 40, opacity: many ? 0.5 : 0.8, aria: !many },
    params: [zoomParam()],
  }
  const encoding: Spec = {
    // The padding keeps points on the domain's edges whole instead of cut by the frame.
    x: { field: 'x', type: 'quantitative', scale: { zero: false, padding: 12 }, title: 'x' },
    y: { field: 'y', type: 'quantitative', scale: { zero: false, padding: 12 }, title: 'y' },
    tooltip,
  }
  if (labelled === 0 || labelled > MAX_POINT_LABELS) return { data: { values }, ...point, encoding }
  return {
    data: { values },
    encoding,
    layer: [
      point,
      {
        mark: { type: 'text', align: 'left', dx: 6, fontSize: 10, color: '#333' },
        encoding: { text: { field: 'label', type: 'nominal' } },
      },
    ],
  }
}

function histogramBody(data: HistogramValue[], config: ChartConfig): Spec {
  const values = data.map(({ value, label }) => (label === undefined ? { value } : { value, label }))
  return {
    data: { values },
    mark: { type: 'bar', color: config.colors?.[0] ?? DEFAULT_COLOR, binSpacing: 1 },
    encoding: {
      x: { field: 'value', type: 'quantitative', bin: { maxbins: 30 }, title: 'value' },
      y: { aggregate: 'count', type: 'quantitative', title: 'count' },
      tooltip: [
        { field: 'value', type: 'quantitative', bin: { maxbins: 30 }, title: 'range' },
        { aggregate: 'count', type: 'quantitative', title: 'count' },
      ],
    },
  }
}

function heatmapBody(data: HeatmapCell[], input: RenderInput): Spec {
  const { showLegend, colors } = input.config
  const xs = distinct(data.map((d) => d.x))
  const ys = distinct(data.map((d) => d.y))
  // Numbers read as an ordered scale; names keep the order they first appear in.
  const axisSort = (values: (string | number)[]) => (values.every((v) => typeof v === 'number') ? 'ascending' : null)
  const scale: Spec = colors === undefined ? { scheme: 'blues' } : { range: colors.length === 1 ? [HEATMAP_LOW, colors[0]] : colors }
  return {
    data: { values: data.map(({ x, y, value }) => ({ x, y, value })) },
    mark: { type: 'rect', aria: data.length <= MAX_DESCRIBED_MARKS },
    encoding: {
      x: { field: 'x', type: 'ordinal', sort: axisSort(xs), title: null, axis: discreteAxis(xs, input.width, 'x') },
      y: { field: 'y', type: 'ordinal', sort: axisSort(ys), title: null, axis: discreteAxis(ys, input.height, 'y') },
      color: { field: 'value', type: 'quantitative', scale, legend: showLegend ? { title: null } : null },
      tooltip: [
        { field: 'x', type: 'ordinal' },
        { field: 'y', type: 'ordinal' },
        { field: 'value', type: 'quantitative' },
      ],
    },
  }
}

/** The zoom and pan of a live embed: an interval selection bound to the continuous scales. */
function zoomParam(): Spec {
  return { name: 'zoom', select: 'interval', bind: 'scales' }
}

/**
 * Axis settings for a discrete axis of `values` along `length` pixels. With more categories
 * than labels fit, an evenly spaced subset (always the first) gets ticks and labels. Labels of
 * an x axis stay horizontal when the widest fits its room, and are turned upright otherwise.
 */
function discreteAxis(values: readonly (string | number)[], length: number, orient: 'x' | 'y'): Spec {
  const plot = Math.max(1, length - AXIS_ALLOWANCE)
  const room = Math.max(1, Math.floor(plot / LABEL_SPACING))
  const step = Math.ceil(values.length / room)
  const shown = step > 1 ? values.filter((_, i) => i % step === 0) : values
  const axis: Spec = step > 1 ? { values: shown } : {}
  if (orient === 'x') {
    const widest = Math.max(...shown.map((v) => measureText(String(v), AXIS_LABEL_SIZE)))
    axis.labelAngle = widest + LABEL_GAP <= (plot / values.length) * step ? 0 : 270
  }
  return axis
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}

/** Epoch milliseconds of an ISO date or date-time, reading one without an offset as UTC. */
function utcMillis(label: string): number {
  const hasTime = /[T ]\d{2}:\d{2}/.test(label)
  const hasOffset = /(?:Z|[+-]\d{2}:?\d{2})$/.test(label)
  // Date-only forms are UTC already; date-times without an offset would be local time.
  return Date.parse(hasTime && !hasOffset ? `${label.replace(' ', 'T')}Z` : label.replace(' ', 'T'))
}
