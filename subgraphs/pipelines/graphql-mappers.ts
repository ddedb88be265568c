import type DataLoader from 'dataloader'
import type { Principal } from '../../platform/auth/scopes.js'
import type { EndpointConfig, SyncSettings } from './pipeline-config.js'
import type { ConnectorInfo, RunOutput } from './pipelines-service.js'
import type { LogRecord, PipelineRecord, RunRecord } from './records.js'

/** Per-request context of the pipelines subgraph. */
export interface Context {
  actor: Principal | null
  requestId?: string
  /** Batches run lookups of one request (federation entity fetches). */
  runLoader: DataLoader<string, RunRecord | null>
}

export type PipelineModel = PipelineRecord
export type PipelineRunModel = RunRecord
export type RunLogModel = LogRecord
export type RunOutputModel = RunOutput
export type ConnectorModel = ConnectorInfo
export type EndpointModel = EndpointConfig
export type SyncSettingsModel = SyncSettings
