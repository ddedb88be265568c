import { defineService } from '../../platform/service-kit/index.js'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { pipelinesCore, type LogRecord, type PipelineRecord, type PipelinesService, type RunRecord } from '../../subgraphs/pipelines/index.js'

const id = { type: 'string', minLength: 1, maxLength: 200 } as const
const params = <N extends string>(name: N) => ({ type: 'object', required: [name], properties: { [name]: id } as { [K in N]: typeof id } }) as const

/**
 * The data integration pipelines' v1 REST interface (Document 3, B) under /v1: the seven
 * documented endpoints, plus a pipeline listing. Errors use the document's codes in
 * Tessera's error body (rest-adapters/pipelines/README.md).
 */
export const pipelinesService = defineService(pipelinesCore, {
  prefixes: ['/v1/pipelines', '/v1/connectors', '/v1/runs'],
  openapi: {
    title: 'Tessera data integration pipelines',
    description: 'Pipelines, connectors, runs and run logs (v1).',
  },
  realm: 'tessera-pipelines',
  async routes(app, { domain }) {
    app.post(
      '/v1/pipelines',
      {
        schema: {
          body: {
            type: 'object',
            required: ['name', 'source', 'destination'],
            properties: {
              name: { type: 'string' },
              source: { type: 'object' },
              destination: { type: 'object' },
              transformations: { type: 'array' },
              schedule: { type: ['string', 'null'] },
              sync: { type: 'object' },
            },
          },
        },
      },
      async (request, reply) => {
        const pipeline = await domain.createPipeline(request.principal, request.body)
        return reply
          .code(201)
          .header('location', `/v1/pipelines/${pipeline.id}`)
          .send({
            pipeline_id: pipeline.id,
            name: pipeline.name,
            status: pipeline.status,
            created_at: pipeline.createdAt.toISOString(),
            next_run: iso(pipeline.nextRun),
          })
      },
    )

    app.get(
      '/v1/pipelines',
      {
        schema: { querystring: { type: 'object', properties: { limit: { type: 'integer' }, offset: { type: 'integer' } } } },
      },
      async (request) => {
        const q = request.query
        const page = await domain.listPipelines(request.principal, q)
        return { pipelines: page.items.map(pipelineBody), total: page.total, limit: page.limit, offset: page.offset }
      },
    )

    app.get('/v1/pipelines/:pipeline_id', { schema: { params: params('pipeline_id') } }, async (request) =>
      pipelineBody(await domain.getPipeline(request.principal, request.params.pipeline_id)),
    )

    app.delete('/v1/pipelines/:pipeline_id', { schema: { params: params('pipeline_id') } }, async (request) => {
      const result = await domain.deletePipeline(request.principal, request.params.pipeline_id)
      return {
        message: result.message,
        pipeline_id: result.id,
      }
    })

    app.post('/v1/pipelines/:pipeline_id/run', { schema: { params: params('pipeline_id') } }, async (request, reply) => {
      const run = await domain.runPipeline(request.principal, request.params.pipeline_id)
      return reply
        .code(202)
        .header('location', `/v1/runs/${run.id}/logs`)
        .send({ run_id: run.id, pipeline_id: run.pipelineId, status: run.status, started_at: run.startedAt.toISOString() })
    })

    app.get('/v1/connectors', async (request) => ({
      connectors: domain.listConnectors(request.principal).map((c) => ({
        id: c.id,
        name: c.name,
        type: c.type,
        category: c.category,
        ...(c.supportedVersions ? { supported_versions: c.supportedVersions } : {}),
        settings_schema: c.settingsSchema,
        secret_fields: c.secretFields,
      })),
    }))

    app.get(
      '/v1/pipelines/:pipeline_id/runs',
      {
        schema: {
          params: params('pipeline_id'),
          querystring: { type: 'object', properties: { limit: { type: 'integer' }, status: { type: 'string' } } },
        },
      },
      async (request) => {
        const { pipeline_id } = request.params
        const runs = await domain.listRuns(request.principal, pipeline_id, request.query)
        return { pipeline_id, runs: runs.map(runBody) }
      },
    )

    app.get('/v1/runs/:run_id/logs', { schema: { params: params('run_id') } }, async (request) => {
      const { run_id } = request.params
      const logs = await domain.getRunLogs(request.principal, run_id)
      return { run_id, logs: logs.map(logBody) }
    })
  },
})

const iso = (d: Date | null) => (d ? d.toISOString() : null)

function runBody(r: RunRecord) {
  return {
    run_id: r.id,
    pipeline_id: r.pipelineId,
    status: r.status,
    trigger: r.trigger,
    started_at: r.startedAt.toISOString(),
    completed_at: iso(r.completedAt),
    records_read: r.recordsRead,
    records_processed: r.recordsProcessed,
    error: r.errorCode ? { code: r.errorCode, message: r.errorMessage } : null,
  }
}

function pipelineBody(p: PipelineRecord) {
  return {
    pipeline_id: p.id,
    name: p.name,
    status: p.status,
    created_at: p.createdAt.toISOString(),
    source: { type: p.source.type, ...p.source.settings },
    destination: { type: p.destination.type, ...p.destination.settings },
    transformations: p.transformations,
    schedule: p.schedule,
    sync: { mode: p.sync.mode, cursor_column: p.sync.cursorColumn, write_mode: p.sync.writeMode, primary_key: p.sync.primaryKey, batch_size: p.sync.batchSize },
    last_run: p.lastRun
      ? {
          run_id: p.lastRun.id,
          started_at: p.lastRun.startedAt.toISOString(),
          completed_at: iso(p.lastRun.completedAt),
          records_processed: p.lastRun.recordsProcessed,
          status: p.lastRun.status,
        }
      : null,
    next_run: iso(p.nextRun),
  }
}

function logBody(l: LogRecord) {
  return { timestamp: l.timestamp.toISOString(), level: l.level, message: l.message }
}
