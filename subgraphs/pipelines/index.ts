import path from 'node:path'
import DataLoader from 'dataloader'
import { z } from 'zod'
import { parseEnv } from '../../platform/config.js'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { pipelinesErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createPipelinesService, DEFAULT_HEARTBEAT_SECONDS } from './pipelines-service.js'
import { createPipelinesResolvers } from './resolvers.js'
import { PIPELINES_SCOPES } from './scopes.js'

export { pipelinesErrors } from './errors.js'
export { RUNS_PAGE, type ConnectorInfo, type PipelinesService } from './pipelines-service.js'
export { REDACTED, type EndpointConfig, type SyncSettings } from './pipeline-config.js'
export type { LogRecord, PipelineRecord, RunRecord } from './records.js'

const settings = z.object({ TESSERA_PIPELINES_HEARTBEAT_SECONDS: z.coerce.number().min(0.2).max(300).default(DEFAULT_HEARTBEAT_SECONDS) })

/** The data integration pipelines: connectors, pipelines, runs on the job queue, logs. */
export const pipelinesCore = defineServiceCore({
  name: 'pipelines',
  scopes: PIPELINES_SCOPES,
  errors: pipelinesErrors,
  prisma: PrismaClient,
  createDomain: ({ runtime, prisma }) =>
    createPipelinesService({
      prisma,
      jobs: runtime.jobs,
      events: runtime.events,
      secrets: runtime.secrets,
      dataDir: path.resolve(runtime.dataDir, 'pipelines'),
      heartbeatSeconds: parseEnv(settings, runtime.env).TESSERA_PIPELINES_HEARTBEAT_SECONDS,
      // One process owns an embedded database: every run it finds running at start is lost.
      exclusive: runtime.db.handle.kind === 'embedded',
      logger: runtime.logger,
    }),
  jobs: (domain) => domain.registerJobs(),
  close: (domain) => domain.close(),
  resolvers: createPipelinesResolvers,
  loaders: (domain, actor) => ({ runLoader: new DataLoader((ids: readonly string[]) => domain.getRunsByIds(actor, ids)) }),
})
