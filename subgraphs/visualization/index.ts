import { defineServiceCore } from '../../platform/service-kit/index.js'
import { visualizationErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createVisualizationResolvers } from './resolvers.js'
import { VISUALIZATION_SCOPES } from './scopes.js'
import { loadVisualizationConfig } from './visualization-config.js'
import { createVisualizationService } from './visualization-service.js'

export { visualizationErrors } from './errors.js'
export { STREAM_PATH, VIZ_BASE_PATH, chartPaths, escapeHtml } from './chart-links.js'
export { DEFAULT_INTERVAL_MS, MAX_INTERVAL_MS, MIN_INTERVAL_MS, type ChartTick } from './chart-stream.js'
export { PAGE, type ChartRecord, type ExportRecord, type Viewer, type VisualizationService } from './visualization-service.js'

/** The visualization service: chart types, rendered charts, exports, analysis and the live stream. */
export const visualizationCore = defineServiceCore({
  name: 'visualization',
  scopes: VISUALIZATION_SCOPES,
  errors: visualizationErrors,
  prisma: PrismaClient,
  config: loadVisualizationConfig,
  createDomain: ({ runtime, prisma, config }) =>
    createVisualizationService({
      prisma,
      events: runtime.events,
      secrets: runtime.secrets,
      config,
      onError: (error) => runtime.logger.error({ err: error }, 'visualization stream'),
    }),
  jobs: (domain, jobs) => domain.registerJobs(jobs),
  resolvers: createVisualizationResolvers,
  close: (domain) => domain.close(),
})
