import { randomUUID } from 'node:crypto'
import type { CredentialStore } from '../../platform/auth/credential-store.js'
import { hasScope, type Environment, type Principal } from '../../platform/auth/scopes.js'
import type { ValidationIssue } from '../../platform/errors.js'
import { outboxRow, writeOutbox, type EventBus } from '../../platform/events/event-bus.js'
import { mapAsyncIterator } from '../../platform/events/map-async-iterator.js'
import { isRecord, isUuid } from '../../platform/validation/json-shapes.js'
import { WebhookInputError, type WebhookDeliveryInfo, type Webhooks, type WebhookSubscriptionInfo } from '../../platform/webhooks/index.js'
import { esportsErrors as errors } from './errors.js'
import { ESPORTS_EVENTS, type EsportsEventType } from './events.js'
import type { Prisma, PrismaClient } from './generated/prisma/client.js'
import { createInputChecker, mergeDeep, TEXT_MAX, type InputChecker } from './input-checker.js'
import { canTransition, checkProgram, GRADE_RANGE, PROGRAM_STATUSES, withProgramDefaults, type ProgramStatus } from './program-rules.js'
import {
  MATCH_OUTCOMES,
  MATCH_TYPES,
  PLAYER_STATUSES,
  ROSTER_ROLES,
  TEAM_TIERS,
  type AchievementRecord,
  type CareerRecord,
  type ExperienceRecord,
  type MatchOutcome,
  type MatchRecord,
  type MatchType,
  type Page,
  type PlayerConsent,
  type PlayerPerformance,
  type PlayerPersonal,
  type PlayerRecord,
  type PlayerStatus,
  type ProgramRecord,
  type RosterRole,
  type TeamRecord,
  type TeamTier,
} from './records.js'
import type { EsportsScope } from './scopes.js'

/** Page sizes of every listing: the document's default 20 and maximum 100. */
export const PAGE = { default: 20, max: 100 } as const
/** Most players a roster list may hold. */
export const ROSTER_MAX = 12

type Tx = Prisma.TransactionClient
type Json = Prisma.InputJsonValue

const GAMER_TAG = /^[A-Za-z0-9_. -]{2,32}$/
const INTEREST = /^[a-z][a-z0-9_]{1,39}$/

/** The scope that reads each kind of event: the read scope of the records it is about. */
export const EVENT_SCOPES = { program: 'programs:read', team: 'teams:read', player: 'players:read', match: 'matches:read', career: 'career:read' } as const

/** What the esports domain needs. */
export interface EsportsServiceDeps {
  prisma: PrismaClient
  events: EventBus
  /** The platform's credentials: the interface's token endpoint issues its tokens. */
  credentials: Pick<CredentialStore, 'issueToken'>
  /** Webhook subscriptions and delivery of the esports events (platform/webhooks). */
  webhooks: Webhooks
  now?: () => Date
}

/** Paging arguments of a listing. */
export interface PageArgs {
  page?: number
  limit?: number
}

/** An event as subscriptions and webhooks see it: the outbox event id is its stable id. */
export interface EsportsEvent {
  id: string
  event: EsportsEventType
  timestamp: Date
  data: Record<string, unknown>
}

/**
 * A player is a minor — and needs parental consent to be put on a match roster — when their
 * birth year says they are under 18 this calendar year, or, without a birth year, while in
 * grade 12 or below.
 */
export function isMinor(personal: Pick<PlayerPersonal, 'grade' | 'birthYear'>, now: Date): boolean {
  if (personal.birthYear !== undefined) return now.getUTCFullYear() - personal.birthYear < 18
  return personal.grade <= 12
}

/**
 * The esports program management domain: programs, teams and rosters, players with consent,
 * matches and results, career pathways. Every operation takes the caller, checks its scope,
 * and acts only on the caller's environment (production or sandbox), so the two faces and
 * the two environments can never disagree or mix.
 */
