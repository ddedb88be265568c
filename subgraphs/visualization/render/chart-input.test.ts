import { describe, expect, it } from 'vitest'
import { CHART_TYPE_IDS, findChartType } from './chart-catalog.js'
import { isIsoDate, MAX_ITEM_ISSUES, validateRenderInput } from './chart-input.js'
import { sampleRenderRequest } from './sample-charts.js'

function issuesOf(input: unknown) {
  const result = validateRenderInput(input)
  if (result.ok) throw new Error('expected issues')
  return result.issues
}

function fieldsOf(input: unknown): string[] {
  return issuesOf(input).map((issue) => issue.field)
}

describe('validateRenderInput', () => {
  it('accepts every sample and applies defaults', () => {
    for (const type of CHART_TYPE_IDS) {
      const result = validateRenderInput(sampleRenderRequest(type))
      expect(result.ok, type).toBe(true)
    }
    const result = validateRenderInput({ chart_type: 'bar', data: [{ label: 'a', value: 1, extra: true }] })
    expect(result).toEqual({
      ok: true,
      value: { chartType: 'bar', data: [{ label: 'a', value: 1 }], config: { showLegend: true, animate: false }, width: 800, height: 600 },
    })
  })

  it('normalises config', () => {
    const result = validateRenderInput({
      chart_type: 'pie',
      data: [{ label: 'a', value: 1 }],
      config: { title: 'T', colors: ['#ABC', '#00ff00'], showLegend: false, animate: true },
      width: 50,
      height: 4000,
    })
    expect(result.ok && result.value).toMatchObject({
      config: { title: 'T', colors: ['#abc', '#00ff00'], showLegend: false, animate: true },
      width: 50,
      height: 4000,
    })
    // A blank title means no title.
    const blank = validateRenderInput({ chart_type: 'bar', data: [{ label: 'a', value: 1 }], config: { title: '  ' } })
    expect(blank.ok && blank.value.config.title).toBeUndefined()
  })

  it('rejects a body that is not an object', () => {
    expect(issuesOf(null)).toEqual([{ field: 'body', message: 'must be an object' }])
    expect(fieldsOf([])).toEqual(['body'])
  })

  it('reports every top-level problem with its field', () => {
    expect(fieldsOf({})).toEqual(['chart_type', 'data'])
    expect(fieldsOf({ chart_type: 'radar', data: [], config: 'x', width: 49, height: 600.5 })).toEqual(['chart_type', 'data', 'config', 'width', 'height'])
    expect(fieldsOf({ chart_type: 'bar', data: {}, width: 4001, height: '600' })).toEqual(['data', 'width', 'height'])
    expect(issuesOf({ chart_type: 'radar', data: [{}] })[0]?.message).toContain('bar, line')
  })

  it('reports item problems by index and key', () => {
    expect(
      fieldsOf({
        chart_type: 'bar',
        data: [{ label: 'a', value: 1 }, 'x', { label: '', value: 2 }, { label: 'b', value: Number.NaN }, { value: 1 }, { label: 'c' }],
      }),
    ).toEqual(['data[1]', 'data[2].label', 'data[3].value', 'data[4].label', 'data[5].value'])
    expect(
      fieldsOf({
        chart_type: 'line',
        data: [
          { label: 'a', value: Infinity },
          { label: 7, value: '1' },
        ],
      }),
    ).toEqual(['data[0].value', 'data[1].label', 'data[1].value'])
    expect(fieldsOf({ chart_type: 'bar', data: [{ label: 'x'.repeat(201), value: 1 }] })).toEqual(['data[0].label'])
  })

  it('requires unique labels where a repeat would draw over itself', () => {
    const issues = issuesOf({
      chart_type: 'bar',
      data: [
        { label: 'a', value: 1 },
        { label: 'b', value: 1 },
        { label: 'a', value: 2 },
      ],
    })
    expect(issues).toEqual([{ field: 'data[2].label', message: expect.stringContaining('data[0]') }])
    expect(
      fieldsOf({
        chart_type: 'heatmap',
        data: [
          { x: 1, y: 'a', value: 1 },
          { x: 1, y: 'a', value: 2 },
        ],
      }),
    ).toEqual(['data[1]'])
    // 1 and "1" are different columns.
    expect(
      validateRenderInput({
        chart_type: 'heatmap',
        data: [
          { x: 1, y: 'a', value: 1 },
          { x: '1', y: 'a', value: 2 },
        ],
      }).ok,
    ).toBe(true)
    expect(
      validateRenderInput({
        chart_type: 'scatter',
        data: [
          { x: 1, y: 1, label: 'a' },
          { x: 2, y: 2, label: 'a' },
        ],
      }).ok,
    ).toBe(true)
  })

  it('checks pie and donut values', () => {
    expect(
      fieldsOf({
        chart_type: 'pie',
        data: [
          { label: 'a', value: -1 },
          { label: 'b', value: 2 },
        ],
      }),
    ).toEqual(['data[0].value'])
    expect(issuesOf({ chart_type: 'donut', data: [{ label: 'a', value: 0 }] })).toEqual([{ field: 'data', message: expect.stringContaining('above 0') }])
  })

  it('takes scatter points or label/value items, one shape throughout', () => {
    const points = validateRenderInput({
      chart_type: 'scatter',
      data: [
        { x: 1, y: 2 },
        { x: 3, y: 4, label: 'p' },
      ],
    })
    expect(points.ok && points.value.data).toEqual([
      { x: 1, y: 2 },
      { x: 3, y: 4, label: 'p' },
    ])
    const indexed = validateRenderInput({
      chart_type: 'scatter',
      data: [
        { label: 'a', value: 5 },
        { label: 'b', value: 7 },
      ],
    })
    expect(indexed.ok && indexed.value.data).toEqual([
      { x: 0, y: 5, label: 'a' },
      { x: 1, y: 7, label: 'b' },
    ])
    expect(fieldsOf({ chart_type: 'scatter', data: [{ x: 1, y: 2 }, { label: 'a', value: 1 }, { x: 1 }, { x: 1, y: 2, label: 3 }] })).toEqual([
      'data[1].x',
      'data[1].y',
      'data[2].y',
      'data[3].label',
    ])
    expect(
      fieldsOf({
        chart_type: 'scatter',
        data: [
          { label: 'a', value: 1 },
          { x: 1, y: 2 },
        ],
      }),
    ).toEqual(['data[1].label', 'data[1].value'])
  })

  it('takes histogram values with optional labels', () => {
    const result = validateRenderInput({ chart_type: 'histogram', data: [{ value: 1 }, { value: 2, label: 'b' }] })
    expect(result.ok && result.value.data).toEqual([{ value: 1 }, { value: 2, label: 'b' }])
    expect(fieldsOf({ chart_type: 'histogram', data: [{ label: 'a' }, { value: 1, label: '' }] })).toEqual(['data[0].value', 'data[1].label'])
  })

  it('takes heatmap cells with string or number coordinates', () => {
    const result = validateRenderInput({ chart_type: 'heatmap', data: [{ x: 'Mon', y: 3, value: 1.5 }] })
    expect(result.ok && result.value.data).toEqual([{ x: 'Mon', y: 3, value: 1.5 }])
    expect(
      fieldsOf({
        chart_type: 'heatmap',
        data: [
          { x: true, y: '', value: 1 },
          { x: 1, y: 2 },
        ],
      }),
    ).toEqual(['data[0].x', 'data[0].y', 'data[1].value'])
  })

  it('checks config keys and values', () => {
    const base = { chart_type: 'bar', data: [{ label: 'a', value: 1 }] }
    expect(
      fieldsOf({ ...base, config: { title: 'x'.repeat(201), colors: ['#12', 'red', '#abcdef', 5], showLegend: 'yes', animate: 1, theme: 'dark' } }),
    ).toEqual(['config.theme', 'config.title', 'config.colors[0]', 'config.colors[1]', 'config.colors[3]', 'config.showLegend', 'config.animate'])
    expect(fieldsOf({ ...base, config: { colors: [] } })).toEqual(['config.colors'])
    expect(fieldsOf({ ...base, config: { colors: '#fff' } })).toEqual(['config.colors'])
    expect(fieldsOf({ ...base, config: { title: 5 } })).toEqual(['config.title'])
    expect(validateRenderInput({ ...base, config: { title: 'x'.repeat(200) } }).ok).toBe(true)
  })

  it('enforces max_data_points per type, naming the limit', () => {
    for (const type of ['bar', 'pie'] as const) {
      const max = findChartType(type)?.maxDataPoints ?? 0
      const data = Array.from({ length: max + 1 }, (_, i) => ({ label: `l${i}`, value: 1 }))
      expect(issuesOf({ chart_type: type, data })).toEqual([{ field: 'data', message: expect.stringContaining(String(max)) }])
      expect(validateRenderInput({ chart_type: type, data: data.slice(0, max) }).ok).toBe(true)
    }
    const heat = Array.from({ length: 10_001 }, (_, i) => ({ x: i % 101, y: Math.floor(i / 101), value: 1 }))
    expect(issuesOf({ chart_type: 'heatmap', data: heat })[0]?.message).toContain('10000')
  })

  it('lists at most MAX_ITEM_ISSUES item problems, then says more exist', () => {
    const data = Array.from({ length: 500 }, () => ({ label: 'a' }))
    const issues = issuesOf({ chart_type: 'histogram', data })
    expect(issues).toHaveLength(MAX_ITEM_ISSUES + 1)
    expect(issues[0]).toEqual({ field: 'data[0].value', message: 'is required: a finite number' })
    expect(issues.at(-1)).toEqual({ field: 'data', message: expect.stringContaining(String(MAX_ITEM_ISSUES)) })
  })
})

describe('isIsoDate', () => {
  it('recognises ISO 8601 dates and date-times', () => {
    for (const label of ['2024-03-01', '2024-03-01T12:00', '2024-03-01T12:00:30Z', '2024-03-01T12:00:30.123+02:00', '2024-03-01 08:15']) {
      expect(isIsoDate(label), label).toBe(true)
    }
    for (const label of ['March', '2024', '2024-3-1', '2024-13-01', '01/03/2024', '2024-03-01T25:00']) {
      expect(isIsoDate(label), label).toBe(false)
    }
  })
})
