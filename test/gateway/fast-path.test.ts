import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import { parse } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, type Gateway, type SubgraphEndpoint } from '../../gateway/index.js'
import { createFastPath, type FastPath } from '../../gateway/fast-path.js'
import { createMetrics } from '../../platform/http/metrics.js'
import { createMemoryRateLimitStore, createRateLimiter } from '../../platform/rate-limit/rate-limiter.js'
import { build, type TestTessera } from '../helper.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

interface Case {
  name: string
  query: string
  variables?: Record<string, unknown>
  /** Whether the operation is answered without Apollo's result shaping. */
  fast: boolean
  /** Send no credential. */
  anonymous?: boolean
}

// The alert id is filled in once created; `ALERT` stands for it.
const CASES: Case[] = [
  { name: 'catalog', query: '{ chartTypes { total items { id name category supportedFeatures dataFormat maxDataPoints } } }', fast: true },
  { name: 'aliases', query: '{ page: chartTypes(limit: 2, offset: 1) { count: total items { key: id label: name } } }', fast: true },
  {
    name: 'an enum argument and a variable',
    query: 'query($c: String) { chartTypes(category: $c) { total items { id category } } }',
    variables: { c: 'trend' },
    fast: true,
  },
  { name: '@include false', query: 'query($with: Boolean!) { chartTypes { total items @include(if: $with) { id } } }', variables: { with: false }, fast: true },
  { name: '@include true', query: 'query($with: Boolean!) { chartTypes { total items @include(if: $with) { id } } }', variables: { with: true }, fast: true },
  { name: '@skip on a leaf', query: 'query($s: Boolean!) { chartTypes { total @skip(if: $s) items { id } } }', variables: { s: true }, fast: true },
  { name: '@skip on a root field', query: 'query($s: Boolean!) { chartTypes @skip(if: $s) { total } }', variables: { s: false }, fast: false },
  { name: '__typename', query: '{ chartTypes { __typename total items { __typename id } } }', fast: false },
  { name: 'root __typename', query: '{ __typename chartTypes { total } }', fast: false },
  { name: 'a named fragment', query: '{ chartTypes { ...Page } } fragment Page on ChartTypePage { total }', fast: false },
  { name: 'an inline fragment', query: '{ chartTypes { ... on ChartTypePage { total } } }', fast: false },
  { name: 'a field selected twice', query: '{ chartTypes { total total items { id } } }', fast: false },
  { name: 'introspection', query: '{ __schema { queryType { name } } }', fast: false },
  { name: 'one alert', query: 'query($id: ID!) { alert(id: $id) { id deviceId priority status raisedAt message } }', variables: { id: 'ALERT' }, fast: true },
  { name: 'an alert with its device', query: 'query($id: ID!) { alert(id: $id) { id device { id } } }', variables: { id: 'ALERT' }, fast: true },
  {
    name: 'an unknown alert (error with a path)',
    query: 'query($id: ID!) { alert(id: $id) { id } }',
    variables: { id: '00000000-0000-4000-8000-000000000000' },
    fast: true,
  },
  { name: 'no credential (error code)', query: '{ alerts { total } }', fast: true, anonymous: true },
  { name: 'a variable of the wrong type', query: 'query($id: ID!) { alert(id: $id) { id } }', variables: { id: { not: 'an id' } }, fast: true },
  { name: 'a missing variable', query: 'query($id: ID!) { alert(id: $id) { id } }', fast: true },
  {
    name: 'two subgraphs',
    query: '{ run(id: "00000000-0000-4000-8000-000000000000") { id output { runId chart(input: { chartType: "bar" }) { chartType } } } }',
    fast: false,
  },
  { name: 'a named operation among two', query: 'query A { chartTypes { total } } query B { alerts { total } }', fast: true },
]

