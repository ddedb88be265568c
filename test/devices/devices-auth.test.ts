import { randomUUID } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, TEST_CREDENTIALS, type TestTessera } from '../helper.js'

function expectUnauthorized(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(401)
  const { error } = res.json()
  expect(error.code).toBe('UNAUTHORIZED')
  expect(typeof error.message).toBe('string')
  expect(error.requestId).toBe(res.headers['x-request-id'])
  expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm="tessera-devices"/)
}

describe('authentication and scopes of the device gateway', () => {
  let t: TestTessera
  let readOnly: string
  let writeOnly: string
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
    readOnly = (await t.credentials!.createApiKey({ name: 'dashboard', scopes: ['devices:read'] })).key
    writeOnly = (await t.credentials!.createApiKey({ name: 'bedside hub', scopes: ['devices:write'] })).key
  })
  afterAll(() => t.close())

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
  const alertTotal = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: t.auth })
    expect(res.statusCode).toBe(200)
    return res.json().total as number
  }
  const validAlert = { device_id: 'pump-1', priority: 'high' }

  it('answers 401 UNAUTHORIZED with a WWW-Authenticate challenge when no credential is sent', async () => {
    for (const req of [
      { method: 'GET' as const, url: '/v1/medical/alerts' },
      { method: 'GET' as const, url: '/v1/quantum/gates' },
      { method: 'POST' as const, url: '/v1/medical/alert', payload: validAlert },
      { method: 'POST' as const, url: '/v1/aac/signal', payload: { type: 'switch', data: { state: 'pressed' } } },
    ]) {
      const res = await t.app.inject(req)
      expectUnauthorized(res)
      expect(res.headers['www-authenticate']).toBe('Bearer realm="tessera-devices"')
    }
  })

  it('answers 401 with error="invalid_token" for malformed Authorization headers', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Token ${TEST_CREDENTIALS.apiKey}`, 'Bearer two words', 'Bearer ключ']) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: { authorization } })
      expectUnauthorized(res)
      expect(res.headers['www-authenticate'], authorization).toContain('error="invalid_token"')
    }
  })

  it('answers 401 for a well-formed key that was never issued', async () => {
    for (const key of [`tsr_${randomUUID().replaceAll('-', '')}`, `${TEST_CREDENTIALS.apiKey}x`, 'tst_not_a_real_token_0123456789']) {
      expectUnauthorized(await t.app.inject({ method: 'GET', url: '/v1/quantum/gates', headers: bearer(key) }))
    }
  })

  it('accepts the key in X-API-Key instead of Authorization', async () => {
    const read = await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: { 'x-api-key': TEST_CREDENTIALS.apiKey } })
    expect(read.statusCode).toBe(200)
    const write = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: { 'x-api-key': TEST_CREDENTIALS.apiKey }, payload: validAlert })
    expect(write.statusCode).toBe(201)
  })

  it('answers 401 for an unknown or empty X-API-Key', async () => {
    expectUnauthorized(await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: { 'x-api-key': 'tsr_nobody_has_this_key_000000' } }))
    expectUnauthorized(await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: { 'x-api-key': '' } }))
  })

  it('accepts the Bearer scheme in any letter case', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/quantum/gates', headers: { authorization: `bearer ${TEST_CREDENTIALS.apiKey}` } })
    expect(res.statusCode).toBe(200)
  })

  it('lets a devices:read key read every kind of resource', async () => {
    const alert = (await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: validAlert })).json()
    for (const url of [
      '/v1/medical/alerts',
      `/v1/medical/alert/${alert.alert_id}`,
      '/v1/quantum/gates',
      '/v1/aac/devices/pump-1/dwell',
      '/v1/aac/devices/pump-1/events',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(readOnly) })
      expect(res.statusCode, url).toBe(200)
    }
  })

  it('answers 403 FORBIDDEN naming devices:write to a read-only key on every write, and writes nothing', async () => {
    const alert = (await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: validAlert })).json()
    const total = await alertTotal()
    for (const req of [
      { method: 'POST' as const, url: '/v1/medical/alert', payload: validAlert },
      { method: 'POST' as const, url: '/v1/aac/signal', payload: { type: 'switch', device_id: 'sw', data: { state: 'pressed' } } },
      { method: 'POST' as const, url: '/v1/quantum/circuit', payload: { qubits: 1, gates: ['H'] } },
      { method: 'PUT' as const, url: '/v1/aac/devices/sw/dwell', payload: { radius: 10 } },
      { method: 'POST' as const, url: `/v1/medical/alert/${alert.alert_id}/acknowledge` },
      { method: 'POST' as const, url: `/v1/medical/alert/${alert.alert_id}/resolve` },
    ]) {
      const res = await t.app.inject({ ...req, headers: bearer(readOnly) })
      expect(res.statusCode, `${req.method} ${req.url}`).toBe(403)
      const { error } = res.json()
      expect(error.code).toBe('FORBIDDEN')
      expect(error.message).toContain('devices:write')
      expect(error.details.requiredScope).toBe('devices:write')
    }
    expect(await alertTotal()).toBe(total)
    const unchanged = (await t.app.inject({ method: 'GET', url: `/v1/medical/alert/${alert.alert_id}`, headers: t.auth })).json()
    expect(unchanged.status).toBe('active')
    const dwell = (await t.app.inject({ method: 'GET', url: '/v1/aac/devices/sw/dwell', headers: t.auth })).json()
    expect(dwell.radius).toBe(50)
  })

  it('answers 403 naming devices:read to a write-only key that reads', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: bearer(writeOnly), payload: validAlert })
    expect(created.statusCode).toBe(201)
    for (const url of ['/v1/medical/alerts', `/v1/medical/alert/${created.json().alert_id}`, '/v1/quantum/gates']) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(writeOnly) })
      expect(res.statusCode, url).toBe(403)
      expect(res.json().error).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: 'devices:read' } })
    }
    // The gate catalogue declares its scope on the route, so the refusal carries an RFC 6750 challenge.
    const gates = await t.app.inject({ method: 'GET', url: '/v1/quantum/gates', headers: bearer(writeOnly) })
    expect(gates.headers['www-authenticate']).toContain('error="insufficient_scope"')
  })

  it('refuses a revoked key at once, even just after it was used', async () => {
    const { key, info } = await t.credentials!.createApiKey({ name: 'lost tablet', scopes: ['devices:read', 'devices:write'] })
    const before = await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: bearer(key) })
    expect(before.statusCode).toBe(200)
    expect(await t.credentials!.revokeApiKey(info.id)).toBe(true)

    expectUnauthorized(await t.app.inject({ method: 'GET', url: '/v1/medical/alerts', headers: bearer(key) }))
    expectUnauthorized(await t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: { 'x-api-key': key }, payload: validAlert }))
  })

  it('checks the credential before the body, so an anonymous caller learns nothing from validation', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', payload: { qubits: 'many' } })
    expectUnauthorized(res)
  })
})
