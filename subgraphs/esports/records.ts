import type { Environment } from '../../platform/auth/scopes.js'
import type { Institution, ProgramDetails } from './program-rules.js'

/** A program as both faces show it. */
export interface ProgramRecord {
  id: string
  environment: Environment
  standard: string
  institution: Institution
  program: ProgramDetails
  createdAt: Date
  updatedAt: Date
}

/** Team tiers. */
export const TEAM_TIERS = ['varsity', 'jv', 'novice'] as const
export type TeamTier = (typeof TEAM_TIERS)[number]

/** A roster role: the two lists of a team's roster. */
export const ROSTER_ROLES = ['starter', 'substitute'] as const
export type RosterRole = (typeof ROSTER_ROLES)[number]

export interface TeamRecord {
  id: string
  environment: Environment
  programId: string
  name: string
  game: string
  tier: TeamTier
  season: { year: number; league: string | null; division: string | null }
  roster: { starters: string[]; substitutes: string[] }
  record: { wins: number; losses: number; ties: number }
  createdAt: Date
  updatedAt: Date
}

/** Player statuses. */
export const PLAYER_STATUSES = ['active', 'inactive', 'graduated'] as const
export type PlayerStatus = (typeof PLAYER_STATUSES)[number]

export interface PlayerPersonal {
  studentId: string
  gamerTag: string
  firstName?: string
  lastName?: string
  grade: number
  enrollmentYear?: number
  birthYear?: number
}

export interface PlayerConsent {
  parentalConsent: boolean
  dataSharing: boolean
  mediaRelease: boolean
  consentDate: string | null
}

export interface PlayerPerformance {
  individualStats: { gamesPlayed: number; winRate: number; skillRating: number }
}

export interface TeamAssignment {
  teamId: string
  role: RosterRole
  position: string | null
  joinedDate: Date
}

export interface PlayerRecord {
  id: string
  environment: Environment
  programId: string
  status: PlayerStatus
  personal: PlayerPersonal
  consent: PlayerConsent
  performance: PlayerPerformance
  teams: TeamAssignment[]
  /** Derived: whether consent rules for minors apply (see isMinor). */
  minor: boolean
  createdAt: Date
  updatedAt: Date
}

/** Match kinds. */
export const MATCH_TYPES = ['league', 'scrimmage', 'tournament', 'playoff', 'exhibition'] as const
export type MatchType = (typeof MATCH_TYPES)[number]

/** Match outcomes, from the team's side. */
export const MATCH_OUTCOMES = ['win', 'loss', 'tie'] as const
export type MatchOutcome = (typeof MATCH_OUTCOMES)[number]

export interface MatchResult {
  score: { team: number; opponent: number }
  outcome: MatchOutcome
  duration: number | null
  analysis: {
    vod: string | null
    coachNotes: string | null
    /** True when the VOD link is hidden because a player on the roster has no media release. */
    vodWithheld?: boolean
  }
}

export interface MatchRecord {
  id: string
  environment: Environment
  type: MatchType
  teamId: string
  opponent: { name: string; institution: string | null }
  schedule: { date: Date; location: string | null; venue: string | null }
  roster: { starters: string[] }
  status: 'scheduled' | 'completed'
  result: MatchResult | null
  completedAt: Date | null
  createdAt: Date
}

export interface ExperienceRecord {
  id: string
  playerId: string
  type: string
  title: string
  organization: string | null
  description: string | null
  dateRange: { start: Date; end: Date | null }
  skills: string[]
  createdAt: Date
}

export interface AchievementRecord {
  id: string
  playerId: string
  type: string
  title: string
  issuer: string | null
  date: Date
  amount: number | null
  createdAt: Date
}

/** A player's career pathway profile. */
export interface CareerRecord {
  playerId: string
  interests: string[]
  experiences: ExperienceRecord[]
  achievements: AchievementRecord[]
  summary: {
    experienceCount: number
    achievementCount: number
    /** Sum of achievement amounts (scholarships, prizes). */
    totalAwarded: number
    /** Every skill named by an experience, once, alphabetically. */
    skills: string[]
    /** Date of the latest experience start or achievement, if any. */
    lastActivity: Date | null
  }
}

/** A page of a listing. */
export interface Page<T> {
  data: T[]
  pagination: { page: number; limit: number; total: number; totalPages: number }
}
