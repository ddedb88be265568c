import { randomUUID } from 'node:crypto'
import type { SecretBox } from '../../platform/auth/secrets.js'
import { createAuthorizer } from '../../platform/auth/authorize.js'
import { checkPage } from '../../platform/validation/page.js'
import type { Principal } from '../../platform/auth/scopes.js'
import type { ValidationIssue } from '../../platform/errors.js'
import { isRecord } from '../../platform/validation/json-shapes.js'
import { outboxRow, type EventBus } from '../../platform/events/event-bus.js'
import type { JobRunner } from '../../platform/jobs/job-runner.js'
import { recommendCharts } from './analysis/recommend-charts.js'
import { transformData } from './analysis/transform-data.js'
import { validateData } from './analysis/validate-data.js'
import { chartPaths, createChartLinks, embedCode, exportPath } from './chart-links.js'
import { createChartStore, type ChartChange, type ChartRow } from './chart-store.js'
import { parseExportOptions } from './export-options.js'
import { latestTicks } from './latest-ticks.js'
import {
  CHART_EVENTS,
  createChartStream,
  DEFAULT_INTERVAL_MS,
  MAX_INTERVAL_MS,
  MIN_INTERVAL_MS,
  type ChartChangedPayload,
  type ChartTick,
  type StreamListener,
} from './chart-stream.js'
import { visualizationErrors as errors } from './errors.js'
import { Prisma, type PrismaClient } from './generated/prisma/client.js'
import { mergeDataPoints, parseDataPush } from './live-data.js'
import { rowsToChartData, type RowMapping } from './rows-to-chart-data.js'
import { listChartTypes } from './render/chart-catalog.js'
import { MAX_SIZE, MIN_SIZE, validateRenderInput, type ChartConfig, type RenderInput } from './render/chart-input.js'
import {
  CHART_FORMATS,
  DEFAULT_PNG_QUALITY,
  MAX_PNG_PIXELS,
  MAX_PNG_SCALE,
  pngPixelSize,
  renderChart,
  svgToPngAsync,
  type ChartFormat,
  type RenderedChart,
} from './render/render-chart.js'
import { buildSpec } from './render/vega-lite-spec.js'
import type { VisualizationConfig } from './visualization-config.js'

const SCHEMA = 'visualization'
export const PRUNE_EXPORTS_QUEUE = 'visualization.prune-exports'
/** Default and largest page of `GET /charts` and of the chart listing. */
export const PAGE = { default: 50, max: 100 }
/** Attempts at a change before giving up when other writers keep changing the chart meanwhile. */
const MAX_ATTEMPTS = 5

/** A stored chart. */
export interface ChartRecord {
  id: string
  chartType: RenderInput['chartType']
  data: Record<string, unknown>[]
  config: ChartConfig
  width: number
  height: number
  dataPoints: number
  /** Grows by one with every change of data or configuration. */
  version: number
  /** Time the latest full render took (render, update). */
  renderTimeMs: number
  renderedAt: Date
  createdAt: Date
  updatedAt: Date
  /** Read access to this one chart (image, embed page, stream); see chart-links.ts. */
  embedToken: string
}

/** A chart drawn for one request and not stored (a run output's chart). */
export type RunChartPreview = Pick<ChartRecord, 'chartType' | 'config' | 'width' | 'height' | 'dataPoints' | 'renderTimeMs'> & {
  data: RenderInput['data']
  /** The rendered SVG document. */
  svg: string
}

/** An export file and where to download it. */
export interface ExportRecord {
  id: string
  chartId: string
  format: ChartFormat
  fileSize: number
  width: number
  height: number
  expiresAt: Date
  /** Signed download path, relative to the service's origin. */
  downloadPath: string
}

/** A downloadable file. */
export interface ChartFile {
  bytes: Buffer
  contentType: string
  filename: string
}

/** A chart of a run's output: the column mapping, and the render request's config and size. */
export interface RunChartRequest extends RowMapping {
  config?: Record<string, unknown>
  width?: number
  height?: number
}

/** Who reads a chart: a credential's principal, or a page holding a chart's embed token. */
export type Viewer = Principal | { method: 'embed'; id: string; chartId: string; scopes: readonly string[] }

