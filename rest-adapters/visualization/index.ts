import { defineService } from '../../platform/service-kit/index.js'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import {
  chartPaths,
  DEFAULT_INTERVAL_MS,
  STREAM_PATH,
  VIZ_BASE_PATH,
  visualizationCore,
  type ChartRecord,
  type ExportRecord,
  type Viewer,
  type VisualizationService,
} from '../../subgraphs/visualization/index.js'
import { embedPage } from './embed-page.js'
import { createStreamSocket } from './stream-socket.js'

/** Request bodies carrying data may be larger than the process default: a 100,000-value histogram is about 2 MB. */
export const DATA_BODY_LIMIT = 16 * 1024 * 1024

const base = VIZ_BASE_PATH
const chartParams = { type: 'object', required: ['chart_id'], properties: { chart_id: { type: 'string', minLength: 1, maxLength: 200 } } } as const
const tokenQuery = { type: 'object', properties: { token: { type: 'string', maxLength: 500 } } } as const
const object = { type: 'object' } as const
const require = createRequire(import.meta.url)
// The embed page's only scripts, served from the installed packages: the page loads nothing from elsewhere.
// (The packages export no subpaths; their entry files sit beside the bundles in build/.)
const ASSETS: Record<string, string> = {
  'vega.min.js': path.join(path.dirname(require.resolve('vega')), 'vega.min.js'),
  'vega-lite.min.js': path.join(path.dirname(require.resolve('vega-lite')), 'vega-lite.min.js'),
}

/**
 * The data visualization service's v1 REST interface (Document 1) under /v1/visualization:
 * the eight documented endpoints, the chart stream WebSocket, and what a client of such a
 * service needs besides (rest-adapters/visualization/README.md): the image behind
 * `render_url`, the live page behind `embed_code`, signed export downloads, pushing data.
 */
