import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collect, wsClient } from '../support/graphql-ws-client.js'
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js'
import { spawnTessera, type SpawnedTessera } from '../support/spawn-tessera.js'
import { TEST_CREDENTIALS, testEnv } from '../support/test-credentials.js'

const auth = { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` }

// Its own cluster: stopping the suite's shared one would fail every other split-mode test.
describe('split mode: a 5 s PostgreSQL outage', () => {
  let cluster: PostgresCluster
  let service: SpawnedTessera
  beforeAll(async () => {
    cluster = await startPostgresCluster()
    service = await spawnTessera(['start', '--service', 'devices'], testEnv({ DATABASE_URL: cluster.url, LOG_LEVEL: 'info', PORT: '0' }))
  }, 90_000)
  afterAll(async () => {
    await service?.stop()
    cluster?.stop()
  })

  const raise = async (deviceId: string, deadline = Date.now() + 15_000) => {
    // Right after the restart the pool may still hand out a dead connection: retried, bounded.
    for (;;) {
      const res = await fetch(`${service.url}/v1/medical/alert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ device_id: deviceId, priority: 'low' }),
      }).catch(() => undefined)
      if (res?.status === 201) return ((await res.json()) as { alert_id: string }).alert_id
      if (Date.now() > deadline) throw new Error(`could not raise an alert: ${res?.status} ${await res?.text()}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const ready = async () => {
    const res = await fetch(`${service.url}/ready`)
    return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, string> } }
  }

  it('keeps the subscription open and delivers what was raised before, during and after the gap, once each', async () => {
    const client = wsClient(`${service.url}/graphql`, auth)
    try {
      const sub = collect(client, { query: 'subscription { alertRaised(deviceId: "outage-1") { id } }' }, 3, 40_000)
      await sub.ready
      await new Promise((r) => setTimeout(r, 300))
      const before = await raise('outage-1')

      cluster.pause()
      await new Promise((r) => setTimeout(r, 5000))
      const during = await ready()
      expect(during.status).toBe(503)
      expect(during.body.checks).toMatchObject({ database: 'unreachable', events: 'reconnecting' })
      cluster.resume()
      // Raised as soon as the database takes writes, typically before the listener is back.
      const gap = await raise('outage-1')

      const deadline = Date.now() + 15_000
      while ((await ready()).body.checks?.events !== 'listening') {
        if (Date.now() > deadline) throw new Error(`listener not back: ${JSON.stringify(await ready())}`)
        await new Promise((r) => setTimeout(r, 100))
      }
      const after = await raise('outage-1')
      const results = await sub.results
      expect(results.map((r) => (r.data?.alertRaised as { id: string } | undefined)?.id)).toEqual([before, gap, after])
      // A duplicate of `gap` would have taken `after`'s place above.
      expect(service.output()).toMatch(/listening connection lost/)
      expect(service.output()).toMatch(/listening again/)
      expect((await ready()).body).toEqual({ status: 'ready', checks: { database: 'ok', jobs: 'running', events: 'listening' } })
    } finally {
      await client.dispose()
    }
  }, 60_000)
})
