import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecretBox } from '../../platform/auth/secrets.js'
import { build, TEST_CREDENTIALS, type TestTessera } from '../helper.js'
import { ISO_UTC, expectError, expectRateLimitHeaders } from '../support/standard-error.js'

const BASE = '/v1/visualization'
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const FRUIT = [
  { label: 'Apples', value: 3 },
  { label: 'Pears', value: 6 },
  { label: 'Cherries', value: 9 },
  { label: 'Plums', value: 12 },
  { label: 'Grapes', value: 15 },
]

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** The path and query of an absolute URL the service handed out, to fetch it through inject(). */
const pathOf = (url: string) => {
  const u = new URL(url)
  return `${u.pathname}${u.search}`
}
/** Width and height of a PNG, from its IHDR chunk. */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) })
/** The width and height attributes of an SVG document's root element. */
const svgSize = (svg: string) => {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? ''
  return { width: Number(/\swidth="([\d.]+)"/.exec(root)?.[1]), height: Number(/\sheight="([\d.]+)"/.exec(root)?.[1]) }
}
/** Text of every <text> element, so a label is found as drawn, not as part of some attribute. */
const svgTexts = (svg: string) => [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])

describe('visualization REST interface', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['visualization'] })
  })
  afterAll(() => t?.close())

  const api = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method, url: `${BASE}${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
  /** A public URL fetched the way a browser would: no credential header. */
  const fetchPublic = (url: string) => t.app.inject({ method: 'GET', url: pathOf(url) })

  async function render(body: Record<string, unknown>) {
    const res = await api('POST', '/charts/render', body)
    expect(res.statusCode, res.body).toBe(201)
    return res.json() as { chart_id: string; render_url: string; embed_code: string; version: number; metadata: Record<string, unknown> }
  }
  async function getChart(id: string) {
    const res = await api('GET', `/charts/${id}`)
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }
  async function svgOf(renderUrl: string) {
    const res = await fetchPublic(renderUrl)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/)
    expectRateLimitHeaders(res)
    return res.body
  }

  describe('GET /charts', () => {
    const recordKeys = ['category', 'data_format', 'id', 'max_data_points', 'name', 'supported_features']

    it('lists the chart types with the default page of 50 from offset 0', async () => {
      const res = await api('GET', '/charts')
      expect(res.statusCode).toBe(200)
      expectRateLimitHeaders(res)
      const body = res.json()
      expect(body).toMatchObject({ success: true, page: 1, limit: 50, offset: 0 })
      expect(body.total).toBe(body.data.length)
      const ids = body.data.map((c: { id: string }) => c.id)
      expect(ids).toEqual(expect.arrayContaining(['bar', 'line', 'pie', 'scatter', 'area', 'histogram', 'heatmap']))
      expect(new Set(ids).size).toBe(ids.length)
      for (const record of body.data) {
        expect(Object.keys(record).sort()).toEqual(recordKeys)
        expect(record.name).toEqual(expect.any(String))
        expect(['comparison', 'trend', 'composition', 'distribution', 'relationship']).toContain(record.category)
        expect(record.supported_features).toEqual(expect.any(Array))
        expect(['tabular', 'time_series']).toContain(record.data_format)
        expect(Number.isInteger(record.max_data_points) && record.max_data_points > 0).toBe(true)
      }
      expect(body.data.find((c: { id: string }) => c.id === 'pie').max_data_points).toBe(50)
    })

    it('filters by category, and by a chart type id as the documented example does', async () => {
      const trend = (await api('GET', '/charts?category=trend')).json()
      expect(trend.data.map((c: { id: string }) => c.id).sort()).toEqual(['area', 'line'])
      expect(trend.total).toBe(2)
      expect(trend.data.every((c: { category: string }) => c.category === 'trend')).toBe(true)

      const bar = (await api('GET', '/charts?category=bar')).json()
      expect(bar.data.map((c: { id: string }) => c.id)).toEqual(['bar'])
      expect(bar.total).toBe(1)

      const none = (await api('GET', '/charts?category=sankey')).json()
      expect(none).toMatchObject({ success: true, data: [], total: 0 })
    })

    it('pages with limit and offset, keeping the total of all matches', async () => {
      const all = (await api('GET', '/charts')).json()
      const second = (await api('GET', '/charts?limit=3&offset=3')).json()
      expect(second).toMatchObject({ total: all.total, limit: 3, offset: 3, page: 2 })
      expect(second.data).toEqual(all.data.slice(3, 6))
      const last = (await api('GET', `/charts?limit=3&offset=6`)).json()
      expect(last).toMatchObject({ total: all.total, page: 3 })
      expect(last.data).toEqual(all.data.slice(6, 9))
      const past = (await api('GET', `/charts?limit=3&offset=${all.total}`)).json()
      expect(past.data).toEqual([])
    })
  })

  describe('POST /charts/render', () => {
    it('renders at 800 × 600 by default, keeps the chart and serves its image behind render_url', async () => {
      const before = Date.now()
      const res = await api('POST', '/charts/render', { chart_type: 'bar', data: FRUIT, config: { title: 'Fruit sold' } })
      expect(res.statusCode, res.body).toBe(201)
      expectRateLimitHeaders(res)
      const body = res.json()
      expect(body).toMatchObject({ success: true, chart_id: expect.any(String), version: 1 })
      expect(res.headers.location).toBe(`${BASE}/charts/${body.chart_id}`)
      expect(body.metadata.data_points).toBe(FRUIT.length)
      expect(Number.isInteger(body.metadata.render_time_ms)).toBe(true)
      expect(body.metadata.render_time_ms).toBeGreaterThanOrEqual(0)
      expect(body.metadata.rendered_at).toMatch(ISO_UTC)
      const renderedAt = Date.parse(body.metadata.rendered_at)
      expect(renderedAt).toBeGreaterThanOrEqual(before - 1000)
      expect(renderedAt).toBeLessThanOrEqual(Date.now() + 1000)

      const chart = await getChart(body.chart_id)
      expect(chart).toMatchObject({ chart_type: 'bar', data: FRUIT, width: 800, height: 600, config: { title: 'Fruit sold' } })

      const svg = await svgOf(body.render_url)
      expect(svgSize(svg)).toEqual({ width: 800, height: 600 })
      const texts = svgTexts(svg)
      expect(texts).toContain('Fruit sold')
      for (const { label } of FRUIT) expect(texts).toContain(label)

      const png = await fetchPublic(body.render_url.replace('/image.svg?', '/image.png?'))
      expect(png.statusCode).toBe(200)
      expect(png.headers['content-type']).toBe('image/png')
      expect([...png.rawPayload.subarray(0, 8)]).toEqual(PNG_MAGIC)
      expect(pngSize(png.rawPayload)).toEqual({ width: 800, height: 600 })
    })

    it('draws the size asked for', async () => {
      const body = await render({ chart_type: 'line', data: FRUIT, width: 640, height: 360 })
      const chart = await getChart(body.chart_id)
      expect(chart).toMatchObject({ width: 640, height: 360 })
      expect(svgSize(await svgOf(body.render_url))).toEqual({ width: 640, height: 360 })
    })

    it('gives embed code: an iframe of the live page, carrying the chart embed token', async () => {
      const body = await render({ chart_type: 'pie', data: FRUIT, config: { title: 'Shares' } })
      const match = /^<iframe src="([^"]+)"[^>]*><\/iframe>$/.exec(body.embed_code)
      expect(match, body.embed_code).not.toBeNull()
      expect(body.embed_code).toContain('width="800"')
      expect(body.embed_code).toContain('height="600"')
      expect(body.embed_code).toContain('title="Shares"')
      const src = new URL((match?.[1] ?? '').replaceAll('&amp;', '&'))
      expect(src.pathname).toBe(`${BASE}/charts/${body.chart_id}/embed`)
      const token = src.searchParams.get('token') ?? ''
      expect(token.startsWith(`emb_${body.chart_id}.`)).toBe(true)
      expect(new URL(body.render_url).searchParams.get('token')).toBe(token)

      const page = await t.app.inject({ method: 'GET', url: `${src.pathname}${src.search}` })
      expect(page.statusCode).toBe(200)
      expect(page.headers['content-type']).toMatch(/^text\/html/)
    })

    it('enforces max_data_points and names the field of every refused input', async () => {
      const slices = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `s${i}`, value: i + 1 }))
      expect((await api('POST', '/charts/render', { chart_type: 'pie', data: slices(50) })).statusCode).toBe(201)
      expectError(await api('POST', '/charts/render', { chart_type: 'pie', data: slices(51) }), 400, 'INVALID_REQUEST', 'data')
      expectError(await api('POST', '/charts/render', { chart_type: 'radar', data: FRUIT }), 400, 'INVALID_REQUEST', 'chart_type')
      const colour = await api('POST', '/charts/render', { chart_type: 'bar', data: FRUIT, config: { colors: ['#336699', 'teal'] } })
      // The first colour is fine; the issue is the second one, and the field says which.
      expectError(colour, 400, 'INVALID_REQUEST', 'config.colors[1]')
      expectError(
        await api('POST', '/charts/render', { chart_type: 'bar', data: FRUIT, config: { colors: ['red'] } }),
        400,
        'INVALID_REQUEST',
        'config.colors[0]',
      )
    })
  })

  describe('PUT /charts/:id', () => {
    it('changes only what the body names, renders again and counts versions', async () => {
      const created = await render({ chart_type: 'bar', data: FRUIT, config: { title: 'Before', colors: ['#336699'] } })
      const res = await api('PUT', `/charts/${created.chart_id}`, { config: { title: 'After' } })
      expect(res.statusCode, res.body).toBe(200)
      expectRateLimitHeaders(res)
      const updated = res.json()
      expect(updated).toMatchObject({ success: true, chart_id: created.chart_id, version: 2 })
      expect(updated.metadata.data_points).toBe(FRUIT.length)
      const chart = await getChart(created.chart_id)
      expect(chart.data).toEqual(FRUIT)
      expect(chart.config).toMatchObject({ title: 'After', colors: ['#336699'] })
      const texts = svgTexts(await svgOf(updated.render_url))
      expect(texts).toContain('After')
      expect(texts).not.toContain('Before')
    })

    it('replaces the data', async () => {
      const created = await render({ chart_type: 'bar', data: FRUIT, config: { title: 'Stock' } })
      const data = [
        { label: 'Kiwis', value: 7 },
        { label: 'Mangos', value: 2 },
      ]
      const updated = (await api('PUT', `/charts/${created.chart_id}`, { data })).json()
      expect(updated).toMatchObject({ version: 2, metadata: { data_points: 2 } })
      const chart = await getChart(created.chart_id)
      expect(chart.data).toEqual(data)
      expect(chart.config.title).toBe('Stock')
      const texts = svgTexts(await svgOf(updated.render_url))
      expect(texts).toEqual(expect.arrayContaining(['Kiwis', 'Mangos']))
      expect(texts).not.toContain('Apples')
    })

    it('returns a config key given as null to its default', async () => {
      const created = await render({ chart_type: 'pie', data: FRUIT, config: { title: 'Gone soon', showLegend: false, colors: ['#112233'] } })
      const updated = (await api('PUT', `/charts/${created.chart_id}`, { config: { title: null, showLegend: null } })).json()
      expect(updated.version).toBe(2)
      const chart = await getChart(created.chart_id)
      expect(chart.config.title).toBeUndefined()
      expect(chart.config.showLegend).toBe(true)
      expect(chart.config.colors).toEqual(['#112233'])
      const texts = svgTexts(await svgOf(updated.render_url))
      expect(texts).toContain('Apples')
      expect(texts).not.toContain('Gone soon')
    })

    it('refuses unknown fields and unknown charts without changing anything', async () => {
      const created = await render({ chart_type: 'bar', data: FRUIT })
      expectError(await api('PUT', `/charts/${created.chart_id}`, { colour: 'red' }), 400, 'INVALID_REQUEST', 'colour')
      expect((await getChart(created.chart_id)).version).toBe(1)
      for (const id of [randomUUID(), 'not-a-chart']) {
        expectError(await api('PUT', `/charts/${id}`, { config: { title: 'x' } }), 404, 'NOT_FOUND', 'chart_id')
      }
    })
  })

  describe('POST /charts/:id/data', () => {
    const letters = [
      { label: 'Alpha', value: 1 },
      { label: 'Bravo', value: 2 },
      { label: 'Charlie', value: 3 },
    ]

    it('appends: a new label is added at the end, an existing one is updated in place', async () => {
      const created = await render({ chart_type: 'bar', data: letters })
      const res = await api('POST', `/charts/${created.chart_id}/data`, {
        data: [
          { label: 'Bravo', value: 20 },
          { label: 'Delta', value: 4 },
        ],
      })
      expect(res.statusCode, res.body).toBe(200)
      expectRateLimitHeaders(res)
      const body = res.json()
      expect(body).toMatchObject({ success: true, chart_id: created.chart_id, data_points: 4, version: 2 })
      expect(body.updated_at).toMatch(ISO_UTC)
      const chart = await getChart(created.chart_id)
      expect(chart.data).toEqual([
        { label: 'Alpha', value: 1 },
        { label: 'Bravo', value: 20 },
        { label: 'Charlie', value: 3 },
        { label: 'Delta', value: 4 },
      ])
      expect(chart.version).toBe(2)
      // The image behind the unchanged render_url shows the pushed point.
      expect(svgTexts(await svgOf(created.render_url))).toContain('Delta')
    })

    it('replaces every point', async () => {
      const created = await render({ chart_type: 'bar', data: letters })
      const body = (await api('POST', `/charts/${created.chart_id}/data`, { data: [{ label: 'Echo', value: 5 }], mode: 'replace' })).json()
      expect(body).toMatchObject({ data_points: 1, version: 2 })
      expect((await getChart(created.chart_id)).data).toEqual([{ label: 'Echo', value: 5 }])
      const texts = svgTexts(await svgOf(created.render_url))
      expect(texts).toContain('Echo')
      expect(texts).not.toContain('Alpha')
    })

    it('keeps only the newest points of the window', async () => {
      const created = await render({ chart_type: 'line', data: letters })
      const first = (
        await api('POST', `/charts/${created.chart_id}/data`, {
          data: [
            { label: 'Delta', value: 4 },
            { label: 'Echo', value: 5 },
          ],
          window: 3,
        })
      ).json()
      expect(first).toMatchObject({ data_points: 3, version: 2 })
      expect((await getChart(created.chart_id)).data.map((d: { label: string }) => d.label)).toEqual(['Charlie', 'Delta', 'Echo'])
      const second = (await api('POST', `/charts/${created.chart_id}/data`, { data: [{ label: 'Foxtrot', value: 6 }], window: 2 })).json()
      expect(second).toMatchObject({ data_points: 2, version: 3 })
      expect((await getChart(created.chart_id)).data.map((d: { label: string }) => d.label)).toEqual(['Echo', 'Foxtrot'])
    })
  })

  describe('DELETE /charts/:id', () => {
    it('deletes the chart, its image and its exports; a second delete is 404', async () => {
      const created = await render({ chart_type: 'bar', data: FRUIT })
      const exported = (await api('POST', `/charts/${created.chart_id}/export`, { format: 'svg' })).json()
      expect((await fetchPublic(exported.download_url)).statusCode).toBe(200)

      const res = await api('DELETE', `/charts/${created.chart_id}`)
      expect(res.statusCode).toBe(200)
      expectRateLimitHeaders(res)
      expect(res.json()).toEqual({ success: true, message: expect.stringContaining(created.chart_id), chart_id: created.chart_id })

      expectError(await api('GET', `/charts/${created.chart_id}`), 404, 'NOT_FOUND', 'chart_id')
      expectError(await fetchPublic(created.render_url), 404, 'NOT_FOUND')
      expectError(await fetchPublic(exported.download_url), 404, 'NOT_FOUND')
      expectError(await api('DELETE', `/charts/${created.chart_id}`), 404, 'NOT_FOUND', 'chart_id')
    })
  })

  describe('POST /charts/:id/export', () => {
    let chart: { chart_id: string }
    beforeAll(async () => {
      chart = await render({ chart_type: 'bar', data: FRUIT, config: { title: 'Exported fruit' } })
    })

    const exportAs = async (body: Record<string, unknown>) => {
      const res = await api('POST', `/charts/${chart.chart_id}/export`, body)
      expect(res.statusCode, res.body).toBe(201)
      expectRateLimitHeaders(res)
      return { res, body: res.json() }
    }
    const download = async (url: string) => {
      const res = await fetchPublic(url)
      expect(res.statusCode, res.body).toBe(200)
      expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename="[^"]+"/)
      expectRateLimitHeaders(res)
      return res
    }

    it('exports a PNG of the chart size behind a link that needs no credential', async () => {
      const before = Math.floor(Date.now() / 1000)
      const { res, body } = await exportAs({ format: 'png' })
      expect(body).toMatchObject({ success: true, format: 'png', width: 800, height: 600, export_id: expect.any(String) })
      expect(res.headers.location).toBe(body.download_url)
      const expiresAt = Date.parse(body.expires_at) / 1000
      expect(expiresAt).toBeGreaterThanOrEqual(before + 3600 - 5)
      expect(expiresAt).toBeLessThanOrEqual(Date.now() / 1000 + 3600 + 5)
      expect(Number(new URL(body.download_url).searchParams.get('expires'))).toBe(expiresAt)

      const file = await download(body.download_url)
      expect(file.headers['content-type']).toBe('image/png')
      expect([...file.rawPayload.subarray(0, 8)]).toEqual(PNG_MAGIC)
      expect(file.rawPayload.length).toBe(body.file_size)
      expect(pngSize(file.rawPayload)).toEqual({ width: 800, height: 600 })
    })

    it('writes a PNG of exactly the asked width × height whatever the quality; scale is the density', async () => {
      // Regression: 640 × 480 at quality 80 came out 1114 × 836.
      const asked = (await exportAs({ format: 'png', quality: 80, width: 640, height: 480 })).body
      const file = (await download(asked.download_url)).rawPayload
      expect(pngSize(file)).toEqual({ width: 640, height: 480 })
      expect({ width: asked.width, height: asked.height }).toEqual({ width: 640, height: 480 })
      // quality < 100 quantizes to a palette (colour type 3); 100 is lossless truecolour (6).
      expect(file[25]).toBe(3)
      const lossless = (await download((await exportAs({ format: 'png', quality: 100, width: 640, height: 480 })).body.download_url)).rawPayload
      expect(pngSize(lossless)).toEqual({ width: 640, height: 480 })
      expect(lossless[25]).toBe(6)
      expect(file.length).toBeLessThan(lossless.length)
      const dense = (await exportAs({ format: 'png', width: 640, height: 480, scale: 2 })).body
      expect(pngSize((await download(dense.download_url)).rawPayload)).toEqual({ width: 1280, height: 960 })
      expect({ width: dense.width, height: dense.height }).toEqual({ width: 1280, height: 960 })
    })

    it('exports SVG, PDF and the Vega-Lite spec', async () => {
      const svg = (await exportAs({ format: 'svg', width: 400, height: 300 })).body
      const svgFile = await download(svg.download_url)
      expect(svgFile.headers['content-type']).toMatch(/^image\/svg\+xml/)
      expect(svgFile.rawPayload.length).toBe(svg.file_size)
      expect(svgTexts(svgFile.body)).toContain('Exported fruit')
      expect(svgSize(svgFile.body)).toEqual({ width: 400, height: 300 })

      const pdf = (await exportAs({ format: 'pdf' })).body
      const pdfFile = await download(pdf.download_url)
      expect(pdfFile.headers['content-type']).toBe('application/pdf')
      expect(pdfFile.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-')
      expect(pdfFile.rawPayload.length).toBe(pdf.file_size)

      const json = (await exportAs({ format: 'json' })).body
      const jsonFile = await download(json.download_url)
      expect(jsonFile.rawPayload.length).toBe(json.file_size)
      const spec = JSON.parse(jsonFile.body)
      expect(spec.$schema).toMatch(/vega-lite/)
      expect(spec.data.values).toEqual(FRUIT)
    })

    it('refuses a link whose signature, expiry or id was changed (403 LINK_INVALID)', async () => {
      const { body } = await exportAs({ format: 'svg' })
      const link = new URL(body.download_url)
      const signature = link.searchParams.get('signature') ?? ''
      const expires = link.searchParams.get('expires') ?? ''
      const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)
      const variants = [
        `${link.pathname}?expires=${expires}&signature=${flipped}`,
        `${link.pathname}?expires=${Number(expires) + 1}&signature=${signature}`,
        `${BASE}/exports/${randomUUID()}?expires=${expires}&signature=${signature}`,
        `${link.pathname}?expires=${expires}`,
        link.pathname,
      ]
      for (const url of variants) expectError(await t.app.inject({ method: 'GET', url }), 403, 'LINK_INVALID')
      // The genuine link still works: the refusals were about the changes.
      await download(body.download_url)
    })

    it('refuses a genuine link past its expiry with 410 LINK_EXPIRED', async () => {
      const { body } = await exportAs({ format: 'svg' })
      const link = new URL(body.download_url)
      const box = createSecretBox(Buffer.from('a'.repeat(64), 'hex'))
      const sign = (expires: number) => box.sign(`export:${body.export_id}:${expires}`)
      // The forgery is only meaningful if it reproduces the service's own signature.
      expect(sign(Number(link.searchParams.get('expires')))).toBe(link.searchParams.get('signature'))
      const past = Math.floor(Date.now() / 1000) - 60
      const res = await t.app.inject({ method: 'GET', url: `${link.pathname}?expires=${past}&signature=${encodeURIComponent(sign(past))}` })
      expectError(res, 410, 'LINK_EXPIRED')
    })

    it('names the field of a bad export request', async () => {
      expectError(await api('POST', `/charts/${chart.chart_id}/export`, {}), 400, 'INVALID_REQUEST', 'format')
      expectError(await api('POST', `/charts/${chart.chart_id}/export`, { format: 'gif' }), 400, 'INVALID_REQUEST', 'format')
      expectError(await api('POST', `/charts/${chart.chart_id}/export`, { format: 'png', quality: 101 }), 400, 'INVALID_REQUEST', 'quality')
      expectError(await api('POST', `/charts/${chart.chart_id}/export`, { format: 'png', quality: -1 }), 400, 'INVALID_REQUEST', 'quality')
      expectError(await api('POST', `/charts/${chart.chart_id}/export`, { format: 'png', scale: 0.5 }), 400, 'INVALID_REQUEST', 'scale')
      expectError(
        await api('POST', `/charts/${chart.chart_id}/export`, { format: 'png', scale: 4, width: 4000, height: 4000 }),
        400,
        'INVALID_REQUEST',
        'scale',
      )
      expectError(await api('POST', `/charts/${randomUUID()}/export`, { format: 'png' }), 404, 'NOT_FOUND', 'chart_id')
    })
  })

  describe('POST /data/validate', () => {
    const data = [
      { name: 'Ada', age: 36, joined: '2024-01-05' },
      { name: 'Brian', age: 'forty', joined: '2024-02-11' },
      { name: 'Cleo', age: null, joined: '2024-03-02', team: 'blue' },
      { name: 'Dan', joined: 'yesterday' },
    ]
    const expected_schema = { type: 'tabular', columns: ['name', 'age', 'joined'], types: ['string', 'integer', 'date'] }

    it('reports each bad cell by row and column, warnings and statistics', async () => {
      const res = await api('POST', '/data/validate', { data, expected_schema })
      expect(res.statusCode, res.body).toBe(200)
      expectRateLimitHeaders(res)
      const report = res.json()
      expect(report.valid).toBe(false)
      expect(report.errors).toEqual([
        expect.objectContaining({ code: 'type_mismatch', row: 1, column: 'age', expected: 'integer', actual: 'string' }),
        expect.objectContaining({ code: 'missing_column', row: 3, column: 'age', expected: 'integer', actual: 'missing' }),
        expect.objectContaining({ code: 'type_mismatch', row: 3, column: 'joined', expected: 'date', actual: 'string' }),
      ])
      expect(report.warnings).toEqual(
        expect.arrayContaining([expect.stringMatching(/'team' is not in expected_schema/), expect.stringMatching(/'age' has mixed types/)]),
      )
      expect(report.statistics).toEqual({
        total_rows: 4,
        null_count: 2,
        data_types: { name: 'string', age: 'mixed', joined: 'string', team: 'string' },
      })
    })

    it('passes matching data', async () => {
      const report = (await api('POST', '/data/validate', { data: data.slice(0, 1), expected_schema })).json()
      expect(report).toEqual({
        valid: true,
        errors: [],
        warnings: [],
        statistics: { total_rows: 1, null_count: 0, data_types: { name: 'string', age: 'integer', joined: 'date' } },
      })
    })

    it('refuses an unusable schema, naming the field', async () => {
      expectError(
        await api('POST', '/data/validate', { data, expected_schema: { columns: ['a'], types: ['text'] } }),
        400,
        'INVALID_REQUEST',
        'expected_schema.types[0]',
      )
      expectError(await api('POST', '/data/validate', { data }), 400, 'INVALID_REQUEST', 'expected_schema')
    })
  })

  describe('POST /data/transform', () => {
    const sales = [
      { region: 'north', product: 'tea', amount: 12 },
      { region: 'south', product: 'tea', amount: 4 },
      { region: 'north', product: 'coffee', amount: 30 },
      { region: 'east', product: 'tea', amount: 10 },
      { region: 'south', product: 'coffee', amount: 25 },
      { region: 'east', product: 'coffee', amount: 9 },
    ]

    it('filters and sorts', async () => {
      const res = await api('POST', '/data/transform', {
        data: sales,
        transformations: [
          { type: 'filter', field: 'amount', operator: '>=', value: 10 },
          { type: 'sort', field: 'amount', order: 'desc' },
        ],
      })
      expect(res.statusCode, res.body).toBe(200)
      expectRateLimitHeaders(res)
      const body = res.json()
      expect(body.success).toBe(true)
      expect(body.data.map((r: { amount: number }) => r.amount)).toEqual([30, 25, 12, 10])
      expect(body.row_count).toBe(4)
      expect(body.columns).toEqual(['region', 'product', 'amount'])
      expect(body.applied).toEqual([
        { index: 0, type: 'filter', rows_before: 6, rows_after: 4 },
        { index: 1, type: 'sort', rows_before: 4, rows_after: 4 },
      ])
    })

    it('applies the transformations in the order given', async () => {
      const aggregation = { type: 'aggregation', group_by: ['region'], operations: [{ field: 'amount', op: 'sum', as: 'total' }] }
      const filterFirst = (
        await api('POST', '/data/transform', {
          data: sales,
          transformations: [{ type: 'filter', field: 'amount', operator: '>=', value: 10 }, aggregation, { type: 'sort', field: 'total', order: 'desc' }],
        })
      ).json()
      expect(filterFirst.data).toEqual([
        { region: 'north', total: 42 },
        { region: 'south', total: 25 },
        { region: 'east', total: 10 },
      ])
      expect(filterFirst.columns).toEqual(['region', 'total'])

      // The same filter after the aggregation keeps whole regions instead of single sales.
      const filterLast = (
        await api('POST', '/data/transform', {
          data: sales,
          transformations: [aggregation, { type: 'filter', field: 'total', operator: '>=', value: 20 }, { type: 'sort', field: 'total', order: 'desc' }],
        })
      ).json()
      expect(filterLast.data).toEqual([
        { region: 'north', total: 42 },
        { region: 'south', total: 29 },
      ])
      expect(filterLast.applied.map((a: { rows_after: number }) => a.rows_after)).toEqual([3, 2, 2])
    })

    it('refuses an unknown kind or field, naming the transformation', async () => {
      expectError(
        await api('POST', '/data/transform', { data: sales, transformations: [{ type: 'pivot', field: 'amount' }] }),
        400,
        'INVALID_REQUEST',
        'transformations[0].type',
      )
      expectError(
        await api('POST', '/data/transform', {
          data: sales,
          transformations: [
            { type: 'sort', field: 'amount' },
            { type: 'filter', field: 'price', operator: '>', value: 1 },
          ],
        }),
        400,
        'INVALID_REQUEST',
        'transformations[1].field',
      )
      // After an aggregation only its columns exist.
      const after = await api('POST', '/data/transform', {
        data: sales,
        transformations: [
          { type: 'aggregation', group_by: ['region'], operations: [{ field: 'amount', op: 'sum', as: 'total' }] },
          { type: 'sort', field: 'amount' },
        ],
      })
      expectError(after, 400, 'INVALID_REQUEST', 'transformations[1].field')
    })
  })

  describe('POST /analytics/recommend', () => {
    const months = ['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01', '2024-05-01', '2024-06-01']
    const regions = ['north', 'south', 'east']
    const data = months.flatMap((month, i) => regions.map((region, j) => ({ month, region, revenue: 100 + 10 * i + 25 * j, units: 5 + i + 3 * j })))
    const fieldNames = ['month', 'region', 'revenue', 'units']
    const expectedFirst: Record<string, string> = {
      compare_trends: 'line',
      compare: 'bar',
      distribution: 'histogram',
      correlation: 'scatter',
      composition: 'pie',
    }

    it.each(Object.entries(expectedFirst))('recommends charts for the intent %s, best first', async (intent, first) => {
      const res = await api('POST', '/analytics/recommend', { data, intent })
      expect(res.statusCode, res.body).toBe(200)
      expectRateLimitHeaders(res)
      const { recommendations } = res.json()
      expect(recommendations.length).toBeGreaterThan(0)
      expect(recommendations[0].chart_type).toBe(first)
      const types = (await api('GET', '/charts')).json().data.map((c: { id: string }) => c.id)
      let previous = Infinity
      for (const r of recommendations) {
        expect(types).toContain(r.chart_type)
        expect(r.confidence).toBeGreaterThan(0)
        expect(r.confidence).toBeLessThanOrEqual(1)
        expect(r.confidence).toBeLessThanOrEqual(previous)
        previous = r.confidence
        expect(
          fieldNames.some((f) => r.reasoning.includes(`'${f}'`)),
          r.reasoning,
        ).toBe(true)
      }
    })

    it('answers the same request the same way', async () => {
      const request = { data, intent: 'compare', preferences: { interactive: true, complexity: 'medium' } }
      const a = await api('POST', '/analytics/recommend', request)
      const b = await api('POST', '/analytics/recommend', request)
      expect(a.statusCode).toBe(200)
      expect(b.body).toBe(a.body)
    })

    it('keeps the list short and simple at low complexity', async () => {
      const medium = (await api('POST', '/analytics/recommend', { data, intent: 'compare', preferences: { complexity: 'medium' } })).json().recommendations
      const low = (await api('POST', '/analytics/recommend', { data, intent: 'compare', preferences: { complexity: 'low' } })).json().recommendations
      expect(medium.length).toBeGreaterThan(3)
      expect(low.length).toBeGreaterThan(0)
      expect(low.length).toBeLessThanOrEqual(3)
      expect(low.map((r: { chart_type: string }) => r.chart_type)).not.toContain('heatmap')
    })

    it('refuses an unknown intent', async () => {
      expectError(await api('POST', '/analytics/recommend', { data, intent: 'predict' }), 400, 'INVALID_REQUEST', 'intent')
    })
  })

  describe('edge', () => {
    it('sends X-RateLimit-* on successes and errors, counting down', async () => {
      const first = await api('GET', '/charts')
      const second = await api('GET', '/charts?limit=0')
      expectRateLimitHeaders(first)
      expectError(second, 400, 'INVALID_REQUEST', 'limit')
      expect(Number(second.headers['x-ratelimit-remaining'])).toBeLessThan(Number(first.headers['x-ratelimit-remaining']))
      expect(second.headers['x-ratelimit-limit']).toBe(first.headers['x-ratelimit-limit'])
      expectError(await api('GET', '/charts', undefined, {}), 401, 'UNAUTHORIZED')
    })

    it('takes the key in X-API-Key as well as Bearer', async () => {
      const headers = { 'x-api-key': TEST_CREDENTIALS.apiKey }
      const list = await api('GET', '/charts', undefined, headers)
      expect(list.statusCode).toBe(200)
      const rendered = await api('POST', '/charts/render', { chart_type: 'bar', data: FRUIT }, headers)
      expect(rendered.statusCode).toBe(201)
      const { chart_id } = rendered.json()
      expect((await api('GET', `/charts/${chart_id}`, undefined, headers)).statusCode).toBe(200)
      expect((await api('DELETE', `/charts/${chart_id}`, undefined, headers)).statusCode).toBe(200)
    })
  })
})