/** Series of other services this service charts, and which of their fields it draws. */
const SERIES = {
  /** An esports team's wins after each match, by match date. */
  teamSeason: { xField: 'date', valueField: 'wins' },
  /** A heritage artifact's views per day. */
  artifactViews: { xField: 'date', valueField: 'views' },
} as const

/** A series of another service that this service charts. */
export type SeriesKind = keyof typeof SERIES

/** What the visualization service needs from the platform. */
export interface VisualizationServiceDeps {
  prisma: PrismaClient
  events: EventBus
  secrets: SecretBox
  config: VisualizationConfig
  now?: () => Date
  onError?: (error: unknown) => void
}

/**
 * The visualization domain: chart types, rendered charts kept with their data, live data
 * pushes, exports behind signed expiring links, data validation, transforms and chart
 * recommendation, and the live stream of chart data. REST handlers and GraphQL resolvers
 * only translate.
 */
export function createVisualizationService(deps: VisualizationServiceDeps) {
  const { events } = deps
  const store = createChartStore(deps.prisma)
  const now = deps.now ?? (() => new Date())
  const links = createChartLinks(deps.secrets)
  const stream = createChartStream({
    events,
    schema: SCHEMA,
    onError: deps.onError,
    async load(chartId) {
      const row = await store.streamState(chartId)
      return row ? { chartId: row.id, version: row.version, data: row.data as unknown[] } : null
    },
  })

  // An embed viewer holds no scopes: it passes only the chart read below.
  const authorize = createAuthorizer(errors, 'visualization')
  // An embed token reads its own chart only; a credential needs the read scope.
  const authorizeChartRead = (viewer: Viewer | null, chartId: string) => {
    if (viewer?.method === 'embed') {
      if (viewer.chartId !== chartId)
        throw errors.forRole('forbidden', 'This embed token is for another chart', { field: 'chart_id', reason: 'not the chart of the embed token' })
      return
    }
    authorize(viewer, 'read')
  }
  const originOf = (requestOrigin?: string) => deps.config.publicUrl ?? requestOrigin ?? ''
  const notFound = (id: string) => errors.create('NOT_FOUND', `Chart ${id} not found`, { field: 'chart_id', reason: 'not found' })
  const invalid = (issues: ValidationIssue[]) => errors.invalid(issues)

  async function loadRow(id: string): Promise<ChartRow> {
    const row = await store.find(id)
    if (!row) throw notFound(id)
    return row
  }

  const toRecord = (row: ChartRow): ChartRecord => ({
    id: row.id,
    chartType: row.chartType as ChartRecord['chartType'],
    data: row.data as Record<string, unknown>[],
    config: row.config as unknown as ChartConfig,
    width: row.width,
    height: row.height,
    dataPoints: row.dataPoints,
    version: row.version,
    renderTimeMs: row.renderTimeMs,
    renderedAt: row.renderedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    embedToken: links.embedToken(row.id),
  })

  // A stored chart is valid by construction; validating it again normalises its types.
  const inputOf = (row: ChartRow, size?: { width: number; height: number }): RenderInput => {
    const checked = validateRenderInput({
      chart_type: row.chartType,
      data: row.data,
      config: row.config,
      width: size?.width ?? row.width,
      height: size?.height ?? row.height,
    })
    if (!checked.ok) throw new Error(`Stored chart ${row.id} no longer validates: ${checked.issues.map((i) => `${i.field} ${i.message}`).join('; ')}`)
    return checked.value
  }

  const validated = (body: unknown): RenderInput => {
    const checked = validateRenderInput(body)
    if (!checked.ok) throw invalid(checked.issues)
    return checked.value
  }

  const changedEvent = (id: string, version: number, data: unknown[]) =>
    outboxRow(CHART_EVENTS.changed, id, { chartId: id, version, data } satisfies ChartChangedPayload)

  /** Writes a new version of a chart unless another writer came first (then null). */
  async function writeVersion(row: ChartRow, change: ChartChange): Promise<ChartRow | null> {
    const next: ChartRow = {
      ...row,
      ...change,
      data: (change.data ?? row.data) as Prisma.JsonValue,
      config: (change.config ?? row.config) as Prisma.JsonValue,
      version: row.version + 1,
      updatedAt: now(),
    }
    return (await store.writeVersion(row, next, change.svg, changedEvent(row.id, next.version, next.data as unknown[]))) ? next : null
  }

  async function retrying(id: string, attempt: (row: ChartRow) => Promise<ChartRow | null>): Promise<ChartRecord> {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const written = await attempt(await loadRow(id))
      if (written) return toRecord(written)
    }
    throw errors.create('SERVICE_UNAVAILABLE', `Chart ${id} is being changed by other requests; try again`, { field: 'chart_id', reason: 'concurrent changes' })
  }

  function parsePage(page: { limit?: number; offset?: number }) {
    const issues: ValidationIssue[] = []
    const checked = checkPage(page, PAGE, issues)
    if (issues.length) throw invalid(issues)
    return checked
  }

  function parseInterval(value: unknown): number {
    if (value === undefined || value === null) return DEFAULT_INTERVAL_MS
    if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_INTERVAL_MS || value > MAX_INTERVAL_MS) {
      throw invalid([{ field: 'interval', message: `must be an integer number of milliseconds from ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS}` }])
    }
    return value
  }

  // The columns a full render sets (data is typed per use: Prisma JSON, or items for the event).
  const renderedColumns = (input: RenderInput, rendered: RenderedChart) => ({
    chartType: input.chartType,
    config: input.config as unknown as Prisma.InputJsonValue,
    width: input.width,
    height: input.height,
    dataPoints: rendered.dataPoints,
    svg: rendered.text ?? null,
    renderTimeMs: rendered.renderTimeMs,
  })

  async function createChart(actor: { id: string }, input: RenderInput): Promise<ChartRecord> {
    const rendered = await renderChart(input, 'svg')
    const at = now()
    const row = await store.insert({
      id: randomUUID(),
      ...renderedColumns(input, rendered),
      data: input.data as unknown as Prisma.InputJsonValue,
      renderedAt: at,
      createdAt: at,
      updatedAt: at,
      createdBy: actor.id,
    })
    return toRecord(row)
  }

  const service = {
    /** The stream's counters (for metrics and benchmarks). */
    streamStats: () => stream.stats(),

    /** `GET /charts`: a page of the chart types, optionally of one category. */
    listChartTypes(actor: Principal | null, query: { category?: string; limit?: number; offset?: number }) {
      authorize(actor, 'read')
      const { limit, offset } = parsePage(query)
      const category = query.category === '' ? undefined : query.category
      return { ...listChartTypes({ ...(category !== undefined ? { category } : {}), limit, offset }), limit, offset }
    },

    /** `POST /charts/render`: validates, renders the SVG and keeps the chart. */
    async renderChart(actor: Principal | null, body: unknown): Promise<ChartRecord> {
      const principal = authorize(actor, 'write')
      return createChart(principal, validated(body))
    },

    /**
     * A pipeline run's output drawn as a chart: the rows become items through `input`'s column
     * mapping (see rows-to-chart-data.ts), rendered with its config and size. Reading a run
     * needs only the read scope, so nothing is stored: the caller keeps the chart, if it wants
     * to, with `renderChart` (which needs the write scope).
     */
    /**
     * A series another service owns (an esports team's season, a heritage artifact's daily
     * views), drawn the one way this service draws it; `chartType` and the look may vary.
     */
    chartOfSeries(
      actor: Principal | null,
      series: SeriesKind,
      rows: readonly Record<string, unknown>[],
      look: Pick<RunChartRequest, 'config' | 'width' | 'height'> & { chartType?: string },
    ): Promise<RunChartPreview> {
      return service.chartOfRows(actor, rows, { ...SERIES[series], ...look, chartType: look.chartType ?? 'line' })
    },

    async chartOfRows(actor: Principal | null, rows: readonly Record<string, unknown>[], input: RunChartRequest): Promise<RunChartPreview> {
      authorize(actor, 'read')
      const mapped = rowsToChartData(rows, input)
      if (!mapped.ok) throw invalid(mapped.issues.map((i) => ({ field: `input.${i.field}`, message: i.message })))
      const checked = validated({ chart_type: input.chartType, data: mapped.data, config: input.config, width: input.width, height: input.height })
      const rendered = await renderChart(checked, 'svg')
      return {
        chartType: checked.chartType,
        data: checked.data,
        config: checked.config,
        width: checked.width,
        height: checked.height,
        dataPoints: rendered.dataPoints,
        svg: rendered.text ?? '',
        renderTimeMs: rendered.renderTimeMs,
      }
    },

    /**
     * A chart's public links: `renderUrl` (its SVG) and `embedCode` (the live page's iframe),
     * under TESSERA_PUBLIC_URL, else under `requestOrigin` (the origin the request came in
     * on), else relative to the server.
     */
    chartLinks(chart: ChartRecord, requestOrigin?: string) {
      const origin = originOf(requestOrigin)
      const size = { width: chart.width, height: chart.height, ...(chart.config.title ? { title: chart.config.title } : {}) }
      return { renderUrl: `${origin}${chartPaths(chart.id, chart.embedToken).image('svg')}`, embedCode: embedCode(origin, chart.id, chart.embedToken, size) }
    },

    /** An export's download link, on the same origin rule as {@link chartLinks}. */
    downloadUrl: (file: ExportRecord, requestOrigin?: string) => `${originOf(requestOrigin)}${file.downloadPath}`,

    async getChart(viewer: Viewer | null, id: string): Promise<ChartRecord> {
      authorizeChartRead(viewer, id)
      return toRecord(await loadRow(id))
    },

    /** Charts rendered so far, newest first. */
    async listCharts(actor: Principal | null, page: { limit?: number; offset?: number }) {
      authorize(actor, 'read')
      const { limit, offset } = parsePage(page)
      const { rows, total } = await store.page(limit, offset)
      return { items: rows.map(toRecord), total, limit, offset }
    },

    /**
     * `PUT /charts/{chart_id}`: changes only the fields given (`chart_type`, `data`, `config`,
     * `width`, `height`); `config` keys merge into the chart's, a `null` key returns to its
     * default. The result must still be a valid chart; it is rendered again, and subscribers
     * see the new data.
     */
    async updateChart(actor: Principal | null, id: string, patch: unknown): Promise<ChartRecord> {
      authorize(actor, 'write')
      if (!isRecord(patch)) throw invalid([{ field: 'body', message: 'must be an object with the fields to change' }])
      const fields = ['chart_type', 'data', 'config', 'width', 'height']
      const issues: ValidationIssue[] = Object.keys(patch)
        .filter((k) => !fields.includes(k))
        .map((k) => ({ field: k, message: `cannot be changed; a chart has ${fields.join(', ')}` }))
      if (Object.keys(patch).length === 0) issues.push({ field: 'body', message: `names nothing to change; give any of ${fields.join(', ')}` })
      if (patch.config !== undefined && !isRecord(patch.config)) issues.push({ field: 'config', message: 'must be an object' })
      if (issues.length) throw invalid(issues)
      return retrying(id, async (row) => {
        const config: Record<string, unknown> = { ...(row.config as Record<string, unknown>) }
        for (const [key, value] of Object.entries((patch.config as Record<string, unknown> | undefined) ?? {})) {
          if (value === null) delete config[key]
          else config[key] = value
        }
        const input = validated({
          chart_type: patch.chart_type ?? row.chartType,
          data: patch.data ?? row.data,
          config,
          width: patch.width ?? row.width,
          height: patch.height ?? row.height,
        })
        const rendered = await renderChart(input, 'svg')
        return writeVersion(row, { ...renderedColumns(input, rendered), data: input.data as unknown as Record<string, unknown>[], renderedAt: now() })
      })
    },

    /**
     * `POST /charts/{chart_id}/data`: new points for a live chart (see live-data.ts). The image
     * is drawn again when next viewed; stream subscribers get the points at their next tick.
     */
    async pushData(actor: Principal | null, id: string, body: unknown): Promise<ChartRecord> {
      authorize(actor, 'write')
      const parsed = parseDataPush(body)
      if (!parsed.ok) throw invalid(parsed.issues)
      const { push } = parsed
      return retrying(id, async (row) => {
        const base = { chart_type: row.chartType, config: row.config, width: row.width, height: row.height }
        const incoming = validated({ ...base, data: push.data })
        const merged = mergeDataPoints(incoming.chartType, row.data as Record<string, unknown>[], incoming.data as unknown as Record<string, unknown>[], push)
        const checked = validateRenderInput({ ...base, data: merged })
        if (!checked.ok) throw invalid(checked.issues.map((issue) => ({ field: 'data', message: `after this push the chart's data ${issue.message}` })))
        return writeVersion(row, { data: checked.value.data as unknown as Record<string, unknown>[], dataPoints: merged.length, svg: null })
      })
    },

    /** `DELETE /charts/{chart_id}`: the chart and its exports; subscribers are told. */
    async deleteChart(actor: Principal | null, id: string): Promise<{ id: string; message: string }> {
      authorize(actor, 'write')
      if (!(await store.remove(id))) throw notFound(id)
      return { id, message: `Chart ${id} deleted` }
    },

    /**
     * The chart drawn as SVG or PNG (the `render_url`). The SVG of the current version is
     * kept; after a data push it is drawn again on first view and kept for the next.
     */
    async chartImage(viewer: Viewer | null, id: string, format: 'svg' | 'png'): Promise<ChartFile> {
      authorizeChartRead(viewer, id)
      const row = await store.findWithSvg(id)
      if (!row) throw notFound(id)
      let svg = row.svg
      if (svg === null) {
        svg = (await renderChart(inputOf(row), 'svg')).text as string
        await store.keepSvg(id, row.version, svg)
      }
      const bytes =
        format === 'svg' ? Buffer.from(svg, 'utf8') : await svgToPngAsync(svg, { width: row.width, height: row.height, quality: DEFAULT_PNG_QUALITY })
      return { bytes, contentType: format === 'svg' ? 'image/svg+xml' : 'image/png', filename: `chart-${id}.${format}` }
    },

    /** The chart's Vega-Lite spec, data included, as the embed page draws it. */
    async chartSpec(viewer: Viewer | null, id: string) {
      authorizeChartRead(viewer, id)
      const row = await loadRow(id)
      return { version: row.version, spec: buildSpec(inputOf(row)) }
    },

    /**
     * `POST /charts/{chart_id}/export`: `format` (required: png, svg, pdf, json), `quality`
     * 0–100 (png colours: 100 lossless truecolour, below a quantized palette; ignored by the
     * other formats), `scale` 1–4 (png pixel density), `width` and `height` in pixels (default
     * the chart's; a png is exactly `width × scale` by `height × scale`). The file is kept
     * until its link expires.
     */
    async exportChart(actor: Principal | null, id: string, body: unknown): Promise<ExportRecord> {
      authorize(actor, 'read')
      const parsed = parseExportOptions(body)
      if (!parsed.ok) throw invalid(parsed.issues)
      const { format, quality, scale, width, height } = parsed.options
      const row = await loadRow(id)
      const input = inputOf(row, { width: width ?? row.width, height: height ?? row.height })
      if (format === 'png') {
        const pixels = pngPixelSize({ width: input.width, height: input.height, scale })
        if (pixels.width * pixels.height > MAX_PNG_PIXELS) {
          throw invalid([
            { field: 'scale', message: `gives a ${pixels.width} x ${pixels.height} PNG; at most ${MAX_PNG_PIXELS} pixels: lower scale, width or height` },
          ])
        }
      }
      const rendered = await renderChart(input, format, { quality: quality ?? DEFAULT_PNG_QUALITY, scale: scale ?? 1 })
      const expires = Math.floor(now().getTime() / 1000) + deps.config.exportTtlSeconds
      const exportId = randomUUID()
      await store.insertExport({
        id: exportId,
        chartId: id,
        format: rendered.format,
        contentType: rendered.contentType,
        bytes: new Uint8Array(rendered.bytes),
        fileSize: rendered.bytes.length,
        width: rendered.width,
        height: rendered.height,
        createdAt: now(),
        expiresAt: new Date(expires * 1000),
      })
      return {
        id: exportId,
        chartId: id,
        format: rendered.format,
        fileSize: rendered.bytes.length,
        width: rendered.width,
        height: rendered.height,
        expiresAt: new Date(expires * 1000),
        downloadPath: exportPath(exportId, expires, links.exportSignature(exportId, expires)),
      }
    },

    /** A download link's file: refused when the link was changed or forged, or has expired. */
    async openExport(exportId: string, expires: string | undefined, signature: string | undefined): Promise<ChartFile> {
      const check = links.checkExportLink(exportId, expires, signature, now())
      if (!check.ok) {
        throw check.reason === 'expired'
          ? errors.create('LINK_EXPIRED', `This download link expired at ${new Date(Number(expires) * 1000).toISOString()}; export the chart again`, {
              field: 'expires',
              reason: 'expired',
            })
          : errors.create('LINK_INVALID', undefined, { field: 'signature', reason: 'does not match the link' })
      }
      const row = await store.findExport(exportId)
      if (!row) throw errors.create('NOT_FOUND', `Export ${exportId} not found; its chart may have been deleted`, { field: 'export_id', reason: 'not found' })
      return { bytes: Buffer.from(row.bytes), contentType: row.contentType, filename: `chart-${row.chartId}.${row.format}` }
    },

    /** `POST /data/validate`. */
    validateData(actor: Principal | null, body: unknown) {
      authorize(actor, 'read')
      const outcome = validateData(body)
      if (!outcome.ok) throw invalid(outcome.issues)
      return outcome.report
    },

    /** `POST /data/transform`. */
    transformData(actor: Principal | null, body: unknown) {
      authorize(actor, 'read')
      const outcome = transformData(body)
      if (!outcome.ok) throw invalid(outcome.issues)
      return outcome.result
    },

    /** `POST /analytics/recommend`. */
    recommend(actor: Principal | null, body: unknown) {
      authorize(actor, 'read')
      const outcome = recommendCharts(body)
      if (!outcome.ok) throw invalid(outcome.issues)
      return outcome
    },

    /**
     * The viewer a chart's embed token stands for, or null. Links (image, spec, embed page)
     * carry only embed tokens: an API key in a URL would end up in logs and browser history.
     */
    embedViewer(token: unknown): Viewer | null {
      if (typeof token !== 'string' || !links.isEmbedToken(token)) return null
      const chartId = links.chartOfEmbedToken(token)
      return chartId ? { method: 'embed', id: `embed:${chartId}`, chartId, scopes: [] } : null
    },

    /**
     * Who a stream `auth` token stands for: an embed token's chart, or the principal of an API
     * key or access token (`verify`); null when it is neither.
     */
    async authenticate(token: unknown, verify: (credential: string) => Promise<Principal | null>): Promise<Viewer | null> {
      if (typeof token !== 'string' || token.length === 0 || token.length > 500) return null
      return links.isEmbedToken(token) ? service.embedViewer(token) : verify(token)
    },

    /**
     * Subscribes to a chart's data every `interval` ms (default 1000, 100 to 3,600,000). The
     * first tick comes at once. Resolves to the function that ends the subscription and the
     * interval in force.
     */
    async watchChart(viewer: Viewer | null, chartId: unknown, interval: unknown, listener: StreamListener): Promise<{ stop: () => void; intervalMs: number }> {
      if (typeof chartId !== 'string' || chartId.length === 0) throw invalid([{ field: 'chart_id', message: 'is required: the id of a rendered chart' }])
      authorizeChartRead(viewer, chartId)
      const intervalMs = parseInterval(interval)
      const stop = await stream.subscribe(chartId, intervalMs, listener)
      if (!stop) throw notFound(chartId)
      return { stop, intervalMs }
    },

    /**
     * The same stream as an async iterator (GraphQL subscriptions). A consumer that falls
     * behind gets the newest tick, never a backlog.
     */
    chartTicks: (viewer: Viewer | null, chartId: string, interval: unknown): Promise<AsyncIterableIterator<ChartTick>> =>
      latestTicks((listener) => service.watchChart(viewer, chartId, interval, listener)),

    /** Deletes exports whose links have expired, every quarter of an hour. */
    registerJobs(jobs: JobRunner) {
      jobs.define<object>({
        name: PRUNE_EXPORTS_QUEUE,
        cron: '*/15 * * * *',
        handle: async () => {
          await store.pruneExports(now())
        },
      })
    },

    /** Ends every stream subscription. */
    close: () => stream.close(),
  }
  return service
}

/** The visualization domain service. */
export type VisualizationService = ReturnType<typeof createVisualizationService>
