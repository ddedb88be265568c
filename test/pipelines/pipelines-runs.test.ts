import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PipelinesService } from '../../subgraphs/pipelines/index.js'
import { build, TEST_CREDENTIALS, type TestTessera } from '../helper.js'
import { collect, wsClient } from '../support/graphql-ws-client.js'

describe('pipeline runs: jobs, schedules, cancellation, GraphQL', () => {
  let t: TestTessera
  const post = (url: string, payload?: object) => t.app.inject({ method: 'POST', url, headers: t.auth, ...(payload ? { payload } : {}) })
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth })
  const gql = (query: string, variables?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...t.auth }, payload: { query, variables } })

  // A CSV big enough that a run takes a moment, written once into this process's files folder.
  const writeCsv = (name: string, rows: number) => {
    const dir = path.join(t.dataDir, 'pipelines/files')
    mkdirSync(dir, { recursive: true })
    const lines = ['id,label,value']
    for (let i = 1; i <= rows; i++) lines.push(`${i},item-${i},${(i * 7) % 101}`)
    writeFileSync(path.join(dir, name), `${lines.join('\n')}\n`)
  }
  const csvPipeline = (name: string, file: string, extra: Record<string, unknown> = {}) => ({
    name,
    source: { type: 'csv', path: file },
    destination: { type: 'ndjson', path: `out/${name}.ndjson` },
    ...extra,
  })
  async function waitForRun(runId: string) {
    const deadline = Date.now() + 30_000
    for (;;) {
      const logs = (await get(`/v1/runs/${runId}/logs`)).json().logs as Array<{ level: string }>
      if (logs.some((l) => l.level === 'SUCCESS' || l.level === 'ERROR')) return logs
      if (Date.now() > deadline) throw new Error('run did not finish')
      await new Promise((r) => setTimeout(r, 150))
    }
  }

  beforeAll(async () => {
    t = await build({ services: ['pipelines'], listen: true })
    writeCsv('small.csv', 50)
    writeCsv('big.csv', 200_000)
  })
  afterAll(() => t.close())

  it('answers POST …/run at once with a running run, refuses a second concurrent run, and keeps history', async () => {
    const id = (await post('/v1/pipelines', csvPipeline('big', 'big.csv', { sync: { batch_size: 1000 } }))).json().pipeline_id
    const first = await post(`/v1/pipelines/${id}/run`)
    expect(first.statusCode).toBe(202)
    expect(first.json()).toMatchObject({ pipeline_id: id, status: 'running' })
    const second = await post(`/v1/pipelines/${id}/run`)
    expect(second.statusCode).toBe(409)
    expect(second.json().error.code).toBe('PIPE_003')
    expect((await get(`/v1/pipelines/${id}`)).json().status).toBe('running')
    await waitForRun(first.json().run_id)
    const runs = (await get(`/v1/pipelines/${id}/runs?status=success&limit=5`)).json().runs
    expect(runs).toEqual([expect.objectContaining({ run_id: first.json().run_id, status: 'success', records_processed: 200_000 })])
    expect((await get(`/v1/pipelines/${id}/runs?status=failed`)).json().runs).toEqual([])
  })

  it('cancels a running run when its pipeline is deleted, and the destination keeps its old content', async () => {
    const id = (await post('/v1/pipelines', csvPipeline('cancel-me', 'big.csv', { sync: { batch_size: 100 } }))).json().pipeline_id
    const run = (await post(`/v1/pipelines/${id}/run`)).json()
    await new Promise((r) => setTimeout(r, 400))
    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/pipelines/${id}`, headers: t.auth })
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json()).toEqual({ message: expect.stringContaining('cancelled'), pipeline_id: id })
    expect((await get(`/v1/pipelines/${id}`)).statusCode).toBe(404)
    expect((await get(`/v1/runs/${run.run_id}/logs`)).statusCode).toBe(404)
    // The engine stops at its next batch and rolls back: no output, not even a temporary file.
    const out = path.join(t.dataDir, 'pipelines/files/out')
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline && existsSync(out) && readdirSync(out).some((f) => f.includes('cancel-me'))) await new Promise((r) => setTimeout(r, 200))
    expect(existsSync(out) ? readdirSync(out).filter((f) => f.includes('cancel-me')) : []).toEqual([])
  })

  it('fires a schedule once per due time, however many ticks run at once', async () => {
    const created = (await post('/v1/pipelines', csvPipeline('scheduled', 'small.csv', { schedule: '*/5 * * * *' }))).json()
    expect(Date.parse(created.next_run)).toBeGreaterThan(Date.now())
    const service = t.services.pipelines!.domain as PipelinesService
    const due = new Date(Date.parse(created.next_run) + 1000)
    const started = (await Promise.all([service.runDueSchedules(due), service.runDueSchedules(due), service.runDueSchedules(due)])).flat()
    expect(started).toHaveLength(1)
    await waitForRun(started[0]!)
    const runs = (await get(`/v1/pipelines/${created.pipeline_id}/runs`)).json().runs
    expect(runs).toEqual([expect.objectContaining({ trigger: 'schedule', status: 'success', records_processed: 50 })])
    const detail = (await get(`/v1/pipelines/${created.pipeline_id}`)).json()
    expect(detail.schedule).toBe('*/5 * * * *')
    expect(Date.parse(detail.next_run) % (5 * 60_000)).toBe(0)
  })

  it('streams a run’s status and log lines through the gateway, and exposes its output', async () => {
    const created = await gql('mutation($i: CreatePipelineInput!) { createPipeline(input: $i) { id status } }', {
      i: {
        name: 'via graphql',
        source: { type: 'csv', path: 'big.csv' },
        destination: { type: 'ndjson', path: 'out/graphql.ndjson' },
        transformations: [{ type: 'filter', condition: 'value > 50' }],
        sync: { batch_size: 1000 },
      },
    })
    const pipeline = created.json().data.createPipeline
    expect(pipeline.status).toBe('CREATED')
    const client = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const started = (await gql('mutation($id: ID!) { runPipeline(id: $id) { id status } }', { id: pipeline.id })).json().data.runPipeline
      const updates = collect(
        client,
        { query: 'subscription($r: ID!) { runUpdated(runId: $r) { status recordsProcessed } }', variables: { r: started.id } },
        1,
        20_000,
      )
      const [update] = await updates.results
      expect(update?.data?.runUpdated).toMatchObject({ status: expect.stringMatching(/SUCCESS|RUNNING/) })
      await waitForRun(started.id)
      const read = await gql(
        `query($id: ID!) { run(id: $id) { status recordsRead recordsProcessed logs { level message } pipeline { name status }
        output { destinationType recordsWritten preview(limit: 3) { columns { name type } rows } } } }`,
        { id: started.id },
      )
      const run = read.json().data.run
      expect(run).toMatchObject({
        status: 'SUCCESS',
        recordsRead: 200_000,
        pipeline: { name: 'via graphql', status: 'ACTIVE' },
        output: { destinationType: 'ndjson' },
      })
      expect(run.recordsProcessed).toBeLessThan(200_000)
      expect(run.output.recordsWritten).toBe(run.recordsProcessed)
      expect(run.output.preview.rows).toHaveLength(3)
      expect(run.output.preview.rows.every((r: { value: number }) => r.value > 50)).toBe(true)
      expect(run.logs.at(-1).level).toBe('SUCCESS')
    } finally {
      await client.dispose()
    }
  })

  it('streams log lines live', async () => {
    const id = (await post('/v1/pipelines', csvPipeline('logs-live', 'big.csv', { sync: { batch_size: 1000 } }))).json().pipeline_id
    const client = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      // Subscribe to the next run's logs: the run id is known only once it starts, so the run is
      // started first and the subscription catches the lines written after it.
      const run = (await post(`/v1/pipelines/${id}/run`)).json()
      const lines = collect(client, { query: 'subscription($r: ID!) { runLogs(runId: $r) { level message } }', variables: { r: run.run_id } }, 1, 20_000)
      const [first] = await lines.results
      expect(first?.data?.runLogs).toMatchObject({ level: expect.stringMatching(/INFO|SUCCESS/) })
      await waitForRun(run.run_id)
    } finally {
      await client.dispose()
    }
  })
})
