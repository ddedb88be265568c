import type { FastifyRequest } from 'fastify'
import type { Environment } from '../../platform/auth/scopes.js'
import { registerTokenRoute } from '../../platform/http/token-route.js'
import { defineService, type TypedApp } from '../../platform/service-kit/index.js'
import { esportsCore, esportsErrors, type EsportsService } from '../../subgraphs/esports/index.js'

const id = { type: 'string', minLength: 1, maxLength: 200 } as const
const object = { type: 'object' } as const
const paging = { page: { type: 'integer' }, limit: { type: 'integer' } } as const

/** The production base and the sandbox base: the same paths, data kept apart. */
export const ESPORTS_BASES: ReadonlyArray<{ base: string; environment: Environment }> = [
  { base: '/v1', environment: 'production' },
  { base: '/sandbox/v1', environment: 'sandbox' },
]

/**
 * The esports program management interface (Document 2, A): its 24 operations under /v1,
 * the same under /sandbox/v1 for sandbox credentials, and the webhook management extensions.
 * Errors come in Tessera's body with the document's codes (rest-adapters/esports/README.md).
 */
export const esportsService = defineService(esportsCore, {
  prefixes: ['/v1/auth', '/v1/programs', '/v1/teams', '/v1/players', '/v1/matches', '/v1/webhooks', '/sandbox/v1'],
  openapi: {
    title: 'Tessera esports program management',
    description: 'Scholastic esports programs, teams, players with consent, matches, careers and webhooks (v1).',
  },
  realm: 'tessera-esports',
  async routes(app, { domain }) {
    for (const { base, environment } of ESPORTS_BASES) {
      await app.register(async (scope) => {
        // A credential acts in one environment: a production token has no business at the
        // sandbox base, nor a sandbox token at the production one.
        scope.addHook('onRequest', async (request: FastifyRequest) => {
          if (request.principal && request.principal.environment !== environment) {
            throw esportsErrors.forRole(
              'unauthorized',
              `This credential belongs to the ${request.principal.environment} environment; ${base} serves ${environment} credentials only`,
            )
          }
        })
        await scope.register(async (tokenScope) =>
          registerTokenRoute(tokenScope, {
            path: `${base}/auth/token`,
            store: { issueToken: (input) => domain.issueToken({ ...input, environment }) },
            environment,
          }),
        )
        esportsRoutes(scope, domain, base)
      })
    }
  },
})

