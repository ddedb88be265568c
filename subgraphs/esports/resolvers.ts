import { DateTimeScalar, JSONScalar } from '../../platform/graphql/scalars.js'
import { ESPORTS_EVENTS, type EsportsEventType } from './events.js'
import type { EsportsEvent, EsportsService } from './esports-service.js'
import type { Resolvers } from './generated/graphql.js'

type Data = Record<string, unknown>

// GraphQL input objects are null-prototype objects with nulls for fields sent as null; the
// domain reads them as the REST bodies, where an absent field is undefined.
const plain = (value: unknown): Record<string, unknown> => {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return {}
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue
    out[k] = typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) ? plain(v) : v
  }
  return out
}
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined
// The same match filter from Query.matches and Team.matches.
const matchFilter = (teamId: string, a: { type?: string | null; startDate?: unknown; endDate?: unknown; page?: number | null; limit?: number | null }) => ({
  teamId,
  type: opt(a.type),
  startDate: opt(a.startDate as Date | null),
  endDate: opt(a.endDate as Date | null),
  page: opt(a.page),
  limit: opt(a.limit),
})
const byTeam = (teamId: string | null | undefined) => (teamId ? (data: Data) => data.teamId === teamId : undefined)

/** GraphQL resolvers of the esports subgraph: arguments in, one domain call, the result out. */
export function createEsportsResolvers(service: EsportsService): Resolvers {
  const watch = (ctx: { actor: Parameters<EsportsService['watch']>[0] }, types: EsportsEventType[], where?: (d: Data) => boolean) =>
    service.watch(ctx.actor, types, where)
  return {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      programs: (_, a, ctx) =>
        service.listPrograms(ctx.actor, { institutionId: opt(a.institutionId), status: opt(a.status), page: opt(a.page), limit: opt(a.limit) }),
      program: (_, { id }, ctx) => service.getProgram(ctx.actor, id),
      teams: (_, a, ctx) =>
        service.listTeams(ctx.actor, {
          programId: a.programId,
          game: opt(a.game),
          tier: opt(a.tier),
          season: opt(a.season),
          page: opt(a.page),
          limit: opt(a.limit),
        }),
      team: (_, { id }, ctx) => service.getTeam(ctx.actor, id),
      players: (_, a, ctx) =>
        service.listPlayers(ctx.actor, {
          programId: a.programId,
          teamId: opt(a.teamId),
          grade: opt(a.grade),
          status: opt(a.status),
          page: opt(a.page),
          limit: opt(a.limit),
        }),
      player: (_, { id }, ctx) => service.getPlayer(ctx.actor, id),
      matches: (_, a, ctx) => service.listMatches(ctx.actor, matchFilter(a.teamId, a)),
      match: (_, { id }, ctx) => service.getMatch(ctx.actor, id),
      career: (_, { playerId }, ctx) => service.getCareer(ctx.actor, playerId),
      webhooks: (_, __, ctx) => service.listWebhooks(ctx.actor),
      webhook: (_, { id }, ctx) => service.getWebhook(ctx.actor, id),
      webhookDeliveries: (_, { webhookId, limit }, ctx) => service.listDeliveries(ctx.actor, webhookId, opt(limit)),
    },
    Mutation: {
      createProgram: (_, { input }, ctx) => service.createProgram(ctx.actor, plain(input)),
      updateProgram: (_, { id, input }, ctx) => service.updateProgram(ctx.actor, id, plain(input)),
      deleteProgram: async (_, { id }, ctx) => {
        await service.deleteProgram(ctx.actor, id)
        return true
      },
      createTeam: (_, { input }, ctx) => service.createTeam(ctx.actor, plain(input)),
      updateRoster: (_, { teamId, input }, ctx) => service.updateRoster(ctx.actor, teamId, plain(input)),
      createPlayer: (_, { input }, ctx) => service.createPlayer(ctx.actor, plain(input)),
      updatePlayer: (_, { id, input }, ctx) => service.updatePlayer(ctx.actor, id, plain(input)),
      assignPlayerToTeam: (_, { playerId, input }, ctx) => service.assignTeam(ctx.actor, playerId, plain(input)),
      createMatch: (_, { input }, ctx) => service.createMatch(ctx.actor, plain(input)),
      recordMatchResult: (_, { matchId, input }, ctx) => service.recordResult(ctx.actor, matchId, plain(input)),
      setCareerInterests: (_, { playerId, interests }, ctx) => service.setInterests(ctx.actor, playerId, { interests }),
      addCareerExperience: (_, { playerId, input }, ctx) => service.addExperience(ctx.actor, playerId, plain(input)),
      addCareerAchievement: (_, { playerId, input }, ctx) => service.addAchievement(ctx.actor, playerId, plain(input)),
      createWebhook: (_, { input }, ctx) => service.createWebhook(ctx.actor, plain(input)),
      deleteWebhook: async (_, { id }, ctx) => {
        await service.deleteWebhook(ctx.actor, id)
        return true
      },
      enableWebhook: (_, { id }, ctx) => service.enableWebhook(ctx.actor, id),
      redeliverWebhook: (_, { webhookId, deliveryId }, ctx) => service.redeliver(ctx.actor, webhookId, deliveryId),
    },
    Subscription: {
      matchCompleted: {
        subscribe: (_, { teamId }, ctx) => watch(ctx, [ESPORTS_EVENTS.matchCompleted], byTeam(teamId)),
        resolve: (event: EsportsEvent) => event,
      },
      playerJoined: {
        subscribe: (_, { teamId }, ctx) => watch(ctx, [ESPORTS_EVENTS.playerJoined], byTeam(teamId)),
        resolve: (event: EsportsEvent) => event,
      },
      teamUpdated: {
        subscribe: (_, { teamId }, ctx) => watch(ctx, [ESPORTS_EVENTS.teamUpdated], byTeam(teamId)),
        resolve: (event: EsportsEvent) => event,
      },
      esportsEvents: {
        subscribe: (_, { events }, ctx) => watch(ctx, events as EsportsEventType[]),
        resolve: (event: EsportsEvent) => event,
      },
    },
    Program: {
      __resolveReference: (ref, ctx) => service.getProgram(ctx.actor, ref.id as string),
      teams: (p, a, ctx) => service.listTeams(ctx.actor, { programId: p.id, page: opt(a.page), limit: opt(a.limit) }),
    },
    Team: {
      __resolveReference: (ref, ctx) => ctx.teamLoader.load(ref.id as string),
      matches: (t, a, ctx) => service.listMatches(ctx.actor, matchFilter(t.id, a)),
      seasonRecord: (t, _, ctx) => service.seasonRecord(ctx.actor, t.id),
    },
    Player: {
      // Other services see only players who consented to data sharing.
      __resolveReference: (ref, ctx) => ctx.sharedPlayerLoader.load(ref.id as string),
      career: (p, _, ctx) => service.getCareer(ctx.actor, p.id),
    },
    Match: {
      __resolveReference: (ref, ctx) => service.getMatch(ctx.actor, ref.id as string),
      team: (m, _, ctx) => ctx.teamLoader.load(m.teamId),
    },
    MatchCompletedEvent: {
      eventId: (e) => e.id,
      matchId: (e) => e.data.matchId as string,
      teamId: (e) => e.data.teamId as string,
      result: (e) => e.data.result as 'win' | 'loss' | 'tie',
      score: (e) => e.data.score as { team: number; opponent: number },
      match: (e, _, ctx) => service.getMatch(ctx.actor, e.data.matchId as string),
    },
    PlayerJoinedEvent: {
      eventId: (e) => e.id,
      playerId: (e) => e.data.playerId as string,
      teamId: (e) => e.data.teamId as string,
      role: (e) => e.data.role as 'starter' | 'substitute',
      position: (e) => (e.data.position as string | null) ?? null,
      joinedDate: (e) => e.data.joinedDate as string,
      player: (e, _, ctx) => service.getPlayer(ctx.actor, e.data.playerId as string),
      team: (e, _, ctx) => ctx.teamLoader.load(e.data.teamId as string),
    },
    TeamUpdatedEvent: {
      eventId: (e) => e.id,
      teamId: (e) => e.data.teamId as string,
      changes: (e) => e.data.changes as string[],
      team: (e, _, ctx) => ctx.teamLoader.load(e.data.teamId as string),
    },
    EsportsEvent: {
      eventId: (e) => e.id,
      event: (e) => e.event,
    },
  }
}
