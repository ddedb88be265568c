import type DataLoader from 'dataloader'
import type { Principal } from '../../platform/auth/scopes.js'
import type { EsportsEvent } from './esports-service.js'
import type { AchievementRecord, CareerRecord, ExperienceRecord, MatchRecord, PlayerRecord, ProgramRecord, TeamRecord } from './records.js'

/** Per-request context of the esports subgraph. */
export interface Context {
  actor: Principal | null
  requestId?: string
  /** Batches team lookups of one request (entity references, match → team). */
  teamLoader: DataLoader<string, TeamRecord | null>
  /** Players for other services: null for players who did not consent to data sharing. */
  sharedPlayerLoader: DataLoader<string, PlayerRecord | null>
}

export type ProgramModel = ProgramRecord
export type TeamModel = TeamRecord
export type PlayerModel = PlayerRecord
export type MatchModel = MatchRecord
export type CareerModel = CareerRecord
export type ExperienceModel = ExperienceRecord
export type AchievementModel = AchievementRecord
export type EsportsEventModel = EsportsEvent
export type MatchCompletedEventModel = EsportsEvent
export type PlayerJoinedEventModel = EsportsEvent
export type TeamUpdatedEventModel = EsportsEvent