describe('the gateway fast path answers exactly what Apollo executor answers', () => {
  let t: TestTessera
  let reference: { app: FastifyInstance; gateway: Gateway }
  let fastPath: FastPath
  let alertId: string

  beforeAll(async () => {
    // The fast path is on by default in this process; a second gateway over the same in-process
    // subgraphs (same database) runs with it off, so both read the same records.
    t = await build({ services: ['devices', 'visualization', 'pipelines'] })
    const supergraphSdl = await readFile(path.join(root, 'schema/supergraph.graphql'), 'utf8')
    const endpoints: Record<string, SubgraphEndpoint> = {}
    for (const [name, instance] of Object.entries(t.services)) endpoints[name] = { kind: 'local', subgraph: instance!.subgraph }
    const app = Fastify()
    const gateway = await createGateway({
      supergraphSdl,
      endpoints,
      introspection: true,
      maxDepth: 12,
      maxCost: 10_000,
      fastPath: false,
      limiter: createRateLimiter({ store: createMemoryRateLimitStore(), max: 100_000, windowSeconds: 60 }),
      metrics: createMetrics(),
      logger: { error() {}, warn() {} },
    })
    await gateway.register(app)
    reference = { app, gateway }
    fastPath = createFastPath({ supergraphSdl, dataSources: {} })
    const raised = await t.app.inject({
      method: 'POST',
      url: '/v1/medical/alert',
      headers: t.auth,
      payload: { device_id: 'pump-7', priority: 'low', message: 'check line' },
    })
    alertId = raised.json().alert_id
  })
  afterAll(async () => {
    await reference?.gateway.stop()
    await reference?.app.close()
    await t?.close()
  })

  const withAlert = (variables: Record<string, unknown> | undefined) =>
    variables && JSON.parse(JSON.stringify(variables).replaceAll('"ALERT"', JSON.stringify(alertId)))

  it.each(CASES)('$name', async (c) => {
    const operationName = c.query.includes('query A') ? 'A' : undefined
    expect(fastPath.decide(parse(c.query), operationName).kind).toBe(c.fast ? 'fetch' : 'apollo')
    const payload = { query: c.query, variables: withAlert(c.variables), operationName }
    // The same request id on both sides: masked errors quote it.
    const headers = { 'content-type': 'application/json', 'x-request-id': 'fast-path-parity', ...(c.anonymous ? {} : t.auth) }
    const stats = t.gateway!.fastPathStats!
    const before = { ...stats }
    const fast = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload })
    const onFastPath = stats.fast + stats.refused + stats.replayed - (before.fast + before.refused + before.replayed)
    expect(onFastPath).toBe(c.fast ? 1 : 0)
    const apollo = await reference.app.inject({ method: 'POST', url: '/graphql', headers, payload })
    expect(fast.statusCode).toBe(apollo.statusCode)
    expect(fast.body).toBe(apollo.body)
  })

  it('keeps the service error codes and paths on the fast path', async () => {
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...t.auth },
      payload: { query: 'query($id: ID!) { alert(id: $id) { id } }', variables: { id: '00000000-0000-4000-8000-000000000000' } },
    })
    const [error] = unknown.json().errors
    expect(error.path).toEqual(['alert'])
    expect(error.extensions).toMatchObject({ code: 'NOT_FOUND', http: { status: 404 } })

    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json' },
      payload: { query: '{ alerts { total } }' },
    })
    expect(anonymous.json().errors[0]).toMatchObject({ path: ['alerts'], extensions: { code: 'UNAUTHORIZED' } })
  })

  it('serves automatic persisted queries: the hash alone runs a registered operation, on the fast path', async () => {
    const query = '{ chartTypes(limit: 3) { total items { id } } }'
    const sha256Hash = createHash('sha256').update(query).digest('hex')
    const extensions = { persistedQuery: { version: 1, sha256Hash } }
    const send = (payload: object) => t.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...t.auth }, payload })
    const unknown = await send({ extensions })
    expect(unknown.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND')
    const registered = await send({ query, extensions })
    expect(registered.json().data.chartTypes.items).toHaveLength(3)
    const stats = t.gateway!.fastPathStats!
    const fastBefore = stats.fast
    const byHash = await send({ extensions })
    expect(byHash.body).toBe(registered.body)
    expect(stats.fast).toBe(fastBefore + 1)
    const wrongHash = await send({ query: '{ chartTypes { total } }', extensions })
    expect(wrongHash.statusCode).toBe(400)
  })

  it('still runs the limits, CSRF and rate-limit checks before it', async () => {
    const deep =
      '{ alert(id: "x") { device { alerts { items { device { alerts { items { device { alerts { items { device { alerts { items { id } } } } } } } } } } } } } }'
    const tooDeep = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...t.auth },
      payload: { query: deep },
    })
    expect(tooDeep.statusCode).toBe(400)
    const csrf = await t.app.inject({ method: 'GET', url: '/graphql?query=%7BchartTypes%7Btotal%7D%7D', headers: { ...t.auth } })
    expect(csrf.statusCode).toBe(400)
    expect(csrf.body).toContain('CSRF')
  })
})
