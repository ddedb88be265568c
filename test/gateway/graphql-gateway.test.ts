import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const gql = (t: TestTessera, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = t.auth) =>
  t.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload: { query, variables } })

describe('GraphQL through the gateway (embedded)', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())

  it('runs a mutation and reads it back with a nested entity', async () => {
    const raised = await gql(t, 'mutation($i: AlertInput!) { raiseAlert(input: $i) { id status priority escalationLevel } }', {
      i: { deviceId: 'vent-3', priority: 'MEDIUM', message: 'SpO2 low' },
    })
    expect(raised.statusCode).toBe(200)
    const alert = raised.json().data.raiseAlert
    expect(alert).toMatchObject({ status: 'ACTIVE', priority: 'MEDIUM', escalationLevel: 0 })

    const read = await gql(t, 'query($id: ID!) { alert(id: $id) { id message device { id alerts { total items { id } } } } }', { id: alert.id })
    expect(read.json().data.alert).toEqual({ id: alert.id, message: 'SpO2 low', device: { id: 'vent-3', alerts: { total: 1, items: [{ id: alert.id }] } } })
  })

  it('shares one core with REST: an alert raised over REST is acknowledged over GraphQL', async () => {
    const rest = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: 'pump-1', priority: 'low' } })
    const id = rest.json().alert_id
    const ack = await gql(t, 'mutation($id: ID!) { acknowledgeAlert(id: $id) { status acknowledgedBy } }', { id })
    expect(ack.json().data.acknowledgeAlert.status).toBe('ACKNOWLEDGED')
    const again = await gql(t, 'mutation($id: ID!) { acknowledgeAlert(id: $id) { status } }', { id })
    const [error] = again.json().errors
    expect(error.extensions).toMatchObject({ code: 'CONFLICT', http: { status: 409 } })
    expect(again.statusCode).toBe(200)
    const viaRest = await t.app.inject({ method: 'GET', url: `/v1/medical/alert/${id}`, headers: t.auth })
    expect(viaRest.json().status).toBe('acknowledged')
  })

  it('simulates a Bell circuit through the graph', async () => {
    const res = await gql(t, 'mutation { runCircuit(input: { qubits: 2, gates: ["H 0", "CNOT 0 1"] }) { probabilities } }')
    expect(res.json().data.runCircuit.probabilities).toEqual({ '00': 0.5, '11': 0.5 })
  })

  it('carries the service error codes in extensions, with the field', async () => {
    const res = await gql(t, 'mutation { runCircuit(input: { qubits: 2, gates: ["TOFFOLI 0 1"] }) { id } }')
    const [error] = res.json().errors
    expect(error.extensions.code).toBe('INVALID_REQUEST')
    expect(error.extensions.http).toEqual({ status: 400 })
    expect(error.extensions.details.field).toBe('gates[0]')
  })

  it('refuses a NUL character in variables or literals with the service code, not a 500', async () => {
    const viaVariable = await gql(t, 'mutation($i: AlertInput!) { raiseAlert(input: $i) { id } }', {
      i: { deviceId: 'pump-1', priority: 'HIGH', message: 'a\u0000b' },
    })
    expect(viaVariable.json().errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: '$i.message' } })
    const viaLiteral = await gql(t, 'mutation { raiseAlert(input: { deviceId: "pump-1", priority: HIGH, message: "a\\u0000b" }) { id } }')
    expect(viaLiteral.json().errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'query' } })
  })

  it('is answered by the service, not the gateway, when the credential is missing or wrong', async () => {
    const none = await gql(t, '{ alerts { total } }', undefined, {})
    expect(none.json().errors[0].extensions.code).toBe('UNAUTHORIZED')
    const bad = await gql(t, '{ alerts { total } }', undefined, { authorization: 'Bearer tsr_nope' })
    expect(bad.json().errors[0].extensions.code).toBe('UNAUTHORIZED')
  })

  it('honours scopes: a read-only key cannot mutate', async () => {
    const { key } = await t.credentials!.createApiKey({ name: 'reader', scopes: ['devices:read'] })
    const headers = { authorization: `Bearer ${key}` }
    expect((await gql(t, '{ alerts { total } }', undefined, headers)).json().data.alerts.total).toBeGreaterThanOrEqual(0)
    const res = await gql(t, 'mutation { raiseAlert(input: { deviceId: "x", priority: HIGH }) { id } }', undefined, headers)
    expect(res.json().errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: 'devices:write' } })
  })

  it('accepts an OAuth access token from the client-credentials grant', async () => {
    const token = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=tessera-test-client&client_secret=tss_test_development_secret_0123456789&scope=devices:read',
    })
    expect(token.statusCode).toBe(200)
    expect(token.headers['cache-control']).toBe('no-store')
    const { access_token, token_type, expires_in, scope } = token.json()
    expect({ token_type, scope }).toEqual({ token_type: 'Bearer', scope: 'devices:read' })
    expect(expires_in).toBeGreaterThan(0)
    const res = await gql(t, '{ alerts { total } }', undefined, { authorization: `Bearer ${access_token}` })
    expect(res.json().errors).toBeUndefined()
    const write = await gql(t, 'mutation { raiseAlert(input: { deviceId: "x", priority: HIGH }) { id } }', undefined, {
      authorization: `Bearer ${access_token}`,
    })
    expect(write.json().errors[0].extensions.code).toBe('FORBIDDEN')
  })

  it('answers token errors as RFC 6749 says', async () => {
    const post = (payload: Record<string, string>, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json', ...headers }, payload })
    const wrongSecret = await post({ grant_type: 'client_credentials', client_id: 'tessera-test-client', client_secret: 'nope-nope-nope-nope-nope' })
    expect(wrongSecret.statusCode).toBe(401)
    expect(wrongSecret.json().error).toBe('invalid_client')
    expect((await post({ grant_type: 'password', client_id: 'a', client_secret: 'b' })).json().error).toBe('unsupported_grant_type')
    expect((await post({ client_id: 'a', client_secret: 'b' })).json().error).toBe('invalid_request')
    const basic = Buffer.from('tessera-test-client:tss_test_development_secret_0123456789').toString('base64')
    const viaBasic = await post({ grant_type: 'client_credentials', scope: 'nothing:here' }, { authorization: `Basic ${basic}` })
    expect(viaBasic.json().error).toBe('invalid_scope')
  })

  it('rejects queries deeper or costlier than the limits before planning them', async () => {
    const limited = await build({ env: { TESSERA_MAX_QUERY_DEPTH: '3', TESSERA_MAX_QUERY_COST: '200' } })
    try {
      const deep = await gql(limited, '{ alerts { items { device { alerts { total } } } } }')
      expect(deep.json().errors[0].extensions.code).toBe('QUERY_TOO_DEEP')
      const costly = await gql(limited, '{ alerts(limit: 100) { items { id deviceId status priority message raisedAt } } }')
      expect(costly.json().errors[0].extensions.code).toBe('QUERY_TOO_COSTLY')
      const fine = await gql(limited, '{ alerts(limit: 5) { total items { id } } }')
      expect(fine.json().errors).toBeUndefined()
    } finally {
      await limited.close()
    }
  })

  it('blocks simple cross-site requests (CSRF prevention)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/graphql?query=%7B__typename%7D' })
    expect(res.statusCode).toBe(400)
    const ok = await t.app.inject({ method: 'GET', url: '/graphql?query=%7B__typename%7D', headers: { 'apollo-require-preflight': 'true' } })
    expect(ok.json()).toEqual({ data: { __typename: 'Query' } })
  })

  it('serves the explorer page to browsers and can switch introspection off', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } })
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.body).toContain('<title>Tessera explorer</title>')
    const closed = await build({ env: { TESSERA_INTROSPECTION: 'false' } })
    try {
      const res = await gql(closed, '{ __schema { types { name } } }')
      expect(res.json().errors[0].message).toMatch(/introspection/i)
    } finally {
      await closed.close()
    }
  })

  it('puts rate-limit headers on /graphql and says 429 past the limit', async () => {
    const small = await build({ env: { TESSERA_RATE_LIMIT_MAX: '2' } })
    try {
      const statuses = []
      for (let i = 0; i < 3; i++) {
        const res = await gql(small, '{ __typename }')
        statuses.push(res.statusCode)
        expect(res.headers['x-ratelimit-limit']).toBe('2')
      }
      expect(statuses).toEqual([200, 200, 429])
    } finally {
      await small.close()
    }
  })

  it('reports health, readiness and metrics', async () => {
    expect((await t.app.inject({ url: '/health' })).json()).toEqual({ status: 'ok' })
    expect((await t.app.inject({ url: '/ready' })).json()).toEqual({ status: 'ready', checks: { database: 'ok', jobs: 'running', events: 'listening' } })
    const metrics = await t.app.inject({ url: '/metrics' })
    expect(metrics.body).toContain('tessera_http_requests_total')
    expect(metrics.body).toContain('tessera_graphql_operations_total')
  })

  it('keeps an incoming request id and makes one otherwise', async () => {
    const kept = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'abc-123' } })
    expect(kept.headers['x-request-id']).toBe('abc-123')
    const made = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'bad id with spaces' } })
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})
