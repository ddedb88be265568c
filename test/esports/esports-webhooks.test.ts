import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError } from '../support/standard-error.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, keyFor, playerBody, programBody, restClient } from './fixtures.js'
import { startReceiver, verifyDelivery } from './webhook-receiver.js'

const SECRET = 'whsec-test-0123456789abcdef'

describe('esports webhooks', () => {
  let t: TestTessera
  let api: ReturnType<typeof restClient>
  let programId: string
  beforeAll(async () => {
    t = await build({
      services: ['esports'],
      env: {
        TESSERA_WEBHOOKS_ALLOW_PRIVATE: 'true',
        TESSERA_WEBHOOKS_TIMEOUT_MS: '1000',
        TESSERA_WEBHOOKS_RETRY_BASE_MS: '50',
        TESSERA_WEBHOOKS_MAX_ATTEMPTS: '3',
        TESSERA_WEBHOOKS_POLL_MS: '200',
      },
    })
    api = restClient(t, (await keyFor(t, ALL)).authorization)
    programId = (await api.created('/programs', programBody())).id
  })
  afterAll(() => t.close())

  const teamIn = async () =>
    (await api.created('/teams', { programId, name: `T${Math.random()}`, game: 'Rocket League', tier: 'varsity', season: { year: 2026 } })).id as string
  const deliveries = async (webhookId: string) => (await api.get(`/webhooks/${webhookId}/deliveries`)).json().data
  const until = async <T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 8000): Promise<T> => {
    const end = Date.now() + timeoutMs
    for (;;) {
      const value = await read()
      if (ok(value) || Date.now() > end) return value
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  it('subscribes without ever showing the secret, and delivers signed events to a local receiver', async () => {
    const receiver = await startReceiver()
    try {
      const res = await api.post('/webhooks', { url: receiver.url, events: ['player.joined', 'team.updated', 'match.completed'], secret: SECRET })
      expect(res.statusCode, res.body).toBe(201)
      const webhook = res.json()
      expect(webhook).toMatchObject({ url: receiver.url, events: ['player.joined', 'team.updated', 'match.completed'], status: 'active' })
      expect(res.body).not.toContain(SECRET)
      expect(JSON.stringify((await api.get(`/webhooks/${webhook.id}`)).json())).not.toContain(SECRET)
      expect((await api.get('/webhooks')).json().data.map((w: { id: string }) => w.id)).toContain(webhook.id)

      const teamId = await teamIn()
      const player = await api.created('/players', playerBody(programId, 1))
      await api.post(`/players/${player.id}/teams`, { teamId, role: 'starter', position: 'goalie' })
      const match = await api.created('/matches', { type: 'league', teamId, opponent: { name: 'Eagles' }, schedule: { date: '2026-11-03T18:00:00Z' } })
      await api.patch(`/matches/${match.id}/result`, { score: { team: 4, opponent: 2 }, outcome: 'win' })
      await receiver.waitFor(4)
      const byEvent = (e: string) => receiver.received.filter((h) => h.json.event === e)
      for (const hook of receiver.received) {
        expect(verifyDelivery(hook, SECRET)).toBe(true)
        expect(verifyDelivery(hook, 'another-secret-of-some-length')).toBe(false)
        expect(Object.keys(hook.json)).toEqual(['id', 'event', 'timestamp', 'data', 'signature'])
        expect(hook.json.signature).toMatch(/^sha256=[0-9a-f]{64}$/)
      }
      expect(byEvent('player.joined')[0]!.json.data).toEqual({
        playerId: player.id,
        teamId,
        programId,
        role: 'starter',
        position: 'goalie',
        joinedDate: expect.any(String),
      })
      expect(byEvent('match.completed')[0]!.json.data).toEqual({ matchId: match.id, teamId, result: 'win', score: { team: 4, opponent: 2 }, duration: null })
      expect(byEvent('team.updated').map((h) => h.json.data.changes)).toEqual([['roster'], ['record']])
      const log = await until(
        () => deliveries(webhook.id),
        (d) => d.length === 4 && d.every((x: { status: string }) => x.status === 'delivered'),
      )
      expect(log.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered'])
      expect(log[0].log[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null })
    } finally {
      await receiver.close()
    }
  })

  it('retries a failing receiver with the same event id until it recovers', async () => {
    const receiver = await startReceiver((n) => (n <= 2 ? 503 : 200))
    try {
      const webhook = await api.created('/webhooks', { url: receiver.url, events: ['team.created'], secret: SECRET })
      await teamIn()
      await receiver.waitFor(3)
      const ids = receiver.received.map((h) => h.headers['webhook-id'])
      expect(new Set(ids).size).toBe(1)
      expect(receiver.received.every((h) => verifyDelivery(h, SECRET))).toBe(true)
      const [delivery] = await until(
        () => deliveries(webhook.id),
        (d) => d[0]?.status === 'delivered',
      )
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, eventId: ids[0], lastStatusCode: 200 })
      expect(delivery.log.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 200])
    } finally {
      await receiver.close()
    }
  })

  it('disables a subscription that keeps failing, says why, and redelivers once enabled again', async () => {
    let healthy = false
    const receiver = await startReceiver(() => (healthy ? 200 : 500))
    try {
      const webhook = await api.created('/webhooks', { url: receiver.url, events: ['team.created'], secret: SECRET })
      await teamIn()
      const disabled = await until(
        async () => (await api.get(`/webhooks/${webhook.id}`)).json(),
        (w) => w.status === 'disabled',
      )
      expect(disabled.status).toBe('disabled')
      expect(disabled.disabledReason).toMatch(/3 failed attempts/)
      const [failed] = await deliveries(webhook.id)
      expect(failed).toMatchObject({ status: 'failed', attempts: 3 })
      expectError(await api.post(`/webhooks/${webhook.id}/deliveries/${failed.id}/redeliver`, {}), 422, 'VALIDATION_ERROR', 'status')
      // While disabled, nothing new is sent.
      await teamIn()
      healthy = true
      expect((await api.post(`/webhooks/${webhook.id}/enable`, {})).json().status).toBe('active')
      const redelivered = await api.post(`/webhooks/${webhook.id}/deliveries/${failed.id}/redeliver`, {})
      expect(redelivered.statusCode, redelivered.body).toBe(202)
      await receiver.waitFor(4)
      expect(receiver.received[3]!.headers['webhook-id']).toBe(failed.eventId)
      expect(receiver.received).toHaveLength(4)
      const [after] = await until(
        () => deliveries(webhook.id),
        (d) => d.find((x: { id: string }) => x.id === failed.id)?.status === 'delivered',
      )
      expect(after).toBeDefined()
    } finally {
      await receiver.close()
    }
  })

  it('delivers past a gap a rolled-back event left in the outbox sequence', async () => {
    const receiver = await startReceiver()
    try {
      await api.created('/webhooks', { url: receiver.url, events: ['team.created'], secret: SECRET })
      const rollback = new Error('rollback')
      await t
        .db!.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO platform.outbox (id, service, type, aggregate_id, payload) VALUES (gen_random_uuid(), 'esports', 'team.created', 'x', '{"environment":"production","data":{}}')`,
          )
          throw rollback
        })
        .catch((error: unknown) => {
          if (error !== rollback) throw error
        })
      const teamId = await teamIn()
      await receiver.waitFor(1, 5000)
      expect(receiver.received.map((h) => h.json.data.teamId)).toEqual([teamId])
    } finally {
      await receiver.close()
    }
  })

  it('counts a delivery it cannot sign as failed attempts, so the schedule still ends', async () => {
    const receiver = await startReceiver()
    try {
      const webhook = await api.created('/webhooks', { url: receiver.url, events: ['team.created'], secret: SECRET })
      // As after a change of TESSERA_SECRET_KEY: the sealed secret no longer opens.
      await t.db!.query("UPDATE platform.webhook_subscriptions SET secret_sealed = 'v1.AAAA.AAAA.AAAA' WHERE id = $1", [webhook.id])
      await teamIn()
      const [failed] = await until(
        () => deliveries(webhook.id),
        (d) => d[0]?.status === 'failed',
      )
      expect(failed).toMatchObject({ status: 'failed', attempts: 3 })
      expect(failed.log.map((a: { error: string }) => a.error)).toEqual([
        expect.stringMatching(/^not sent/),
        expect.stringMatching(/^not sent/),
        expect.stringMatching(/^not sent/),
      ])
      expect(receiver.received).toHaveLength(0)
      expect((await api.get(`/webhooks/${webhook.id}`)).json().status).toBe('disabled')
    } finally {
      await receiver.close()
    }
  })

  it('keeps sandbox subscriptions to sandbox events', async () => {
    const receiver = await startReceiver()
    try {
      const sandbox = restClient(t, (await keyFor(t, ALL, 'sandbox')).authorization, 'sandbox')
      const hook = await sandbox.created('/webhooks', { url: receiver.url, events: ['program.created'], secret: SECRET })
      expect((await api.get('/webhooks')).json().data.map((w: { id: string }) => w.id)).not.toContain(hook.id)
      expectError(await api.get(`/webhooks/${hook.id}`), 404, 'NOT_FOUND')
      await api.created('/programs', programBody({ name: 'Production only' }))
      const sandboxProgram = await sandbox.created('/programs', programBody({ name: 'Sandbox only' }))
      await receiver.waitFor(1)
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(receiver.received.map((h) => h.json.data.programId)).toEqual([sandboxProgram.id])
    } finally {
      await receiver.close()
    }
  })

  it("validates subscriptions, hides others' and needs the webhooks scopes", async () => {
    expectError(await api.post('/webhooks', { url: 'http://127.0.0.1:9/x', events: ['player.quit'], secret: SECRET }), 422, 'VALIDATION_ERROR', 'events[0]')
    expectError(await api.post('/webhooks', { url: 'http://127.0.0.1:9/x', events: ['team.updated'], secret: 'short' }), 422, 'VALIDATION_ERROR', 'secret')
    expectError(await api.post('/webhooks', { events: ['team.updated'], secret: SECRET }), 422, 'VALIDATION_ERROR', 'url')
    expectError(await api.post('/webhooks', { url: 'ftp://127.0.0.1/x', events: ['team.updated'], secret: SECRET }), 422, 'VALIDATION_ERROR', 'url')
    expectError(await api.get('/webhooks/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND')
    expectError(await api.delete('/webhooks/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND')
    const reader = restClient(t, (await keyFor(t, ['webhooks:read'])).authorization)
    expect((await reader.get('/webhooks')).statusCode).toBe(200)
    expectError(await reader.post('/webhooks', { url: 'http://127.0.0.1:9/x', events: ['team.updated'], secret: SECRET }), 403, 'FORBIDDEN')
    const created = await api.created('/webhooks', { url: 'http://127.0.0.1:9/x', events: ['team.updated'], secret: SECRET })
    expect((await api.delete(`/webhooks/${created.id}`)).statusCode).toBe(204)
    expectError(await api.get(`/webhooks/${created.id}`), 404, 'NOT_FOUND')
  })
})