function esportsRoutes(app: TypedApp, domain: EsportsService, base: string) {
  // --- Programs ----------------------------------------------------------------------------
  app.get(
    `${base}/programs`,
    {
      schema: {
        summary: 'List programs',
        querystring: { type: 'object', properties: { institutionId: { type: 'string' }, status: { type: 'string' }, ...paging } },
      } as const,
    },
    async (request) => domain.listPrograms(request.principal, request.query),
  )

  app.get(
    `${base}/programs/:programId`,
    {
      schema: { summary: 'Get a program', params: { type: 'object', required: ['programId'], properties: { programId: id } } } as const,
    },
    async (request) => domain.getProgram(request.principal, request.params.programId),
  )

  app.post(`${base}/programs`, { schema: { summary: 'Create a program', body: object } as const }, async (request, reply) => {
    const program = await domain.createProgram(request.principal, request.body)
    return reply.code(201).header('location', `${base}/programs/${program.id}`).send(program)
  })

  app.patch(
    `${base}/programs/:programId`,
    {
      schema: {
        summary: 'Change a program (partial)',
        params: { type: 'object', required: ['programId'], properties: { programId: id } },
        body: object,
      } as const,
    },
    async (request) => domain.updateProgram(request.principal, request.params.programId, request.body),
  )

  app.delete(
    `${base}/programs/:programId`,
    {
      schema: { summary: 'Delete a program', params: { type: 'object', required: ['programId'], properties: { programId: id } } } as const,
    },
    async (request, reply) => {
      await domain.deleteProgram(request.principal, request.params.programId)
      return reply.code(204).send()
    },
  )

  // --- Teams -------------------------------------------------------------------------------
  app.get(
    `${base}/teams`,
    {
      schema: {
        summary: "List a program's teams",
        querystring: {
          type: 'object',
          properties: { programId: { type: 'string' }, game: { type: 'string' }, tier: { type: 'string' }, season: { type: 'integer' }, ...paging },
        },
      } as const,
    },
    async (request) => domain.listTeams(request.principal, request.query),
  )

  app.get(
    `${base}/teams/:teamId`,
    {
      schema: { summary: 'Get a team', params: { type: 'object', required: ['teamId'], properties: { teamId: id } } } as const,
    },
    async (request) => domain.getTeam(request.principal, request.params.teamId),
  )

  app.post(`${base}/teams`, { schema: { summary: 'Create a team', body: object } as const }, async (request, reply) => {
    const team = await domain.createTeam(request.principal, request.body)
    return reply.code(201).header('location', `${base}/teams/${team.id}`).send(team)
  })

  app.patch(
    `${base}/teams/:teamId/roster`,
    {
      schema: { summary: "Set a team's roster", params: { type: 'object', required: ['teamId'], properties: { teamId: id } }, body: object } as const,
    },
    async (request) => domain.updateRoster(request.principal, request.params.teamId, request.body),
  )

  // --- Players -----------------------------------------------------------------------------
  app.get(
    `${base}/players`,
    {
      schema: {
        summary: "List a program's players",
        querystring: {
          type: 'object',
          properties: { programId: { type: 'string' }, teamId: { type: 'string' }, grade: { type: 'integer' }, status: { type: 'string' }, ...paging },
        },
      } as const,
    },
    async (request) => domain.listPlayers(request.principal, request.query),
  )

  app.get(
    `${base}/players/:playerId`,
    {
      schema: { summary: 'Get a player', params: { type: 'object', required: ['playerId'], properties: { playerId: id } } } as const,
    },
    async (request) => domain.getPlayer(request.principal, request.params.playerId),
  )

  app.post(`${base}/players`, { schema: { summary: 'Register a player', body: object } as const }, async (request, reply) => {
    const player = await domain.createPlayer(request.principal, request.body)
    return reply.code(201).header('location', `${base}/players/${player.id}`).send(player)
  })

  app.patch(
    `${base}/players/:playerId`,
    {
      schema: { summary: 'Change a player (partial)', params: { type: 'object', required: ['playerId'], properties: { playerId: id } }, body: object } as const,
    },
    async (request) => domain.updatePlayer(request.principal, request.params.playerId, request.body),
  )

  app.post(
    `${base}/players/:playerId/teams`,
    {
      schema: { summary: 'Assign a player to a team', params: { type: 'object', required: ['playerId'], properties: { playerId: id } }, body: object } as const,
    },
    async (request) => domain.assignTeam(request.principal, request.params.playerId, request.body),
  )

  // --- Matches -----------------------------------------------------------------------------
  app.get(
    `${base}/matches`,
    {
      schema: {
        summary: "List a team's matches",
        querystring: {
          type: 'object',
          properties: { teamId: { type: 'string' }, type: { type: 'string' }, startDate: { type: 'string' }, endDate: { type: 'string' }, ...paging },
        },
      } as const,
    },
    async (request) => domain.listMatches(request.principal, request.query),
  )

  app.get(
    `${base}/matches/:matchId`,
    {
      schema: { summary: 'Get a match', params: { type: 'object', required: ['matchId'], properties: { matchId: id } } } as const,
    },
    async (request) => domain.getMatch(request.principal, request.params.matchId),
  )

  app.post(`${base}/matches`, { schema: { summary: 'Schedule a match', body: object } as const }, async (request, reply) => {
    const match = await domain.createMatch(request.principal, request.body)
    return reply.code(201).header('location', `${base}/matches/${match.id}`).send(match)
  })

  app.patch(
    `${base}/matches/:matchId/result`,
    {
      schema: { summary: 'Record a match result', params: { type: 'object', required: ['matchId'], properties: { matchId: id } }, body: object } as const,
    },
    async (request) => domain.recordResult(request.principal, request.params.matchId, request.body),
  )

  // --- Career ------------------------------------------------------------------------------
  app.get(
    `${base}/players/:playerId/career`,
    {
      schema: { summary: "A player's career profile", params: { type: 'object', required: ['playerId'], properties: { playerId: id } } } as const,
    },
    async (request) => domain.getCareer(request.principal, request.params.playerId),
  )

  app.patch(
    `${base}/players/:playerId/career/interests`,
    {
      schema: { summary: 'Set career interests', params: { type: 'object', required: ['playerId'], properties: { playerId: id } }, body: object } as const,
    },
    async (request) => domain.setInterests(request.principal, request.params.playerId, request.body),
  )

  app.post(
    `${base}/players/:playerId/career/experiences`,
    {
      schema: { summary: 'Add an experience', params: { type: 'object', required: ['playerId'], properties: { playerId: id } }, body: object } as const,
    },
    async (request, reply) => reply.code(201).send(await domain.addExperience(request.principal, request.params.playerId, request.body)),
  )

  app.post(
    `${base}/players/:playerId/career/achievements`,
    {
      schema: { summary: 'Add an achievement', params: { type: 'object', required: ['playerId'], properties: { playerId: id } }, body: object } as const,
    },
    async (request, reply) => reply.code(201).send(await domain.addAchievement(request.principal, request.params.playerId, request.body)),
  )

  // --- Webhooks (POST is the document's; the rest are Tessera's extensions) ----------------
  const webhookParams = { type: 'object', required: ['webhookId'], properties: { webhookId: id } } as const
  app.post(`${base}/webhooks`, { schema: { summary: 'Subscribe to events', body: object } as const }, async (request, reply) => {
    const webhook = await domain.createWebhook(request.principal, request.body)
    return reply.code(201).header('location', `${base}/webhooks/${webhook.id}`).send(webhook)
  })

  app.get(`${base}/webhooks`, async (request) => ({ data: await domain.listWebhooks(request.principal) }))

  app.get(`${base}/webhooks/:webhookId`, { schema: { summary: 'Get a webhook subscription', params: webhookParams } as const }, async (request) =>
    domain.getWebhook(request.principal, request.params.webhookId),
  )

  app.delete(
    `${base}/webhooks/:webhookId`,
    { schema: { summary: 'Delete a webhook subscription', params: webhookParams } as const },
    async (request, reply) => {
      await domain.deleteWebhook(request.principal, request.params.webhookId)
      return reply.code(204).send()
    },
  )

  app.post(`${base}/webhooks/:webhookId/enable`, { schema: { summary: 'Enable a disabled subscription', params: webhookParams } as const }, async (request) =>
    domain.enableWebhook(request.principal, request.params.webhookId),
  )

  app.get(
    `${base}/webhooks/:webhookId/deliveries`,
    {
      schema: {
        summary: 'Delivery log of a subscription, newest first',
        params: webhookParams,
        querystring: { type: 'object', properties: { limit: { type: 'integer' } } },
      } as const,
    },
    async (request) => ({ data: await domain.listDeliveries(request.principal, request.params.webhookId, request.query.limit) }),
  )

  app.post(
    `${base}/webhooks/:webhookId/deliveries/:deliveryId/redeliver`,
    {
      schema: {
        summary: 'Send a delivery again (same event id)',
        params: { type: 'object', required: ['webhookId', 'deliveryId'], properties: { webhookId: id, deliveryId: id } },
      } as const,
    },
    async (request, reply) => reply.code(202).send(await domain.redeliver(request.principal, request.params.webhookId, request.params.deliveryId)),
  )
}
