import path from 'node:path'
import DataLoader from 'dataloader'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { pipelinesErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createPipelinesService } from './pipelines-service.js'
import { createPipelinesResolvers } from './resolvers.js'
import { PIPELINES_SCOPES } from './scopes.js'

export { pipelinesErrors } from './errors.js'
export { RUNS_PAGE, type ConnectorInfo, type PipelinesService } from './pipelines-service.js'
export { REDACTED, type EndpointConfig, type SyncSettings } from './pipeline-config.js'
export type { LogRecord, PipelineRecord, RunRecord } from './records.js'

/** The data integration pipelines: connectors, pipelines, runs on the job queue, logs. */
export const pipelinesCore = defineServiceCore({
  name: 'pipelines',
  scopes: PIPELINES_SCOPES,
  errors: pipelinesErrors,
  prisma: PrismaClient,
  createDomain: ({ runtime, prisma }) =>
    createPipelinesService({ prisma, jobs: runtime.jobs, events: runtime.events, secrets: runtime.secrets, dataDir: path.resolve(runtime.dataDir, 'pipelines') }),
  jobs: (domain) => domain.registerJobs(),
  resolvers: createPipelinesResolvers,
  loaders: (domain, actor) => ({ runLoader: new DataLoader((ids: readonly string[]) => domain.getRunsByIds(actor, ids)) }),
})
