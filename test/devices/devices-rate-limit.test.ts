import { randomUUID } from 'node:crypto'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const MAX = 3
const WINDOW_SECONDS = 3600

function expectRateLimitHeaders(res: LightMyRequestResponse, remaining: number) {
  expect(res.headers['x-ratelimit-limit']).toBe(String(MAX))
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining))
  const reset = Number(res.headers['x-ratelimit-reset'])
  expect(Number.isInteger(reset)).toBe(true)
  expect(reset).toBeGreaterThan(0)
  expect(reset).toBeLessThanOrEqual(WINDOW_SECONDS)
}

describe('rate limiting of the device gateway', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'], env: { TESSERA_RATE_LIMIT_MAX: String(MAX), TESSERA_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) } })
  })
  afterAll(() => t.close())

  // Every key has its own bucket, so each check starts from a full one.
  const freshKey = async () => {
    const { key } = await t.credentials!.createApiKey({ name: `client ${randomUUID()}`, scopes: ['devices:read', 'devices:write'] })
    return { authorization: `Bearer ${key}` }
  }
  const send = (options: InjectOptions) => t.app.inject(options)

  /**
   * Windows are fixed, so a burst that straddles a boundary would see its count reset. Waits
   * (at most ~11 s, in practice never with a one-hour window) until the window has time left.
   */
  const ensureRoomInWindow = async () => {
    const probe = await send({ method: 'GET', url: '/v1/quantum/gates', headers: await freshKey() })
    const reset = Number(probe.headers['x-ratelimit-reset'])
    if (reset < 10) await new Promise((resolve) => setTimeout(resolve, (reset + 1) * 1000))
  }

  it('reports the limit on every kind of response: 200, 201, 400, 401, 403, 404, 409, 415', async () => {
    const alert = (await send({ method: 'POST', url: '/v1/medical/alert', headers: await freshKey(), payload: { device_id: 'p', priority: 'low' } })).json()
    await send({ method: 'POST', url: `/v1/medical/alert/${alert.alert_id}/resolve`, headers: await freshKey() })
    const readOnly = { authorization: `Bearer ${(await t.credentials!.createApiKey({ name: 'ro', scopes: ['devices:read'] })).key}` }

    const cases: Array<[number, InjectOptions]> = [
      [200, { method: 'GET', url: '/v1/quantum/gates', headers: await freshKey() }],
      [200, { method: 'GET', url: '/v1/medical/alerts', headers: await freshKey() }],
      [201, { method: 'POST', url: '/v1/medical/alert', headers: await freshKey(), payload: { device_id: 'p', priority: 'high' } }],
      [201, { method: 'POST', url: '/v1/aac/signal', headers: await freshKey(), payload: { type: 'switch', device_id: 's', data: { state: 'pressed' } } }],
      [400, { method: 'POST', url: '/v1/quantum/circuit', headers: await freshKey(), payload: { qubits: '2', gates: [] } }],
      [400, { method: 'POST', url: '/v1/medical/alert', headers: { ...(await freshKey()), 'content-type': 'application/json' }, payload: '{"device_id":' }],
      [401, { method: 'GET', url: '/v1/medical/alerts', headers: { authorization: `Bearer tsr_unknown_${randomUUID()}` } }],
      [403, { method: 'POST', url: '/v1/medical/alert', headers: readOnly, payload: { device_id: 'p', priority: 'high' } }],
      [404, { method: 'GET', url: `/v1/medical/alert/${randomUUID()}`, headers: await freshKey() }],
      [404, { method: 'GET', url: '/v1/medical/nothing-here', headers: await freshKey() }],
      [409, { method: 'POST', url: `/v1/medical/alert/${alert.alert_id}/acknowledge`, headers: await freshKey() }],
      [415, { method: 'POST', url: '/v1/medical/alert', headers: { ...(await freshKey()), 'content-type': 'application/xml' }, payload: '<alert/>' }],
    ]
    for (const [status, options] of cases) {
      const res = await send(options)
      expect(res.statusCode, `${options.method} ${options.url}`).toBe(status)
      expectRateLimitHeaders(res, MAX - 1)
    }
  })

  it('counts down remaining, then answers 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    await ensureRoomInWindow()
    const headers = await freshKey()
    for (let i = 1; i <= MAX; i++) {
      const res = await send({ method: 'GET', url: '/v1/medical/alerts', headers })
      expect(res.statusCode).toBe(200)
      expectRateLimitHeaders(res, MAX - i)
    }
    const limited = await send({ method: 'GET', url: '/v1/medical/alerts', headers })
    expect(limited.statusCode).toBe(429)
    expectRateLimitHeaders(limited, 0)
    expect(limited.headers['retry-after']).toBe(limited.headers['x-ratelimit-reset'])
    const { error } = limited.json()
    expect(error.code).toBe('RATE_LIMIT_EXCEEDED')
    expect(error.details).toMatchObject({ limit: MAX })
    expect(error.requestId).toBe(limited.headers['x-request-id'])
  })

  it('refuses writes over the limit without performing them', async () => {
    await ensureRoomInWindow()
    const headers = await freshKey()
    const device = `over-${randomUUID()}`
    const statuses: number[] = []
    for (let i = 0; i < MAX + 2; i++) {
      statuses.push((await send({ method: 'POST', url: '/v1/medical/alert', headers, payload: { device_id: device, priority: 'low' } })).statusCode)
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429])
    const listed = await send({ method: 'GET', url: `/v1/medical/alerts?device_id=${device}`, headers: await freshKey() })
    expect(listed.json().total).toBe(MAX)
  })

  it('limits each key on its own: another key is still served', async () => {
    await ensureRoomInWindow()
    const busy = await freshKey()
    for (let i = 0; i <= MAX; i++) await send({ method: 'GET', url: '/v1/quantum/gates', headers: busy })
    expect((await send({ method: 'GET', url: '/v1/quantum/gates', headers: busy })).statusCode).toBe(429)
    const other = await send({ method: 'GET', url: '/v1/quantum/gates', headers: await freshKey() })
    expect(other.statusCode).toBe(200)
  })

  it('limits requests without credentials by client address, before answering 401', async () => {
    await ensureRoomInWindow()
    const statuses: number[] = []
    for (let i = 0; i < MAX + 1; i++) statuses.push((await send({ method: 'GET', url: '/v1/medical/alerts', remoteAddress: '192.0.2.10' })).statusCode)
    expect(statuses).toEqual([401, 401, 401, 429])
    // Another address has its own bucket.
    expect((await send({ method: 'GET', url: '/v1/medical/alerts', remoteAddress: '192.0.2.11' })).statusCode).toBe(401)
  })

  it('answers 429 in the same error body on unknown paths', async () => {
    await ensureRoomInWindow()
    const headers = await freshKey()
    for (let i = 0; i < MAX; i++) expect((await send({ method: 'GET', url: '/v1/quantum/nowhere', headers })).statusCode).toBe(404)
    const res = await send({ method: 'GET', url: '/v1/quantum/nowhere', headers })
    expect(res.statusCode).toBe(429)
    expect(res.json().error.code).toBe('RATE_LIMIT_EXCEEDED')
    expect(res.headers['retry-after']).toBeDefined()
  })

  it('throttles a client that tries many different unknown keys', async () => {
    await ensureRoomInWindow()
    const statuses: number[] = []
    for (let i = 0; i < MAX + 2; i++) {
      const res = await send({
        method: 'GET',
        url: '/v1/medical/alerts',
        remoteAddress: '198.51.100.7',
        headers: { authorization: `Bearer tsr_guess_${randomUUID()}` },
      })
      statuses.push(res.statusCode)
    }
    expect(statuses).toContain(429)
  })
})
