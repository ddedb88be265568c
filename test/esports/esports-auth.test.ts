import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError } from '../support/standard-error.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, keyFor, playerBody, programBody, restClient, tokenFor } from './fixtures.js'

describe('esports token endpoint, sandbox and authorization on both faces', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['esports'] })
  })
  afterAll(() => t.close())

  const token = (payload: object | string, url = '/v1/auth/token', form = false) =>
    t.app.inject({
      method: 'POST',
      url,
      ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: payload as string } : { payload: payload as object }),
    })

  it('issues client-credentials tokens from JSON and from a form, narrowed to the scopes asked for', async () => {
    const { clientId, clientSecret } = await t.credentials!.createClient({ name: 'sis', scopes: ['programs:read', 'programs:write', 'teams:read'] })
    const json = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'programs:read teams:read' })
    expect(json.statusCode, json.body).toBe(200)
    expect(json.headers['cache-control']).toBe('no-store')
    const body = json.json()
    expect(body).toEqual({ access_token: expect.stringMatching(/^tst_/), token_type: 'Bearer', expires_in: 3600, scope: 'programs:read teams:read' })
    const reader = restClient(t, `Bearer ${body.access_token}`)
    expect((await reader.get('/programs')).statusCode).toBe(200)
    expectError(await reader.post('/programs', programBody()), 403, 'FORBIDDEN')

    const form = await token(
      `grant_type=client_credentials&client_id=${clientId}&client_secret=${encodeURIComponent(clientSecret)}&scope=programs%3Awrite`,
      '/v1/auth/token',
      true,
    )
    expect(form.statusCode, form.body).toBe(200)
    expect(form.json().scope).toBe('programs:write')
    const all = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })
    expect(all.json().scope.split(' ').sort()).toEqual(['programs:read', 'programs:write', 'teams:read'])
  })

  it('answers RFC 6749 errors: invalid_client 401, unsupported_grant_type 400, invalid_scope 400', async () => {
    const { clientId, clientSecret } = await t.credentials!.createClient({ name: 'narrow', scopes: ['programs:read'] })
    const wrong = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'nope' })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().error).toBe('invalid_client')
    const unknown = await token(`grant_type=client_credentials&client_id=ghost&client_secret=x`, '/v1/auth/token', true)
    expect(unknown.statusCode).toBe(401)
    expect(unknown.json().error).toBe('invalid_client')
    const grant = await token({ grant_type: 'password', client_id: clientId, client_secret: clientSecret })
    expect(grant.statusCode).toBe(400)
    expect(grant.json().error).toBe('unsupported_grant_type')
    const scope = await token({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'programs:read teams:write' })
    expect(scope.statusCode).toBe(400)
    expect(scope.json()).toEqual({ error: 'invalid_scope', error_description: expect.stringContaining('teams:write') })
  })

  it('keeps the sandbox apart: its own token endpoint, clients, base path and data', async () => {
    const prod = await tokenFor(t, ALL, 'production')
    const sandbox = await tokenFor(t, ALL, 'sandbox')
    // Each token endpoint serves its own environment's clients only.
    const cross = await token(
      { grant_type: 'client_credentials', client_id: prod.client.clientId, client_secret: prod.client.clientSecret },
      '/sandbox/v1/auth/token',
    )
    expect(cross.statusCode).toBe(401)
    expect(cross.json().error).toBe('invalid_client')
    const back = await token(
      { grant_type: 'client_credentials', client_id: sandbox.client.clientId, client_secret: sandbox.client.clientSecret },
      '/v1/auth/token',
    )
    expect(back.json().error).toBe('invalid_client')

    const live = restClient(t, prod.authorization, 'production')
    const play = restClient(t, sandbox.authorization, 'sandbox')
    const real = await live.created('/programs', programBody({ institutionId: 'inst-iso' }))
    const fake = await play.created('/programs', programBody({ institutionId: 'inst-iso', name: 'Sandbox program' }))
    expect((await play.get('/programs?institutionId=inst-iso')).json().data.map((p: { id: string }) => p.id)).toEqual([fake.id])
    expect((await live.get('/programs?institutionId=inst-iso')).json().data.map((p: { id: string }) => p.id)).toEqual([real.id])
    expectError(await play.get(`/programs/${real.id}`), 404, 'NOT_FOUND')
    expectError(await play.patch(`/programs/${real.id}`, { program: { name: 'hijacked' } }), 404, 'NOT_FOUND')
    expectError(await play.delete(`/programs/${real.id}`), 404, 'NOT_FOUND')
    expectError(await live.get(`/programs/${fake.id}`), 404, 'NOT_FOUND')
    expectError(await play.post('/players', playerBody(real.id, 1)), 422, 'VALIDATION_ERROR', 'programId')
    expect((await live.get(`/programs/${real.id}`)).json().program.name).toBe('Lincoln Esports')
    // A token at the other environment's base is refused outright.
    expectError(await t.app.inject({ method: 'GET', url: '/v1/programs', headers: { authorization: sandbox.authorization } }), 401, 'UNAUTHORIZED')
    expectError(await t.app.inject({ method: 'GET', url: '/sandbox/v1/programs', headers: { authorization: prod.authorization } }), 401, 'UNAUTHORIZED')
    // GraphQL has one endpoint: the token's environment decides what it sees.
    const q = async (authorization: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { authorization },
          payload: { query: '{ programs(institutionId: "inst-iso") { data { id } } }' },
        })
      ).json().data.programs.data
    expect(await q(sandbox.authorization)).toEqual([{ id: fake.id }])
    expect(await q(prod.authorization)).toEqual([{ id: real.id }])
  })

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After when a credential runs over its limit', async () => {
    const limited = await build({ services: ['esports'], env: { TESSERA_RATE_LIMIT_MAX: '2', TESSERA_RATE_LIMIT_WINDOW_SECONDS: '3600' } })
    try {
      const send = () => limited.app.inject({ method: 'GET', url: '/v1/programs', headers: limited.auth })
      expect((await send()).statusCode).toBe(200)
      expect((await send()).statusCode).toBe(200)
      const over = await send()
      expectError(over, 429, 'RATE_LIMIT_EXCEEDED')
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0)
    } finally {
      await limited.close()
    }
  })

  it('answers 401 without a credential, 403 without the scope and 404 for unknown ids on every endpoint', async () => {
    const none = '00000000-0000-4000-8000-000000000000'
    const endpoints: Array<[method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, scope: string, body?: object]> = [
      ['GET', '/programs', 'programs:read'],
      ['GET', `/programs/${none}`, 'programs:read'],
      ['POST', '/programs', 'programs:write', {}],
      ['PATCH', `/programs/${none}`, 'programs:write', {}],
      ['DELETE', `/programs/${none}`, 'programs:write'],
      ['GET', `/teams?programId=${none}`, 'teams:read'],
      ['GET', `/teams/${none}`, 'teams:read'],
      ['POST', '/teams', 'teams:write', {}],
      ['PATCH', `/teams/${none}/roster`, 'teams:write', { starters: [] }],
      ['GET', `/players?programId=${none}`, 'players:read'],
      ['GET', `/players/${none}`, 'players:read'],
      ['POST', '/players', 'players:write', {}],
      ['PATCH', `/players/${none}`, 'players:write', {}],
      ['POST', `/players/${none}/teams`, 'players:write', { teamId: none, role: 'starter' }],
      ['GET', `/matches?teamId=${none}`, 'matches:read'],
      ['GET', `/matches/${none}`, 'matches:read'],
      ['POST', '/matches', 'matches:write', {}],
      ['PATCH', `/matches/${none}/result`, 'matches:write', { score: { team: 1, opponent: 0 }, outcome: 'win' }],
      ['GET', `/players/${none}/career`, 'career:read'],
      ['PATCH', `/players/${none}/career/interests`, 'career:write', { interests: [] }],
      ['POST', `/players/${none}/career/experiences`, 'career:write', { type: 'workshop', title: 't', dateRange: { start: '2026-01-01T00:00:00Z' } }],
      ['POST', `/players/${none}/career/achievements`, 'career:write', { type: 'award', title: 't', date: '2026-01-01T00:00:00Z' }],
      ['POST', '/webhooks', 'webhooks:write', {}],
      ['GET', '/webhooks', 'webhooks:read'],
      ['GET', `/webhooks/${none}`, 'webhooks:read'],
      ['DELETE', `/webhooks/${none}`, 'webhooks:write'],
      ['GET', `/webhooks/${none}/deliveries`, 'webhooks:read'],
      ['POST', `/webhooks/${none}/enable`, 'webhooks:write', {}],
      ['POST', `/webhooks/${none}/deliveries/${none}/redeliver`, 'webhooks:write', {}],
    ]
    const wrong = (await keyFor(t, ['career:read'])).authorization
    const all = (await keyFor(t, ALL)).authorization
    for (const [method, path, scope, body] of endpoints) {
      const call = (authorization?: string) =>
        t.app.inject({ method, url: `/v1${path}`, headers: authorization ? { authorization } : {}, ...(body ? { payload: body } : {}) })
      expectError(await call(), 401, 'UNAUTHORIZED')
      if (scope !== 'career:read') expectError(await call(wrong), 403, 'FORBIDDEN')
      const res = await call(all)
      if (!path.includes(none)) continue
      expect({ method, path, status: res.statusCode }).toEqual({ method, path, status: 404 })
    }
  })

  it('masks a fault as 500 INTERNAL_ERROR quoting the request id', async () => {
    const domain = t.services.esports!.domain as { listPrograms: (...args: unknown[]) => Promise<unknown> }
    const original = domain.listPrograms
    domain.listPrograms = async () => {
      throw new Error('database on fire')
    }
    try {
      const res = await t.app.inject({ method: 'GET', url: '/v1/programs', headers: t.auth })
      const error = expectError(res, 500, 'INTERNAL_ERROR')
      expect(error.message).toContain(error.requestId)
      expect(res.body).not.toContain('database on fire')
    } finally {
      domain.listPrograms = original
    }
  })

  // The same rule on both faces: no credential → UNAUTHORIZED, wrong scope → FORBIDDEN, right scope → allowed.
  const parity: Array<{
    scope: string
    rest: (id: string) => { method: 'GET' | 'POST' | 'PATCH'; url: string; payload?: object }
    graphql: (id: string) => string
  }> = [
    { scope: 'programs:read', rest: (id) => ({ method: 'GET', url: `/v1/programs/${id}` }), graphql: (id) => `{ program(id: "${id}") { id } }` },
    {
      scope: 'programs:write',
      rest: (id) => ({ method: 'PATCH', url: `/v1/programs/${id}`, payload: { program: { name: 'Renamed' } } }),
      graphql: (id) => `mutation { updateProgram(id: "${id}", input: { program: { name: "Renamed" } }) { id } }`,
    },
    {
      scope: 'teams:read',
      rest: (id) => ({ method: 'GET', url: `/v1/teams?programId=${id}` }),
      graphql: (id) => `{ teams(programId: "${id}") { data { id } } }`,
    },
    {
      scope: 'players:read',
      rest: (id) => ({ method: 'GET', url: `/v1/players?programId=${id}` }),
      graphql: (id) => `{ players(programId: "${id}") { data { id } } }`,
    },
    {
      scope: 'teams:write',
      rest: (id) => ({ method: 'POST', url: '/v1/teams', payload: { programId: id, name: 'P', game: 'Rocket League', tier: 'jv', season: { year: 2026 } } }),
      graphql: (id) => `mutation { createTeam(input: { programId: "${id}", name: "P", game: "Rocket League", tier: jv, season: { year: 2026 } }) { id } }`,
    },
  ]

  it('agrees between REST and GraphQL on who may do what', async () => {
    const admin = restClient(t, (await keyFor(t, ALL)).authorization)
    const { id } = await admin.created('/programs', programBody())
    for (const op of parity) {
      const wrong = (await keyFor(t, [op.scope.endsWith(':read') ? 'career:read' : op.scope.replace(':write', ':read')])).authorization
      const right = (await keyFor(t, [op.scope])).authorization
      for (const [who, authorization, expected] of [
        ['nobody', undefined, 'UNAUTHORIZED'],
        ['wrong scope', wrong, 'FORBIDDEN'],
        ['right scope', right, null],
      ] as const) {
        const headers = authorization ? { authorization } : {}
        const rest = await t.app.inject({ ...op.rest(id), headers })
        const graph = (await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: op.graphql(id) } })).json()
        const restCode = rest.statusCode < 300 ? null : rest.json().error.code
        const graphCode = graph.errors?.[0]?.extensions?.code ?? null
        expect({ op: op.scope, who, rest: restCode, graphql: graphCode }).toEqual({ op: op.scope, who, rest: expected, graphql: expected })
      }
    }
  })
})
