import { describe, expect, it } from 'vitest'
import { findChartType } from '../render/chart-catalog.js'
import { INTENTS, recommendCharts, type ChartRecommendation } from './recommend-charts.js'

const MONTHS = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12']
/** Twelve months of revenue in three regions: a time series with a category. */
const MONTHLY = MONTHS.map((m, i) => ({ month: `2024-${m}`, revenue: 100 + i * 20, region: ['north', 'south', 'east'][i % 3] }))
/** Sales of five regions: categories and a measure. */
const REGIONS = [
  { region: 'north', sales: 120 },
  { region: 'south', sales: 80 },
  { region: 'east', sales: 95 },
  { region: 'west', sales: 60 },
  { region: 'central', sales: 40 },
]
/** Forty people's height and weight: two measures. */
const PEOPLE = Array.from({ length: 40 }, (_, i) => ({ height: 150 + ((i * 7) % 41) + 0.5, weight: 50 + ((i * 11) % 37) + 0.25 }))

function recommend(data: unknown[], intent: string, preferences: unknown = { interactive: false, complexity: 'medium' }): ChartRecommendation[] {
  const outcome = recommendCharts({ data, intent, preferences })
  if (!outcome.ok) throw new Error(`rejected: ${JSON.stringify(outcome.issues)}`)
  return outcome.recommendations
}

function types(recommendations: ChartRecommendation[]): string[] {
  return recommendations.map((r) => r.chart_type)
}

function find(recommendations: ChartRecommendation[], chart: string): ChartRecommendation {
  const found = recommendations.find((r) => r.chart_type === chart)
  if (!found) throw new Error(`no ${chart} in ${types(recommendations).join(', ')}`)
  return found
}

function issues(input: unknown) {
  const outcome = recommendCharts(input)
  return outcome.ok ? [] : outcome.issues
}

