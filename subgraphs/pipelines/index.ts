import path from 'node:path'
import { fileURLToPath } from 'node:url'
import DataLoader from 'dataloader'
import { createServiceSubgraph } from '../../platform/graphql/create-service-subgraph.js'
import type { ServiceModule } from '../../platform/service-module.js'
import { pipelinesErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createPipelinesService, type PipelinesService } from './pipelines-service.js'
import { createPipelinesResolvers } from './resolvers.js'

export { pipelinesErrors } from './errors.js'
export { RUNS_PAGE, type ConnectorInfo, type PipelinesService } from './pipelines-service.js'
export { REDACTED, type EndpointConfig, type SyncSettings } from './pipeline-config.js'
export type { LogRecord, PipelineRecord, RunRecord } from './records.js'

/** The data integration pipelines: connectors, pipelines, runs on the job queue, logs. */
export const pipelinesModule: ServiceModule<PipelinesService> = {
  name: 'pipelines',
  scopes: ['pipelines:read', 'pipelines:write'],
  migrations: { schema: 'pipelines', dir: fileURLToPath(new URL('./prisma/migrations', import.meta.url)) },
  async create(runtime) {
    const prisma = new PrismaClient(runtime.db.prismaOptions())
    const domain = createPipelinesService({
      prisma,
      jobs: runtime.jobs,
      events: runtime.events,
      secrets: runtime.secrets,
      dataDir: path.resolve(runtime.dataDir, 'pipelines'),
    })
    domain.registerJobs()
    const subgraph = createServiceSubgraph({
      name: 'pipelines',
      resolvers: createPipelinesResolvers(domain),
      errors: pipelinesErrors,
      runtime,
      extend: (actor) => ({ runLoader: new DataLoader((ids: readonly string[]) => domain.getRunsByIds(actor, ids)) }),
    })
    return { domain, subgraph, close: () => prisma.$disconnect() }
  },
}
