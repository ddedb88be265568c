import type DataLoader from 'dataloader'
import type { Principal } from '../../platform/auth/scopes.js'
import type { Hotspot, Scene } from './artifact-input.js'
import type { ModelInspection } from './gltf-inspection.js'
import type { AnalyticsReport, ArtifactRecord, ModelRecord, TourRecord } from './heritage-service.js'

/** Per-request context of the heritage subgraph. */
export interface Context {
  actor: Principal | null
  requestId?: string
  /** Artifacts by id for this request (entity references, tour artifacts). */
  artifactLoader: DataLoader<string, ArtifactRecord | null>
}

export type ArtifactModel = ArtifactRecord
export type Model3dModel = ModelRecord
export type ModelInspectionModel = ModelInspection
export type TourModel = TourRecord
export type TourSceneModel = Scene
export type HotspotModel = Hotspot
export type ArtifactAnalyticsModel = AnalyticsReport
