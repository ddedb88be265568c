import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

// Split mode: the visualization service in its own process (on a loopback port), and two
// gateway processes in front of it over HTTP, one with the fast path and one without.
const CASES: { name: string; query: string; variables?: Record<string, unknown>; anonymous?: boolean; fast: boolean }[] = [
  { name: 'catalog', query: '{ chartTypes { total items { id name category supportedFeatures dataFormat maxDataPoints } } }', fast: true },
  {
    name: 'aliases and a variable',
    query: 'query($c: String) { page: chartTypes(category: $c, limit: 2) { n: total items { key: id } } }',
    variables: { c: 'trend' },
    fast: true,
  },
  { name: 'no credential (error code and path from the service)', query: '{ chartTypes { total } }', anonymous: true, fast: true },
  { name: 'an unknown chart (null, no error)', query: '{ chart(id: "00000000-0000-4000-8000-000000000000") { id } }', fast: true },
  { name: '__typename', query: '{ chartTypes { __typename total } }', fast: false },
]

describe('the gateway fast path in split mode answers exactly what Apollo executor answers', () => {
  let service: TestTessera
  let fast: TestTessera
  let reference: TestTessera

  beforeAll(async () => {
    service = await build({ mode: { kind: 'service', service: 'visualization' }, listen: true })
    const subgraphUrls = { visualization: `${service.url}/graphql` }
    fast = await build({ mode: { kind: 'gateway', subgraphUrls } })
    reference = await build({ mode: { kind: 'gateway', subgraphUrls }, env: { TESSERA_GATEWAY_FAST_PATH: 'false' } })
  })
  afterAll(async () => {
    await fast?.close()
    await reference?.close()
    await service?.close()
  })

  it.each(CASES)('$name', async (c) => {
    const headers = { 'content-type': 'application/json', 'x-request-id': 'split-parity', ...(c.anonymous ? {} : fast.auth) }
    const payload = { query: c.query, variables: c.variables }
    const stats = fast.gateway!.fastPathStats!
    const before = stats.fast + stats.replayed + stats.refused
    const answer = await fast.app.inject({ method: 'POST', url: '/graphql', headers, payload })
    expect(stats.fast + stats.replayed + stats.refused - before).toBe(c.fast ? 1 : 0)
    const expected = await reference.app.inject({ method: 'POST', url: '/graphql', headers, payload })
    expect(answer.statusCode).toBe(expected.statusCode)
    expect(answer.body).toBe(expected.body)
    if (c.anonymous) expect(answer.json().errors[0]).toMatchObject({ path: ['chartTypes'], extensions: { code: 'UNAUTHORIZED' } })
  })
})
