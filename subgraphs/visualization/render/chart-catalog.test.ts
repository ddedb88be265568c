import { describe, expect, it } from 'vitest'
import { CHART_FEATURES, CHART_TYPES, CHART_TYPE_IDS, findChartType, isChartTypeId, listChartTypes } from './chart-catalog.js'

describe('chart catalog', () => {
  it('lists every required type with spec-conformant records', () => {
    for (const id of ['bar', 'line', 'pie', 'scatter', 'area', 'histogram', 'heatmap', 'donut']) {
      expect(findChartType(id)?.id).toBe(id)
    }
    expect(CHART_TYPES.map((t) => t.id)).toEqual([...CHART_TYPE_IDS])
    for (const type of CHART_TYPES) {
      expect(type.name.length).toBeGreaterThan(0)
      expect(['comparison', 'trend', 'composition', 'distribution', 'relationship']).toContain(type.category)
      expect(['tabular', 'time_series']).toContain(type.dataFormat)
      expect(Number.isInteger(type.maxDataPoints) && type.maxDataPoints > 0).toBe(true)
      for (const feature of type.supportedFeatures) expect(CHART_FEATURES).toContain(feature)
    }
  })

  it('uses the documented limits', () => {
    const limits = Object.fromEntries(CHART_TYPES.map((t) => [t.id, t.maxDataPoints]))
    expect(limits).toMatchObject({ bar: 1000, line: 10_000, scatter: 10_000, pie: 50, area: 10_000, histogram: 100_000, heatmap: 10_000 })
  })

  it('shares frozen records', () => {
    expect(Object.isFrozen(CHART_TYPES)).toBe(true)
    expect(Object.isFrozen(CHART_TYPES[0])).toBe(true)
    expect(Object.isFrozen(CHART_TYPES[0]?.supportedFeatures)).toBe(true)
  })

  it('finds types by id only', () => {
    expect(findChartType('nope')).toBeUndefined()
    expect(findChartType('toString')).toBeUndefined()
    expect(isChartTypeId('pie')).toBe(true)
    expect(isChartTypeId('constructor')).toBe(false)
    expect(isChartTypeId(3)).toBe(false)
  })

  it('pages and filters', () => {
    const all = listChartTypes({ limit: 50, offset: 0 })
    expect(all.total).toBe(CHART_TYPES.length)
    expect(all.items).toHaveLength(CHART_TYPES.length)

    const page = listChartTypes({ limit: 2, offset: 1 })
    expect(page.items.map((t) => t.id)).toEqual(['line', 'area'])
    expect(page.total).toBe(CHART_TYPES.length)
    expect(listChartTypes({ limit: 10, offset: 100 }).items).toEqual([])
    expect(listChartTypes({ limit: 0, offset: 0 }).items).toEqual([])

    const trends = listChartTypes({ category: 'trend', limit: 50, offset: 0 })
    expect(trends.items.map((t) => t.id)).toEqual(['line', 'area'])
    expect(trends.total).toBe(2)
    // The spec's own example filters by a type id.
    expect(listChartTypes({ category: 'pie', limit: 50, offset: 0 }).items.map((t) => t.id)).toEqual(['pie'])
    expect(listChartTypes({ category: 'unknown', limit: 50, offset: 0 })).toEqual({ items: [], total: 0 })
  })
})
