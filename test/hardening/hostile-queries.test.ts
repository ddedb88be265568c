import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const post = (t: TestTessera, query: string, headers: Record<string, string> = t.auth) =>
  t.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload: { query } })

// Sends a hostile request and, while it is handled, asks /health: both must answer quickly.
async function refusedWhileHealthy(t: TestTessera, query: string, headers?: Record<string, string>) {
  const started = performance.now()
  const [res, health] = await Promise.all([
    post(t, query, headers).then((r) => ({ r, ms: performance.now() - started })),
    new Promise((resolve) => setTimeout(resolve, 5))
      .then(() => t.app.inject({ method: 'GET', url: '/health' }))
      .then((r) => ({ r, ms: performance.now() - started })),
  ])
  expect(health.r.statusCode).toBe(200)
  // Generous bounds for a loaded machine; the freezes these guard against took 1.2–60 s.
  expect(health.ms).toBeLessThan(2500)
  expect(res.ms).toBeLessThan(2500)
  expect(res.r.statusCode).toBe(400)
  return res.r.json().errors[0]
}

describe('hostile GraphQL documents are refused quickly, /health stays responsive', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  it('refuses fragments that spread the next one twice (2^24 expansions) by cost, measured once per fragment', async () => {
    const fragments = Array.from({ length: 24 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`)
    fragments.push('fragment F24 on Query { alerts { total } }')
    const query = `{ ...F0 } ${fragments.join(' ')}`
    expect(query.length).toBeLessThan(1500)
    // Anonymous: the limit is checked before any service sees the request.
    const error = await refusedWhileHealthy(t, query, {})
    expect(error.extensions.code).toBe('QUERY_TOO_COSTLY')
  })

  it('refuses a 630 KB document of 20,000 aliases at parse time (token bound)', async () => {
    const query = `{ ${Array.from({ length: 20_000 }, (_, i) => `a${i}: alerts { total }`).join(' ')} }`
    expect(query.length).toBeGreaterThan(400_000)
    const error = await refusedWhileHealthy(t, query)
    expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_LARGE', details: { maxTokens: 10_000 } })
  })

  it('refuses more aliases than allowed, and more directives', async () => {
    const aliases = `{ ${Array.from({ length: 101 }, (_, i) => `a${i}: __typename`).join(' ')} }`
    expect((await refusedWhileHealthy(t, aliases)).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_ALIASES', details: { aliases: 101, maxAliases: 100 } })
    const directives = `{ alerts { total ${Array.from({ length: 51 }, () => '@include(if: true)').join(' ')} } }`
    expect((await refusedWhileHealthy(t, directives)).extensions).toMatchObject({ code: 'QUERY_TOO_MANY_DIRECTIVES', details: { directives: 51 } })
  })

  it('refuses over-deep nesting without overflowing the parser', async () => {
    const deep = `{ ${'alerts { items { device { '.repeat(2000)} id ${'} } }'.repeat(2000)} }`
    const error = await refusedWhileHealthy(t, deep)
    expect(error.extensions.code).toBe('QUERY_TOO_DEEP')
  })

  it('still answers an ordinary query with aliases and fragments', async () => {
    const res = await post(t, '{ a: alerts(limit: 1) { ...P } b: alerts(limit: 2) { ...P } } fragment P on AlertPage { total }')
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ a: { total: 0 }, b: { total: 0 } })
  })
})

describe('each page fetched counts in the cost, however small the page', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'], env: { TESSERA_MAX_QUERY_ALIASES: '5000', TESSERA_MAX_QUERY_TOKENS: '40000' } })
  })
  afterAll(() => t.close())

  it('refuses 3,000 aliased alerts(limit: 1) { total } by cost', async () => {
    const query = `{ ${Array.from({ length: 3000 }, (_, i) => `a${i}: alerts(limit: 1) { total }`).join(' ')} }`
    const error = await refusedWhileHealthy(t, query)
    expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', details: { cost: 30_000, maxCost: 10_000 } })
  })
})

describe('nesting is measured on the text, strings and comments aside', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  it('does not let a block string with an escaped triple quote hide deep nesting', async () => {
    const query = `{ alerts(status: ACTIVE) { total } } # """\n query Q($a: String = """ \\""" """) { ${'alerts { items { device { '.repeat(200)} id ${'} } }'.repeat(200)} }`
    const error = await refusedWhileHealthy(t, query)
    expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_DEEP', details: { maxNesting: 128 } })
  })

  it('ignores brackets inside strings and comments', async () => {
    const res = await post(t, `# ${'{'.repeat(300)}\n{ alerts(limit: 1) { total } }`)
    expect(res.statusCode).toBe(200)
  })
})
