import { createRequire } from 'node:module'
import Ajv from 'ajv'
import { describe, expect, it } from 'vitest'
import { CHART_TYPE_IDS, type ChartTypeId } from './chart-catalog.js'
import { validateRenderInput, type RenderInput } from './chart-input.js'
import { sampleRenderRequest } from './sample-charts.js'
import { buildSpec } from './vega-lite-spec.js'

const schema: object = createRequire(import.meta.url)('vega-lite/vega-lite-schema.json')
const validateSchema = new Ajv.default({ strict: false, allErrors: true, validateFormats: false }).compile(schema)

type Json = Record<string, any>

function input(body: Record<string, unknown>): RenderInput {
  const result = validateRenderInput(body)
  if (!result.ok) throw new Error(JSON.stringify(result.issues))
  return result.value
}

function specOf(type: ChartTypeId, extra: Record<string, unknown> = {}): Json {
  const body = sampleRenderRequest(type)
  return buildSpec(input({ ...body, ...extra, config: { ...(body.config as object), ...(extra.config as object | undefined) } })) as Json
}

/** The unit spec holding the chart's main mark: the spec itself or its first layer. */
function mainUnit(spec: Json): Json {
  return spec.layer ? { ...spec, ...spec.layer[0], encoding: { ...spec.encoding, ...spec.layer[0].encoding } } : spec
}