export const visualizationService = defineService(visualizationCore, {
  prefixes: [VIZ_BASE_PATH],
  openapi: {
    title: 'Tessera data visualization',
    description: 'Chart types, rendering, live chart data, exports, data validation and transforms, chart recommendation (v1).',
  },
  realm: 'tessera-visualization',
  async routes(app, { domain, edge, verify, limiter }) {
    const stream = createStreamSocket({ domain, verify: verify, limiter: limiter, onError: (error) => app.log.warn({ err: error }, 'chart stream') })
    app.webSocketRoutes[STREAM_PATH] = stream.handleUpgrade
    app.addHook('preClose', async () => stream.close())

    const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`
    const renderedBody = (request: FastifyRequest, chart: ChartRecord) => {
      const links = domain.chartLinks(chart, origin(request))
      return {
        success: true,
        chart_id: chart.id,
        render_url: links.renderUrl,
        embed_code: links.embedCode,
        metadata: { rendered_at: chart.renderedAt.toISOString(), data_points: chart.dataPoints, render_time_ms: chart.renderTimeMs },
        version: chart.version,
      }
    }
    const chartId = (request: { params: { chart_id: string } }) => request.params.chart_id
    // The image, spec and embed page take the chart's embed token in the query (an <img> or
    // <iframe> cannot send headers), or a credential like any other route.
    const viewerOf = async (request: FastifyRequest & { query: { token?: string } }): Promise<Viewer | null> => {
      const token = request.query.token
      if (token) return domain.embedViewer(token)
      return edge.authenticate(request)
    }

    // --- The documented endpoints ------------------------------------------------------------
    app.get(
      `${base}/charts`,
      {
        schema: {
          querystring: {
            type: 'object',
            properties: { category: { type: 'string', maxLength: 100 }, limit: { type: 'integer' }, offset: { type: 'integer' } },
          },
        },
      },
      async (request) => {
        const page = domain.listChartTypes(request.principal, request.query)
        return {
          success: true,
          data: page.items.map((t) => ({
            id: t.id,
            name: t.name,
            category: t.category,
            supported_features: t.supportedFeatures,
            data_format: t.dataFormat,
            max_data_points: t.maxDataPoints,
          })),
          total: page.total,
          page: Math.floor(page.offset / page.limit) + 1,
          limit: page.limit,
          offset: page.offset,
        }
      },
    )

    app.post(
      `${base}/charts/render`,
      {
        bodyLimit: DATA_BODY_LIMIT,
        schema: {
          body: {
            type: 'object',
            required: ['chart_type', 'data'],
            properties: { chart_type: { type: 'string' }, data: { type: 'array' }, config: object, width: { type: 'number' }, height: { type: 'number' } },
          },
        },
      },
      async (request, reply) => {
        const chart = await domain.renderChart(request.principal, request.body)
        return reply.code(201).header('location', `${base}/charts/${chart.id}`).send(renderedBody(request, chart))
      },
    )

    app.put(`${base}/charts/:chart_id`, { bodyLimit: DATA_BODY_LIMIT, schema: { params: chartParams, body: object } }, async (request) =>
      renderedBody(request, await domain.updateChart(request.principal, chartId(request), request.body)),
    )

    app.delete(`${base}/charts/:chart_id`, { schema: { params: chartParams } }, async (request) => {
      const { id, message } = await domain.deleteChart(request.principal, chartId(request))
      return { success: true, message, chart_id: id }
    })

    app.post(
      `${base}/data/validate`,
      {
        bodyLimit: DATA_BODY_LIMIT,
        schema: { body: { type: 'object', required: ['data', 'expected_schema'], properties: { data: { type: 'array' }, expected_schema: object } } },
      },
      async (request) => domain.validateData(request.principal, request.body),
    )

    app.post(
      `${base}/data/transform`,
      {
        bodyLimit: DATA_BODY_LIMIT,
        schema: {
          body: { type: 'object', required: ['data', 'transformations'], properties: { data: { type: 'array' }, transformations: { type: 'array' } } },
        },
      },
      async (request) => ({ success: true, ...domain.transformData(request.principal, request.body) }),
    )

    app.post(
      `${base}/charts/:chart_id/export`,
      {
        schema: {
          params: chartParams,
          body: {
            type: 'object',
            required: ['format'],
            properties: {
              format: { type: 'string' },
              quality: { type: 'number' },
              scale: { type: 'number' },
              width: { type: 'integer' },
              height: { type: 'integer' },
            },
          },
        },
      },
      async (request, reply) => {
        const file = await domain.exportChart(request.principal, chartId(request), request.body)
        const url = domain.downloadUrl(file, origin(request))
        return reply.code(201).header('location', url).send(exportBody(file, url))
      },
    )

    app.post(
      `${base}/analytics/recommend`,
      {
        bodyLimit: DATA_BODY_LIMIT,
        schema: {
          body: { type: 'object', required: ['data', 'intent'], properties: { data: { type: 'array' }, intent: { type: 'string' }, preferences: object } },
        },
      },
      async (request) => ({ recommendations: domain.recommend(request.principal, request.body).recommendations }),
    )

    // --- Extensions -------------------------------------------------------------------------
    app.get(`${base}/charts/:chart_id`, { schema: { params: chartParams } }, async (request) => {
      const chart = await domain.getChart(request.principal, chartId(request))
      return {
        ...renderedBody(request, chart),
        chart_type: chart.chartType,
        data: chart.data,
        config: chart.config,
        width: chart.width,
        height: chart.height,
        created_at: chart.createdAt.toISOString(),
        updated_at: chart.updatedAt.toISOString(),
      }
    })

    app.post(`${base}/charts/:chart_id/data`, { bodyLimit: DATA_BODY_LIMIT, schema: { params: chartParams, body: object } }, async (request) => {
      const chart = await domain.pushData(request.principal, chartId(request), request.body)
      return { success: true, chart_id: chart.id, data_points: chart.dataPoints, version: chart.version, updated_at: chart.updatedAt.toISOString() }
    })

    for (const format of ['svg', 'png'] as const) {
      app.get(
        `${base}/charts/:chart_id/image.${format}`,
        { config: { public: true }, schema: { params: chartParams, querystring: tokenQuery } },
        async (request, reply) => {
          const image = await domain.chartImage(await viewerOf(request), chartId(request), format)
          // The token is the credential: the image must not be cached where others could read it.
          return reply
            .header('content-type', image.contentType)
            .header('cache-control', 'private, no-cache')
            .header('x-content-type-options', 'nosniff')
            .send(image.bytes)
        },
      )
    }

    app.get(
      `${base}/charts/:chart_id/spec.json`,
      { config: { public: true }, schema: { params: chartParams, querystring: tokenQuery } },
      async (request, reply) => {
        const { version, spec } = await domain.chartSpec(await viewerOf(request), chartId(request))
        return reply.header('cache-control', 'private, no-cache').send({ chart_id: chartId(request), version, spec })
      },
    )

    app.get(
      `${base}/charts/:chart_id/embed`,
      {
        config: { public: true },
        schema: { params: chartParams, querystring: { type: 'object', required: ['token'], properties: { token: tokenQuery.properties.token } } },
      },
      async (request, reply) => {
        const { token } = request.query
        const chart = await domain.getChart(domain.embedViewer(token), chartId(request))
        const html = embedPage({
          chartId: chart.id,
          title: chart.config.title,
          token,
          specPath: chartPaths(chart.id, token).spec,
          streamPath: STREAM_PATH,
          assetsPath: `${base}/assets`,
          intervalMs: DEFAULT_INTERVAL_MS,
        })
        return (
          reply
            .header('content-type', 'text/html; charset=utf-8')
            .header('cache-control', 'private, no-cache')
            .header('referrer-policy', 'no-referrer')
            // Scripts only from this origin and the page's own. Framing is the point, so no
            // frame-ancestors: `*` would still refuse file: and about:blank hosts.
            .header(
              'content-security-policy',
              "default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; connect-src 'self' ws: wss:; img-src 'self' data:",
            )
            .send(html)
        )
      },
    )

    app.get(
      `${base}/assets/:file`,
      {
        config: { public: true },
        schema: { params: { type: 'object', required: ['file'], properties: { file: { type: 'string', maxLength: 100 } } } },
      },
      async (request, reply) => {
        const name = request.params.file
        if (!Object.hasOwn(ASSETS, name)) throw visualizationCore.errors.create('NOT_FOUND', `No asset ${name}`, { field: 'file', reason: 'not found' })
        const file = ASSETS[name] as string
        return reply
          .header('content-type', 'text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=86400')
          .send(await readFile(file))
      },
    )

    app.get(
      `${base}/exports/:export_id`,
      {
        config: { public: true },
        schema: {
          params: { type: 'object', required: ['export_id'], properties: { export_id: { type: 'string', minLength: 1, maxLength: 200 } } },
          querystring: { type: 'object', properties: { expires: { type: 'string', maxLength: 20 }, signature: { type: 'string', maxLength: 200 } } },
        },
      },
      async (request, reply) => {
        const { expires, signature } = request.query
        const file = await domain.openExport(request.params.export_id, expires, signature)
        return sendFile(reply, file)
      },
    )
  },
})

function sendFile(reply: FastifyReply, file: { bytes: Buffer; contentType: string; filename: string }) {
  return reply
    .header('content-type', file.contentType)
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .send(file.bytes)
}

function exportBody(file: ExportRecord, url: string) {
  return {
    success: true,
    download_url: url,
    expires_at: file.expiresAt.toISOString(),
    file_size: file.fileSize,
    export_id: file.id,
    format: file.format,
    width: file.width,
    height: file.height,
  }
}
