import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, TEST_CREDENTIALS, type TestTessera } from '../helper.js'
import { collect, wsClient } from '../support/graphql-ws-client.js'

describe('subscriptions through the gateway over a real WebSocket', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ listen: true, env: { TESSERA_ALERT_ESCALATE_HIGH_SECONDS: '1', TESSERA_ALERT_MAX_ESCALATIONS: '1' } })
  })
  afterAll(() => t.close())
  const gql = `${'/graphql'}`

  it('delivers new alerts of the subscribed device only, with credentials from connection_init', async () => {
    const client = wsClient(`${t.url}${gql}`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const sub = collect(client, { query: 'subscription { alertRaised(deviceId: "icu-4") { id deviceId priority status } }' }, 1)
      await sub.ready
      await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: 'other', priority: 'high' } })
      const raised = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: 'icu-4', priority: 'medium' } })
      const [event] = await sub.results
      expect(event?.data?.alertRaised).toEqual({ id: raised.json().alert_id, deviceId: 'icu-4', priority: 'MEDIUM', status: 'ACTIVE' })
    } finally {
      await client.dispose()
    }
  })

  it('delivers escalations of unacknowledged alerts (a job, after the configured delay)', async () => {
    const client = wsClient(`${t.url}${gql}`, { Authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const sub = collect(client, { query: 'subscription { alertEscalated(deviceId: "ward-9") { id escalationLevel escalatedAt } }' }, 1, 15_000)
      await sub.ready
      const raised = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: 'ward-9', priority: 'high' } })
      const [event] = await sub.results
      expect(event?.data?.alertEscalated).toMatchObject({ id: raised.json().alert_id, escalationLevel: 1 })
    } finally {
      await client.dispose()
    }
  })

  it('streams dwell and selection events from gaze points', async () => {
    const client = wsClient(`${t.url}${gql}`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const sub = collect(client, { query: 'subscription { dwellEvents(deviceId: "tracker-1") { kind x y dwellMs } }' }, 2)
      await sub.ready
      const start = Date.now() - 5_000
      for (let i = 0; i <= 36; i++) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/aac/signal',
          headers: t.auth,
          payload: { type: 'eye_tracker', device_id: 'tracker-1', data: { gaze_point: { x: 400 + (i % 3), y: 300 - (i % 2) }, timestamp: start + i * 33 } },
        })
        expect(res.statusCode).toBe(201)
      }
      const events = (await sub.results).map((r) => r.data?.dwellEvents as { kind: string; dwellMs: number | null })
      expect(events.map((e) => e.kind)).toEqual(['DWELL_STARTED', 'SELECTION'])
      expect(events[1]!.dwellMs).toBeGreaterThanOrEqual(1000)
    } finally {
      await client.dispose()
    }
  })

  it('refuses a subscription without valid credentials', async () => {
    const client = wsClient(`${t.url}${gql}`, { authorization: 'Bearer tsr_not_a_key' })
    try {
      const sub = collect(client, { query: 'subscription { alertRaised { id } }' }, 1)
      const [result] = await sub.results
      expect(result?.errors?.[0]?.extensions?.code ?? result?.errors?.[0]?.message).toMatch(/UNAUTHORIZED|credentials/)
    } finally {
      await client.dispose()
    }
  })

  it('validates subscriptions against the supergraph before forwarding', async () => {
    const client = wsClient(`${t.url}${gql}`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const sub = collect(client, { query: 'subscription { alertRaised { nope } }' }, 1)
      const [result] = await sub.results
      expect(result?.errors?.[0]?.message).toMatch(/Cannot query field "nope"/)
    } finally {
      await client.dispose()
    }
  })

  it('answers queries sent over the socket too', async () => {
    const client = wsClient(`${t.url}${gql}`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const sub = collect(client, { query: '{ circuitLimits { maxQubits } }' }, 1)
      const [result] = await sub.results
      expect(result?.data).toEqual({ circuitLimits: { maxQubits: 16 } })
    } finally {
      await client.dispose()
    }
  })
})
