import DataLoader from 'dataloader'
import { createFileStore } from '../../platform/files/index.js'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { heritageErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { loadHeritageConfig } from './heritage-config.js'
import { createHeritageService } from './heritage-service.js'
import { createHeritageResolvers } from './resolvers.js'
import { HERITAGE_SCOPES } from './scopes.js'

export { heritageErrors } from './errors.js'
export { ARTIFACT_LIMITS, TOUR_LIMITS, TOUR_TYPES, type Hotspot, type Scene, type Vector3 } from './artifact-input.js'
export { DC_ELEMENTS, toOaiDcXml, escapeXml, type DublinCoreRecord } from './dublin-core.js'
export { DIMENSION_UNITS, toLinkedArt } from './linked-art.js'
export { PERIOD_GAZETTEER } from './period-grammar.js'
export {
  ANALYTICS_DEFAULT_DAYS,
  ANALYTICS_MAX_DAYS,
  ARTIFACTS_PAGE,
  HERITAGE_BASE,
  MODEL_FORMATS,
  MODEL_RESOLUTIONS,
  type AnalyticsReport,
  type ArtifactRecord,
  type HeritageService,
  type ModelRecord,
  type TourRecord,
  type UploadPart,
} from './heritage-service.js'

/** Chunks of uploads that never completed are swept once they are this old. */
const ABANDONED_UPLOAD_HOURS = 24

/** The heritage digitization service: catalogue, 3D models, tours, open metadata. */
export const heritageCore = defineServiceCore({
  name: 'heritage',
  scopes: HERITAGE_SCOPES,
  errors: heritageErrors,
  prisma: PrismaClient,
  createDomain: ({ runtime, prisma }) => createHeritageService({ prisma, files: createFileStore(runtime.db), config: loadHeritageConfig(runtime.env) }),
  jobs: (domain, jobs) => {
    jobs.define({
      name: 'heritage.sweep-abandoned-uploads',
      cron: '17 * * * *',
      pollingIntervalSeconds: 60,
      handle: async () => {
        await domain.sweepAbandonedUploads(new Date(Date.now() - ABANDONED_UPLOAD_HOURS * 3600_000))
      },
    })
  },
  resolvers: createHeritageResolvers,
  loaders: (domain, actor) => ({ artifactLoader: new DataLoader((ids: readonly string[]) => domain.getArtifactsByIds(actor, ids)) }),
})
