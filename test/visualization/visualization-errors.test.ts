import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const BASE = '/v1/visualization'
const FRUIT = [
  { label: 'Apples', value: 3 },
  { label: 'Pears', value: 6 },
  { label: 'Cherries', value: 9 },
]

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

describe('visualization REST interface errors', () => {
  let t: TestTessera
  let readOnlyKey: string
  let pipelinesKey: string
  let chartA: { chart_id: string; render_url: string }
  let chartB: { chart_id: string; render_url: string }
  beforeAll(async () => {
    t = await build({ services: ['visualization'] })
    readOnlyKey = (await t.credentials!.createApiKey({ name: 'ro', scopes: ['visualization:read'] })).key
    pipelinesKey = (await t.credentials!.createApiKey({ name: 'pipelines only', scopes: ['pipelines:read'] })).key
    chartA = await render({ chart_type: 'bar', data: FRUIT, config: { title: 'Chart A' } })
    chartB = await render({ chart_type: 'line', data: FRUIT, config: { title: 'Chart B' } })
  })
  afterAll(() => t?.close())

  const api = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method, url: `${BASE}${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
  /** A body sent byte for byte, with the content type given. */
  const raw = (method: Method, url: string, payload: string, contentType = 'application/json', headers: Record<string, string> = t.auth) =>
    t.app.inject({ method, url: `${BASE}${url}`, headers: { ...headers, 'content-type': contentType }, payload })
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
  const tokenOf = (renderUrl: string) => new URL(renderUrl).searchParams.get('token') ?? ''

  async function render(body: Record<string, unknown>) {
    const res = await api('POST', '/charts/render', body)
    expect(res.statusCode, res.body).toBe(201)
    return res.json() as { chart_id: string; render_url: string }
  }
  async function chartCount() {
    const [row] = await t.db!.query<{ n: number }>('SELECT count(*)::int AS n FROM visualization.charts')
    return row?.n
  }
  async function chartState(id: string) {
    const res = await api('GET', `/charts/${id}`)
    expect(res.statusCode).toBe(200)
    const { version, data, config } = res.json()
    return { version, data, config }
  }

  /** Every documented endpoint plus the credential-protected extensions, with a valid body. */
  const endpoints = (): [Method, string, unknown?][] => [
    ['GET', '/charts'],
    ['POST', '/charts/render', { chart_type: 'bar', data: FRUIT }],
    ['GET', `/charts/${chartA.chart_id}`],
    ['PUT', `/charts/${chartA.chart_id}`, { config: { title: 'Changed' } }],
    ['DELETE', `/charts/${chartA.chart_id}`],
    ['POST', `/charts/${chartA.chart_id}/data`, { data: [{ label: 'Plums', value: 1 }] }],
    ['POST', `/charts/${chartA.chart_id}/export`, { format: 'svg' }],
    ['POST', '/data/validate', { data: [{ a: 1 }], expected_schema: { columns: ['a'], types: ['number'] } }],
    ['POST', '/data/transform', { data: [{ a: 1 }], transformations: [] }],
    ['POST', '/analytics/recommend', { data: [{ a: 1 }], intent: 'distribution' }],
    ['GET', `/charts/${chartA.chart_id}/image.svg`],
    ['GET', `/charts/${chartA.chart_id}/image.png`],
    ['GET', `/charts/${chartA.chart_id}/spec.json`],
  ]

  describe('authentication and scopes', () => {
    it('answers 401 UNAUTHORIZED with a challenge when no credential is sent', async () => {
      const before = await chartState(chartA.chart_id)
      for (const [method, url, body] of endpoints()) {
        const res = await api(method, url, body, {})
        expectError(res, 401, 'UNAUTHORIZED')
        expect(res.headers['www-authenticate'], `${method} ${url}`).toBe('Bearer realm="tessera-visualization"')
      }
      expect(await chartState(chartA.chart_id)).toEqual(before)
    })

    it('answers 401 for a key that was never issued, in either header', async () => {
      const count = await chartCount()
      for (const headers of [
        bearer(`tsr_${randomUUID().replaceAll('-', '')}`),
        { 'x-api-key': 'tsr_nobody_has_this_key_000000' },
        { authorization: 'Basic dXNlcjpwYXNz' },
      ]) {
        for (const [method, url, body] of endpoints()) {
          const res = await api(method, url, body, headers)
          expectError(res, 401, 'UNAUTHORIZED')
          expect(String(res.headers['www-authenticate']), `${method} ${url}`).toMatch(/^Bearer realm="tessera-visualization".*error="invalid_token"/)
        }
      }
      expect(await chartCount()).toBe(count)
      expect((await api('GET', `/charts/${chartA.chart_id}`)).statusCode).toBe(200)
    })

    it('lets a visualization:read key read but not change charts (403 FORBIDDEN)', async () => {
      const headers = bearer(readOnlyKey)
      expect((await api('GET', '/charts', undefined, headers)).statusCode).toBe(200)
      expect((await api('GET', `/charts/${chartA.chart_id}`, undefined, headers)).statusCode).toBe(200)
      expect((await api('POST', `/charts/${chartA.chart_id}/export`, { format: 'json' }, headers)).statusCode).toBe(201)

      const count = await chartCount()
      const before = await chartState(chartA.chart_id)
      const writes: [Method, string, unknown?][] = [
        ['POST', '/charts/render', { chart_type: 'bar', data: FRUIT }],
        ['PUT', `/charts/${chartA.chart_id}`, { config: { title: 'Changed' } }],
        ['DELETE', `/charts/${chartA.chart_id}`],
        ['POST', `/charts/${chartA.chart_id}/data`, { data: [{ label: 'Plums', value: 1 }] }],
      ]
      for (const [method, url, body] of writes) {
        const error = expectError(await api(method, url, body, headers), 403, 'FORBIDDEN')
        expect(error.message, `${method} ${url}`).toContain('visualization:write')
      }
      expect(await chartCount()).toBe(count)
      expect(await chartState(chartA.chart_id)).toEqual(before)
    })

    it('refuses a key without any visualization scope (403 FORBIDDEN)', async () => {
      const headers = bearer(pipelinesKey)
      expectError(await api('GET', '/charts', undefined, headers), 403, 'FORBIDDEN')
      expectError(await api('GET', `/charts/${chartA.chart_id}`, undefined, headers), 403, 'FORBIDDEN')
      expectError(await api('POST', '/data/validate', { data: [{ a: 1 }], expected_schema: { columns: ['a'], types: ['number'] } }, headers), 403, 'FORBIDDEN')
    })
  })

  describe('embed tokens', () => {
    it('read their own chart', async () => {
      const token = tokenOf(chartA.render_url)
      for (const resource of ['image.svg', 'image.png', 'spec.json']) {
        const res = await t.app.inject({ method: 'GET', url: `${BASE}/charts/${chartA.chart_id}/${resource}?token=${encodeURIComponent(token)}` })
        expect(res.statusCode, resource).toBe(200)
      }
    })

    it('cannot read another chart (403)', async () => {
      const token = encodeURIComponent(tokenOf(chartA.render_url))
      for (const resource of ['image.svg', 'image.png', 'spec.json', 'embed']) {
        const res = await t.app.inject({ method: 'GET', url: `${BASE}/charts/${chartB.chart_id}/${resource}?token=${token}` })
        expectError(res, 403, 'FORBIDDEN')
      }
    })

    it('are refused when forged (401)', async () => {
      const signatureOfA = tokenOf(chartA.render_url).split('.')[1] ?? ''
      for (const forged of [
        `emb_${chartB.chart_id}.${signatureOfA}`,
        `emb_${chartB.chart_id}.${'A'.repeat(43)}`,
        `emb_${chartB.chart_id}`,
        'emb_not-a-chart.x',
      ]) {
        for (const resource of ['image.svg', 'spec.json', 'embed']) {
          const res = await t.app.inject({ method: 'GET', url: `${BASE}/charts/${chartB.chart_id}/${resource}?token=${encodeURIComponent(forged)}` })
          expectError(res, 401, 'UNAUTHORIZED')
        }
      }
    })

    it('are no API credential', async () => {
      const res = await api('GET', `/charts/${chartA.chart_id}`, undefined, bearer(tokenOf(chartA.render_url)))
      expectError(res, 401, 'UNAUTHORIZED')
    })
  })

  describe('request bodies', () => {
    it('answers 400 naming body for malformed JSON', async () => {
      const count = await chartCount()
      expectError(await raw('POST', '/charts/render', '{"chart_type":"bar","data":['), 400, 'INVALID_REQUEST', 'body')
      expectError(await raw('PUT', `/charts/${chartA.chart_id}`, '{config:'), 400, 'INVALID_REQUEST', 'body')
      expectError(await raw('POST', `/charts/${chartA.chart_id}/export`, '{"format":"png",}'), 400, 'INVALID_REQUEST', 'body')
      expectError(await raw('POST', '/data/validate', 'null x'), 400, 'INVALID_REQUEST', 'body')
      expectError(await raw('POST', '/charts/render', '[]'), 400, 'INVALID_REQUEST', 'body')
      expect(await chartCount()).toBe(count)
    })

    it('answers 415 for a body that is not JSON', async () => {
      const count = await chartCount()
      expectError(await raw('POST', '/charts/render', 'chart_type=bar', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE')
      expectError(await raw('POST', '/data/transform', '<data/>', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE')
      expect(await chartCount()).toBe(count)
    })

    it('answers 413 over the default 1 MiB on endpoints that take no data', async () => {
      const padding = 'x'.repeat(1024 * 1024 + 1)
      const res = await raw('POST', `/charts/${chartA.chart_id}/export`, JSON.stringify({ format: 'png', padding }))
      expectError(res, 413, 'PAYLOAD_TOO_LARGE')
    })

    it('accepts a 100,000-value histogram of about 2 MB on render', async () => {
      const data = Array.from({ length: 100_000 }, (_, i) => ({ value: Math.round(((i * 7919) % 100_003) * 1.37) / 100 }))
      const payload = JSON.stringify({ chart_type: 'histogram', data, config: { title: 'Many values' } })
      expect(payload.length).toBeGreaterThan(1.5 * 1024 * 1024)
      const started = Date.now()
      const res = await raw('POST', '/charts/render', payload)
      expect(res.statusCode, res.body.slice(0, 500)).toBe(201)
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(res.json().metadata.data_points).toBe(100_000)
    })

    it('refuses a NUL character anywhere in the body, naming the field', async () => {
      const count = await chartCount()
      const withNul = [
        { label: 'Apples', value: 1 },
        { label: 'Pe\u0000ars', value: 2 },
      ]
      expectError(await api('POST', '/charts/render', { chart_type: 'bar', data: withNul }), 400, 'INVALID_REQUEST', 'data[1].label')
      expectError(
        await api('POST', '/charts/render', { chart_type: 'bar', data: FRUIT, config: { title: 'a\u0000b' } }),
        400,
        'INVALID_REQUEST',
        'config.title',
      )
      expect(await chartCount()).toBe(count)
      const before = await chartState(chartA.chart_id)
      expectError(await api('PUT', `/charts/${chartA.chart_id}`, { data: withNul }), 400, 'INVALID_REQUEST', 'data[1].label')
      expectError(await api('POST', `/charts/${chartA.chart_id}/data`, { data: withNul }), 400, 'INVALID_REQUEST', 'data[1].label')
      expectError(await api('POST', '/data/transform', { data: [{ 'a\u0000': 1 }], transformations: [] }), 400, 'INVALID_REQUEST', 'data[0].a\u0000')
      expect(await chartState(chartA.chart_id)).toEqual(before)
    })

    it('leaves no chart behind after a refused render', async () => {
      const count = await chartCount()
      const refused: [Record<string, unknown>, string][] = [
        [{ chart_type: 'radar', data: FRUIT }, 'chart_type'],
        [{ data: FRUIT }, 'chart_type'],
        [{ chart_type: 'bar' }, 'data'],
        [{ chart_type: 'bar', data: [] }, 'data'],
        [{ chart_type: 'bar', data: 'Apples' }, 'data'],
        [{ chart_type: 'bar', data: [{ label: 'Apples', value: 'three' }] }, 'data[0].value'],
        [
          {
            chart_type: 'bar',
            data: [
              { label: 'Apples', value: 1 },
              { label: 'Apples', value: 2 },
            ],
          },
          'data[1].label',
        ],
        [{ chart_type: 'pie', data: [{ label: 'Apples', value: -1 }] }, 'data[0].value'],
        [{ chart_type: 'pie', data: Array.from({ length: 51 }, (_, i) => ({ label: `s${i}`, value: 1 })) }, 'data'],
        [{ chart_type: 'bar', data: [{ label: 'x'.repeat(201), value: 1 }] }, 'data[0].label'],
        [{ chart_type: 'bar', data: FRUIT, config: { colors: ['#12345z'] } }, 'config.colors[0]'],
        [{ chart_type: 'bar', data: FRUIT, config: { theme: 'dark' } }, 'config.theme'],
        [{ chart_type: 'bar', data: FRUIT, width: 10 }, 'width'],
        [{ chart_type: 'bar', data: FRUIT, height: 600.5 }, 'height'],
      ]
      for (const [body, field] of refused) {
        expectError(await api('POST', '/charts/render', body), 400, 'INVALID_REQUEST', field)
      }
      expect(await chartCount()).toBe(count)
      const graphql = await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query: '{ charts { total } }' } })
      expect(graphql.json()).toEqual({ data: { charts: { total: count } } })
    })

    it('refuses bad data pushes without changing the chart', async () => {
      const before = await chartState(chartA.chart_id)
      expectError(await api('POST', `/charts/${chartA.chart_id}/data`, { data: FRUIT, mode: 'merge' }), 400, 'INVALID_REQUEST', 'mode')
      expectError(await api('POST', `/charts/${chartA.chart_id}/data`, { data: FRUIT, window: 0 }), 400, 'INVALID_REQUEST', 'window')
      expectError(await api('POST', `/charts/${chartA.chart_id}/data`, { data: [] }), 400, 'INVALID_REQUEST', 'data')
      expectError(await api('POST', `/charts/${chartA.chart_id}/data`, { data: [{ label: 'Kiwis' }] }), 400, 'INVALID_REQUEST', 'data[0].value')
      expectError(await api('POST', `/charts/${randomUUID()}/data`, { data: FRUIT }), 404, 'NOT_FOUND', 'chart_id')
      expect(await chartState(chartA.chart_id)).toEqual(before)
    })
  })

  describe('paths and queries', () => {
    it('answers 404 in the standard body for unknown paths under the interface', async () => {
      for (const [method, url] of [
        ['GET', '/nope'],
        ['GET', '/charts/x/y/z'],
        ['POST', '/charts'],
        ['GET', '/exports'],
      ] as const) {
        expectError(await api(method, url), 404, 'NOT_FOUND')
      }
    })

    it('answers 404 for a script the embed page does not use', async () => {
      expect((await t.app.inject({ method: 'GET', url: `${BASE}/assets/vega.min.js` })).statusCode).toBe(200)
      expectError(await t.app.inject({ method: 'GET', url: `${BASE}/assets/other.js` }), 404, 'NOT_FOUND')
    })

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
    ])('answers 400 naming the field for GET /charts?%s', async (query, field) => {
      expectError(await api('GET', `/charts?${query}`), 400, 'INVALID_REQUEST', field)
    })

    it('answers 404 for charts that do not exist', async () => {
      for (const id of [randomUUID(), 'not-a-chart']) {
        expectError(await api('GET', `/charts/${id}`), 404, 'NOT_FOUND', 'chart_id')
        expectError(await api('DELETE', `/charts/${id}`), 404, 'NOT_FOUND', 'chart_id')
        expectError(await api('GET', `/charts/${id}/image.svg`), 404, 'NOT_FOUND', 'chart_id')
      }
    })
  })
})