describe('recommendCharts: intents', () => {
  it('compare_trends: a line over time first, then area and bar', () => {
    const recs = recommend(MONTHLY, 'compare_trends')
    expect(types(recs).slice(0, 3)).toEqual(['line', 'area', 'bar'])
    expect(recs[0]).toEqual({
      chart_type: 'line',
      confidence: 1,
      reasoning:
        "12 rows, 'month' is temporal with 12 distinct values, 'revenue' is quantitative (100 to 320) → line shows how 'revenue' changes over 'month'.",
      alternatives: ['area', 'bar', 'scatter'],
    })
  })

  it('compare: bars across a few categories', () => {
    const recs = recommend(REGIONS, 'compare')
    expect(recs[0]?.chart_type).toBe('bar')
    expect(recs[0]?.confidence).toBe(1)
    expect(recs[0]?.reasoning).toBe(
      "5 rows, 'region' is nominal with 5 categories, 'sales' is quantitative (40 to 120) → bar compares 'sales' across the 5 'region' categories.",
    )
  })

  it('compare: too many categories for bars hands the lead to a scatter of the measures', () => {
    const products = Array.from({ length: 40 }, (_, i) => ({ product: `p${i}`, price: 5 + i * 1.5, units: 300 - i * 4 }))
    const recs = recommend(products, 'compare')
    expect(recs[0]?.chart_type).toBe('scatter')
    const bar = find(recs, 'bar')
    expect(bar.confidence).toBe(0.6)
    expect(bar.reasoning).toContain('40 categories crowd a bar chart (≤ 20 read well)')
  })

  it('distribution: a histogram of the measure, then binned bars and a strip plot', () => {
    const latencies = Array.from({ length: 30 }, (_, i) => ({ service: i % 2 ? 'api' : 'web', latency_ms: 20 + ((i * 13) % 29) + 0.5 }))
    const recs = recommend(latencies, 'distribution')
    expect(types(recs)).toEqual(['histogram', 'bar', 'scatter'])
    expect(recs[0]?.reasoning).toBe(
      "30 rows, 'latency_ms' is quantitative (20.5 to 48.5) → histogram bins the 30 'latency_ms' values to show their distribution.",
    )
    expect(find(recs, 'scatter').reasoning).toContain("strip plot) places every 'latency_ms' value per 'service'")
  })

  it('correlation: a scatter of two measures', () => {
    const recs = recommend(PEOPLE, 'correlation')
    expect(recs[0]?.chart_type).toBe('scatter')
    expect(recs[0]?.confidence).toBe(1)
    expect(recs[0]?.reasoning).toContain(
      "'height' is quantitative (150.5 to 190.5), 'weight' is quantitative (50.25 to 86.25) → scatter plots 'weight' against 'height'",
    )
  })

  it('correlation: a heatmap of two categories and a measure, when complexity allows it', () => {
    const orders = [12, 30, 18, 41, 9, 27]
    const cells = ['mon', 'tue', 'wed'].flatMap((weekday, w) => ['am', 'pm'].map((shift, s) => ({ weekday, shift, orders: orders[w * 2 + s] })))
    const high = recommend(cells, 'correlation', { complexity: 'high' })
    expect(high[0]?.chart_type).toBe('heatmap')
    expect(high[0]?.reasoning).toContain(
      "'weekday' is nominal with 3 categories, 'shift' is nominal with 2 categories, 'orders' is quantitative (9 to 41) → heatmap colours 'orders' for every 'weekday' × 'shift' pair",
    )
    expect(types(recommend(cells, 'correlation', { complexity: 'low' }))).not.toContain('heatmap')
  })

  it('composition: a pie of a few positive parts', () => {
    const recs = recommend(REGIONS, 'composition')
    expect(types(recs).slice(0, 2)).toEqual(['pie', 'bar'])
    expect(recs[0]).toEqual({
      chart_type: 'pie',
      confidence: 1,
      reasoning: "5 rows, 'region' is nominal with 5 categories, 'sales' is quantitative (40 to 120) → pie shows each 'region' share of the total 'sales'.",
      alternatives: ['bar'],
    })
  })

  it('composition: negative values or many slices demote the pie below bars', () => {
    const withLoss = REGIONS.map((r, i) => (i === 4 ? { ...r, sales: -15 } : r))
    const negative = recommend(withLoss, 'composition')
    expect(negative[0]?.chart_type).toBe('bar')
    expect(find(negative, 'pie').confidence).toBe(0.2)
    expect(find(negative, 'pie').reasoning).toContain("'sales' has negative values, which a pie cannot show")

    const twelve = Array.from({ length: 12 }, (_, i) => ({ segment: `s${i}`, share: 5 + i }))
    const many = recommend(twelve, 'composition')
    expect(many[0]?.chart_type).toBe('bar')
    expect(find(many, 'pie').reasoning).toContain('12 categories are more slices than a pie reads well (≤ 7)')
  })

  it('counts rows when there is no measure', () => {
    const tickets = ['bug', 'bug', 'feature', 'question', 'bug'].map((kind) => ({ kind }))
    const recs = recommend(tickets, 'compare')
    expect(recs[0]?.chart_type).toBe('bar')
    expect(recs[0]?.reasoning).toBe(
      "5 rows, 'kind' is nominal with 3 categories, no quantitative field, so rows are counted → bar compares the row count across the 3 'kind' categories.",
    )
  })
})

describe('recommendCharts: penalties', () => {
  it('penalises too few points for a trend', () => {
    const recs = recommend(MONTHLY.slice(0, 2), 'compare_trends')
    const line = find(recs, 'line')
    expect(line.confidence).toBe(0.5)
    expect(line.reasoning).toContain("only 2 distinct 'month' values: too few points for a trend")
  })

  it('penalises more points than the chart type draws', () => {
    const max = findChartType('pie')?.maxDataPoints ?? 0
    const parts = Array.from({ length: max + 10 }, (_, i) => ({ part: `p${i}`, value: 1 + i }))
    const pie = find(recommend(parts, 'composition'), 'pie')
    expect(pie.reasoning).toContain(`${max + 10} data points exceed the ${max} a pie chart draws`)
    expect(pie.confidence).toBeLessThan(0.1)
  })
})

