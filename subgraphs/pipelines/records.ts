import { UnreachableCaseError } from '../../platform/errors.js'
import type { EndpointConfig, SyncSettings } from './pipeline-config.js'
import type { Transformation } from './transform/transformations.js'

/** Run statuses: `running` until it ends as `success` or `failed`; `cancelled` when stopped. */
export const RUN_STATUSES = ['running', 'success', 'failed', 'cancelled'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]

/** Log levels of run logs. */
export type LogLevel = 'INFO' | 'WARN' | 'ERROR' | 'SUCCESS'

/**
 * Pipeline statuses: `created` (never run), `running` (a run in progress), `active` (the last
 * run succeeded), `failed` (the last run failed).
 */
export type PipelineStatus = 'created' | 'running' | 'active' | 'failed'

export interface RunRecord {
  id: string
  pipelineId: string
  status: RunStatus
  trigger: 'manual' | 'schedule'
  startedAt: Date
  completedAt: Date | null
  recordsRead: number
  recordsProcessed: number
  errorCode: string | null
  errorMessage: string | null
}

export interface LogRecord {
  runId: string
  timestamp: Date
  level: LogLevel
  message: string
}

/** A pipeline as callers see it: secrets redacted, status and next run derived. */
export interface PipelineRecord {
  id: string
  name: string
  status: PipelineStatus
  source: EndpointConfig
  destination: EndpointConfig
  transformations: Transformation[]
  schedule: string | null
  sync: SyncSettings
  createdAt: Date
  lastRun: RunRecord | null
  nextRun: Date | null
}

/** Maps a run row. */
export function toRun(row: {
  id: string
  pipelineId: string
  status: string
  trigger: string
  startedAt: Date
  completedAt: Date | null
  recordsRead: number
  recordsProcessed: number
  errorCode: string | null
  errorMessage: string | null
}): RunRecord {
  return {
    id: row.id,
    pipelineId: row.pipelineId,
    status: row.status as RunStatus,
    trigger: row.trigger as RunRecord['trigger'],
    startedAt: row.startedAt,
    completedAt: row.completedAt,
    recordsRead: row.recordsRead,
    recordsProcessed: row.recordsProcessed,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
  }
}

/** Events carry JSON: dates come back as strings. */
export function reviveRun(run: RunRecord): RunRecord {
  return { ...run, startedAt: new Date(run.startedAt), completedAt: run.completedAt ? new Date(run.completedAt) : null }
}

/** The status a pipeline shows, from its latest run. */
export function pipelineStatus(lastRun: RunRecord | null): PipelineStatus {
  if (!lastRun) return 'created'
  switch (lastRun.status) {
    case 'running':
      return 'running'
    case 'success':
      return 'active'
    case 'failed':
      return 'failed'
    case 'cancelled':
      return 'active'
    default:
      throw new UnreachableCaseError(lastRun.status)
  }
}
