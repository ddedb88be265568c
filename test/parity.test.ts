import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from './helper.js'

// Every REST operation and its GraphQL twin, called with no credential, with a credential of
// the wrong scope and with the right one: both faces must give the same outcome, because both
// call the same domain operation and the rule lives there.

interface Operation {
  name: string
  /** The scope the operation needs. */
  scope: string
  rest: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: object }
  graphql: { query: string; variables?: Record<string, unknown> }
}

const missing = randomUUID()
const chartData = [{ label: 'a', value: 1 }]
const schemaOfData = { type: 'object', properties: { label: { type: 'string' }, value: { type: 'number' } } }
const csvSource = { type: 'csv', path: 'parity.csv' }
const csvDestination = { type: 'csv', path: 'parity-out.csv' }

const OPERATIONS: Operation[] = [
  // --- devices -------------------------------------------------------------------------------
  {
    name: 'submit a signal',
    scope: 'devices:write',
    rest: { method: 'POST', url: '/v1/aac/signal', payload: { type: 'switch', device_id: 'parity-1', data: { pressed: true } } },
    graphql: {
      query: 'mutation($d: JSON!) { submitSignal(input: { type: SWITCH, deviceId: "parity-1", data: $d }) { signal { id } } }',
      variables: { d: { pressed: true } },
    },
  },
  {
    name: 'read a signal',
    scope: 'devices:read',
    rest: { method: 'GET', url: `/v1/aac/signal/${missing}` },
    graphql: { query: `{ signal(id: "${missing}") { id } }` },
  },
  {
    name: 'read dwell settings',
    scope: 'devices:read',
    rest: { method: 'GET', url: '/v1/aac/devices/parity-1/dwell' },
    graphql: { query: '{ device(id: "parity-1") { id } }' },
  },
  {
    name: 'configure dwell',
    scope: 'devices:write',
    rest: { method: 'PUT', url: '/v1/aac/devices/parity-1/dwell', payload: { radius: 40 } },
    graphql: { query: 'mutation { configureDwell(deviceId: "parity-1", input: { radius: 40 }) { id } }' },
  },
  {
    name: 'raise an alert',
    scope: 'devices:write',
    rest: { method: 'POST', url: '/v1/medical/alert', payload: { device_id: 'parity-pump', priority: 'low' } },
    graphql: { query: 'mutation { raiseAlert(input: { deviceId: "parity-pump", priority: LOW }) { id } }' },
  },
  { name: 'list alerts', scope: 'devices:read', rest: { method: 'GET', url: '/v1/medical/alerts' }, graphql: { query: '{ alerts { total } }' } },
  {
    name: 'read an alert',
    scope: 'devices:read',
    rest: { method: 'GET', url: `/v1/medical/alert/${missing}` },
    graphql: { query: `{ alert(id: "${missing}") { id } }` },
  },
  {
    name: 'acknowledge an alert',
    scope: 'devices:write',
    rest: { method: 'POST', url: `/v1/medical/alert/${missing}/acknowledge` },
    graphql: { query: `mutation { acknowledgeAlert(id: "${missing}") { id } }` },
  },
  {
    name: 'resolve an alert',
    scope: 'devices:write',
    rest: { method: 'POST', url: `/v1/medical/alert/${missing}/resolve` },
    graphql: { query: `mutation { resolveAlert(id: "${missing}") { id } }` },
  },
  {
    name: 'run a circuit',
    scope: 'devices:write',
    rest: { method: 'POST', url: '/v1/quantum/circuit', payload: { qubits: 1, gates: ['H 0'] } },
    graphql: { query: 'mutation { runCircuit(input: { qubits: 1, gates: ["H 0"] }) { id } }' },
  },
  {
    name: 'read a circuit',
    scope: 'devices:read',
    rest: { method: 'GET', url: `/v1/quantum/circuit/${missing}` },
    graphql: { query: `{ circuit(id: "${missing}") { id } }` },
  },
  {
    name: 'list gates',
    scope: 'devices:read',
    rest: { method: 'GET', url: '/v1/quantum/gates' },
    graphql: { query: '{ supportedGates { name } circuitLimits { maxQubits } }' },
  },
  // --- pipelines -----------------------------------------------------------------------------
  { name: 'list connectors', scope: 'pipelines:read', rest: { method: 'GET', url: '/v1/connectors' }, graphql: { query: '{ connectors { id } }' } },
  { name: 'list pipelines', scope: 'pipelines:read', rest: { method: 'GET', url: '/v1/pipelines' }, graphql: { query: '{ pipelines { total } }' } },
  {
    name: 'read a pipeline',
    scope: 'pipelines:read',
    rest: { method: 'GET', url: `/v1/pipelines/${missing}` },
    graphql: { query: `{ pipeline(id: "${missing}") { id } }` },
  },
  {
    name: 'create a pipeline',
    scope: 'pipelines:write',
    rest: { method: 'POST', url: '/v1/pipelines', payload: { name: 'parity', source: csvSource, destination: csvDestination } },
    graphql: {
      query: 'mutation($s: JSON!, $d: JSON!) { createPipeline(input: { name: "parity", source: $s, destination: $d }) { id } }',
      variables: { s: csvSource, d: csvDestination },
    },
  },
  {
    name: 'run a pipeline',
    scope: 'pipelines:write',
    rest: { method: 'POST', url: `/v1/pipelines/${missing}/run` },
    graphql: { query: `mutation { runPipeline(id: "${missing}") { id } }` },
  },
  {
    name: 'delete a pipeline',
    scope: 'pipelines:write',
    rest: { method: 'DELETE', url: `/v1/pipelines/${missing}` },
    graphql: { query: `mutation { deletePipeline(id: "${missing}") { message } }` },
  },
  {
    name: 'read a run',
    scope: 'pipelines:read',
    rest: { method: 'GET', url: `/v1/runs/${missing}/logs` },
    graphql: { query: `{ run(id: "${missing}") { id } }` },
  },
  // --- visualization -------------------------------------------------------------------------
  {
    name: 'list chart types',
    scope: 'visualization:read',
    rest: { method: 'GET', url: '/v1/visualization/charts' },
    graphql: { query: '{ chartTypes { total } }' },
  },
  {
    name: 'render a chart',
    scope: 'visualization:write',
    rest: { method: 'POST', url: '/v1/visualization/charts/render', payload: { chart_type: 'bar', data: chartData } },
    graphql: { query: 'mutation($d: JSON!) { renderChart(input: { chartType: "bar", data: $d }) { id } }', variables: { d: chartData } },
  },
  {
    name: 'read a chart',
    scope: 'visualization:read',
    rest: { method: 'GET', url: `/v1/visualization/charts/${missing}` },
    graphql: { query: `{ chart(id: "${missing}") { id } }` },
  },
  {
    name: 'update a chart',
    scope: 'visualization:write',
    rest: { method: 'PUT', url: `/v1/visualization/charts/${missing}`, payload: { config: { title: 'x' } } },
    graphql: { query: `mutation { updateChart(id: "${missing}", input: { config: { title: "x" } }) { id } }` },
  },
  {
    name: 'push chart data',
    scope: 'visualization:write',
    rest: { method: 'POST', url: `/v1/visualization/charts/${missing}/data`, payload: { data: chartData } },
    graphql: { query: `mutation($d: JSON!) { pushChartData(id: "${missing}", input: { data: $d }) { id } }`, variables: { d: chartData } },
  },
  {
    name: 'delete a chart',
    scope: 'visualization:write',
    rest: { method: 'DELETE', url: `/v1/visualization/charts/${missing}` },
    graphql: { query: `mutation { deleteChart(id: "${missing}") { message } }` },
  },
  {
    name: 'export a chart',
    scope: 'visualization:read',
    rest: { method: 'POST', url: `/v1/visualization/charts/${missing}/export`, payload: { format: 'png' } },
    graphql: { query: `mutation { exportChart(id: "${missing}", input: { format: PNG }) { downloadUrl } }` },
  },
  {
    name: 'validate data',
    scope: 'visualization:read',
    rest: { method: 'POST', url: '/v1/visualization/data/validate', payload: { data: chartData, expected_schema: schemaOfData } },
    graphql: { query: 'query($d: JSON!, $s: JSON) { validateData(data: $d, expectedSchema: $s) { valid } }', variables: { d: chartData, s: schemaOfData } },
  },
  {
    name: 'transform data',
    scope: 'visualization:read',
    rest: { method: 'POST', url: '/v1/visualization/data/transform', payload: { data: chartData, transformations: [] } },
    graphql: { query: 'query($d: JSON!) { transformData(data: $d, transformations: []) { rowCount } }', variables: { d: chartData } },
  },
  {
    name: 'recommend charts',
    scope: 'visualization:read',
    rest: { method: 'POST', url: '/v1/visualization/analytics/recommend', payload: { data: chartData, intent: 'compare' } },
    graphql: { query: 'query($d: JSON!) { recommendCharts(data: $d, intent: COMPARE) { chartType } }', variables: { d: chartData } },
  },
]

