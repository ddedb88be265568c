/**
 * Rows of another service's table (a pipeline run's output) as chart data items.
 *
 * @module
 */

import type { ValidationIssue } from '../../platform/errors.js'
import { isChartTypeId, type ChartTypeId } from './render/chart-catalog.js'

/** Which columns feed which item field. */
export interface RowMapping {
  chartType: string
  /** Label (bar, line, area, pie, donut) or x (scatter, heatmap). */
  xField?: string | null
  /** y (scatter, heatmap). */
  yField?: string | null
  /** Value (bar, line, area, pie, donut, histogram, heatmap). */
  valueField?: string | null
}

type Role = 'label' | 'x' | 'y' | 'value'
type Field = 'xField' | 'yField' | 'valueField'

// Which mapping field feeds which item key, per chart type.
const ROLES: Record<ChartTypeId, ReadonlyArray<readonly [Field, Role]>> = {
  bar: [
    ['xField', 'label'],
    ['valueField', 'value'],
  ],
  line: [
    ['xField', 'label'],
    ['valueField', 'value'],
  ],
  area: [
    ['xField', 'label'],
    ['valueField', 'value'],
  ],
  pie: [
    ['xField', 'label'],
    ['valueField', 'value'],
  ],
  donut: [
    ['xField', 'label'],
    ['valueField', 'value'],
  ],
  scatter: [
    ['xField', 'x'],
    ['yField', 'y'],
  ],
  histogram: [['valueField', 'value']],
  heatmap: [
    ['xField', 'x'],
    ['yField', 'y'],
    ['valueField', 'value'],
  ],
}

// Numbers often arrive as text (PostgreSQL numeric, CSV); dates as Date objects or ISO text.
const asNumber = (v: unknown) =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : typeof v === 'bigint' ? Number(v) : Number.NaN
const asLabel = (v: unknown) =>
  v instanceof Date
    ? v.toISOString()
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean'
        ? String(v)
        : undefined

/**
 * Maps rows to the item shape of `mapping.chartType`. Rows whose value cell is null are
 * left out (a gap, not a zero); any other cell that is not a number where one is needed is
 * an issue naming its row and column. The items still go through the renderer's validation.
 */
export function rowsToChartData(
  rows: readonly Record<string, unknown>[],
  mapping: RowMapping,
): { ok: true; data: Record<string, unknown>[] } | { ok: false; issues: ValidationIssue[] } {
  if (!isChartTypeId(mapping.chartType))
    return { ok: false, issues: [{ field: 'chartType', message: `is not a chart type: one of ${Object.keys(ROLES).join(', ')}` }] }
  const roles = ROLES[mapping.chartType]
  const issues: ValidationIssue[] = []
  const columns = new Set(rows.flatMap((row) => Object.keys(row)))
  for (const [field, role] of roles) {
    const column = mapping[field]
    if (!column) issues.push({ field, message: `is required for a ${mapping.chartType} chart: the column of each item's ${role}` })
    else if (rows.length > 0 && !columns.has(column))
      issues.push({ field, message: `'${column}' names no column of the output; columns: ${[...columns].join(', ')}` })
  }
  if (rows.length === 0) issues.push({ field: 'rows', message: 'the run wrote no rows to draw' })
  if (issues.length) return { ok: false, issues }

  const data: Record<string, unknown>[] = []
  rows.forEach((row, index) => {
    const item: Record<string, unknown> = {}
    for (const [field, role] of roles) {
      const column = mapping[field] as string
      const cell = row[column]
      if (cell === null || cell === undefined) return
      const numeric = role === 'value' || ((role === 'x' || role === 'y') && mapping.chartType === 'scatter')
      const value = numeric ? asNumber(cell) : asLabel(cell)
      if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) {
        if (issues.length < 100)
          issues.push({ field: `rows[${index}].${column}`, message: `${JSON.stringify(cell)} is not ${numeric ? 'a number' : 'a label'}` })
        return
      }
      item[role] = value
    }
    data.push(item)
  })
  return issues.length ? { ok: false, issues } : { ok: true, data }
}
