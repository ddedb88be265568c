import DataLoader from 'dataloader'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { createWebhooks, loadWebhooksConfig } from '../../platform/webhooks/index.js'
import { esportsErrors } from './errors.js'
import { createEsportsService } from './esports-service.js'
import { ESPORTS_EVENT_TYPES } from './events.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createEsportsResolvers } from './resolvers.js'
import { ESPORTS_SCOPES } from './scopes.js'

export { esportsErrors } from './errors.js'
export { ESPORTS_EVENTS, ESPORTS_EVENT_TYPES, type EsportsEventType } from './events.js'
export { PAGE, ROSTER_MAX, isMinor, type EsportsService, type EsportsEvent } from './esports-service.js'
export { PROGRAM_STATUSES, DEFAULT_STANDARD } from './program-rules.js'
export type * from './records.js'

/** Esports program management: programs, teams, players with consent, matches, careers. */
export const esportsCore = defineServiceCore({
  name: 'esports',
  scopes: ESPORTS_SCOPES,
  errors: esportsErrors,
  prisma: PrismaClient,
  createDomain: ({ runtime, prisma }) => {
    const webhooks = createWebhooks({
      service: 'esports',
      eventTypes: ESPORTS_EVENT_TYPES,
      db: runtime.db,
      events: runtime.events,
      secrets: runtime.secrets,
      config: loadWebhooksConfig(runtime.env),
      onError: (error) => runtime.logger.error({ err: error }, 'esports webhooks'),
    })
    return createEsportsService({ prisma, events: runtime.events, credentials: runtime.credentials, webhooks })
  },
  jobs: (domain, jobs) => domain.webhookDelivery.defineJobs(jobs),
  close: (domain) => domain.webhookDelivery.close(),
  resolvers: createEsportsResolvers,
  loaders: (domain, actor) => ({
    teamLoader: new DataLoader((ids: readonly string[]) => domain.getTeamsByIds(actor, ids)),
    sharedPlayerLoader: new DataLoader((ids: readonly string[]) => domain.getSharedPlayersByIds(actor, ids)),
  }),
})
