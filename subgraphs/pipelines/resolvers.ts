import { DateTimeScalar, JSONScalar } from '../../platform/graphql/scalars.js'
import type { ConnectorRole, LogLevel, PipelineStatus, Resolvers, RunStatus } from './generated/graphql.js'
import type { PipelinesService } from './pipelines-service.js'
import type { LogRecord, RunRecord } from './records.js'

const upper = <T extends string>(value: string) => value.toUpperCase() as T

/**
 * GraphQL resolvers of the pipelines subgraph: translate arguments, call the domain with the
 * caller, shape the result. The create input takes the REST body's shapes (JSON) so both
 * faces validate through the same code.
 */
export function createPipelinesResolvers(service: PipelinesService): Resolvers {
  return {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      connectors: (_, __, ctx) => service.listConnectors(ctx.actor),
      pipeline: (_, { id }, ctx) => service.getPipeline(ctx.actor, id),
      pipelines: (_, args, ctx) => service.listPipelines(ctx.actor, { limit: args.limit ?? undefined, offset: args.offset ?? undefined }),
      run: (_, { id }, ctx) => service.getRun(ctx.actor, id),
    },
    Mutation: {
      createPipeline: (_, { input }, ctx) => service.createPipeline(ctx.actor, input),
      runPipeline: (_, { id }, ctx) => service.runPipeline(ctx.actor, id),
      deletePipeline: async (_, { id }, ctx) => {
        const result = await service.deletePipeline(ctx.actor, id)
        return { pipelineId: result.id, message: result.message, cancelledRunId: result.cancelledRun }
      },
    },
    Subscription: {
      runUpdated: {
        subscribe: (_, { runId }, ctx) => service.watchRun(ctx.actor, runId),
        resolve: (run: RunRecord) => run,
      },
      runLogs: {
        subscribe: (_, { runId }, ctx) => service.watchRunLogs(ctx.actor, runId),
        resolve: (line: LogRecord) => line,
      },
    },
    Connector: {
      role: (c) => upper<ConnectorRole>(c.type),
    },
    Endpoint: {
      settings: (e) => e.settings,
    },
    Pipeline: {
      __resolveReference: (ref, ctx) => service.getPipeline(ctx.actor, ref.id as string),
      status: (p) => upper<PipelineStatus>(p.status),
      runs: (p, args, ctx) => service.listRuns(ctx.actor, p.id, { limit: args.limit ?? undefined, status: args.status?.toLowerCase() }),
    },
    PipelineRun: {
      __resolveReference: (ref, ctx) => ctx.runLoader.load(ref.id as string),
      status: (r) => upper<RunStatus>(r.status),
      pipeline: (r, _, ctx) => service.getPipeline(ctx.actor, r.pipelineId),
      logs: (r, _, ctx) => service.getRunLogs(ctx.actor, r.id),
      output: (r, _, ctx) => service.getRunOutput(ctx.actor, r.id),
    },
    RunLog: {
      level: (l) => upper<LogLevel>(l.level),
    },
    RunOutput: {
      __resolveReference: (ref, ctx) => service.getRunOutput(ctx.actor, ref.runId as string),
      preview: (o, { limit }, ctx) => service.previewOutput(ctx.actor, o.runId, limit ?? undefined),
      rows: async (o, _, ctx) => (await service.previewOutput(ctx.actor, o.runId, 1000)).rows,
    },
  }
}
