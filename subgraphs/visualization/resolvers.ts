import { isTesseraError } from '../../platform/errors.js'
import { DateTimeScalar, JSONScalar } from '../../platform/graphql/scalars.js'
import type { ChartConfigInput, ChartFormat, Resolvers } from './generated/graphql.js'
import type { ChartTick } from './chart-stream.js'
import type { VisualizationService } from './visualization-service.js'

const lower = (value: string) => value.toLowerCase()

// GraphQL input objects leave out what the client left out, so `config` keeps its REST meaning.
const configBody = (config: ChartConfigInput | null | undefined) => (config ? { ...config } : undefined)
const defined = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined))

/**
 * GraphQL resolvers of the visualization subgraph: translate arguments into the REST bodies'
 * shapes (so both faces validate through the same code), call the domain, shape the result.
 */
export function createVisualizationResolvers(service: VisualizationService): Resolvers {
  return {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      chartTypes: (_, args, ctx) =>
        service.listChartTypes(ctx.actor, defined({ category: args.category ?? undefined, limit: args.limit, offset: args.offset })),
      chart: (_, { id }, ctx) =>
        service.getChart(ctx.actor, id).catch((error: unknown) => {
          // An unknown chart is null here, as GraphQL clients expect of a lookup.
          if (isTesseraError(error) && error.code === 'NOT_FOUND') return null
          throw error
        }),
      charts: (_, args, ctx) => service.listCharts(ctx.actor, { limit: args.limit, offset: args.offset }),
      validateData: (_, args, ctx) => service.validateData(ctx.actor, defined({ data: args.data, expected_schema: args.expectedSchema ?? undefined })),
      transformData: (_, args, ctx) => service.transformData(ctx.actor, { data: args.data, transformations: args.transformations }),
      recommendCharts: (_, args, ctx) =>
        service.recommend(
          ctx.actor,
          defined({ data: args.data, intent: lower(args.intent), preferences: args.preferences ? defined({ ...args.preferences }) : undefined }),
        ).recommendations,
    },
    Mutation: {
      renderChart: (_, { input }, ctx) =>
        service.renderChart(
          ctx.actor,
          defined({ chart_type: input.chartType, data: input.data, config: configBody(input.config), width: input.width, height: input.height }),
        ),
      updateChart: (_, { id, input }, ctx) =>
        service.updateChart(
          ctx.actor,
          id,
          defined({
            chart_type: input.chartType ?? undefined,
            data: input.data ?? undefined,
            config: configBody(input.config),
            width: input.width ?? undefined,
            height: input.height ?? undefined,
          }),
        ),
      deleteChart: async (_, { id }, ctx) => {
        const result = await service.deleteChart(ctx.actor, id)
        return { chartId: result.id, message: result.message }
      },

      pushChartData: (_, { id, input }, ctx) =>
        service.pushData(ctx.actor, id, defined({ data: input.data, mode: input.replace ? 'replace' : 'append', window: input.window ?? undefined })),
      exportChart: (_, { id, input }, ctx) =>
        service.exportChart(
          ctx.actor,
          id,
          defined({
            format: lower(input.format),
            quality: input.quality ?? undefined,
            scale: input.scale ?? undefined,
            width: input.width ?? undefined,
            height: input.height ?? undefined,
          }),
        ),
    },
    Subscription: {
      chartDataUpdated: {
        subscribe: (_, { chartId, intervalMs }, ctx) => service.chartTicks(ctx.actor, chartId, intervalMs),
        resolve: (tick: ChartTick) => tick,
      },
    },
    Chart: {
      __resolveReference: (ref, ctx) => service.getChart(ctx.actor, ref.id as string),
      renderUrl: (c) => service.chartLinks(c).renderUrl,
      embedCode: (c) => service.chartLinks(c).embedCode,
    },
    ChartExport: {
      format: (e) => e.format.toUpperCase() as ChartFormat,
      downloadUrl: (e) => service.downloadUrl(e),
    },
    ValidationStatistics: {
      totalRows: (s) => s.total_rows,
      nullCount: (s) => s.null_count,
      dataTypes: (s) => s.data_types,
    },
    DataTransformResult: {
      rowCount: (r) => r.row_count,
    },
    ChartRecommendation: {
      chartType: (r) => r.chart_type,
    },
    // Series another subgraph owns (@requires); which fields are drawn is the domain's choice.
    Team: {
      seasonChart: (team, args, ctx) => service.chartOfSeries(ctx.actor, 'teamSeason', rowsOf(team.seasonRecord), lookOf(args)),
    },
    Artifact: {
      analyticsChart: (artifact, args, ctx) => service.chartOfSeries(ctx.actor, 'artifactViews', rowsOf(artifact.viewsPerDay), lookOf(args)),
    },
    RunOutput: {
      chart: (output, { input }, ctx) =>
        service.chartOfRows(ctx.actor, output.rows ?? [], {
          ...input,
          config: configBody(input.config),
          width: input.width ?? undefined,
          height: input.height ?? undefined,
        }),
    },
  }
}

const rowsOf = (points: readonly object[] | null | undefined) => (points ?? []) as unknown as Record<string, unknown>[]

const lookOf = (args: { chartType?: string | null; config?: Parameters<typeof configBody>[0]; width?: number | null; height?: number | null }) => ({
  chartType: args.chartType ?? undefined,
  config: configBody(args.config),
  width: args.width ?? undefined,
  height: args.height ?? undefined,
})
