import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const pgSettings = () => {
  const { hostname, port } = new URL(inject('postgresUrl'))
  return { host: hostname, port: Number(port), database: 'tessera_test', user: 'postgres', schema: 'public' }
}

describe('pipelines interface errors', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['pipelines'], env: { TESSERA_BODY_LIMIT: '4096' } })
    mkdirSync(path.join(t.dataDir, 'pipelines/files'), { recursive: true })
    writeFileSync(path.join(t.dataDir, 'pipelines/files/in.csv'), 'a\n1\n')
  })
  afterAll(() => t.close())

  const send = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
    t.app.inject({
      method,
      url,
      headers: { ...headers, ...(typeof payload === 'string' ? { 'content-type': 'application/json' } : {}) },
      ...(payload === undefined ? {} : { payload: payload as string }),
    })
  const expectError = (res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string, field?: string) => {
    expect(res.statusCode).toBe(status)
    const { error } = res.json()
    expect(error.code).toBe(code)
    expect(error.requestId).toBe(res.headers['x-request-id'])
    expect(typeof error.timestamp).toBe('string')
    if (field) expect(error.details.field).toBe(field)
    expect(res.headers['x-ratelimit-limit']).toBeDefined()
  }
  const valid = () => ({
    name: 'ok',
    source: { type: 'postgres', ...pgSettings(), table: 'pg_class_copy_missing' },
    destination: { type: 'csv', path: 'out/x.csv' },
  })

  it('AUTH_001 for a missing or invalid key, on every endpoint', async () => {
    const id = randomUUID()
    for (const [method, url] of [
      ['POST', '/v1/pipelines'],
      ['GET', `/v1/pipelines/${id}`],
      ['DELETE', `/v1/pipelines/${id}`],
      ['POST', `/v1/pipelines/${id}/run`],
      ['GET', '/v1/connectors'],
      ['GET', `/v1/pipelines/${id}/runs`],
      ['GET', `/v1/runs/${id}/logs`],
    ] as const) {
      expectError(await send(method, url, undefined, {}), 401, 'AUTH_001')
      expectError(await send(method, url, undefined, { authorization: 'Bearer tsr_wrong' }), 401, 'AUTH_001')
    }
  })

  it('PIPE_001 for unknown pipelines, RUN_001 for unknown runs', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expectError(await send('GET', `/v1/pipelines/${id}`), 404, 'PIPE_001', 'pipeline_id')
      expectError(await send('DELETE', `/v1/pipelines/${id}`), 404, 'PIPE_001')
      expectError(await send('POST', `/v1/pipelines/${id}/run`), 404, 'PIPE_001')
      expectError(await send('GET', `/v1/pipelines/${id}/runs`), 404, 'PIPE_001')
      expectError(await send('GET', `/v1/runs/${id}/logs`), 404, 'RUN_001', 'run_id')
    }
  })

  it.each([
    ['missing name', { ...valid(), name: undefined }, 'name'],
    ['missing source', { ...valid(), source: undefined }, 'source'],
    ['missing destination', { ...valid(), destination: undefined }, 'destination'],
    ['unknown connector type', { ...valid(), source: { type: 'oracle' } }, 'source.type'],
    ['a destination-only type as source? no: unknown destination', { ...valid(), destination: { type: 'snowflake', account: 'x' } }, 'destination.type'],
    ['wrong setting type', { ...valid(), source: { ...valid().source, port: 'five' } }, 'source.port'],
    ['missing required setting', { ...valid(), source: { type: 'postgres', host: 'h', database: 'd', user: 'u' } }, 'source.table'],
    ['unknown setting', { ...valid(), source: { ...valid().source, colour: 'red' } }, 'source.colour'],
    ['invalid cron', { ...valid(), schedule: '61 * * * *' }, 'schedule'],
    ['six-field cron', { ...valid(), schedule: '0 0 * * * *' }, 'schedule'],
    ['unparseable filter', { ...valid(), transformations: [{ type: 'filter', condition: "amount >> 'x" }] }, 'transformations[0].condition'],
    ['unknown transformation', { ...valid(), transformations: [{ type: 'explode' }] }, 'transformations[0].type'],
    ['rename without to', { ...valid(), transformations: [{ type: 'rename', from: 'a' }] }, 'transformations[0].to'],
    ['incremental without cursor', { ...valid(), sync: { mode: 'incremental' } }, 'sync.cursor_column'],
    ['bad write mode', { ...valid(), sync: { write_mode: 'upsert' } }, 'sync.write_mode'],
    ['merge into a file', { ...valid(), sync: { write_mode: 'merge', primary_key: ['id'] } }, 'sync.write_mode'],
    [
      'a path leaving the data folder',
      { ...valid(), source: { type: 'csv', path: 'in.csv' }, destination: { type: 'csv', path: '../../etc/passwd' } },
      'destination.path',
    ],
    ['wrong name type', { ...valid(), name: 42 }, 'name'],
    ['transformations not a list', { ...valid(), transformations: {} }, 'transformations'],
  ])('PIPE_002 naming the field: %s', async (_, body, field) => {
    expectError(await send('POST', '/v1/pipelines', JSON.stringify(body)), 400, 'PIPE_002', field)
  })

  it('PIPE_002 for malformed bodies and queries', async () => {
    expectError(await send('POST', '/v1/pipelines', '{"name":'), 400, 'PIPE_002', 'body')
    expectError(await send('POST', '/v1/pipelines', '[]'), 400, 'PIPE_002')
    expectError(await send('GET', `/v1/pipelines/${randomUUID()}/runs?limit=abc`), 400, 'PIPE_002', 'limit')
    expectError(await send('GET', `/v1/pipelines/${randomUUID()}/runs?limit=1000`), 400, 'PIPE_002', 'limit')
    expectError(await send('GET', `/v1/pipelines/${randomUUID()}/runs?status=done`), 400, 'PIPE_002', 'status')
  })

  it('413 and 415 in the same body', async () => {
    expectError(await send('POST', '/v1/pipelines', JSON.stringify({ ...valid(), name: 'x'.repeat(10_000) })), 413, 'REQ_413')
    const xml = await t.app.inject({ method: 'POST', url: '/v1/pipelines', headers: { ...t.auth, 'content-type': 'application/xml' }, payload: '<p/>' })
    expectError(xml, 415, 'REQ_415')
  })

  it('CONN_001 / CONN_002 when a connector cannot connect at creation', async () => {
    const closed = { ...pgSettings(), port: 1, table: 'x' }
    const source = await send('POST', '/v1/pipelines', JSON.stringify({ ...valid(), source: { type: 'postgres', ...closed } }))
    expectError(source, 500, 'CONN_001', 'source')
    const destination = await send(
      'POST',
      '/v1/pipelines',
      JSON.stringify({ ...valid(), source: { type: 'csv', path: 'in.csv' }, destination: { type: 'postgres', ...closed } }),
    )
    expectError(destination, 500, 'CONN_002', 'destination')
    const missingFile = await send('POST', '/v1/pipelines', JSON.stringify({ ...valid(), source: { type: 'csv', path: 'nope.csv' } }))
    expectError(missingFile, 400, 'PIPE_002', 'source.path')
  })

  it('RATE_001 over the limit, with X-RateLimit-* on every response', async () => {
    const limited = await build({ services: ['pipelines'], env: { TESSERA_RATE_LIMIT_MAX: '2' } })
    try {
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((await limited.app.inject({ method: 'GET', url: '/v1/connectors', headers: limited.auth })).statusCode)
      expect(statuses).toEqual([200, 200, 429])
      const res = await limited.app.inject({ method: 'GET', url: '/v1/connectors', headers: limited.auth })
      expect(res.json().error.code).toBe('RATE_001')
      expect(res.headers['retry-after']).toBeDefined()
    } finally {
      await limited.close()
    }
  })

  it('404 for unknown paths under the interface, in its body', async () => {
    expectError(await send('GET', '/v1/pipelines/x/y/z'), 404, 'REQ_404')
    expectError(await send('GET', '/v1/runs'), 404, 'REQ_404')
  })
})
