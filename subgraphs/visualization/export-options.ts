import type { ValidationIssue } from '../../platform/errors.js'
import { isRecord } from '../../platform/validation/json-shapes.js'
import { MAX_SIZE, MIN_SIZE } from './render/chart-input.js'
import { CHART_FORMATS, MAX_PNG_SCALE, type ChartFormat } from './render/render-chart.js'

/** What an export asks for; unset options take the chart's size, quality 80 and scale 1. */
export interface ExportOptions {
  format: ChartFormat
  /** 0–100: PNG colours (100 lossless truecolour, below a quantized palette). */
  quality?: number
  /** 1–MAX_PNG_SCALE: PNG pixel density. */
  scale?: number
  width?: number
  height?: number
}

/** Checks the body of `POST /charts/{chart_id}/export`, naming every field at fault. */
export function parseExportOptions(body: unknown): { ok: true; options: ExportOptions } | { ok: false; issues: ValidationIssue[] } {
  if (!isRecord(body)) return { ok: false, issues: [{ field: 'body', message: 'must be an object with format' }] }
  const issues: ValidationIssue[] = []
  const { format, quality, scale, width, height } = body
  if (typeof format !== 'string' || !(CHART_FORMATS as readonly string[]).includes(format)) {
    issues.push({ field: 'format', message: `${format === undefined ? 'is required' : 'is not supported'}: one of ${CHART_FORMATS.join(', ')}` })
  }
  if (quality !== undefined && (typeof quality !== 'number' || !Number.isFinite(quality) || quality < 0 || quality > 100)) {
    issues.push({ field: 'quality', message: 'must be a number from 0 to 100' })
  }
  for (const [field, value] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_SIZE || value > MAX_SIZE)) {
      issues.push({ field, message: `must be an integer number of pixels from ${MIN_SIZE} to ${MAX_SIZE}` })
    }
  }
  if (scale !== undefined && (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 1 || scale > MAX_PNG_SCALE)) {
    issues.push({ field: 'scale', message: `must be a number from 1 to ${MAX_PNG_SCALE} (pixel density)` })
  }
  for (const key of Object.keys(body))
    if (!['format', 'quality', 'scale', 'width', 'height'].includes(key))
      issues.push({ field: key, message: 'is not an export option; use format, quality, scale, width, height' })
  if (issues.length) return { ok: false, issues }
  return {
    ok: true,
    options: {
      format: format as ChartFormat,
      quality: quality as number | undefined,
      scale: scale as number | undefined,
      width: width as number | undefined,
      height: height as number | undefined,
    },
  }
}
