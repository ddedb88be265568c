import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'
import { startReceiver, verifyDelivery } from '../esports/webhook-receiver.js'

const BASE = '/v1/content-ai'
const SECRET = 'whsec-content-0123456789abcdef'

describe('content webhooks', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({
      services: ['content'],
      env: {
        TESSERA_WEBHOOKS_ALLOW_PRIVATE: 'true',
        TESSERA_WEBHOOKS_TIMEOUT_MS: '1000',
        TESSERA_WEBHOOKS_RETRY_BASE_MS: '50',
        TESSERA_WEBHOOKS_MAX_ATTEMPTS: '3',
        TESSERA_WEBHOOKS_POLL_MS: '200',
      },
    })
  })
  afterAll(() => t.close())

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload ? { payload } : {}) })

  it('delivers content.generated and analytics.updated signed, at most one analytics notice a minute per item', async () => {
    const receiver = await startReceiver()
    try {
      const res = await call('POST', '/webhooks', { url: receiver.url, events: ['content.generated', 'analytics.updated'], secret: SECRET, description: 'LMS' })
      expect(res.statusCode, res.body).toBe(201)
      const webhook = res.json()
      expect(res.headers.location).toBe(`${BASE}/webhooks/${webhook.id}`)
      expect(webhook).toMatchObject({ url: receiver.url, events: ['content.generated', 'analytics.updated'], status: 'active', description: 'LMS' })
      expect(res.body).not.toContain(SECRET)
      expect(JSON.stringify((await call('GET', `/webhooks/${webhook.id}`)).json())).not.toContain(SECRET)
      expect((await call('GET', '/webhooks')).json().items.map((w: { id: string }) => w.id)).toContain(webhook.id)

      const set = (await call('POST', '/generate/problems', { topic: 'percentages', count: 2, seed: 3 })).json()
      const event = (studentId: string) => ({ id: randomUUID(), studentId, contentId: set.id, verb: 'viewed', timestamp: new Date().toISOString() })
      expect((await call('POST', '/events', { events: [event('a'), event('b')] })).json().recorded).toBe(2)
      // Within the minute: recorded, but folded into the notice already sent.
      expect((await call('POST', '/events', { events: [event('c')] })).json().recorded).toBe(1)

      await receiver.waitFor(2)
      const log = async () =>
        (await call('GET', `/webhooks/${webhook.id}/deliveries`))
          .json()
          .items.map((d: { event: string; status: string }) => [d.event, d.status])
          .sort()
      await expect.poll(log, { timeout: 8000, interval: 100 }).toEqual([
        ['analytics.updated', 'delivered'],
        ['content.generated', 'delivered'],
      ])
      expect(receiver.received).toHaveLength(2)
      for (const hook of receiver.received) {
        expect(verifyDelivery(hook, SECRET)).toBe(true)
        expect(verifyDelivery(hook, 'some-other-secret-of-length')).toBe(false)
        expect(Object.keys(hook.json)).toEqual(['id', 'event', 'timestamp', 'data', 'signature'])
        expect(hook.json.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      }
      const byEvent = (e: string) => receiver.received.find((h) => h.json.event === e)!.json.data
      expect(byEvent('content.generated')).toEqual({ contentId: set.id, status: 'completed', type: 'problem-set', title: 'Practice: percentages' })
      expect(byEvent('analytics.updated')).toEqual({ contentId: set.id, status: 'updated', newEvents: 2 })
    } finally {
      await receiver.close()
    }
  })

  it('refuses bad subscriptions naming the field, and answers 404 for unknown ids', async () => {
    expectError(await call('POST', '/webhooks', { url: 'not a url', events: ['content.generated'], secret: SECRET }), 400, 'INVALID_REQUEST', 'url')
    expectError(await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', events: ['content.deleted'], secret: SECRET }), 400, 'INVALID_REQUEST')
    expectError(
      await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', events: ['content.generated'], secret: 'short' }),
      400,
      'INVALID_REQUEST',
      'secret',
    )
    expectError(await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', events: ['content.generated'] }), 400, 'INVALID_REQUEST', 'secret')
    expectError(await call('GET', `/webhooks/${randomUUID()}`), 404, 'NOT_FOUND', 'webhookId')
    expectError(await call('GET', `/webhooks/${randomUUID()}/deliveries`), 404, 'NOT_FOUND', 'webhookId')
    const hook = (await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/x', events: ['test.completed'], secret: SECRET })).json()
    expectError(await call('GET', `/webhooks/${hook.id}/deliveries?limit=500`), 400, 'INVALID_REQUEST', 'limit')
    expectError(await call('POST', `/webhooks/${hook.id}/deliveries/${randomUUID()}/redeliver`), 404, 'NOT_FOUND', 'deliveryId')
    expect((await call('DELETE', `/webhooks/${hook.id}`)).statusCode).toBe(204)
    expectError(await call('DELETE', `/webhooks/${hook.id}`), 404, 'NOT_FOUND')
  })

  it('keeps subscriptions to credentials with content:webhooks, per environment', async () => {
    const { key } = await t.credentials!.createApiKey({ name: `k ${randomUUID()}`, scopes: ['content:read', 'content:generate'] })
    expectError(await call('GET', '/webhooks', undefined, { 'x-api-key': key }), 403, 'FORBIDDEN')
    const sandbox = await t.credentials!.createApiKey({ name: `s ${randomUUID()}`, scopes: ['content:webhooks'], environment: 'sandbox' })
    const mine = (await call('GET', '/webhooks')).json().items.length
    expect(mine).toBeGreaterThan(0)
    expect((await call('GET', '/webhooks', undefined, { 'x-api-key': sandbox.key })).json().items).toEqual([])
  })
})
