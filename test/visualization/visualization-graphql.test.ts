import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { collect, wsClient } from '../support/graphql-ws-client.js'

type GqlError = {
  message: string
  extensions: { code: string; details?: { field?: string; issues?: Array<{ field: string; message: string }> } } & Record<string, unknown>
}

const gql = (t: TestTessera, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = t.auth) =>
  t.app.inject({ method: 'POST', url: '/graphql', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query, variables }) })

/** The data of a query that must succeed. */
async function ok(t: TestTessera, query: string, variables?: Record<string, unknown>) {
  const res = await gql(t, query, variables)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().errors, res.body).toBeUndefined()
  return res.json().data as Record<string, any>
}

/** The first error of a query that must fail. */
async function failure(t: TestTessera, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await gql(t, query, variables, headers)
  const errors = res.json().errors as GqlError[] | undefined
  expect(errors?.length, res.body).toBeGreaterThan(0)
  return errors![0]!
}

const CHART_FIELDS = 'id chartType data dataPoints version width height renderUrl embedCode config { title showLegend animate colors }'
const RENDER = `mutation($input: RenderChartInput!) { renderChart(input: $input) { ${CHART_FIELDS} } }`
const SALES = [
  { label: 'Q1', value: 10 },
  { label: 'Q2', value: 25 },
  { label: 'Q3', value: 15 },
]

