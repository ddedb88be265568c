import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpApp } from '../../platform/http/create-http-app.js'
import { installRestEdge } from '../../platform/http/rest-edge.js'
import { defineErrors } from '../../platform/errors.js'
import { createRateLimiter, type RateLimitStore } from '../../platform/rate-limit/rate-limiter.js'
import { STANDARD_ERRORS, STANDARD_ROLES, standardErrorBody } from '../../platform/standard-errors.js'
import { build, type TestTessera } from '../helper.js'

// A store that fails while `down` is set, as PostgreSQL does during a blip.
function blippingStore() {
  const state = { down: false, hits: 0 }
  const store: RateLimitStore = {
    async hit() {
      if (state.down) throw new Error('connection terminated')
      return ++state.hits
    },
  }
  return { state, store }
}

describe('rate limiters during a database blip', () => {
  it('request limits fail open to per-process counters (still limiting), failed authentications fail closed', async () => {
    const { state, store } = blippingStore()
    const errors: unknown[] = []
    const limiter = createRateLimiter({ store, max: 2, windowSeconds: 60, onStoreError: (e) => errors.push(e) })
    state.down = true
    expect((await limiter.consume('k')).allowed).toBe(true)
    expect((await limiter.consume('k')).allowed).toBe(true)
    expect((await limiter.consume('k')).allowed).toBe(false)
    await expect(limiter.failedAuthentication('127.0.0.1')).rejects.toMatchObject({ name: 'RateLimitUnavailableError', retryAfterSeconds: 5 })
    expect(errors.length).toBe(4)
    const closed = createRateLimiter({ store, max: 2, windowSeconds: 60, whenStoreFails: 'closed' })
    await expect(closed.consume('k')).rejects.toMatchObject({ name: 'RateLimitUnavailableError' })
  })

  it('the REST edge answers 503 with Retry-After in the interface body when a fail-closed limiter cannot count', async () => {
    const { state, store } = blippingStore()
    const app = createHttpApp({ logger: false, bodyLimit: 1024 })
    await app.register(async (scope) => {
      installRestEdge(scope, {
        errors: defineErrors(STANDARD_ERRORS, STANDARD_ROLES),
        errorBody: (error, request) => standardErrorBody(error, request.id),
        verify: async () => null,
        limiter: createRateLimiter({ store, max: 100, windowSeconds: 60 }),
      })
      scope.get('/v1/thing', async () => ({ ok: true }))
    })
    try {
      state.down = true
      // A request limit fails open: the (wrong) key gets its 401, not a 500.
      const res = await app.inject({ method: 'GET', url: '/v1/thing', headers: { authorization: 'Bearer nope' } })
      // ...but the failed authentication cannot be counted: 503, retry later.
      expect(res.statusCode).toBe(503)
      expect(res.headers['retry-after']).toBe('5')
      expect(res.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
      state.down = false
      expect((await app.inject({ method: 'GET', url: '/v1/thing', headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401)
    } finally {
      await app.close()
    }
  })
})

describe('/graphql answers body errors in GraphQL error shape', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'], env: { TESSERA_BODY_LIMIT: '2048' } })
  })
  afterAll(() => t.close())

  it('413 for an oversized body, 400 for malformed JSON, both quickly and in the errors array', async () => {
    const big = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...t.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: `{ __typename } #${'x'.repeat(4000)}` }),
    })
    expect(big.statusCode).toBe(413)
    expect(big.json()).toEqual({
      errors: [
        { message: 'Request body is too large', extensions: { code: 'PAYLOAD_TOO_LARGE', http: { status: 413 }, requestId: big.headers['x-request-id'] } },
      ],
    })
    const bad = await t.app.inject({ method: 'POST', url: '/graphql', headers: { ...t.auth, 'content-type': 'application/json' }, payload: '{"query": ' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].extensions.code).toBe('BAD_REQUEST')
  })
})