describe('buildSpec', () => {
  it('produces schema-valid Vega-Lite for every type and option combination', () => {
    expect(validateSchema({ data: { values: [] }, mark: 'nonsense' })).toBe(false)
    for (const type of CHART_TYPE_IDS) {
      for (const config of [{}, { showLegend: false, colors: ['#123456'] }, { colors: ['#f00', '#0f0', '#00f'], animate: true }]) {
        const spec = specOf(type, { config })
        const valid = validateSchema(spec)
        expect(valid, `${type} ${JSON.stringify(config)}: ${JSON.stringify(validateSchema.errors?.slice(0, 3))}`).toBe(true)
      }
    }
  })

  it('sizes the whole image, sets the title and the drawing font', () => {
    const spec = specOf('bar', { width: 640, height: 480, config: { title: 'Revenue' } })
    expect(spec).toMatchObject({ width: 640, height: 480, autosize: { type: 'fit', contains: 'padding' }, title: { text: 'Revenue' } })
    expect(spec.config.font).toBe('DejaVu Sans')
    expect(buildSpec(input({ chart_type: 'bar', data: [{ label: 'a', value: 1 }] }))).not.toHaveProperty('title')
  })

  it('carries animate to the live embed only', () => {
    expect(specOf('line', { config: { animate: true } }).usermeta).toEqual({ tessera: { chartType: 'line', animate: true } })
    expect(specOf('line').usermeta.tessera.animate).toBe(false)
  })

  it('encodes each chart type', () => {
    const bar = specOf('bar')
    expect(bar.mark.type).toBe('bar')
    expect(bar.encoding.x).toMatchObject({ field: 'label', type: 'nominal' })
    expect(bar.encoding.y).toMatchObject({ field: 'value', type: 'quantitative' })

    const line = specOf('line')
    expect(line.mark.type).toBe('line')
    expect(line.encoding.x).toMatchObject({ field: 'label', type: 'ordinal' })
    expect(line.params).toBeUndefined()

    const area = specOf('area')
    expect(area.mark.type).toBe('area')
    expect(area.encoding.x).toMatchObject({ type: 'temporal', scale: { type: 'utc' } })
    expect(area.params).toEqual([{ name: 'zoom', select: 'interval', bind: 'scales' }])

    const pie = specOf('pie')
    expect(pie.mark.type).toBe('arc')
    expect(pie.encoding.theta).toMatchObject({ field: 'value', type: 'quantitative' })
    expect(pie.encoding.color).toMatchObject({ field: 'label', type: 'nominal' })
    expect(specOf('donut').mark.innerRadius).toBeDefined()

    const scatter = mainUnit(specOf('scatter'))
    expect(scatter.mark.type).toBe('point')
    expect(scatter.encoding.x).toMatchObject({ field: 'x', type: 'quantitative' })

    const histogram = specOf('histogram')
    expect(histogram.encoding.x).toMatchObject({ field: 'value', bin: { maxbins: 30 } })
    expect(histogram.encoding.y).toMatchObject({ aggregate: 'count' })

    const heatmap = specOf('heatmap')
    expect(heatmap.mark.type).toBe('rect')
    expect(heatmap.encoding).toMatchObject({ x: { field: 'x' }, y: { field: 'y' }, color: { field: 'value', type: 'quantitative' } })
  })

  it('always carries a tooltip encoding', () => {
    for (const type of CHART_TYPE_IDS) expect(mainUnit(specOf(type)).encoding.tooltip, type).toBeDefined()
  })

  it('reads ISO date-times without an offset as UTC', () => {
    const spec = buildSpec(
      input({
        chart_type: 'line',
        data: [
          { label: '2024-01-01T06:00', value: 1 },
          { label: '2024-01-02', value: 2 },
        ],
      }),
    ) as Json
    expect(spec.data.values.map((d: Json) => d.t)).toEqual([Date.UTC(2024, 0, 1, 6), Date.UTC(2024, 0, 2)])
  })

  it('applies colours as the palette of each type', () => {
    expect(specOf('bar', { config: { colors: ['#ff0000'] } }).mark.color).toBe('#ff0000')
    const cycled = specOf('bar', { config: { colors: ['#ff0000', '#00ff00'] } })
    expect(cycled.encoding.color).toMatchObject({ field: 'label', scale: { range: ['#ff0000', '#00ff00'] }, legend: null })
    expect(specOf('pie', { config: { colors: ['#111', '#222'] } }).encoding.color.scale).toEqual({ range: ['#111', '#222'] })
    expect(specOf('heatmap', { config: { colors: ['#0000ff'] } }).encoding.color.scale.range).toEqual(['#f2f2f2', '#0000ff'])
    expect(specOf('line', { config: { colors: ['#abcdef'] } }).mark.color).toBe('#abcdef')
  })

  it('shows or hides legends; a pie without a legend labels its slices', () => {
    expect(specOf('pie').encoding.color.legend).toEqual({ title: null })
    const unlabelled = specOf('pie', { config: { showLegend: false } })
    expect(unlabelled.layer[0].encoding.color.legend).toBeNull()
    expect(unlabelled.layer.slice(1).every((layer: Json) => layer.mark.type === 'text')).toBe(true)
    expect(specOf('heatmap', { config: { showLegend: false } }).encoding.color.legend).toBeNull()
  })

  it('leaves out slice labels that would overlap, keeping the larger slices named', () => {
    const data = Array.from({ length: 50 }, (_, i) => ({ label: `Region number ${i}`, value: 50 - i }))
    const spec = buildSpec(input({ chart_type: 'pie', data, config: { showLegend: false } })) as Json
    const named: string[] = spec.layer.slice(1).flatMap((layer: Json) => layer.data.values.map((d: Json) => d.label))
    expect(named.length).toBeGreaterThan(10)
    expect(named.length).toBeLessThan(50)
    expect(named).toContain('Region number 0')
    expect(named).not.toContain('Region number 49')
  })

  it('thins labels of a crowded discrete axis', () => {
    const data = Array.from({ length: 1000 }, (_, i) => ({ label: `item ${i}`, value: i }))
    const spec = buildSpec(input({ chart_type: 'bar', data })) as Json
    const shown: string[] = spec.encoding.x.axis.values
    expect(shown[0]).toBe('item 0')
    expect(shown.length).toBeLessThanOrEqual(800 / 14)
    expect(spec.encoding.x.axis.labelAngle).toBe(270)
    expect(specOf('bar').encoding.x.axis).toEqual({ labelAngle: 0 })
  })
})
