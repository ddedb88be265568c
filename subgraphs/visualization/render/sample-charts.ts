/**
 * A small, valid render request for every chart type: examples for documentation and the
 * fixtures the render tests draw. Each names its categories after fruit and weekdays so a test
 * can look for a known label in the output.
 *
 * @module
 */

import type { ChartTypeId } from './chart-catalog.js'

/** Category labels the samples use, in order. */
export const SAMPLE_LABELS = ['Apples', 'Pears', 'Cherries', 'Plums', 'Grapes'] as const
/** Row labels of the heatmap sample. */
export const SAMPLE_ROWS = ['Mon', 'Tue', 'Wed'] as const

/** A render request body (`POST /charts/render`) of `chartType`, titled `title`. */
export function sampleRenderRequest(chartType: ChartTypeId, title = `Sample ${chartType} chart`): Record<string, unknown> {
  const config = { title }
  switch (chartType) {
    case 'bar':
    case 'line':
    case 'pie':
    case 'donut':
      return { chart_type: chartType, data: SAMPLE_LABELS.map((label, i) => ({ label, value: (i + 1) * 3 })), config }
    case 'area':
      // Monthly points of one year: ISO dates, so the x axis is temporal.
      return {
        chart_type: chartType,
        data: Array.from({ length: 12 }, (_, i) => ({ label: `2024-${String(i + 1).padStart(2, '0')}-01`, value: 10 + 5 * Math.sin(i / 2) })),
        config,
      }
    case 'scatter':
      return { chart_type: chartType, data: SAMPLE_LABELS.map((label, i) => ({ x: i * 1.5, y: i * i, label })), config }
    case 'histogram':
      return { chart_type: chartType, data: Array.from({ length: 200 }, (_, i) => ({ value: ((i * 37) % 100) + (i % 7) })), config }
    case 'heatmap':
      return {
        chart_type: chartType,
        data: SAMPLE_LABELS.flatMap((x, i) => SAMPLE_ROWS.map((y, j) => ({ x, y, value: i * j }))),
        config,
      }
  }
}
