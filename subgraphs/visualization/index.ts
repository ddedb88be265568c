import { fileURLToPath } from 'node:url'
import { createServiceSubgraph } from '../../platform/graphql/create-service-subgraph.js'
import type { ServiceModule } from '../../platform/service-module.js'
import { visualizationErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createVisualizationResolvers } from './resolvers.js'
import { loadVisualizationConfig } from './visualization-config.js'
import { createVisualizationService, type VisualizationService } from './visualization-service.js'

export { visualizationErrors } from './errors.js'
export { STREAM_PATH, VIZ_BASE_PATH, chartPaths, escapeHtml } from './chart-links.js'
export { DEFAULT_INTERVAL_MS, MAX_INTERVAL_MS, MIN_INTERVAL_MS, type ChartTick } from './chart-stream.js'
export { PAGE, type ChartRecord, type ExportRecord, type Viewer, type VisualizationService } from './visualization-service.js'

/** The visualization service: chart types, rendered charts, exports, analysis and the live stream. */
export const visualizationModule: ServiceModule<VisualizationService> = {
  name: 'visualization',
  scopes: ['visualization:read', 'visualization:write'],
  migrations: { schema: 'visualization', dir: fileURLToPath(new URL('./prisma/migrations', import.meta.url)) },
  async create(runtime) {
    const config = loadVisualizationConfig(runtime.env)
    const prisma = new PrismaClient(runtime.db.prismaOptions())
    const domain = createVisualizationService({
      prisma,
      events: runtime.events,
      secrets: runtime.secrets,
      config,
      onError: (error) => runtime.logger.error({ err: error }, 'visualization stream'),
    })
    domain.registerJobs(runtime.jobs)
    const subgraph = createServiceSubgraph({
      name: 'visualization',
      resolvers: createVisualizationResolvers(domain),
      errors: visualizationErrors,
      runtime,
      extend: () => ({}),
    })
    return {
      domain,
      subgraph,
      close: async () => {
        await domain.close()
        await prisma.$disconnect()
      },
    }
  },
}
