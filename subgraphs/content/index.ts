import { createFileStore } from '../../platform/files/index.js'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { createWebhooks, loadWebhooksConfig } from '../../platform/webhooks/index.js'
import { createContentService } from './content-service.js'
import { CONTENT_EVENT_TYPES } from './events.js'
import { loadProviderConfig } from './engine/provider-engine.js'
import { contentErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createContentResolvers } from './resolvers.js'
import { CONTENT_SCOPES } from './scopes.js'

export { contentErrors } from './errors.js'
export { CONTENT_EVENTS, CONTENT_EVENT_TYPES, type ContentEventType } from './events.js'
export { TIER_LIMITS, contentRateLimit, type ContentPage, type ContentRecord, type ContentService } from './content-service.js'
export { CONTENT_PAGE, CONTENT_TYPES } from './content-library.js'
export { ANALYTICS_BLOCKS, TIME_RANGE_PRESETS } from './learning/content-analytics.js'
export { EVENT_LIMITS, LEARNING_VERBS } from './learning/learning-events.js'
export { GENERATION_LIMITS } from './content-input.js'
export { QUESTION_TYPES } from './engine/assessment-generator.js'
export { PROBLEM_FORMATS } from './engine/problem-generator.js'
export { SUPPORTED_TOPICS } from './engine/problem-families.js'
export { DELIVERY_PAGE } from './webhooks-feature.js'
export { VALIDATION_CHECKS } from './validation/content-validator.js'
export { VIDEO_FILES, VIDEO_LIMITS, type VideoFileName, type VideoRecord } from './video/video-service.js'
export { VIDEO_LANGUAGES } from './video/speech.js'
export { VIDEO_STYLES } from './video/video-renderer.js'

/**
 * The content generation interface: lessons, problems and assessments from an offline engine
 * (or an OpenAI-compatible provider), content validation, and the stored content library.
 */
export const contentCore = defineServiceCore({
  name: 'content',
  scopes: CONTENT_SCOPES,
  errors: contentErrors,
  prisma: PrismaClient,
  createDomain: ({ runtime, prisma }) => {
    const webhooks = createWebhooks({
      service: 'content',
      eventTypes: CONTENT_EVENT_TYPES,
      db: runtime.db,
      events: runtime.events,
      secrets: runtime.secrets,
      config: loadWebhooksConfig(runtime.env),
      onError: (error) => runtime.logger.error({ err: error }, 'content webhooks'),
    })
    return createContentService({
      prisma,
      events: runtime.events,
      jobs: runtime.jobs,
      files: createFileStore(runtime.db),
      webhooks,
      provider: loadProviderConfig(runtime.env),
    })
  },
  jobs: (domain, jobs) => domain.defineJobs(jobs),
  close: (domain) => domain.webhookDelivery.close(),
  resolvers: createContentResolvers,
})
