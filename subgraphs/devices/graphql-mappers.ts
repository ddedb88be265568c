import type DataLoader from 'dataloader'
import type { Principal } from '../../platform/auth/scopes.js'
import type { AlertRecord, CircuitRecord, DwellEventRecord, SignalRecord } from './devices-service.js'

/** Per-request context of the devices subgraph. */
export interface Context {
  /** The verified caller, or null when the request carried no valid credential. */
  actor: Principal | null
  requestId?: string
  /** Batches alert lookups of one request into one query (federation entity fetches). */
  alertLoader: DataLoader<string, AlertRecord | null>
}

export type AlertModel = AlertRecord
export type DeviceModel = { id: string }
export type SignalModel = SignalRecord
export type CircuitModel = CircuitRecord
export type DwellEventModel = DwellEventRecord