describe('recommendCharts: preferences', () => {
  it('complexity reorders and trims the list', () => {
    const low = recommend(MONTHLY, 'compare_trends', { complexity: 'low' })
    const medium = recommend(MONTHLY, 'compare_trends', { complexity: 'medium' })
    const high = recommend(MONTHLY, 'compare_trends', { complexity: 'high' })
    expect(types(low)).toEqual(['line', 'bar', 'area'])
    expect(find(low, 'area').reasoning).toContain("more complex than the requested 'low' complexity")
    expect(types(medium)).toEqual(['line', 'area', 'bar', 'scatter', 'heatmap'])
    expect(types(high)).toEqual(['line', 'area', 'bar', 'heatmap', 'scatter'])
  })

  it('interactive favours zoomable types and says what each supports', () => {
    const plain = recommend(MONTHLY, 'compare_trends', { interactive: false })
    const interactive = recommend(MONTHLY, 'compare_trends', { interactive: true })
    expect(find(interactive, 'line').confidence).toBe(find(plain, 'line').confidence)
    expect(find(interactive, 'bar').confidence).toBeLessThan(find(plain, 'bar').confidence)
    expect(find(interactive, 'line').reasoning).toMatch(/Interactive: supports zoom, pan and tooltip\.$/)
    expect(find(interactive, 'bar').reasoning).toContain('Interactive: supports tooltip')
    expect(find(interactive, 'bar').reasoning).toContain('but no zoom or pan')
    expect(find(plain, 'line').reasoning).not.toContain('Interactive')
  })

  it('defaults to medium complexity, not interactive', () => {
    expect(recommendCharts({ data: MONTHLY, intent: 'compare_trends' })).toEqual(
      recommendCharts({ data: MONTHLY, intent: 'compare_trends', preferences: { interactive: false, complexity: 'medium' } }),
    )
  })
})

describe('recommendCharts: ranking', () => {
  it.each(INTENTS)('%s: at most five, confidence in (0, 1], sorted with ties by chart id', (intent) => {
    for (const data of [MONTHLY, REGIONS, PEOPLE]) {
      const recs = recommend(data, intent, { interactive: true, complexity: 'high' })
      expect(recs.length).toBeGreaterThan(0)
      expect(recs.length).toBeLessThanOrEqual(5)
      for (const r of recs) {
        expect(r.confidence).toBeGreaterThan(0)
        expect(r.confidence).toBeLessThanOrEqual(1)
        expect(Math.round(r.confidence * 100) / 100).toBe(r.confidence)
        if (r.alternatives) expect(r.alternatives).not.toContain(r.chart_type)
      }
      const sorted = [...recs].sort((a, b) => b.confidence - a.confidence || a.chart_type.localeCompare(b.chart_type))
      expect(recs).toEqual(sorted)
    }
  })

  it('breaks ties by chart id', () => {
    // One measure over time fits a line (0.6 × 1) and a scatter (1 × 0.6) equally; the heatmap
    // of month × region (0.85, one level above medium complexity: × 0.7) rounds to the same.
    const recs = recommend(MONTHLY, 'correlation')
    expect(recs.slice(0, 3).map((r) => [r.chart_type, r.confidence])).toEqual([
      ['heatmap', 0.6],
      ['line', 0.6],
      ['scatter', 0.6],
    ])
  })

  it('is deterministic', () => {
    for (const intent of INTENTS) {
      const input = { data: MONTHLY, intent, preferences: { interactive: true, complexity: 'high' } }
      expect(recommendCharts(structuredClone(input))).toEqual(recommendCharts(structuredClone(input)))
    }
  })
})

describe('recommendCharts: request problems', () => {
  it('names an unknown intent and lists the known ones', () => {
    expect(issues({ data: REGIONS, intent: 'predict' })).toEqual([
      { field: 'intent', message: 'unknown intent "predict"; use one of compare_trends, compare, distribution, correlation, composition' },
    ])
  })

  it('wants rows, and at least one', () => {
    expect(issues({ data: {}, intent: 'compare' }).map((i) => i.field)).toEqual(['data'])
    expect(issues({ data: [], intent: 'compare' })).toEqual([{ field: 'data', message: 'must have at least one row' }])
    expect(issues({ data: [1, 2], intent: 'compare' }).map((i) => i.field)).toEqual(['data[0]', 'data[1]'])
  })

  it('checks the preferences', () => {
    expect(issues({ data: REGIONS, intent: 'compare', preferences: { interactive: 'yes', complexity: 'extreme' } }).map((i) => i.field)).toEqual([
      'preferences.interactive',
      'preferences.complexity',
    ])
    expect(issues({ data: REGIONS, intent: 'compare', preferences: 'simple' }).map((i) => i.field)).toEqual(['preferences'])
  })

  it('reports data with nothing to chart', () => {
    expect(issues({ data: [{ a: null, b: { c: 1 } }], intent: 'compare' })).toEqual([
      { field: 'data', message: 'has no field a chart can encode: every column is null or holds arrays or objects' },
    ])
  })
})