describe('visualization through the GraphQL gateway', () => {
  let t: TestTessera
  const rest = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `/v1/visualization${url}`, headers: t.auth, ...(payload ? { payload } : {}) })
  const render = async (input: Record<string, unknown> = { chartType: 'bar', data: SALES }) => (await ok(t, RENDER, { input })).renderChart

  beforeAll(async () => {
    t = await build({ listen: true })
  })
  afterAll(() => t?.close())

  it('lists chart types with their category, filtered by category', async () => {
    const all = (await ok(t, '{ chartTypes { total items { id name category supportedFeatures dataFormat maxDataPoints } } }')).chartTypes
    expect(all.total).toBe(8)
    expect(all.items.find((type: { id: string }) => type.id === 'pie')).toEqual({
      id: 'pie',
      name: 'Pie chart',
      category: 'composition',
      supportedFeatures: ['tooltip', 'legend', 'animation'],
      dataFormat: 'tabular',
      maxDataPoints: 50,
    })
    const trend = (await ok(t, '{ chartTypes(category: "trend") { total items { id category } } }')).chartTypes
    expect(trend).toEqual({
      total: 2,
      items: [
        { id: 'line', category: 'trend' },
        { id: 'area', category: 'trend' },
      ],
    })
  })

  it('renders a chart with its render URL, embed code and data points', async () => {
    const chart = await render({ chartType: 'bar', data: SALES, config: { title: 'Sales' }, width: 640, height: 480 })
    expect(chart).toMatchObject({
      chartType: 'bar',
      data: SALES,
      dataPoints: 3,
      version: 1,
      width: 640,
      height: 480,
      config: { title: 'Sales', showLegend: true, animate: false, colors: null },
    })
    expect(chart.renderUrl).toMatch(new RegExp(`^/v1/visualization/charts/${chart.id}/image\\.svg\\?token=emb_`))
    expect(chart.embedCode).toContain(`/v1/visualization/charts/${chart.id}/embed?token=emb_`)
    expect(chart.embedCode).toContain('width="640"')
    expect(chart.embedCode).toContain('title="Sales"')
    // The render URL works on its own: the token in it is the credential.
    const image = await t.app.inject({ method: 'GET', url: chart.renderUrl })
    expect(image.statusCode).toBe(200)
    expect(image.headers['content-type']).toContain('image/svg+xml')
    expect(image.body).toContain('<svg')
  })

  it('reads a chart by id and lists charts', async () => {
    const chart = await render()
    const read = (await ok(t, `query($id: ID!) { chart(id: $id) { ${CHART_FIELDS} } }`, { id: chart.id })).chart
    expect(read).toEqual(chart)
    const viaRest = (await rest('GET', `/charts/${chart.id}`)).json()
    expect(viaRest).toMatchObject({ chart_id: chart.id, data: SALES, version: 1 })

    const page = (await ok(t, '{ charts(limit: 100) { total items { id } } }')).charts
    expect(page.total).toBeGreaterThanOrEqual(1)
    expect(page.items.map((c: { id: string }) => c.id)).toContain(chart.id)
    const unknown = await ok(t, '{ chart(id: "00000000-0000-4000-8000-000000000000") { id } }')
    expect(unknown.chart).toBeNull()
  })

  it('updates only the fields given and bumps the version', async () => {
    const chart = await render({ chartType: 'bar', data: SALES, config: { title: 'Before', showLegend: false } })
    const updated = (
      await ok(t, `mutation($id: ID!, $input: UpdateChartInput!) { updateChart(id: $id, input: $input) { ${CHART_FIELDS} } }`, {
        id: chart.id,
        input: { chartType: 'line', config: { title: 'After' } },
      })
    ).updateChart
    expect(updated).toMatchObject({ id: chart.id, chartType: 'line', data: SALES, version: 2, config: { title: 'After', showLegend: false } })
    const viaRest = (await rest('GET', `/charts/${chart.id}`)).json()
    expect(viaRest).toMatchObject({ chart_type: 'line', version: 2, config: { title: 'After', showLegend: false } })
  })

  it('pushes data: append updates a label in place and adds the rest, replace and window', async () => {
    const chart = await render()
    const PUSH = 'mutation($id: ID!, $input: PushChartDataInput!) { pushChartData(id: $id, input: $input) { data dataPoints version } }'
    const appended = (
      await ok(t, PUSH, {
        id: chart.id,
        input: {
          data: [
            { label: 'Q2', value: 99 },
            { label: 'Q4', value: 5 },
          ],
        },
      })
    ).pushChartData
    expect(appended).toEqual({
      data: [
        { label: 'Q1', value: 10 },
        { label: 'Q2', value: 99 },
        { label: 'Q3', value: 15 },
        { label: 'Q4', value: 5 },
      ],
      dataPoints: 4,
      version: 2,
    })
    const windowed = (await ok(t, PUSH, { id: chart.id, input: { data: [{ label: 'Q5', value: 1 }], window: 2 } })).pushChartData
    expect(windowed).toEqual({
      data: [
        { label: 'Q4', value: 5 },
        { label: 'Q5', value: 1 },
      ],
      dataPoints: 2,
      version: 3,
    })
    const replaced = (await ok(t, PUSH, { id: chart.id, input: { data: [{ label: 'only', value: 1 }], replace: true } })).pushChartData
    expect(replaced).toEqual({ data: [{ label: 'only', value: 1 }], dataPoints: 1, version: 4 })
    expect((await rest('GET', `/charts/${chart.id}`)).json()).toMatchObject({ data: [{ label: 'only', value: 1 }], version: 4 })

    const bad = await failure(t, PUSH, { id: chart.id, input: { data: [{ label: 'x', value: 'lots' }] } })
    expect(bad.extensions.code).toBe('INVALID_REQUEST')
    expect(JSON.stringify(bad.extensions.details)).toContain('data[0].value')
  })

  it('exports a PNG whose download link serves the PNG bytes', async () => {
    const chart = await render()
    const exported = (
      await ok(
        t,
        'mutation($id: ID!) { exportChart(id: $id, input: { format: PNG, width: 400, height: 300 }) { id chartId format downloadUrl expiresAt fileSize width height } }',
        { id: chart.id },
      )
    ).exportChart
    expect(exported).toMatchObject({ chartId: chart.id, format: 'PNG', width: 400, height: 300 })
    expect(Date.parse(exported.expiresAt)).toBeGreaterThan(Date.now())
    const download = await t.app.inject({ method: 'GET', url: exported.downloadUrl })
    expect(download.statusCode).toBe(200)
    expect(download.headers['content-type']).toBe('image/png')
    expect(download.rawPayload.length).toBe(exported.fileSize)
    expect(download.rawPayload.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  })

  it('deletes a chart, after which it reads as null', async () => {
    const chart = await render()
    expect((await ok(t, 'mutation($id: ID!) { deleteChart(id: $id) { chartId message } }', { id: chart.id })).deleteChart).toMatchObject({ chartId: chart.id })
    expect((await ok(t, 'query($id: ID!) { chart(id: $id) { id } }', { id: chart.id })).chart).toBeNull()
    expect((await rest('GET', `/charts/${chart.id}`)).statusCode).toBe(404)
    const again = await failure(t, 'mutation($id: ID!) { deleteChart(id: $id) { chartId } }', { id: chart.id })
    expect(again.extensions.code).toBe('NOT_FOUND')
  })

  describe('the same analysis as the REST interface', () => {
    const rows = [
      { month: 'Jan', region: 'north', revenue: 120, units: 3 },
      { month: 'Feb', region: 'north', revenue: 90, units: null },
      { month: 'Mar', region: 'south', revenue: 'n/a', units: 7 },
      { month: 'Apr', region: 'south', revenue: 150, units: 4 },
      { month: 'May', region: 'south', revenue: 60, units: 2 },
    ]

    it('validateData', async () => {
      const expected = { type: 'tabular', columns: ['month', 'revenue', 'units'], types: ['string', 'number', 'integer'] }
      const viaRest = (await rest('POST', '/data/validate', { data: rows, expected_schema: expected })).json()
      expect(viaRest.valid).toBe(false)
      const viaGraph = (
        await ok(
          t,
          'query($data: JSON!, $schema: JSON) { validateData(data: $data, expectedSchema: $schema) { valid errors warnings statistics { totalRows nullCount dataTypes } } }',
          { data: rows, schema: expected },
        )
      ).validateData
      expect(viaGraph).toEqual({
        valid: viaRest.valid,
        errors: viaRest.errors,
        warnings: viaRest.warnings,
        statistics: { totalRows: viaRest.statistics.total_rows, nullCount: viaRest.statistics.null_count, dataTypes: viaRest.statistics.data_types },
      })
    })

    it('transformData', async () => {
      const transformations = [
        { type: 'filter', field: 'region', operator: '=', value: 'south' },
        { type: 'sort', field: 'units', order: 'desc' },
      ]
      const viaRest = (await rest('POST', '/data/transform', { data: rows, transformations })).json()
      expect(viaRest.row_count).toBe(3)
      const viaGraph = (
        await ok(t, 'query($data: JSON!, $tr: JSON!) { transformData(data: $data, transformations: $tr) { data rowCount columns applied } }', {
          data: rows,
          tr: transformations,
        })
      ).transformData
      expect(viaGraph).toEqual({ data: viaRest.data, rowCount: viaRest.row_count, columns: viaRest.columns, applied: viaRest.applied })
    })

    it('recommendCharts', async () => {
      const numeric = rows.filter((r) => typeof r.revenue === 'number')
      const viaRest = (await rest('POST', '/analytics/recommend', { data: numeric, intent: 'compare', preferences: { complexity: 'low' } })).json()
      expect(viaRest.recommendations.length).toBeGreaterThan(0)
      const viaGraph = (
        await ok(
          t,
          'query($data: JSON!) { recommendCharts(data: $data, intent: COMPARE, preferences: { complexity: "low" }) { chartType confidence reasoning alternatives } }',
          { data: numeric },
        )
      ).recommendCharts
      expect(viaGraph).toEqual(
        viaRest.recommendations.map((r: { chart_type: string; confidence: number; reasoning: string; alternatives?: string[] }) => ({
          chartType: r.chart_type,
          confidence: r.confidence,
          reasoning: r.reasoning,
          alternatives: r.alternatives ?? null,
        })),
      )
    })
  })

  describe('errors carry the service codes', () => {
    it('INVALID_REQUEST naming the field for an unknown chart type', async () => {
      const error = await failure(t, RENDER, { input: { chartType: 'radar', data: SALES } })
      expect(error.extensions.code).toBe('INVALID_REQUEST')
      expect(JSON.stringify(error.extensions.details)).toContain('chart_type')
    })

    it('UNAUTHORIZED without credentials', async () => {
      const error = await failure(t, '{ chartTypes { total } }', undefined, {})
      expect(error.extensions.code).toBe('UNAUTHORIZED')
    })

    it('FORBIDDEN for a read-only key on renderChart, which can still read', async () => {
      const { key } = await t.credentials!.createApiKey({ name: 'chart reader', scopes: ['visualization:read'] })
      const headers = { authorization: `Bearer ${key}` }
      const error = await failure(t, RENDER, { input: { chartType: 'bar', data: SALES } }, headers)
      expect(error.extensions).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: 'visualization:write' } })
      const read = await gql(t, '{ chartTypes { total } }', undefined, headers)
      expect(read.json()).toEqual({ data: { chartTypes: { total: 8 } } })
    })
  })

  describe('chartDataUpdated over a graphql-ws WebSocket', () => {
    const SUBSCRIPTION = 'subscription($id: ID!, $ms: Int) { chartDataUpdated(chartId: $id, intervalMs: $ms) { chartId version timestamp data } }'

    it('ticks with the chart’s data, and a later tick carries pushed data and a higher version', async () => {
      const chart = await render()
      const client = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${t.apiKey}` })
      try {
        const ticks: Array<{ chartId: string; version: number; timestamp: string; data: Array<{ label: string; value: number }> }> = []
        const errors: unknown[] = []
        let pushedSeen: () => void = () => {}
        const sawPushed = new Promise<void>((resolve) => (pushedSeen = resolve))
        const dispose = client.subscribe(
          { query: SUBSCRIPTION, variables: { id: chart.id, ms: 100 } },
          {
            next(value) {
              if (value.errors) errors.push(value.errors)
              const tick = value.data?.chartDataUpdated as (typeof ticks)[number] | undefined
              if (!tick) return
              ticks.push(tick)
              if (tick.data.some((item) => item.label === 'live')) pushedSeen()
            },
            error: (error) => errors.push(error),
            complete: () => {},
          },
        )
        try {
          const deadline = Date.now() + 5000
          while (ticks.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
          expect(errors).toEqual([])
          expect(ticks.length).toBeGreaterThanOrEqual(3)
          for (const tick of ticks) {
            expect(tick).toMatchObject({ chartId: chart.id, version: 1, data: SALES })
            expect(new Date(tick.timestamp).toISOString()).toBe(tick.timestamp)
          }

          const pushed = (
            await ok(t, 'mutation($id: ID!) { pushChartData(id: $id, input: { data: [{ label: "live", value: 42 }] }) { version } }', { id: chart.id })
          ).pushChartData
          expect(pushed.version).toBe(2)
          await Promise.race([
            sawPushed,
            new Promise((_, reject) => setTimeout(() => reject(new Error(`no tick with the pushed data: ${JSON.stringify(ticks.slice(-3))}`)), 3000)),
          ])
          const latest = ticks.at(-1)!
          expect(latest.version).toBe(2)
          expect(latest.data).toEqual([...SALES, { label: 'live', value: 42 }])
          // Versions never go back.
          expect(ticks.map((tick) => tick.version)).toEqual([...ticks.map((tick) => tick.version)].sort((a, b) => a - b))
        } finally {
          dispose()
        }
      } finally {
        await client.dispose()
      }
    })

    it('refuses an interval below 100 ms with INVALID_REQUEST', async () => {
      const chart = await render()
      const client = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${t.apiKey}` })
      try {
        const [result] = await collect(client, { query: SUBSCRIPTION, variables: { id: chart.id, ms: 50 } }, 1, 5000).results
        expect(result?.data?.chartDataUpdated ?? null).toBeNull()
        expect(result?.errors?.[0]?.extensions?.code).toBe('INVALID_REQUEST')
      } finally {
        await client.dispose()
      }
    })
  })

  describe('charts of a pipeline run’s output (federation)', () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr']
    const revenue = [1200.5, 980, 1430, 1105.25]
    let runId: string

    beforeAll(async () => {
      const dir = path.join(t.dataDir, 'pipelines/files/viz')
      mkdirSync(dir, { recursive: true })
      writeFileSync(path.join(dir, 'revenue.csv'), `month,revenue\n${months.map((m, i) => `${m},${revenue[i]}`).join('\n')}\n`)
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/pipelines',
        headers: t.auth,
        payload: { name: 'monthly revenue', source: { type: 'csv', path: 'viz/revenue.csv' }, destination: { type: 'csv', path: 'viz/revenue-out.csv' } },
      })
      expect(created.statusCode, created.body).toBe(201)
      const pipelineId = created.json().pipeline_id as string
      const started = await t.app.inject({ method: 'POST', url: `/v1/pipelines/${pipelineId}/run`, headers: t.auth })
      expect(started.statusCode, started.body).toBe(202)
      runId = started.json().run_id
      const deadline = Date.now() + 30_000
      for (;;) {
        const runs = (await t.app.inject({ method: 'GET', url: `/v1/pipelines/${pipelineId}/runs`, headers: t.auth })).json().runs as Array<{
          run_id: string
          status: string
        }>
        const status = runs.find((r) => r.run_id === runId)?.status
        if (status && status !== 'running') {
          expect(status).toBe('success')
          break
        }
        if (Date.now() > deadline) throw new Error(`run ${runId} still running after 30 s`)
        await new Promise((r) => setTimeout(r, 150))
      }
    })

    const CHART_OF_RUN = `query($runId: ID!, $input: RunChartInput!) { run(id: $runId) { output { runId chart(input: $input) { chartType dataPoints data config { title } svg } } } }`
    const barInput = { chartType: 'bar', xField: 'month', valueField: 'revenue', config: { title: 'Revenue' } }

    it('draws the run’s rows as a chart, the same chart every time', async () => {
      const first = (await ok(t, CHART_OF_RUN, { runId, input: barInput })).run.output
      expect(first.runId).toBe(runId)
      expect(first.chart.dataPoints).toBe(months.length)
      expect(first.chart.data).toEqual(months.map((label, i) => ({ label, value: revenue[i] })))
      expect(first.chart.svg).toMatch(/^<svg[\s\S]*Revenue[\s\S]*<\/svg>\s*$/)
      const again = (await ok(t, CHART_OF_RUN, { runId, input: barInput })).run.output
      expect(again.chart).toEqual(first.chart)
      // Kept with the mutation, it is a chart like any other.
      const kept = await ok(t, 'mutation($i: RenderChartInput!) { renderChart(input: $i) { id dataPoints } }', {
        i: { chartType: first.chart.chartType, data: first.chart.data, config: { title: first.chart.config.title } },
      })
      expect(kept.renderChart.dataPoints).toBe(months.length)
    })

    it('a read-only key draws the run’s chart without creating a chart (a query never writes)', async () => {
      const { key } = await t.credentials!.createApiKey({ name: 'run reader', scopes: ['visualization:read', 'pipelines:read'] })
      const reader = { authorization: `Bearer ${key}` }
      const charts = await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query: '{ charts(limit: 1) { total } }' } })
      const before = charts.json().data.charts.total as number
      for (const title of ['one', 'two', 'three']) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: reader,
          payload: { query: CHART_OF_RUN, variables: { runId, input: { ...barInput, config: { title } } } },
        })
        expect(res.json().errors).toBeUndefined()
        expect(res.json().data.run.output.chart.svg).toContain(title)
      }
      const after = await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query: '{ charts(limit: 1) { total } }' } })
      expect(after.json().data.charts.total).toBe(before)
    })

    it('the literal query of the run’s chart works too', async () => {
      const query = `query($runId: ID!) { run(id: $runId) { output { runId chart(input: { chartType: "bar", xField: "month", valueField: "revenue", config: { title: "Revenue" } }) { chartType dataPoints data config { title } svg } } } }`
      const viaVariables = (await ok(t, CHART_OF_RUN, { runId, input: barInput })).run.output.chart
      expect((await ok(t, query, { runId })).run.output.chart).toEqual(viaVariables)
    })

    it('refuses a missing valueField with INVALID_REQUEST naming input.valueField', async () => {
      const error = await failure(t, CHART_OF_RUN, { runId, input: { chartType: 'bar', xField: 'month' } })
      expect(error.extensions.code).toBe('INVALID_REQUEST')
      expect(error.extensions.details?.issues?.map((i) => i.field) ?? [error.extensions.details?.field]).toContain('input.valueField')
    })

    it('refuses a column the output does not have, naming it', async () => {
      const error = await failure(t, CHART_OF_RUN, { runId, input: { chartType: 'bar', xField: 'month', valueField: 'profit' } })
      expect(error.extensions.code).toBe('INVALID_REQUEST')
      const issues = error.extensions.details?.issues ?? []
      expect(issues.map((i) => i.field)).toContain('input.valueField')
      // Naming the column lets a client show its user which name was wrong, not only which input.
      expect(`${error.message} ${JSON.stringify(issues)}`).toContain('profit')
    })
  })
})
