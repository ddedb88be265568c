import { outboxRow, writeOutbox, type OutboxRow } from '../../platform/events/event-bus.js'
import { isUuid } from '../../platform/validation/json-shapes.js'
import { CHART_EVENTS } from './chart-stream.js'
import type { Prisma, PrismaClient } from './generated/prisma/client.js'

const SCHEMA = 'visualization'

/** A chart row without its SVG, which only the image needs (and which may be 200 KB). */
export type ChartRow = Omit<Prisma.ChartGetPayload<object>, 'svg'>

/** What a new version of a chart changes: data and rendering columns, and the SVG (null: stale). */
export type ChartChange = Partial<Pick<ChartRow, 'chartType' | 'width' | 'height' | 'dataPoints' | 'renderTimeMs' | 'renderedAt'>> & {
  data?: Record<string, unknown>[]
  config?: Prisma.InputJsonValue
  svg: string | null
}

/** An export file as stored until its link expires. */
export type ExportRow = Prisma.ChartExportGetPayload<object>

const WITHOUT_SVG = { svg: true } as const

/**
 * Where charts and their exports are kept: the visualization service's only data access, so
 * its rules read as rules and every query (and the one raw statement) sits in one place.
 * Ids that are not UUIDs find nothing rather than failing in the database.
 */
export function createChartStore(prisma: PrismaClient) {
  return {
    /** A chart without its SVG, or null. */
    find: (id: string): Promise<ChartRow | null> => (isUuid(id) ? prisma.chart.findUnique({ where: { id }, omit: WITHOUT_SVG }) : Promise.resolve(null)),

    /** A chart with the SVG of its current version (null when a data push made it stale), or null. */
    findWithSvg: (id: string) => (isUuid(id) ? prisma.chart.findUnique({ where: { id } }) : Promise.resolve(null)),

    /** What the live stream needs of a chart: its version and data. */
    streamState: (id: string) =>
      isUuid(id) ? prisma.chart.findUnique({ where: { id }, select: { id: true, version: true, data: true } }) : Promise.resolve(null),

    insert: (data: Prisma.ChartUncheckedCreateInput) => prisma.chart.create({ data }),

    /** A page of charts, newest first, and how many there are in all. */
    async page(limit: number, offset: number): Promise<{ rows: Prisma.ChartGetPayload<object>[]; total: number }> {
      const [rows, total] = await Promise.all([
        prisma.chart.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset }),
        prisma.chart.count(),
      ])
      return { rows, total }
    },

    /**
     * Writes `next` over `row` if nobody wrote a version since `row` was read (optimistic: the
     * render happens outside any transaction, which on the embedded database would block every
     * other query for its duration). The change and its outbox event are one statement, so
     * they commit together in one round trip — a live chart takes a push a second per chart
     * without holding the database. False when another writer came first.
     */
    async writeVersion(row: ChartRow, next: ChartRow, svg: string | null, event: OutboxRow): Promise<boolean> {
      const written = await prisma.$queryRaw<Array<{ id: string }>>`
        WITH updated AS (
          UPDATE visualization.charts
          SET chart_type = ${next.chartType}, data = ${JSON.stringify(next.data)}::jsonb, config = ${JSON.stringify(next.config)}::jsonb,
              width = ${next.width}, height = ${next.height}, data_points = ${next.dataPoints}, svg = ${svg},
              render_time_ms = ${next.renderTimeMs}, rendered_at = ${next.renderedAt}, version = ${next.version}, updated_at = ${next.updatedAt}
          WHERE id = ${row.id}::uuid AND version = ${row.version}
          RETURNING id
        )
        INSERT INTO platform.outbox (id, service, type, aggregate_id, payload)
        SELECT ${event.id}::uuid, ${SCHEMA}, ${event.type}, ${event.aggregateId}, ${JSON.stringify(event.payload)}::jsonb FROM updated
        RETURNING aggregate_id AS id`
      return written.length > 0
    },

    /** Keeps a freshly drawn SVG, unless the chart changed meanwhile. */
    keepSvg: (id: string, version: number, svg: string) => prisma.chart.updateMany({ where: { id, version }, data: { svg } }),

    /** Deletes a chart (its exports go with it) and tells subscribers; false when there was none. */
    async remove(id: string): Promise<boolean> {
      if (!isUuid(id)) return false
      return prisma.$transaction(async (tx) => {
        const { count } = await tx.chart.deleteMany({ where: { id } })
        if (count > 0) await writeOutbox(tx, SCHEMA, [outboxRow(CHART_EVENTS.deleted, id, { chartId: id })])
        return count > 0
      })
    },

    insertExport: (data: Prisma.ChartExportUncheckedCreateInput) => prisma.chartExport.create({ data }),

    findExport: (id: string): Promise<ExportRow | null> => (isUuid(id) ? prisma.chartExport.findUnique({ where: { id } }) : Promise.resolve(null)),

    /** Deletes exports whose links expired before `now`. */
    pruneExports: (now: Date) => prisma.chartExport.deleteMany({ where: { expiresAt: { lt: now } } }),
  }
}

/** The chart store's interface. */
export type ChartStore = ReturnType<typeof createChartStore>
