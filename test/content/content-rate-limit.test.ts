import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { PLATFORM_MIGRATIONS } from '../../bin/create-process.js'
import { createDatabase, type Database } from '../../platform/db/database.js'
import { applyMigrations } from '../../platform/db/migrate.js'
import { createPostgresRateLimitStore, createRateLimiter } from '../../platform/rate-limit/rate-limiter.js'
import { contentRateLimit } from '../../subgraphs/content/index.js'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const URL = '/v1/content-ai/content'

describe('content rate limits by credential tier', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'] })
  })
  afterAll(() => t.close())

  const keyFor = async (shape: { tier?: string; rateLimitPerHour?: number }) => {
    const { key } = await t.credentials!.createApiKey({ name: `k ${randomUUID()}`, scopes: ['content:read'], ...shape })
    return { 'x-api-key': key }
  }
  const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: URL, headers })

  it('allows a free key 100 requests an hour, then answers 429 in the documented body', async () => {
    const headers = await keyFor({ tier: 'free' })
    const first = await get(headers)
    expect(first.headers['x-ratelimit-limit']).toBe('100')
    expect(first.headers['x-ratelimit-remaining']).toBe('99')
    const reset = Number(first.headers['x-ratelimit-reset'])
    expect(Number.isInteger(reset) && reset > 0 && reset <= 3600).toBe(true)
    for (let i = 2; i <= 100; i++) expect((await get(headers)).statusCode).toBe(200)
    const over = await get(headers)
    const error = expectError(over, 429, 'RATE_LIMIT_EXCEEDED')
    expect(error.details.limit).toBe(100)
    expect(over.headers['x-ratelimit-remaining']).toBe('0')
    expect(over.headers['retry-after']).toMatch(/^\d+$/)
    // Another key of the same tier has its own bucket.
    expect((await get(await keyFor({ tier: 'free' }))).statusCode).toBe(200)
  })

  it('gives pro keys 1,000 an hour and enterprise keys their own limit, on error responses too', async () => {
    expect((await get(await keyFor({ tier: 'pro' }))).headers['x-ratelimit-limit']).toBe('1000')
    const enterprise = await keyFor({ tier: 'enterprise', rateLimitPerHour: 3 })
    const bad = await t.app.inject({ method: 'GET', url: `${URL}?limit=0`, headers: enterprise })
    expect(bad.statusCode).toBe(400)
    expect(bad.headers['x-ratelimit-limit']).toBe('3')
    expect(bad.headers['x-ratelimit-remaining']).toBe('2')
    await get(enterprise)
    await get(enterprise)
    expectError(await get(enterprise), 429, 'RATE_LIMIT_EXCEEDED')
    // Without an own limit an enterprise key gets the tier's default.
    expect((await get(await keyFor({ tier: 'enterprise' }))).headers['x-ratelimit-limit']).toBe('10000')
  })

  it('keeps the process limit for credentials without a tier (the development key) and unknown keys', async () => {
    const dev = await get(t.auth)
    expect(dev.headers['x-ratelimit-limit']).toBe('1000')
    const unknown = await get({ 'x-api-key': `tsr_unknown_${randomUUID()}` })
    expectError(unknown, 401, 'UNAUTHORIZED')
    expect(unknown.headers['x-ratelimit-limit']).toBe('1000')
  })

  it("counts every access token of an OAuth client in the client's one bucket", async () => {
    const { clientId, clientSecret } = await t.credentials!.createClient({
      name: `c ${randomUUID()}`,
      scopes: ['content:read'],
      tier: 'enterprise',
      rateLimitPerHour: 2,
    })
    const token = async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`,
      })
      return { authorization: `Bearer ${res.json().access_token}` }
    }
    const first = await get(await token())
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-ratelimit-remaining']).toBe('1')
    expect((await get(await token())).headers['x-ratelimit-remaining']).toBe('0')
    expectError(await get(await token()), 429, 'RATE_LIMIT_EXCEEDED')
  })

  it('maps tiers to hourly policies', () => {
    expect(contentRateLimit({ tier: 'free' })).toEqual({ max: 100, windowSeconds: 3600 })
    expect(contentRateLimit({ tier: 'pro' })).toEqual({ max: 1000, windowSeconds: 3600 })
    expect(contentRateLimit({ tier: 'pro', rateLimitPerHour: 50 })).toEqual({ max: 50, windowSeconds: 3600 })
    expect(contentRateLimit({ tier: null })).toBeUndefined()
  })
})

describe('per-credential limits shared by replicas in PostgreSQL', () => {
  let db: Database
  let other: pg.Pool
  const name = `content_rl_${process.pid}_${Date.now()}`
  let admin: pg.Client
  beforeAll(async () => {
    admin = new pg.Client(inject('postgresUrl'))
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    db = await createDatabase({ kind: 'postgres', url: `${inject('postgresBase')}${name}` })
    await applyMigrations(db, [PLATFORM_MIGRATIONS])
    other = new pg.Pool({ connectionString: `${inject('postgresBase')}${name}`, max: 1 })
  })
  afterAll(async () => {
    await other.end()
    await db.close()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })

  it('counts one key across two limiters and keeps hourly buckets when short windows are pruned', async () => {
    let now = Date.UTC(2026, 10, 24, 10, 0, 5)
    // Two replicas: separate connections, one table.
    const replicaA = createRateLimiter({ store: createPostgresRateLimitStore(db), max: 1000, windowSeconds: 60, now: () => now })
    const replicaB = createRateLimiter({
      store: createPostgresRateLimitStore({ query: async (sql: string, params?: unknown[]) => (await other.query(sql, params)).rows } as unknown as Database),
      max: 1000,
      windowSeconds: 60,
      now: () => now,
    })
    const policy = { max: 3, windowSeconds: 3600 }
    expect((await replicaA.consume('c:key', policy)).remaining).toBe(2)
    expect((await replicaB.consume('c:key', policy)).remaining).toBe(1)
    expect((await replicaA.consume('c:key', policy)).allowed).toBe(true)
    expect((await replicaB.consume('c:key', policy)).allowed).toBe(false)
    // Twenty minutes on, a thousand default-window hits trigger the store's pruning; the
    // hourly bucket is still in its window and must survive it.
    now += 20 * 60_000
    for (let i = 0; i < 1000; i++) await replicaA.consume(`ip:${i % 5}`)
    expect((await replicaB.consume('c:key', policy)).allowed).toBe(false)
    const rows = await db.query<{ key: string }>("SELECT key FROM platform.rate_limit_counters WHERE key LIKE 'c:key%'")
    expect(rows).toHaveLength(1)
  })
})