/** An outcome both faces can be compared on: the HTTP status class and the error code. */
interface Outcome {
  status: number
  code?: string
}

describe('REST and GraphQL agree on every operation, for every kind of caller', () => {
  let t: TestTessera
  const keys: Record<string, string> = {}
  beforeAll(async () => {
    t = await build()
    for (const scope of new Set(OPERATIONS.map((o) => o.scope))) {
      keys[scope] = (await t.credentials!.createApiKey({ name: `parity ${scope}`, scopes: [scope] })).key
    }
  })
  afterAll(() => t.close())

  const restOutcome = async (op: Operation, key?: string): Promise<Outcome> => {
    const res = await t.app.inject({ ...op.rest, headers: key ? { authorization: `Bearer ${key}` } : {} })
    return res.statusCode < 300 ? { status: 200 } : { status: res.statusCode, code: res.json().error.code }
  }
  const graphqlOutcome = async (op: Operation, key?: string): Promise<Outcome> => {
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: key ? { authorization: `Bearer ${key}` } : {}, payload: op.graphql })
    const body = res.json() as { errors?: Array<{ message: string; extensions?: { code?: string; http?: { status?: number } } }> }
    const error = body.errors?.[0]
    if (!error) return { status: 200 }
    return { status: error.extensions?.http?.status ?? 500, code: error.extensions?.code }
  }
  // A credential that holds a real scope, of another service, but not this one.
  const wrongScope = (scope: string) => Object.keys(keys).find((s) => s.split(':')[0] !== scope.split(':')[0]) as string

  for (const op of OPERATIONS) {
    it(`${op.name}: same answer with no credential, a wrong scope and the right scope`, async () => {
      const anonymous = [await restOutcome(op), await graphqlOutcome(op)]
      expect(anonymous[0]!.status, 'REST without a credential').toBe(401)
      expect(anonymous[1], 'GraphQL without a credential').toEqual(anonymous[0])

      const wrong = keys[wrongScope(op.scope)]
      const forbidden = [await restOutcome(op, wrong), await graphqlOutcome(op, wrong)]
      expect(forbidden[0]!.status, 'REST with a wrong scope').toBe(403)
      expect(forbidden[1], 'GraphQL with a wrong scope').toEqual(forbidden[0])

      const right = [await restOutcome(op, keys[op.scope]), await graphqlOutcome(op, keys[op.scope])]
      for (const outcome of right) expect([401, 403]).not.toContain(outcome.status)
    })
  }
})
