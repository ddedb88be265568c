import pg from 'pg'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest'
import { collect, wsClient } from '../support/graphql-ws-client.js'
import { spawnTessera, type SpawnedTessera } from '../support/spawn-tessera.js'
import { TEST_CREDENTIALS, testEnv } from '../support/test-credentials.js'

const auth = { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` }

async function graphql(url: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ query, variables }),
  })
  return {
    status: res.status,
    body: (await res.json()) as { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions?: Record<string, any> }> },
  }
}

describe('split mode: services and gateway as separate processes on PostgreSQL', () => {
  let databaseUrl: string
  let replicaA: SpawnedTessera
  let replicaB: SpawnedTessera
  let gateway: SpawnedTessera
  let vizA: SpawnedTessera
  let vizB: SpawnedTessera
  const env = () => testEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', TESSERA_RATE_LIMIT_MAX: '10000' })

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: inject('postgresUrl') })
    await admin.connect()
    await admin.query('DROP DATABASE IF EXISTS tessera_split')
    await admin.query('CREATE DATABASE tessera_split')
    await admin.end()
    databaseUrl = `${inject('postgresBase')}tessera_split`
    replicaA = await spawnTessera(['start', '--service', 'devices'], { ...env(), PORT: '0' })
    replicaB = await spawnTessera(['start', '--service', 'devices'], { ...env(), PORT: '0' })
    vizA = await spawnTessera(['start', '--service', 'visualization'], { ...env(), PORT: '0' })
    vizB = await spawnTessera(['start', '--service', 'visualization'], { ...env(), PORT: '0' })
    gateway = await spawnTessera(['start', '--gateway', '--subgraph', `devices=${replicaA.url}/graphql`, '--subgraph', `visualization=${vizA.url}/graphql`], {
      ...env(),
      PORT: '0',
    })
  })
  afterAll(async () => {
    await Promise.all([gateway?.stop(), replicaA?.stop(), replicaB?.stop(), vizA?.stop(), vizB?.stop()])
  })

  it('serves REST on the service and GraphQL through the gateway over HTTP', async () => {
    const rest = await fetch(`${replicaB.url}/v1/medical/alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ device_id: 'split-1', priority: 'high' }),
    })
    expect(rest.status).toBe(201)
    const { alert_id } = (await rest.json()) as { alert_id: string }
    const res = await graphql(gateway.url, 'query($id: ID!) { alert(id: $id) { id deviceId priority device { alerts { total } } } }', { id: alert_id })
    expect(res.body).toEqual({ data: { alert: { id: alert_id, deviceId: 'split-1', priority: 'HIGH', device: { alerts: { total: 1 } } } } })
  })

  it('keeps service errors coded across the process boundary', async () => {
    const res = await graphql(gateway.url, 'mutation { runCircuit(input: { qubits: 40, gates: [] }) { id } }')
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'qubits' } })
    const nul = await graphql(gateway.url, 'mutation($m: String) { raiseAlert(input: { deviceId: "d", priority: LOW, message: $m }) { id } }', { m: 'a\u0000' })
    expect(nul.body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: '$m' } })
  })

  it('forwards a subscription to the service over graphql-ws, and events cross replicas', async () => {
    const client = wsClient(`${gateway.url}/graphql`, auth)
    try {
      const sub = collect(client, { query: 'subscription { alertRaised(deviceId: "split-2") { id deviceId } }' }, 1, 15_000)
      await sub.ready
      await new Promise((r) => setTimeout(r, 300))
      // Raised on replica B; the subscription lives on replica A: PostgreSQL NOTIFY carries it.
      const rest = await fetch(`${replicaB.url}/v1/medical/alert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ device_id: 'split-2', priority: 'low' }),
      })
      const { alert_id } = (await rest.json()) as { alert_id: string }
      const [event] = await sub.results
      expect(event?.data).toEqual({ alertRaised: { id: alert_id, deviceId: 'split-2' } })
    } finally {
      await client.dispose()
    }
  })

  describe('visualization replicas', () => {
    const rest = async (url: string, method: string, body?: unknown) => {
      const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...auth }, ...(body ? { body: JSON.stringify(body) } : {}) })
      return { status: res.status, body: (await res.json()) as Record<string, any> }
    }
    const newChart = async () => {
      const created = await rest(`${vizA.url}/v1/visualization/charts/render`, 'POST', {
        chart_type: 'line',
        data: [
          { label: 'a', value: 1 },
          { label: 'b', value: 2 },
        ],
      })
      expect(created.status).toBe(201)
      return created.body.chart_id as string
    }

    it('streams a point pushed on one replica to a stream client of another', async () => {
      const chartId = await newChart()
      const socket = new WebSocket(`${vizA.url.replace(/^http/, 'ws')}/v1/visualization/stream`)
      try {
        const seen = new Promise<Record<string, any>>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no update carrying the pushed point within 10 s')), 10_000)
          socket.on('message', (raw) => {
            const message = JSON.parse(String(raw)) as Record<string, any>
            if (message.type === 'authenticated') socket.send(JSON.stringify({ type: 'subscribe', chart_id: chartId, interval: 100 }))
            if (message.type === 'data_update' && message.data.some((d: { label: string }) => d.label === 'from-b')) {
              clearTimeout(timer)
              resolve(message)
            }
          })
          socket.on('open', () => socket.send(JSON.stringify({ type: 'auth', token: TEST_CREDENTIALS.apiKey })))
        })
        await new Promise((r) => setTimeout(r, 500))
        expect((await rest(`${vizB.url}/v1/visualization/charts/${chartId}/data`, 'POST', { data: [{ label: 'from-b', value: 3 }] })).status).toBe(200)
        const update = await seen
        expect(update).toMatchObject({ chart_id: chartId, version: 2 })
        expect(update.data).toHaveLength(3)
      } finally {
        socket.close()
      }
    })

    it('forwards chartDataUpdated through the gateway and sees a change made on another replica', async () => {
      const chartId = await newChart()
      const client = wsClient(`${gateway.url}/graphql`, auth)
      try {
        const sub = collect(client, { query: `subscription { chartDataUpdated(chartId: "${chartId}", intervalMs: 100) { chartId version data } }` }, 40, 15_000)
        await sub.ready
        await new Promise((r) => setTimeout(r, 300))
        expect((await rest(`${vizB.url}/v1/visualization/charts/${chartId}`, 'PUT', { data: [{ label: 'x', value: 9 }] })).status).toBe(200)
        const results = await sub.results
        const versions = results.map((r) => (r.data?.chartDataUpdated as { version: number } | undefined)?.version)
        expect(versions[0]).toBe(1)
        const changed = results.find((r) => (r.data?.chartDataUpdated as { version: number }).version === 2)
        expect(changed?.data?.chartDataUpdated).toEqual({ chartId, version: 2, data: [{ label: 'x', value: 9 }] })
      } finally {
        await client.dispose()
      }
    })

    it('serves an export made on one replica from the other', async () => {
      const chartId = await newChart()
      const exported = await rest(`${vizA.url}/v1/visualization/charts/${chartId}/export`, 'POST', { format: 'svg' })
      expect(exported.status).toBe(201)
      const link = new URL(exported.body.download_url as string)
      const res = await fetch(`${vizB.url}${link.pathname}${link.search}`)
      expect(res.status).toBe(200)
      const bytes = Buffer.from(await res.arrayBuffer())
      expect(bytes.length).toBe(exported.body.file_size)
      expect(bytes.toString('utf8')).toMatch(/^<svg /)
    })
  })

  it('shares rate-limit counters between replicas', async () => {
    const limited = { ...env(), TESSERA_RATE_LIMIT_MAX: '4', TESSERA_RATE_LIMIT_WINDOW_SECONDS: '3600' }
    const [a, b] = await Promise.all([
      spawnTessera(['start', '--service', 'devices'], { ...limited, PORT: '0' }),
      spawnTessera(['start', '--service', 'devices'], { ...limited, PORT: '0' }),
    ])
    try {
      // A fresh key, so earlier tests' requests do not count.
      const headers = { authorization: 'Bearer tsr_unknown_key_for_rate_limit_test' }
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${i % 2 ? a.url : b.url}/v1/quantum/gates`, { headers })).status)
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it('gives partial errors while a subgraph is down and recovers when it is back', async () => {
    const port = new URL(replicaA.url).port
    expect(await replicaA.stop()).toBe(0)
    const down = await graphql(gateway.url, '{ circuitLimits { maxQubits } }')
    // The field is nullable: the outage empties it, names the subgraph and carries the path.
    expect(down.body.data).toEqual({ circuitLimits: null })
    expect(down.body.errors?.[0]).toMatchObject({ path: ['circuitLimits'], extensions: { code: 'SUBGRAPH_UNAVAILABLE', subgraph: 'devices' } })
    replicaA = await spawnTessera(['start', '--service', 'devices'], { ...env(), PORT: port })
    const back = await graphql(gateway.url, '{ circuitLimits { maxQubits } }')
    expect(back.body).toEqual({ data: { circuitLimits: { maxQubits: 16 } } })
  })
})
