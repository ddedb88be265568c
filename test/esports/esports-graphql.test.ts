import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collect, wsClient } from '../support/graphql-ws-client.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, keyFor, playerBody, programBody, restClient } from './fixtures.js'

describe('esports GraphQL face', () => {
  let t: TestTessera
  let authorization: string
  const gql = async (query: string, variables?: Record<string, unknown>, auth = authorization) => {
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: { authorization: auth }, payload: { query, variables } })
    return res.json() as { data?: Record<string, any>; errors?: Array<{ message: string; extensions: { code: string; details?: { field?: string } } }> }
  }
  beforeAll(async () => {
    t = await build({ services: ['esports'], listen: true })
    authorization = (await keyFor(t, ALL)).authorization
  })
  afterAll(() => t.close())

  it('runs the whole flow through mutations and reads it back through queries and entities', async () => {
    const { data: p } = await gql(`mutation($input: CreateProgramInput!) { createProgram(input: $input) { id standard program { status games } } }`, {
      input: programBody(),
    })
    const programId = p!.createProgram.id
    expect(p!.createProgram).toMatchObject({ standard: 'OneRoster-1.2', program: { status: 'planning' } })
    const team = (
      await gql(
        `mutation { createTeam(input: { programId: "${programId}", name: "Varsity", game: "Rocket League", tier: varsity, season: { year: 2026 } }) { id } }`,
      )
    ).data!.createTeam
    const player = (await gql(`mutation($input: CreatePlayerInput!) { createPlayer(input: $input) { id minor } }`, { input: playerBody(programId, 1) })).data!
      .createPlayer
    const joined = await gql(
      `mutation { assignPlayerToTeam(playerId: "${player.id}", input: { teamId: "${team.id}", role: starter, position: "striker" }) { teams { teamId role position } } }`,
    )
    expect(joined.data!.assignPlayerToTeam.teams).toEqual([{ teamId: team.id, role: 'starter', position: 'striker' }])
    const match = (
      await gql(
        `mutation { createMatch(input: { type: league, teamId: "${team.id}", opponent: { name: "Eagles" }, schedule: { date: "2026-11-02T18:00:00Z", location: "online" } }) { id roster { starters } } }`,
      )
    ).data!.createMatch
    expect(match.roster.starters).toEqual([player.id])
    const result = await gql(
      `mutation { recordMatchResult(matchId: "${match.id}", input: { score: { team: 3, opponent: 0 }, outcome: win, duration: 1500 }) { status team { record { wins losses ties } seasonRecord { outcome wins } } } }`,
    )
    expect(result.data!.recordMatchResult).toEqual({
      status: 'completed',
      team: { record: { wins: 1, losses: 0, ties: 0 }, seasonRecord: [{ outcome: 'win', wins: 1 }] },
    })
    await gql(`mutation { setCareerInterests(playerId: "${player.id}", interests: ["coach"]) { interests } }`)
    const read = await gql(
      `{ team(id: "${team.id}") { name matches { data { id result { outcome } } pagination { total } } } player(id: "${player.id}") { career { interests summary { experienceCount } } } }`,
    )
    expect(read.data).toEqual({
      team: { name: 'Varsity', matches: { data: [{ id: match.id, result: { outcome: 'win' } }], pagination: { total: 1 } } },
      player: { career: { interests: ['coach'], summary: { experienceCount: 0 } } },
    })
    const bad = await gql(`mutation { updateProgram(id: "${programId}", input: { program: { status: suspended } }) { id } }`)
    expect(bad.errors![0]!.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'program.status' } })
  })

  it('hands other services only players who consented to data sharing', async () => {
    const api = restClient(t, authorization)
    const { id: programId } = await api.created('/programs', programBody())
    const sharing = await api.created('/players', playerBody(programId, 10))
    const private_ = await api.created('/players', playerBody(programId, 11, { dataSharing: false }))
    const entities = await t.services.esports!.subgraph.execute(
      {
        query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Player { id personal { gamerTag } } } }',
        variables: {
          r: [
            { __typename: 'Player', id: sharing.id },
            { __typename: 'Player', id: private_.id },
          ],
        },
      },
      { authorization },
    )
    expect(entities.data).toEqual({ _entities: [{ id: sharing.id, personal: { gamerTag: 'Player10' } }, null] })
    // The program itself still sees the player.
    expect((await gql(`{ player(id: "${private_.id}") { id } }`)).data!.player.id).toBe(private_.id)
  })

  it('manages webhooks with the same rules as REST, never exposing the secret', async () => {
    const refused = await gql(
      'mutation { createWebhook(input: { url: "http://127.0.0.1:9/hook", events: ["team.updated"], secret: "whsec-0123456789abcdef" }) { id } }',
    )
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'url' } })
    const created = await gql(
      'mutation { createWebhook(input: { url: "https://93.184.216.34/hook", events: ["team.updated", "match.completed"], secret: "whsec-0123456789abcdef" }) { id url events status } }',
    )
    expect(created.data!.createWebhook).toMatchObject({ url: 'https://93.184.216.34/hook', events: ['team.updated', 'match.completed'], status: 'active' })
    const id = created.data!.createWebhook.id
    const rest = (await t.app.inject({ method: 'GET', url: `/v1/webhooks/${id}`, headers: { authorization } })).json()
    expect(rest).toMatchObject({ id, status: 'active' })
    expect(JSON.stringify(rest)).not.toContain('whsec-0123456789abcdef')
    expect((await gql(`{ webhookDeliveries(webhookId: "${id}") { id } }`)).data!.webhookDeliveries).toEqual([])
    const reader = (await keyFor(t, ['webhooks:read'])).authorization
    const denied = await gql(`mutation { deleteWebhook(id: "${id}") }`, undefined, reader)
    expect(denied.errors![0]!.extensions.code).toBe('FORBIDDEN')
    expect((await gql(`mutation { deleteWebhook(id: "${id}") }`)).data!.deleteWebhook).toBe(true)
    expect((await gql(`{ webhook(id: "${id}") { id } }`)).errors![0]!.extensions.code).toBe('NOT_FOUND')
  })

  it("mirrors webhook events as subscriptions through the gateway, for the token's environment only", async () => {
    const api = restClient(t, authorization)
    const { id: programId } = await api.created('/programs', programBody())
    const team = await api.created('/teams', { programId, name: 'Subs', game: 'Rocket League', tier: 'jv', season: { year: 2026 } })
    const player = await api.created('/players', playerBody(programId, 20))
    const client = wsClient(`${t.url}/graphql`, { authorization })
    const sandboxClient = wsClient(`${t.url}/graphql`, { authorization: (await keyFor(t, ALL, 'sandbox')).authorization })
    try {
      const joined = collect(client, { query: `subscription { playerJoined(teamId: "${team.id}") { playerId role player { personal { gamerTag } } } }` }, 1)
      const updated = collect(client, { query: `subscription { teamUpdated(teamId: "${team.id}") { changes team { roster { starters } } } }` }, 1)
      const raw = collect(client, { query: 'subscription { esportsEvents(events: ["player.joined"]) { event data } }' }, 1)
      const sandbox = collect(sandboxClient, { query: 'subscription { esportsEvents(events: ["player.joined"]) { event } }' }, 1, 1500)
      await Promise.all([joined.ready, updated.ready, raw.ready, sandbox.ready])
      await api.post(`/players/${player.id}/teams`, { teamId: team.id, role: 'starter' })
      expect((await joined.results)[0]!.data).toEqual({
        playerJoined: { playerId: player.id, role: 'starter', player: { personal: { gamerTag: 'Player20' } } },
      })
      expect((await updated.results)[0]!.data).toEqual({ teamUpdated: { changes: ['roster'], team: { roster: { starters: [player.id] } } } })
      expect((await raw.results)[0]!.data!.esportsEvents).toMatchObject({
        event: 'player.joined',
        data: { playerId: player.id, teamId: team.id, role: 'starter' },
      })
      await expect(sandbox.results).rejects.toThrow(/timed out/)
    } finally {
      await client.dispose()
      await sandboxClient.dispose()
    }
  })
})