export function createEsportsService(deps: EsportsServiceDeps) {
  const { prisma, events } = deps
  const now = deps.now ?? (() => new Date())

  /** The caller, holding `scope`: 401 without a caller, 403 without the scope. */
  const authorize = (actor: Principal | null, scope: EsportsScope): Principal & { environment: Environment } => {
    if (!actor) throw errors.forRole('unauthorized')
    if (!hasScope(actor, scope)) throw errors.forRole('forbidden', `This operation needs the scope ${scope}`, { requiredScope: scope })
    return actor
  }
  const invalid = (issues: ValidationIssue[]) => errors.invalid(issues)
  const notFound = (what: string, id: string) => errors.create('NOT_FOUND', `${what} ${id} does not exist`, { field: 'id', reason: 'not found' })
  const emit = (tx: Tx, environment: Environment, type: EsportsEventType, aggregateId: string, data: Record<string, unknown>) =>
    writeOutbox(tx, 'esports', [outboxRow(type, aggregateId, { environment, data })])

  function checkPage(args: PageArgs, c: InputChecker) {
    const page = c.int('page', args.page ?? 1, { min: 1, max: 1_000_000 }) ?? 1
    const limit = c.int('limit', args.limit ?? PAGE.default, { min: 1, max: PAGE.max }) ?? PAGE.default
    return { page, limit }
  }
  const pageOf = <T>(data: T[], total: number, page: number, limit: number): Page<T> => ({
    data,
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
  })
  // Ids are UUIDs: anything else cannot exist, and is a plain 404 rather than a database error.
  const findProgram = async (db: Tx | PrismaClient, environment: Environment, id: string) =>
    isUuid(id) ? db.program.findFirst({ where: { id, environment } }) : null
  const findTeam = async (db: Tx | PrismaClient, environment: Environment, id: string) =>
    isUuid(id) ? db.team.findFirst({ where: { id, environment }, include: { members: true } }) : null
  const findPlayer = async (db: Tx | PrismaClient, environment: Environment, id: string) =>
    isUuid(id) ? db.player.findFirst({ where: { id, environment }, include: { teams: true } }) : null

  /** The program a write would change, refused when archived (archived programs are read-only). */
  async function writableProgram(db: Tx | PrismaClient, environment: Environment, id: string, field: string) {
    const program = await findProgram(db, environment, id)
    if (!program) return null
    if (program.status === 'archived') throw invalid([{ field, message: `program ${id} is archived and read-only` }])
    return program
  }

  async function requirePlayer(actor: Principal & { environment: Environment }, id: string) {
    const row = await findPlayer(prisma, actor.environment, id)
    if (!row) throw notFound('Player', id)
    return row
  }

  // --- Players: input ---------------------------------------------------------------------
  function checkPersonal(c: InputChecker, input: Record<string, unknown>, program: { gradeLevels: { min: number; max: number } } | null): PlayerPersonal {
    for (const key of Object.keys(input)) {
      if (!['studentId', 'gamerTag', 'firstName', 'lastName', 'grade', 'enrollmentYear', 'birthYear'].includes(key)) c.fail(`personal.${key}`, 'is not allowed')
    }
    const year = now().getUTCFullYear()
    const personal: PlayerPersonal = {
      studentId: c.string('personal.studentId', input.studentId, { required: true, max: 100 }) ?? '',
      gamerTag:
        c.string('personal.gamerTag', input.gamerTag, { required: true, pattern: GAMER_TAG, patternHint: 'must be 2-32 letters, digits, spaces, . _ or -' }) ??
        '',
      grade: c.int('personal.grade', input.grade, { required: true, ...GRADE_RANGE }) ?? 0,
    }
    const firstName = c.string('personal.firstName', input.firstName, { max: 100 })
    const lastName = c.string('personal.lastName', input.lastName, { max: 100 })
    const enrollmentYear = c.int('personal.enrollmentYear', input.enrollmentYear, { min: 1990, max: year + 1 })
    const birthYear = c.int('personal.birthYear', input.birthYear, { min: year - 100, max: year })
    if (firstName !== undefined) personal.firstName = firstName
    if (lastName !== undefined) personal.lastName = lastName
    if (enrollmentYear !== undefined) personal.enrollmentYear = enrollmentYear
    if (birthYear !== undefined) personal.birthYear = birthYear
    const grades = program?.gradeLevels
    if (grades && c.ok && (personal.grade < grades.min || personal.grade > grades.max)) {
      c.fail('personal.grade', `must be within the program's grade levels ${grades.min}-${grades.max}`)
    }
    return personal
  }

  function checkConsent(c: InputChecker, input: Record<string, unknown>): PlayerConsent {
    for (const key of Object.keys(input)) {
      if (!['parentalConsent', 'dataSharing', 'mediaRelease', 'consentDate'].includes(key)) c.fail(`consent.${key}`, 'is not allowed')
    }
    const consentDate = c.date('consent.consentDate', input.consentDate)
    const consent: PlayerConsent = {
      parentalConsent: c.bool('consent.parentalConsent', input.parentalConsent, { required: true }) ?? false,
      dataSharing: c.bool('consent.dataSharing', input.dataSharing, { required: true }) ?? false,
      mediaRelease: c.bool('consent.mediaRelease', input.mediaRelease, { required: true }) ?? false,
      consentDate: consentDate ? consentDate.toISOString() : null,
    }
    if ((consent.parentalConsent || consent.dataSharing || consent.mediaRelease) && !consent.consentDate) {
      c.fail('consent.consentDate', 'is required when any consent is given')
    }
    return consent
  }

  function checkPerformance(c: InputChecker, input: Record<string, unknown>): PlayerPerformance {
    for (const key of Object.keys(input)) if (key !== 'individualStats') c.fail(`performance.${key}`, 'is not allowed')
    const stats = c.object('performance.individualStats', input.individualStats, { required: true }) ?? {}
    for (const key of Object.keys(stats)) {
      if (!['gamesPlayed', 'winRate', 'skillRating'].includes(key)) c.fail(`performance.individualStats.${key}`, 'is not allowed')
    }
    return {
      individualStats: {
        gamesPlayed: c.int('performance.individualStats.gamesPlayed', stats.gamesPlayed, { required: true }) ?? 0,
        winRate: c.number('performance.individualStats.winRate', stats.winRate, { required: true, min: 0, max: 1 }) ?? 0,
        skillRating: c.number('performance.individualStats.skillRating', stats.skillRating, { required: true, min: 0, max: 100_000 }) ?? 0,
      },
    }
  }

  async function checkUniquePlayer(c: InputChecker, programId: string, personal: PlayerPersonal, except?: string) {
    const clash = await prisma.player.findMany({
      where: {
        programId,
        ...(except ? { id: { not: except } } : {}),
        OR: [{ personal: { path: ['studentId'], equals: personal.studentId } }, { personal: { path: ['gamerTag'], equals: personal.gamerTag } }],
      },
      select: { personal: true },
    })
    for (const row of clash) {
      const other = row.personal as unknown as PlayerPersonal
      if (other.studentId === personal.studentId) c.fail('personal.studentId', 'is already used by another player of this program')
      if (other.gamerTag === personal.gamerTag) c.fail('personal.gamerTag', 'is already used by another player of this program')
    }
  }

  // --- Teams: roster ------------------------------------------------------------------------
  /**
   * Replaces a team's roster lists inside `tx`: the team's members are exactly the players
   * on its lists. Returns the players who joined.
   */
  async function writeRoster(
    tx: Tx,
    team: { id: string; programId: string; environment: string },
    lists: { starters: string[]; substitutes: string[] },
    at: Date,
  ) {
    const current = await tx.teamMember.findMany({ where: { teamId: team.id } })
    const wanted = new Map<string, { role: RosterRole; slot: number }>()
    lists.starters.forEach((id, slot) => wanted.set(id, { role: 'starter', slot }))
    lists.substitutes.forEach((id, slot) => wanted.set(id, { role: 'substitute', slot }))
    const known = new Set(current.map((m) => m.playerId))
    const leaving = current.filter((m) => !wanted.has(m.playerId)).map((m) => m.playerId)
    if (leaving.length) await tx.teamMember.deleteMany({ where: { teamId: team.id, playerId: { in: leaving } } })
    const joined: string[] = []
    for (const [playerId, { role, slot }] of wanted) {
      if (known.has(playerId)) {
        await tx.teamMember.update({ where: { teamId_playerId: { teamId: team.id, playerId } }, data: { role, slot } })
      } else {
        await tx.teamMember.create({ data: { teamId: team.id, playerId, role, slot, joinedDate: at } })
        joined.push(playerId)
      }
    }
    return joined
  }

  /** Checks roster lists: ids of active players of the team's program, each on one list once. */
  async function checkRosterLists(c: InputChecker, programId: string, environment: Environment, lists: { starters: string[]; substitutes: string[] }) {
    const seen = new Map<string, string>()
    for (const [name, ids] of [
      ['starters', lists.starters],
      ['substitutes', lists.substitutes],
    ] as const) {
      if (ids.length > ROSTER_MAX) c.fail(name, `must have at most ${ROSTER_MAX} players`)
      ids.forEach((id, i) => {
        const field = `${name}[${i}]`
        const earlier = seen.get(id)
        if (earlier) c.fail(field, `player ${id} is already on the roster as ${earlier}; a player is on one list only`)
        else seen.set(id, field)
      })
    }
    const ids = [...seen.keys()].filter(isUuid)
    const players = await prisma.player.findMany({ where: { id: { in: ids }, environment }, select: { id: true, programId: true, status: true } })
    const byId = new Map(players.map((p) => [p.id, p]))
    for (const [id, field] of seen) {
      const player = byId.get(id)
      if (!player) c.fail(field, `player ${id} does not exist`)
      else if (player.programId !== programId) c.fail(field, `player ${id} belongs to another program`)
      else if (player.status !== 'active') c.fail(field, `player ${id} is ${player.status}; only active players can be on a roster`)
    }
  }

  async function teamRecord(id: string, environment: Environment): Promise<TeamRecord> {
    const row = await findTeam(prisma, environment, id)
    if (!row) throw notFound('Team', id)
    return toTeam(row)
  }

  async function playerRecord(id: string, environment: Environment): Promise<PlayerRecord> {
    const row = await findPlayer(prisma, environment, id)
    if (!row) throw notFound('Player', id)
    return toPlayer(row, now())
  }

  // Hides the VOD links of matches in which a player without a media release played.
  async function withMediaRules<T extends MatchRecord>(matches: T[]): Promise<T[]> {
    const ids = [...new Set(matches.flatMap((m) => (m.result?.analysis.vod ? m.roster.starters : [])))].filter(isUuid)
    if (!ids.length) return matches
    const players = await prisma.player.findMany({ where: { id: { in: ids } }, select: { id: true, consent: true } })
    const withheld = new Set(players.filter((p) => !(p.consent as unknown as PlayerConsent).mediaRelease).map((p) => p.id))
    return matches.map((m) =>
      m.result?.analysis.vod && m.roster.starters.some((id) => withheld.has(id))
        ? { ...m, result: { ...m.result, analysis: { ...m.result.analysis, vod: null, vodWithheld: true } } }
        : m,
    )
  }

  async function matchRecord(id: string, environment: Environment): Promise<MatchRecord> {
    const row = isUuid(id) ? await prisma.match.findFirst({ where: { id, environment } }) : null
    if (!row) throw notFound('Match', id)
    return (await withMediaRules([toMatch(row)]))[0] as MatchRecord
  }

  async function careerOf(playerId: string, interests: string[]): Promise<CareerRecord> {
    const [experiences, achievements] = await Promise.all([
      prisma.experience.findMany({ where: { playerId }, orderBy: [{ startDate: 'desc' }, { createdAt: 'desc' }] }),
      prisma.achievement.findMany({ where: { playerId }, orderBy: [{ date: 'desc' }, { createdAt: 'desc' }] }),
    ])
    const exps = experiences.map(toExperience)
    const achs = achievements.map(toAchievement)
    const dates = [...exps.map((e) => e.dateRange.start.getTime()), ...achs.map((a) => a.date.getTime())]
    return {
      playerId,
      interests,
      experiences: exps,
      achievements: achs,
      summary: {
        experienceCount: exps.length,
        achievementCount: achs.length,
        totalAwarded: achs.reduce((sum, a) => sum + (a.amount ?? 0), 0),
        skills: [...new Set(exps.flatMap((e) => e.skills))].sort((a, b) => a.localeCompare(b)),
        lastActivity: dates.length ? new Date(Math.max(...dates)) : null,
      },
    }
  }

  const service = {
    /** Webhook delivery of the esports events: the kit defines its jobs and closes it. */
    webhookDelivery: deps.webhooks,

    /**
     * The client-credentials grant of the interface's token endpoint (RFC 6749 §4.4): tokens
     * only for clients of the endpoint's environment, scopes narrowed to those requested.
     */
    issueToken(input: { clientId: string; clientSecret: string; scope?: string; environment?: Environment }) {
      return deps.credentials.issueToken(input)
    },

    // --- Programs ---------------------------------------------------------------------------
    async listPrograms(actor: Principal | null, filter: { institutionId?: string; status?: string } & PageArgs): Promise<Page<ProgramRecord>> {
      const who = authorize(actor, 'programs:read')
      const c = createInputChecker()
      const { page, limit } = checkPage(filter, c)
      const status = c.oneOf('status', filter.status, PROGRAM_STATUSES)
      const institutionId = c.string('institutionId', filter.institutionId, { max: 100 })
      if (!c.ok) throw invalid(c.issues)
      const where = { environment: who.environment, ...(institutionId ? { institutionId } : {}), ...(status ? { status } : {}) }
      const [rows, total] = await Promise.all([
        prisma.program.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: (page - 1) * limit, take: limit }),
        prisma.program.count({ where }),
      ])
      return pageOf(rows.map(toProgram), total, page, limit)
    },

    async getProgram(actor: Principal | null, id: string): Promise<ProgramRecord> {
      const who = authorize(actor, 'programs:read')
      const row = await findProgram(prisma, who.environment, id)
      if (!row) throw notFound('Program', id)
      return toProgram(row)
    },

    /** Creates a program; it starts in `planning` (or `active`) unless the body says otherwise. */
    async createProgram(actor: Principal | null, input: Record<string, unknown>): Promise<ProgramRecord> {
      const who = authorize(actor, 'programs:write')
      const c = createInputChecker()
      c.object('institution', input.institution, { required: true })
      c.object('program', input.program, { required: true })
      for (const key of Object.keys(input)) if (!['standard', 'institution', 'program'].includes(key)) c.fail(key, 'is not allowed')
      if (!c.ok) throw invalid(c.issues)
      const checked = checkProgram(withProgramDefaults(input))
      if (!checked.ok) throw invalid(checked.issues)
      const doc = checked.value
      if (doc.program.status !== 'planning' && doc.program.status !== 'active') {
        throw invalid([{ field: 'program.status', message: 'a new program starts as planning or active' }])
      }
      return prisma.$transaction(async (tx) => {
        const row = await tx.program.create({
          data: {
            id: randomUUID(),
            environment: who.environment,
            standard: doc.standard,
            institutionId: doc.institution.id,
            status: doc.program.status,
            institution: doc.institution as unknown as Json,
            program: doc.program as unknown as Json,
          },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.programCreated, row.id, {
          programId: row.id,
          institutionId: doc.institution.id,
          status: doc.program.status,
        })
        return toProgram(row)
      })
    },

    /**
     * Changes only the fields sent; nested objects merge, arrays replace. A status change must
     * follow the lifecycle, and an archived program is read-only.
     */
    async updateProgram(actor: Principal | null, id: string, patch: Record<string, unknown>): Promise<ProgramRecord> {
      const who = authorize(actor, 'programs:write')
      const c = createInputChecker()
      for (const key of Object.keys(patch)) if (!['standard', 'institution', 'program'].includes(key)) c.fail(key, 'is not allowed')
      c.object('institution', patch.institution)
      c.object('program', patch.program)
      if (!c.ok) throw invalid(c.issues)
      return prisma.$transaction(async (tx) => {
        if (!isUuid(id)) throw notFound('Program', id)
        const [locked] = await tx.$queryRaw<
          { id: string }[]
        >`SELECT id FROM esports.programs WHERE id = ${id}::uuid AND environment = ${who.environment} FOR UPDATE`
        const current = locked ? await tx.program.findUnique({ where: { id } }) : null
        if (!current) throw notFound('Program', id)
        const before = toProgram(current)
        if (before.program.status === 'archived') throw invalid([{ field: 'program.status', message: `program ${id} is archived and read-only` }])
        const checked = checkProgram(mergeDeep({ standard: before.standard, institution: before.institution, program: before.program }, patch))
        if (!checked.ok) throw invalid(checked.issues)
        const doc = checked.value
        if (!canTransition(before.program.status, doc.program.status)) {
          throw invalid([{ field: 'program.status', message: `cannot change from ${before.program.status} to ${doc.program.status}` }])
        }
        const row = await tx.program.update({
          where: { id },
          data: {
            standard: doc.standard,
            institutionId: doc.institution.id,
            status: doc.program.status,
            institution: doc.institution as unknown as Json,
            program: doc.program as unknown as Json,
            updatedAt: now(),
          },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.programUpdated, id, {
          programId: id,
          institutionId: doc.institution.id,
          status: doc.program.status,
          previousStatus: before.program.status,
          changes: Object.keys(patch),
        })
        return toProgram(row)
      })
    },

    /** Deletes a program with its teams, players, matches and career records. */
    async deleteProgram(actor: Principal | null, id: string): Promise<void> {
      const who = authorize(actor, 'programs:write')
      await prisma.$transaction(async (tx) => {
        const row = await findProgram(tx, who.environment, id)
        if (!row) throw notFound('Program', id)
        await tx.program.delete({ where: { id } })
        await emit(tx, who.environment, ESPORTS_EVENTS.programDeleted, id, { programId: id, institutionId: row.institutionId })
      })
    },

    // --- Teams ------------------------------------------------------------------------------
    async listTeams(
      actor: Principal | null,
      filter: { programId?: string; game?: string; tier?: string; season?: number } & PageArgs,
    ): Promise<Page<TeamRecord>> {
      const who = authorize(actor, 'teams:read')
      const c = createInputChecker()
      const { page, limit } = checkPage(filter, c)
      const programId = c.string('programId', filter.programId, { required: true, max: 100 })
      const tier = c.oneOf('tier', filter.tier, TEAM_TIERS)
      const game = c.string('game', filter.game, { max: 100 })
      const season = c.int('season', filter.season, { min: 1990, max: 2200 })
      if (!c.ok) throw invalid(c.issues)
      if (!programId || !(await findProgram(prisma, who.environment, programId))) throw notFound('Program', programId ?? '')
      const where = {
        programId,
        environment: who.environment,
        ...(tier ? { tier } : {}),
        ...(game ? { game: { equals: game, mode: 'insensitive' as const } } : {}),
        ...(season ? { seasonYear: season } : {}),
      }
      const [rows, total] = await Promise.all([
        prisma.team.findMany({ where, include: { members: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: (page - 1) * limit, take: limit }),
        prisma.team.count({ where }),
      ])
      return pageOf(rows.map(toTeam), total, page, limit)
    },

    async getTeam(actor: Principal | null, id: string): Promise<TeamRecord> {
      const who = authorize(actor, 'teams:read')
      return teamRecord(id, who.environment)
    },

    /** Teams by id for entity references; null for ids the caller's environment lacks. */
    async getTeamsByIds(actor: Principal | null, ids: readonly string[]): Promise<Array<TeamRecord | null>> {
      const who = authorize(actor, 'teams:read')
      const rows = await prisma.team.findMany({ where: { id: { in: ids.filter(isUuid) }, environment: who.environment }, include: { members: true } })
      const byId = new Map(rows.map((r) => [r.id, toTeam(r)]))
      return ids.map((id) => byId.get(id) ?? null)
    },

    async createTeam(actor: Principal | null, input: Record<string, unknown>): Promise<TeamRecord> {
      const who = authorize(actor, 'teams:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['programId', 'name', 'game', 'tier', 'season'].includes(key)) c.fail(key, 'is not allowed')
      const programId = c.string('programId', input.programId, { required: true, max: 100 })
      const name = c.string('name', input.name, { required: true })
      const game = c.string('game', input.game, { required: true, max: 100 })
      const tier = c.oneOf('tier', input.tier, TEAM_TIERS, { required: true })
      const season = c.object('season', input.season, { required: true }) ?? {}
      for (const key of Object.keys(season)) if (!['year', 'league', 'division'].includes(key)) c.fail(`season.${key}`, 'is not allowed')
      const year = c.int('season.year', season.year, { required: true, min: 1990, max: 2200 })
      const league = c.string('season.league', season.league)
      const division = c.string('season.division', season.division)
      if (!c.ok) throw invalid(c.issues)
      return prisma.$transaction(async (tx) => {
        const program = await writableProgram(tx, who.environment, programId as string, 'programId')
        if (!program) throw invalid([{ field: 'programId', message: `program ${programId} does not exist` }])
        const games = (program.program as unknown as { games: string[] }).games
        if (games.length && !games.some((g) => g.toLowerCase() === (game as string).toLowerCase())) {
          throw invalid([{ field: 'game', message: `must be one of the program's games: ${games.join(', ')}` }])
        }
        const row = await tx.team.create({
          data: {
            id: randomUUID(),
            environment: who.environment,
            programId: program.id,
            name: name as string,
            game: game as string,
            tier: tier as TeamTier,
            seasonYear: year as number,
            seasonLeague: league ?? null,
            seasonDivision: division ?? null,
          },
          include: { members: true },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.teamCreated, row.id, {
          teamId: row.id,
          programId: program.id,
          name: row.name,
          game: row.game,
          tier: row.tier,
        })
        return toTeam(row)
      })
    },

    /**
     * Sets a team's roster lists (only the lists sent change): ids of active players of the
     * team's program, each on one list once. Players who are new to the team join it.
     */
    async updateRoster(actor: Principal | null, id: string, input: { starters?: unknown; substitutes?: unknown }): Promise<TeamRecord> {
      const who = authorize(actor, 'teams:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['starters', 'substitutes'].includes(key)) c.fail(key, 'is not allowed')
      const starters = c.strings('starters', input.starters, { maxItems: 100 })
      const substitutes = c.strings('substitutes', input.substitutes, { maxItems: 100 })
      if (input.starters === undefined && input.substitutes === undefined) c.fail('body', 'send starters, substitutes or both')
      if (!c.ok) throw invalid(c.issues)
      const team = await findTeam(prisma, who.environment, id)
      if (!team) throw notFound('Team', id)
      const current = toTeam(team).roster
      const lists = { starters: starters ?? current.starters, substitutes: substitutes ?? current.substitutes }
      await checkRosterLists(c, team.programId, who.environment, lists)
      if (!c.ok) throw invalid(c.issues)
      return prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM esports.teams WHERE id = ${id}::uuid FOR UPDATE`
        if (!(await writableProgram(tx, who.environment, team.programId, 'teamId'))) throw notFound('Team', id)
        const at = now()
        const joined = await writeRoster(tx, team, lists, at)
        await tx.team.update({ where: { id }, data: { updatedAt: at } })
        const after = toTeam((await findTeam(tx, who.environment, id))!)
        for (const playerId of joined) {
          await emit(tx, who.environment, ESPORTS_EVENTS.playerJoined, playerId, {
            playerId,
            teamId: id,
            programId: team.programId,
            role: after.roster.starters.includes(playerId) ? 'starter' : 'substitute',
            position: null,
            joinedDate: at.toISOString(),
          })
        }
        await emit(tx, who.environment, ESPORTS_EVENTS.teamUpdated, id, {
          teamId: id,
          programId: team.programId,
          changes: ['roster'],
          roster: after.roster,
          record: after.record,
        })
        return after
      })
    },

    // --- Players ----------------------------------------------------------------------------
    async listPlayers(
      actor: Principal | null,
      filter: { programId?: string; teamId?: string; grade?: number; status?: string } & PageArgs,
    ): Promise<Page<PlayerRecord>> {
      const who = authorize(actor, 'players:read')
      const c = createInputChecker()
      const { page, limit } = checkPage(filter, c)
      const programId = c.string('programId', filter.programId, { required: true, max: 100 })
      const teamId = c.string('teamId', filter.teamId, { max: 100 })
      const grade = c.int('grade', filter.grade, GRADE_RANGE)
      const status = c.oneOf('status', filter.status, PLAYER_STATUSES)
      if (!c.ok) throw invalid(c.issues)
      if (!programId || !(await findProgram(prisma, who.environment, programId))) throw notFound('Program', programId ?? '')
      const where = {
        programId,
        environment: who.environment,
        ...(grade !== undefined ? { grade } : {}),
        ...(status ? { status } : {}),
        ...(teamId ? { teams: { some: { teamId: isUuid(teamId) ? teamId : '00000000-0000-0000-0000-000000000000' } } } : {}),
      }
      const [rows, total] = await Promise.all([
        prisma.player.findMany({ where, include: { teams: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: (page - 1) * limit, take: limit }),
        prisma.player.count({ where }),
      ])
      const at = now()
      return pageOf(
        rows.map((r) => toPlayer(r, at)),
        total,
        page,
        limit,
      )
    },

    async getPlayer(actor: Principal | null, id: string): Promise<PlayerRecord> {
      const who = authorize(actor, 'players:read')
      return playerRecord(id, who.environment)
    },

    /**
     * Players by id for entity references from other services. A player who said no to data
     * sharing (consent.dataSharing=false) is never handed out this way: null, as if absent.
     */
    async getSharedPlayersByIds(actor: Principal | null, ids: readonly string[]): Promise<Array<PlayerRecord | null>> {
      const who = authorize(actor, 'players:read')
      const rows = await prisma.player.findMany({ where: { id: { in: ids.filter(isUuid) }, environment: who.environment }, include: { teams: true } })
      const at = now()
      const byId = new Map(rows.map((r) => [r.id, toPlayer(r, at)]))
      return ids.map((id) => {
        const player = byId.get(id)
        return player && player.consent.dataSharing ? player : null
      })
    },

    async createPlayer(actor: Principal | null, input: Record<string, unknown>): Promise<PlayerRecord> {
      const who = authorize(actor, 'players:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['programId', 'status', 'personal', 'consent', 'performance'].includes(key)) c.fail(key, 'is not allowed')
      const programId = c.string('programId', input.programId, { required: true, max: 100 })
      const status = c.oneOf('status', input.status ?? 'active', PLAYER_STATUSES)
      const personalIn = c.object('personal', input.personal, { required: true })
      const consentIn = c.object('consent', input.consent, { required: true })
      const performanceIn = c.object('performance', input.performance)
      const program = programId ? await findProgram(prisma, who.environment, programId) : null
      if (programId && !program) c.fail('programId', `program ${programId} does not exist`)
      if (program?.status === 'archived') c.fail('programId', `program ${programId} is archived and read-only`)
      const personal = personalIn
        ? checkPersonal(c, personalIn, program ? (program.program as unknown as { gradeLevels: { min: number; max: number } }) : null)
        : undefined
      const consent = consentIn ? checkConsent(c, consentIn) : undefined
      const performance = performanceIn ? checkPerformance(c, performanceIn) : { individualStats: { gamesPlayed: 0, winRate: 0, skillRating: 0 } }
      if (c.ok && program && personal) await checkUniquePlayer(c, program.id, personal)
      if (!c.ok || !program || !personal || !consent) throw invalid(c.issues)
      return prisma.$transaction(async (tx) => {
        const row = await tx.player.create({
          data: {
            id: randomUUID(),
            environment: who.environment,
            programId: program.id,
            status: status as PlayerStatus,
            grade: personal.grade,
            personal: personal as unknown as Json,
            consent: consent as unknown as Json,
            performance: performance as unknown as Json,
            interests: [],
          },
          include: { teams: true },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.playerCreated, row.id, { playerId: row.id, programId: program.id, status: row.status, grade: row.grade })
        return toPlayer(row, now())
      })
    },

    /**
     * Changes the groups sent — personal, consent, performance (partial, merged) and status —
     * and nothing else. A player who leaves `active` leaves their teams' rosters.
     */
    async updatePlayer(actor: Principal | null, id: string, patch: Record<string, unknown>): Promise<PlayerRecord> {
      const who = authorize(actor, 'players:write')
      const c = createInputChecker()
      for (const key of Object.keys(patch))
        if (!['status', 'personal', 'consent', 'performance'].includes(key)) c.fail(key, 'is not allowed (patchable: status, personal, consent, performance)')
      const personalIn = c.object('personal', patch.personal)
      const consentIn = c.object('consent', patch.consent)
      const performanceIn = c.object('performance', patch.performance)
      const status = c.oneOf('status', patch.status, PLAYER_STATUSES)
      if (!c.ok) throw invalid(c.issues)
      const row = await requirePlayer(who, id)
      const program = await findProgram(prisma, who.environment, row.programId)
      if (program?.status === 'archived') throw invalid([{ field: 'programId', message: `program ${row.programId} is archived and read-only` }])
      const before = toPlayer(row, now())
      const personal = personalIn
        ? checkPersonal(
            c,
            mergeDeep(before.personal as unknown as Record<string, unknown>, personalIn),
            program ? (program.program as unknown as { gradeLevels: { min: number; max: number } }) : null,
          )
        : before.personal
      const consent = consentIn ? checkConsent(c, mergeDeep(before.consent as unknown as Record<string, unknown>, consentIn)) : before.consent
      const performance = performanceIn
        ? checkPerformance(c, mergeDeep(before.performance as unknown as Record<string, unknown>, performanceIn))
        : before.performance
      if (c.ok && personalIn) await checkUniquePlayer(c, row.programId, personal, id)
      if (!c.ok) throw invalid(c.issues)
      return prisma.$transaction(async (tx) => {
        const leaving = status !== undefined && status !== 'active' && before.status === 'active'
        if (leaving) await tx.teamMember.deleteMany({ where: { playerId: id } })
        const updated = await tx.player.update({
          where: { id },
          data: {
            status: status ?? before.status,
            grade: personal.grade,
            personal: personal as unknown as Json,
            consent: consent as unknown as Json,
            performance: performance as unknown as Json,
            updatedAt: now(),
          },
          include: { teams: true },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.playerUpdated, id, {
          playerId: id,
          programId: row.programId,
          status: updated.status,
          changes: Object.keys(patch),
        })
        if (leaving) {
          for (const m of row.teams) {
            const team = toTeam((await findTeam(tx, who.environment, m.teamId))!)
            await emit(tx, who.environment, ESPORTS_EVENTS.teamUpdated, m.teamId, {
              teamId: m.teamId,
              programId: row.programId,
              changes: ['roster'],
              roster: team.roster,
              record: team.record,
            })
          }
        }
        return toPlayer(updated, now())
      })
    },

    /** Puts a player on a team of their program (or changes their role there). */
    async assignTeam(actor: Principal | null, id: string, input: Record<string, unknown>): Promise<PlayerRecord> {
      const who = authorize(actor, 'players:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['teamId', 'role', 'position', 'joinedDate'].includes(key)) c.fail(key, 'is not allowed')
      const teamId = c.string('teamId', input.teamId, { required: true, max: 100 })
      const role = c.oneOf('role', input.role, ROSTER_ROLES, { required: true })
      const position = c.string('position', input.position, { max: 100 })
      const joinedDate = c.date('joinedDate', input.joinedDate) ?? now()
      if (!c.ok) throw invalid(c.issues)
      const player = await requirePlayer(who, id)
      const team = await findTeam(prisma, who.environment, teamId as string)
      if (!team) throw invalid([{ field: 'teamId', message: `team ${teamId} does not exist` }])
      if (team.programId !== player.programId) throw invalid([{ field: 'teamId', message: `team ${teamId} belongs to another program than player ${id}` }])
      if (player.status !== 'active') throw invalid([{ field: 'status', message: `player ${id} is ${player.status}; only active players can join a team` }])
      return prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM esports.teams WHERE id = ${team.id}::uuid FOR UPDATE`
        if (!(await writableProgram(tx, who.environment, team.programId, 'teamId'))) throw notFound('Team', team.id)
        const members = await tx.teamMember.findMany({ where: { teamId: team.id } })
        const existing = members.find((m) => m.playerId === id)
        const onList = members.filter((m) => m.role === role && m.playerId !== id)
        if (onList.length >= ROSTER_MAX) throw invalid([{ field: 'role', message: `the team's ${role}s list is full (${ROSTER_MAX})` }])
        const slot = existing && existing.role === role ? existing.slot : onList.reduce((max, m) => Math.max(max, m.slot + 1), 0)
        await tx.teamMember.upsert({
          where: { teamId_playerId: { teamId: team.id, playerId: id } },
          create: { teamId: team.id, playerId: id, role: role as RosterRole, position: position ?? null, joinedDate, slot },
          update: { role: role as RosterRole, position: position ?? null, joinedDate, slot },
        })
        await tx.team.update({ where: { id: team.id }, data: { updatedAt: now() } })
        const after = toTeam((await findTeam(tx, who.environment, team.id))!)
        if (!existing) {
          await emit(tx, who.environment, ESPORTS_EVENTS.playerJoined, id, {
            playerId: id,
            teamId: team.id,
            programId: team.programId,
            role,
            position: position ?? null,
            joinedDate: joinedDate.toISOString(),
          })
        }
        await emit(tx, who.environment, ESPORTS_EVENTS.teamUpdated, team.id, {
          teamId: team.id,
          programId: team.programId,
          changes: ['roster'],
          roster: after.roster,
          record: after.record,
        })
        return toPlayer((await findPlayer(tx, who.environment, id))!, now())
      })
    },

    // --- Matches ----------------------------------------------------------------------------
    async listMatches(
      actor: Principal | null,
      filter: { teamId?: string; type?: string; startDate?: string | Date; endDate?: string | Date } & PageArgs,
    ): Promise<Page<MatchRecord>> {
      const who = authorize(actor, 'matches:read')
      const c = createInputChecker()
      const { page, limit } = checkPage(filter, c)
      const teamId = c.string('teamId', filter.teamId, { required: true, max: 100 })
      const type = c.oneOf('type', filter.type, MATCH_TYPES)
      const startDate = c.date('startDate', filter.startDate)
      const endDate = c.date('endDate', filter.endDate)
      if (startDate && endDate && startDate > endDate) c.fail('endDate', 'must not be before startDate')
      if (!c.ok) throw invalid(c.issues)
      if (!teamId || !(await findTeam(prisma, who.environment, teamId))) throw notFound('Team', teamId ?? '')
      const where = {
        teamId,
        environment: who.environment,
        ...(type ? { type } : {}),
        ...(startDate || endDate ? { scheduledAt: { ...(startDate ? { gte: startDate } : {}), ...(endDate ? { lte: endDate } : {}) } } : {}),
      }
      const [rows, total] = await Promise.all([
        prisma.match.findMany({ where, orderBy: [{ scheduledAt: 'asc' }, { id: 'asc' }], skip: (page - 1) * limit, take: limit }),
        prisma.match.count({ where }),
      ])
      return pageOf(await withMediaRules(rows.map(toMatch)), total, page, limit)
    },

    async getMatch(actor: Principal | null, id: string): Promise<MatchRecord> {
      const who = authorize(actor, 'matches:read')
      return matchRecord(id, who.environment)
    },

    /**
     * Schedules a match. Its roster (the team's starters unless given) holds members of the
     * team only, active, and no minor without parental consent.
     */
    async createMatch(actor: Principal | null, input: Record<string, unknown>): Promise<MatchRecord> {
      const who = authorize(actor, 'matches:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['type', 'teamId', 'opponent', 'schedule', 'roster'].includes(key)) c.fail(key, 'is not allowed')
      const type = c.oneOf('type', input.type, MATCH_TYPES, { required: true })
      const teamId = c.string('teamId', input.teamId, { required: true, max: 100 })
      const opponent = c.object('opponent', input.opponent, { required: true }) ?? {}
      const schedule = c.object('schedule', input.schedule, { required: true }) ?? {}
      const roster = c.object('roster', input.roster) ?? {}
      for (const key of Object.keys(opponent)) if (!['name', 'institution'].includes(key)) c.fail(`opponent.${key}`, 'is not allowed')
      for (const key of Object.keys(schedule)) if (!['date', 'location', 'venue'].includes(key)) c.fail(`schedule.${key}`, 'is not allowed')
      for (const key of Object.keys(roster)) if (key !== 'starters') c.fail(`roster.${key}`, 'is not allowed')
      const opponentName = c.string('opponent.name', opponent.name, { required: true })
      const opponentInstitution = c.string('opponent.institution', opponent.institution)
      const date = c.date('schedule.date', schedule.date, { required: true })
      const location = c.string('schedule.location', schedule.location)
      const venue = c.string('schedule.venue', schedule.venue)
      const startersIn = c.strings('roster.starters', roster.starters, { maxItems: ROSTER_MAX })
      if (!c.ok) throw invalid(c.issues)
      const team = await findTeam(prisma, who.environment, teamId as string)
      if (!team) throw invalid([{ field: 'teamId', message: `team ${teamId} does not exist` }])
      const starters = startersIn ?? toTeam(team).roster.starters
      const members = new Set(team.members.map((m) => m.playerId))
      const players = await prisma.player.findMany({ where: { id: { in: starters.filter(isUuid) }, environment: who.environment } })
      const byId = new Map(players.map((p) => [p.id, p]))
      const at = now()
      starters.forEach((id, i) => {
        const field = `roster.starters[${i}]`
        const player = byId.get(id)
        if (starters.indexOf(id) !== i) c.fail(field, `player ${id} is listed twice`)
        else if (!player) c.fail(field, `player ${id} does not exist`)
        else if (!members.has(id)) c.fail(field, `player ${id} is not on team ${team.id}`)
        else if (player.status !== 'active') c.fail(field, `player ${id} is ${player.status}`)
        else if (isMinor(player.personal as unknown as PlayerPersonal, at) && !(player.consent as unknown as PlayerConsent).parentalConsent) {
          c.fail(field, `player ${id} is a minor without parental consent and cannot be on a match roster`)
        }
      })
      if (!c.ok) throw invalid(c.issues)
      return prisma.$transaction(async (tx) => {
        if (!(await writableProgram(tx, who.environment, team.programId, 'teamId'))) throw notFound('Team', team.id)
        const row = await tx.match.create({
          data: {
            id: randomUUID(),
            environment: who.environment,
            teamId: team.id,
            type: type as MatchType,
            opponent: { name: opponentName as string, institution: opponentInstitution ?? null },
            scheduledAt: date as Date,
            location: location ?? null,
            venue: venue ?? null,
            starters,
            status: 'scheduled',
          },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.matchScheduled, row.id, {
          matchId: row.id,
          teamId: team.id,
          type: row.type,
          date: row.scheduledAt.toISOString(),
        })
        return toMatch(row)
      })
    },

    /**
     * Records (or corrects) a match result. The team's record changes in the same transaction:
     * a first result adds the outcome, a correction moves it from the old outcome to the new.
     */
    async recordResult(actor: Principal | null, id: string, input: Record<string, unknown>): Promise<MatchRecord> {
      const who = authorize(actor, 'matches:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['score', 'outcome', 'duration', 'analysis'].includes(key)) c.fail(key, 'is not allowed')
      const score = c.object('score', input.score, { required: true }) ?? {}
      const analysis = c.object('analysis', input.analysis) ?? {}
      for (const key of Object.keys(score)) if (!['team', 'opponent'].includes(key)) c.fail(`score.${key}`, 'is not allowed')
      for (const key of Object.keys(analysis)) if (!['vod', 'coachNotes'].includes(key)) c.fail(`analysis.${key}`, 'is not allowed')
      const teamScore = c.int('score.team', score.team, { required: true, max: 100_000 })
      const opponentScore = c.int('score.opponent', score.opponent, { required: true, max: 100_000 })
      const outcome = c.oneOf('outcome', input.outcome, MATCH_OUTCOMES, { required: true })
      const duration = c.int('duration', input.duration, { min: 0, max: 7 * 24 * 3600 })
      const vod = c.url('analysis.vod', analysis.vod)
      const coachNotes = c.string('analysis.coachNotes', analysis.coachNotes, { max: TEXT_MAX.long })
      if (teamScore !== undefined && opponentScore !== undefined && outcome) {
        const expected: MatchOutcome = teamScore > opponentScore ? 'win' : teamScore < opponentScore ? 'loss' : 'tie'
        if (expected !== outcome) c.fail('outcome', `must agree with the score ${teamScore}-${opponentScore} (${expected})`)
      }
      if (!c.ok) throw invalid(c.issues)
      return prisma
        .$transaction(async (tx) => {
          if (!isUuid(id)) throw notFound('Match', id)
          const [locked] = await tx.$queryRaw<
            { id: string }[]
          >`SELECT id FROM esports.matches WHERE id = ${id}::uuid AND environment = ${who.environment} FOR UPDATE`
          const before = locked ? await tx.match.findUnique({ where: { id } }) : null
          if (!before) throw notFound('Match', id)
          const team = await tx.team.findUnique({ where: { id: before.teamId } })
          if (!team || !(await writableProgram(tx, who.environment, team.programId, 'matchId'))) throw notFound('Match', id)
          const field = (o: string | null) => (o === 'win' ? 'wins' : o === 'loss' ? 'losses' : o === 'tie' ? 'ties' : null)
          const delta: Record<string, number> = { wins: 0, losses: 0, ties: 0 }
          const old = field(before.outcome)
          if (old) delta[old]! -= 1
          delta[field(outcome as string)!]! += 1
          const at = now()
          const updatedTeam = await tx.team.update({
            where: { id: team.id },
            data: { wins: { increment: delta.wins! }, losses: { increment: delta.losses! }, ties: { increment: delta.ties! }, updatedAt: at },
          })
          const row = await tx.match.update({
            where: { id },
            data: {
              status: 'completed',
              scoreTeam: teamScore as number,
              scoreOpponent: opponentScore as number,
              outcome: outcome as string,
              duration: duration ?? null,
              analysis: { vod: vod ?? null, coachNotes: coachNotes ?? null },
              completedAt: before.completedAt ?? at,
            },
          })
          const data = {
            matchId: id,
            teamId: team.id,
            result: outcome as string,
            score: { team: teamScore as number, opponent: opponentScore as number },
            duration: duration ?? null,
          }
          await emit(tx, who.environment, before.outcome ? ESPORTS_EVENTS.matchUpdated : ESPORTS_EVENTS.matchCompleted, id, data)
          const members = await tx.teamMember.findMany({ where: { teamId: team.id } })
          await emit(tx, who.environment, ESPORTS_EVENTS.teamUpdated, team.id, {
            teamId: team.id,
            programId: team.programId,
            changes: ['record'],
            roster: rosterOf(members),
            record: { wins: updatedTeam.wins, losses: updatedTeam.losses, ties: updatedTeam.ties },
          })
          return toMatch(row)
        })
        .then(async (match) => (await withMediaRules([match]))[0] as MatchRecord)
    },

    /** The team's record after each completed match, in schedule order: a season chart's series. */
    async seasonRecord(actor: Principal | null, teamId: string) {
      const who = authorize(actor, 'matches:read')
      if (!(await findTeam(prisma, who.environment, teamId))) throw notFound('Team', teamId)
      const rows = await prisma.match.findMany({
        where: { teamId, environment: who.environment, status: 'completed' },
        orderBy: [{ scheduledAt: 'asc' }, { id: 'asc' }],
      })
      const totals = { wins: 0, losses: 0, ties: 0 }
      return rows.map((m) => {
        const outcome = m.outcome as MatchOutcome
        if (outcome === 'win') totals.wins += 1
        else if (outcome === 'loss') totals.losses += 1
        else totals.ties += 1
        return { matchId: m.id, date: m.scheduledAt, outcome, ...totals }
      })
    },

    // --- Career -----------------------------------------------------------------------------
    async getCareer(actor: Principal | null, playerId: string): Promise<CareerRecord> {
      const who = authorize(actor, 'career:read')
      const player = await requirePlayer(who, playerId)
      return careerOf(player.id, player.interests)
    },

    async setInterests(actor: Principal | null, playerId: string, input: { interests?: unknown }): Promise<CareerRecord> {
      const who = authorize(actor, 'career:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (key !== 'interests') c.fail(key, 'is not allowed')
      const interests = c.strings('interests', input.interests, {
        required: true,
        maxItems: 20,
        max: 40,
        pattern: INTEREST,
        patternHint: 'must be a lower-case identifier such as content_creator',
      })
      if (!c.ok) throw invalid(c.issues)
      const player = await requirePlayer(who, playerId)
      const unique = [...new Set(interests)]
      await prisma.$transaction(async (tx) => {
        await tx.player.update({ where: { id: player.id }, data: { interests: unique, updatedAt: now() } })
        await emit(tx, who.environment, ESPORTS_EVENTS.careerUpdated, player.id, { playerId: player.id, change: 'interests', interests: unique })
      })
      return careerOf(player.id, unique)
    },

    async addExperience(actor: Principal | null, playerId: string, input: Record<string, unknown>): Promise<ExperienceRecord> {
      const who = authorize(actor, 'career:write')
      const c = createInputChecker()
      for (const key of Object.keys(input))
        if (!['type', 'title', 'organization', 'description', 'dateRange', 'skills'].includes(key)) c.fail(key, 'is not allowed')
      const type = c.string('type', input.type, {
        required: true,
        max: 40,
        pattern: INTEREST,
        patternHint: 'must be a lower-case identifier such as internship or workshop',
      })
      const title = c.string('title', input.title, { required: true })
      const organization = c.string('organization', input.organization)
      const description = c.string('description', input.description, { max: TEXT_MAX.long })
      const range = c.object('dateRange', input.dateRange, { required: true }) ?? {}
      const start = c.date('dateRange.start', range.start, { required: true })
      const end = c.date('dateRange.end', range.end)
      if (start && end && end < start) c.fail('dateRange.end', 'must not be before dateRange.start')
      const skills = c.strings('skills', input.skills, { maxItems: 30, max: 100 }) ?? []
      if (!c.ok) throw invalid(c.issues)
      const player = await requirePlayer(who, playerId)
      return prisma.$transaction(async (tx) => {
        const row = await tx.experience.create({
          data: {
            id: randomUUID(),
            playerId: player.id,
            type: type as string,
            title: title as string,
            organization: organization ?? null,
            description: description ?? null,
            startDate: start as Date,
            endDate: end ?? null,
            skills,
          },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.careerUpdated, player.id, { playerId: player.id, change: 'experience', experienceId: row.id })
        return toExperience(row)
      })
    },

    async addAchievement(actor: Principal | null, playerId: string, input: Record<string, unknown>): Promise<AchievementRecord> {
      const who = authorize(actor, 'career:write')
      const c = createInputChecker()
      for (const key of Object.keys(input)) if (!['type', 'title', 'issuer', 'date', 'amount'].includes(key)) c.fail(key, 'is not allowed')
      const type = c.string('type', input.type, {
        required: true,
        max: 40,
        pattern: INTEREST,
        patternHint: 'must be a lower-case identifier such as scholarship',
      })
      const title = c.string('title', input.title, { required: true })
      const issuer = c.string('issuer', input.issuer)
      const date = c.date('date', input.date, { required: true })
      const amount = c.number('amount', input.amount, { min: 0, max: 1e9 })
      if (!c.ok) throw invalid(c.issues)
      const player = await requirePlayer(who, playerId)
      return prisma.$transaction(async (tx) => {
        const row = await tx.achievement.create({
          data: {
            id: randomUUID(),
            playerId: player.id,
            type: type as string,
            title: title as string,
            issuer: issuer ?? null,
            date: date as Date,
            amount: amount ?? null,
          },
        })
        await emit(tx, who.environment, ESPORTS_EVENTS.careerUpdated, player.id, { playerId: player.id, change: 'achievement', achievementId: row.id })
        return toAchievement(row)
      })
    },

    // --- Webhooks ---------------------------------------------------------------------------
    /** Subscribes a URL to events of the caller's environment; the secret is stored sealed and never shown again. */
    async createWebhook(
      actor: Principal | null,
      input: { url?: unknown; events?: unknown; secret?: unknown; description?: unknown },
    ): Promise<WebhookSubscriptionInfo> {
      const who = authorize(actor, 'webhooks:write')
      try {
        return await deps.webhooks.create(who.environment, who.id, input)
      } catch (error) {
        if (error instanceof WebhookInputError) throw invalid(error.issues)
        throw error
      }
    },

    async listWebhooks(actor: Principal | null): Promise<WebhookSubscriptionInfo[]> {
      const who = authorize(actor, 'webhooks:read')
      return deps.webhooks.list(who.environment)
    },

    async getWebhook(actor: Principal | null, id: string): Promise<WebhookSubscriptionInfo> {
      const who = authorize(actor, 'webhooks:read')
      const sub = await deps.webhooks.get(who.environment, id)
      if (!sub) throw notFound('Webhook', id)
      return sub
    },

    async deleteWebhook(actor: Principal | null, id: string): Promise<void> {
      const who = authorize(actor, 'webhooks:write')
      if (!(await deps.webhooks.remove(who.environment, id))) throw notFound('Webhook', id)
    },

    async enableWebhook(actor: Principal | null, id: string): Promise<WebhookSubscriptionInfo> {
      const who = authorize(actor, 'webhooks:write')
      const sub = await deps.webhooks.enable(who.environment, id)
      if (!sub) throw notFound('Webhook', id)
      return sub
    },

    async listDeliveries(actor: Principal | null, id: string, limit?: number): Promise<WebhookDeliveryInfo[]> {
      const who = authorize(actor, 'webhooks:read')
      const c = createInputChecker()
      const take = c.int('limit', limit ?? PAGE.default, { min: 1, max: PAGE.max })
      if (!c.ok) throw invalid(c.issues)
      const deliveries = await deps.webhooks.deliveries(who.environment, id, take)
      if (!deliveries) throw notFound('Webhook', id)
      return deliveries
    },

    /** Sends a delivery again with the same event id; a disabled subscription must be enabled first. */
    async redeliver(actor: Principal | null, id: string, deliveryId: string): Promise<WebhookDeliveryInfo> {
      const who = authorize(actor, 'webhooks:write')
      const delivery = await deps.webhooks.redeliver(who.environment, id, deliveryId)
      if (delivery === 'disabled') throw invalid([{ field: 'status', message: `webhook ${id} is disabled; enable it before redelivering` }])
      if (!delivery) throw notFound('Delivery', deliveryId)
      return delivery
    },

    // --- Live events ------------------------------------------------------------------------
    /**
     * Events of the caller's environment as they commit — what webhooks deliver, for GraphQL
     * subscriptions. Reading them needs the read scope of the records they are about.
     */
    watch(
      actor: Principal | null,
      types: readonly EsportsEventType[],
      where?: (data: Record<string, unknown>) => boolean,
    ): AsyncIterableIterator<EsportsEvent> {
      if (!actor) throw errors.forRole('unauthorized')
      const c = createInputChecker()
      if (!types.length) c.fail('events', 'must name at least one event')
      for (const [i, t] of types.entries()) c.oneOf(`events[${i}]`, t, Object.values(ESPORTS_EVENTS))
      if (!c.ok) throw invalid(c.issues)
      let who = actor
      for (const t of types) who = authorize(actor, EVENT_SCOPES[t.split('.')[0] as keyof typeof EVENT_SCOPES])
      const stream = events.subscribe<{ environment: Environment; data: Record<string, unknown> }>({
        schema: 'esports',
        types,
        where: (e) => {
          const payload = e.payload as { environment?: string; data?: Record<string, unknown> }
          return payload.environment === who.environment && (!where || where(payload.data ?? {}))
        },
      })
      return mapAsyncIterator(stream, (e) => ({ id: e.id, event: e.type as EsportsEventType, timestamp: new Date(e.occurredAt), data: e.payload.data }))
    },
  }
  return service
}

/** The esports domain service. */
export type EsportsService = ReturnType<typeof createEsportsService>

// --- Row mappers -------------------------------------------------------------------------

function toProgram(row: {
  id: string
  environment: string
  standard: string
  institution: unknown
  program: unknown
  createdAt: Date
  updatedAt: Date
}): ProgramRecord {
  const program = row.program as ProgramRecord['program']
  return {
    id: row.id,
    environment: row.environment as Environment,
    standard: row.standard,
    institution: row.institution as ProgramRecord['institution'],
    program: { ...program, status: program.status as ProgramStatus },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

function rosterOf(members: ReadonlyArray<{ playerId: string; role: string; slot: number }>) {
  const list = (role: RosterRole) =>
    members
      .filter((m) => m.role === role)
      .sort((a, b) => a.slot - b.slot)
      .map((m) => m.playerId)
  return { starters: list('starter'), substitutes: list('substitute') }
}

function toTeam(row: {
  id: string
  environment: string
  programId: string
  name: string
  game: string
  tier: string
  seasonYear: number
  seasonLeague: string | null
  seasonDivision: string | null
  wins: number
  losses: number
  ties: number
  createdAt: Date
  updatedAt: Date
  members: ReadonlyArray<{ playerId: string; role: string; slot: number }>
}): TeamRecord {
  return {
    id: row.id,
    environment: row.environment as Environment,
    programId: row.programId,
    name: row.name,
    game: row.game,
    tier: row.tier as TeamTier,
    season: { year: row.seasonYear, league: row.seasonLeague, division: row.seasonDivision },
    roster: rosterOf(row.members),
    record: { wins: row.wins, losses: row.losses, ties: row.ties },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

function toPlayer(
  row: {
    id: string
    environment: string
    programId: string
    status: string
    personal: unknown
    consent: unknown
    performance: unknown
    createdAt: Date
    updatedAt: Date
    teams: ReadonlyArray<{ teamId: string; role: string; position: string | null; joinedDate: Date }>
  },
  at: Date,
): PlayerRecord {
  const personal = row.personal as PlayerPersonal
  return {
    id: row.id,
    environment: row.environment as Environment,
    programId: row.programId,
    status: row.status as PlayerStatus,
    personal,
    consent: row.consent as PlayerConsent,
    performance: row.performance as PlayerPerformance,
    teams: [...row.teams]
      .sort((a, b) => a.joinedDate.getTime() - b.joinedDate.getTime())
      .map((t) => ({ teamId: t.teamId, role: t.role as RosterRole, position: t.position, joinedDate: t.joinedDate })),
    minor: isMinor(personal, at),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

function toMatch(row: {
  id: string
  environment: string
  teamId: string
  type: string
  opponent: unknown
  scheduledAt: Date
  location: string | null
  venue: string | null
  starters: string[]
  status: string
  scoreTeam: number | null
  scoreOpponent: number | null
  outcome: string | null
  duration: number | null
  analysis: unknown
  completedAt: Date | null
  createdAt: Date
}): MatchRecord {
  const analysis = (isRecord(row.analysis) ? row.analysis : {}) as { vod?: string | null; coachNotes?: string | null }
  return {
    id: row.id,
    environment: row.environment as Environment,
    type: row.type as MatchType,
    teamId: row.teamId,
    opponent: row.opponent as MatchRecord['opponent'],
    schedule: { date: row.scheduledAt, location: row.location, venue: row.venue },
    roster: { starters: row.starters },
    status: row.status as MatchRecord['status'],
    result:
      row.outcome === null
        ? null
        : {
            score: { team: row.scoreTeam ?? 0, opponent: row.scoreOpponent ?? 0 },
            outcome: row.outcome as MatchOutcome,
            duration: row.duration,
            analysis: { vod: analysis.vod ?? null, coachNotes: analysis.coachNotes ?? null },
          },
    completedAt: row.completedAt,
    createdAt: row.createdAt,
  }
}

function toExperience(row: {
  id: string
  playerId: string
  type: string
  title: string
  organization: string | null
  description: string | null
  startDate: Date
  endDate: Date | null
  skills: string[]
  createdAt: Date
}): ExperienceRecord {
  return {
    id: row.id,
    playerId: row.playerId,
    type: row.type,
    title: row.title,
    organization: row.organization,
    description: row.description,
    dateRange: { start: row.startDate, end: row.endDate },
    skills: row.skills,
    createdAt: row.createdAt,
  }
}

function toAchievement(row: {
  id: string
  playerId: string
  type: string
  title: string
  issuer: string | null
  date: Date
  amount: number | null
  createdAt: Date
}): AchievementRecord {
  return {
    id: row.id,
    playerId: row.playerId,
    type: row.type,
    title: row.title,
    issuer: row.issuer,
    date: row.date,
    amount: row.amount,
    createdAt: row.createdAt,
  }
}
