import { composeServices } from '@apollo/composition'
import { parse } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, type Gateway } from '../../gateway/index.js'
import { defineErrors } from '../../platform/errors.js'
import { createSubgraph } from '../../platform/graphql/subgraph.js'
import { createHttpApp } from '../../platform/http/create-http-app.js'
import { routeUpgrades } from '../../platform/http/route-upgrades.js'
import { createMemoryRateLimitStore, createRateLimiter } from '../../platform/rate-limit/rate-limiter.js'
import { STANDARD_ERRORS, STANDARD_ROLES } from '../../platform/standard-errors.js'
import { collect, wsClient } from '../support/graphql-ws-client.js'

const link = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])'
// Subgraph "ticks" owns the subscription; subgraph "labels" adds a field to its entity.
const ticksSdl = `${link}
  type Query { lastTick: Tick }
  type Subscription { ticked(count: Int!): Tick! }
  type Tick @key(fields: "id") { id: ID! n: Int! }`
const labelsSdl = `${link}
  type Query { label(id: ID!): String }
  type Tick @key(fields: "id") { id: ID! label: String! seenBy: String }`

describe('a subscription whose selection spans subgraphs', () => {
  let gateway: Gateway
  const app = createHttpApp({ logger: false, bodyLimit: 1 << 20 })
  let url = ''
  const entityLookups: string[] = []

  beforeAll(async () => {
    const errors = defineErrors(STANDARD_ERRORS, STANDARD_ROLES)
    const context = async (headers: Record<string, unknown>) => ({
      user: headers.authorization as string | undefined,
      requestId: undefined as string | undefined,
    })
    const ticks = createSubgraph({
      name: 'ticks',
      typeDefs: parse(ticksSdl),
      errors,
      createContext: context,
      resolvers: {
        Query: { lastTick: () => null },
        Subscription: {
          ticked: {
            async *subscribe(_: unknown, { count }: { count: number }) {
              for (let n = 1; n <= count; n++) {
                await new Promise((r) => setTimeout(r, 20))
                yield { ticked: { id: `t${n}`, n } }
              }
            },
          },
        },
      } as never,
    })
    const labels = createSubgraph({
      name: 'labels',
      typeDefs: parse(labelsSdl),
      errors,
      createContext: context,
      resolvers: {
        Query: { label: () => null },
        Tick: {
          __resolveReference(ref: { id: string }, ctx: { user?: string }) {
            entityLookups.push(ref.id)
            return { id: ref.id, label: `label of ${ref.id}`, seenBy: ctx.user ?? null }
          },
        },
      } as never,
    })
    const composed = composeServices([
      { name: 'ticks', url: 'http://ticks', typeDefs: parse(ticksSdl) },
      { name: 'labels', url: 'http://labels', typeDefs: parse(labelsSdl) },
    ])
    if (composed.errors) throw new Error(composed.errors.map((e) => e.message).join('\n'))
    gateway = await createGateway({
      supergraphSdl: composed.supergraphSdl,
      endpoints: { ticks: { kind: 'local', subgraph: ticks }, labels: { kind: 'local', subgraph: labels } },
      introspection: true,
      maxDepth: 10,
      maxCost: 1000,
      limiter: createRateLimiter({ store: createMemoryRateLimitStore(), max: 1000, windowSeconds: 60 }),
      metrics: app.metrics,
      logger: { error() {}, warn() {} },
    })
    await gateway.register(app)
    routeUpgrades(app.server, { '/graphql': (req, socket, head) => gateway.handleUpgrade(req, socket, head, (ws) => gateway.wss.emit('connection', ws, req)) })
    url = await app.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await gateway.closeSubscriptions()
    await app.close()
    await gateway.stop()
  })

  it('resolves the other subgraph’s fields of every event, with the caller’s credentials', async () => {
    const client = wsClient(`${url}/graphql`, { authorization: 'Bearer someone' })
    try {
      const sub = collect(client, { query: 'subscription($c: Int!) { ticked(count: $c) { n label seenBy } }', variables: { c: 3 } }, 3)
      const events = await sub.results
      expect(events.map((e) => e.data)).toEqual([
        { ticked: { n: 1, label: 'label of t1', seenBy: 'Bearer someone' } },
        { ticked: { n: 2, label: 'label of t2', seenBy: 'Bearer someone' } },
        { ticked: { n: 3, label: 'label of t3', seenBy: 'Bearer someone' } },
      ])
      expect(entityLookups).toEqual(['t1', 't2', 't3'])
    } finally {
      await client.dispose()
    }
  })

  it('asks the other subgraph nothing when the owner resolves the whole selection', async () => {
    entityLookups.length = 0
    const client = wsClient(`${url}/graphql`)
    try {
      const events = await collect(client, { query: 'subscription { ticked(count: 2) { id n } }' }, 2).results
      expect(events.map((e) => e.data)).toEqual([{ ticked: { id: 't1', n: 1 } }, { ticked: { id: 't2', n: 2 } }])
      expect(entityLookups).toEqual([])
    } finally {
      await client.dispose()
    }
  })

  it('keeps aliases and fragments of the client’s selection', async () => {
    const client = wsClient(`${url}/graphql`)
    try {
      const events = await collect(client, { query: 'subscription { t: ticked(count: 1) { ...F } } fragment F on Tick { number: n name: label }' }, 1).results
      expect(events[0]?.data).toEqual({ t: { number: 1, name: 'label of t1' } })
    } finally {
      await client.dispose()
    }
  })
})
