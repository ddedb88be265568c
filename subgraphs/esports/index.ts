import DataLoader from 'dataloader'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { esportsErrors } from './errors.js'
import { createEsportsService } from './esports-service.js'
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
  createDomain: ({ runtime, prisma }) => createEsportsService({ prisma, events: runtime.events, credentials: runtime.credentials }),
  resolvers: createEsportsResolvers,
  loaders: (domain, actor) => ({
    teamLoader: new DataLoader((ids: readonly string[]) => domain.getTeamsByIds(actor, ids)),
    sharedPlayerLoader: new DataLoader((ids: readonly string[]) => domain.getSharedPlayersByIds(actor, ids)),
  }),
})
