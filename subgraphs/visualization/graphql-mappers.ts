import type { Principal } from '../../platform/auth/scopes.js'
import type { ChartRecommendation } from './analysis/recommend-charts.js'
import type { TransformResult } from './analysis/transform-data.js'
import type { DataValidationReport } from './analysis/validate-data.js'
import type { ChartType } from './render/chart-catalog.js'
import type { ChartTick } from './chart-stream.js'
import type { ChartRecord, ExportRecord, RunChartPreview } from './visualization-service.js'

/** Per-request context of the visualization subgraph. */
export interface Context {
  actor: Principal | null
  requestId?: string
}

export type ChartModel = ChartRecord
export type RunChartModel = RunChartPreview
export type ChartTypeModel = ChartType
export type ChartExportModel = ExportRecord
export type ChartDataUpdateModel = ChartTick
/** A run output as the visualization subgraph sees it: its key and the rows it requires. */
export interface RunOutputModel {
  runId: string
  rows?: Record<string, unknown>[]
}
export type DataValidationResultModel = DataValidationReport
export type ValidationStatisticsModel = DataValidationReport['statistics']
export type DataTransformResultModel = TransformResult
export type ChartRecommendationModel = ChartRecommendation
