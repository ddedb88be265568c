import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { credentialInQuery, redactUrl } from '../../platform/auth/url-credentials.js'
import { createHttpApp } from '../../platform/http/create-http-app.js'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

describe('credentials in URLs', () => {
  it('redacts query-string credentials, whatever the parameter is called', () => {
    expect(redactUrl('/v1/x/image.svg?token=emb_abc.def&width=3')).toBe('/v1/x/image.svg?token=[REDACTED]&width=3')
    expect(redactUrl('/a?q=tsr_secret&api_key=x&Signature=s&expires=9')).toBe('/a?q=[REDACTED]&api_key=[REDACTED]&Signature=[REDACTED]&expires=9')
    expect(redactUrl('/a?q=%74sr_secret')).toBe('/a?q=[REDACTED]')
    expect(redactUrl('/a?limit=5')).toBe('/a?limit=5')
    expect(credentialInQuery({ token: 'emb_x.y' })).toBeUndefined()
    expect(credentialInQuery({ token: 'tsr_abc' })).toBe('token')
    expect(credentialInQuery({ limit: '3', access_token: 'whatever' })).toBe('access_token')
  })

  it('keeps every credential out of the request log', async () => {
    const lines: string[] = []
    const stream = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) })
    const app = createHttpApp({ logger: { level: 'info', stream }, bodyLimit: 1024 })
    app.get('/thing', async () => ({ ok: true }))
    try {
      await app.inject({ method: 'GET', url: '/thing?token=tsr_leaked1&x=emb_leaked2.sig' })
      await app.inject({ method: 'GET', url: '/nowhere?signature=leaked3&api_key=leaked4' })
    } finally {
      await app.close()
    }
    const log = lines.join('')
    expect(log).toContain('/thing?token=[REDACTED]&x=[REDACTED]')
    for (const secret of ['leaked1', 'leaked2', 'leaked3', 'leaked4']) expect(log).not.toContain(secret)
  })
})

describe('API keys in the query string are refused with a clear error', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices', 'visualization'] })
  })
  afterAll(() => t.close())

  it('refuses ?token=tsr_… on the chart image route (embed tokens only) and on any route', async () => {
    const image = await t.app.inject({ method: 'GET', url: `/v1/visualization/charts/3f1e7a3c-4a1b-4b8e-9a55-6f1c2d3e4f50/image.svg?token=${t.apiKey}` })
    const error = expectError(image, 400, 'INVALID_REQUEST', 'token')
    expect(error.message).toMatch(/Authorization: Bearer/)
    const alerts = await t.app.inject({ method: 'GET', url: `/v1/medical/alerts?api_key=${t.apiKey}` })
    expect(alerts.statusCode).toBe(400)
    expect(alerts.json().error.details.field).toBe('api_key')
    const gql = await t.app.inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('{ __typename }')}&token=${t.apiKey}`,
      headers: { 'apollo-require-preflight': 'true' },
    })
    expect(gql.statusCode).toBe(400)
    expect(gql.json().errors[0].extensions.details.field).toBe('token')
  })

  it('keeps credentials out of metrics labels', async () => {
    await t.app.inject({ method: 'GET', url: `/v1/no/such/route?token=${t.apiKey}` })
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).not.toContain(t.apiKey)
    expect(metrics).not.toContain('token=')
  })
})
