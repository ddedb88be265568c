import DataLoader from 'dataloader'
import { defineServiceCore } from '../../platform/service-kit/index.js'
import { loadDevicesConfig } from './devices-config.js'
import { createDevicesService } from './devices-service.js'
import { devicesErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createDevicesResolvers } from './resolvers.js'
import { DEVICES_SCOPES } from './scopes.js'

export { devicesErrors } from './errors.js'
export { CIRCUIT_LIMITS, SUPPORTED_GATES } from './quantum/index.js'
export { ALERT_PRIORITIES, ALERT_STATUSES } from './alert-lifecycle.js'
export { SIGNAL_TYPES } from './signal-input.js'
export { MAX_PAGE_SIZE, type AlertRecord, type CircuitRecord, type DevicesService, type DwellEventRecord, type SignalRecord } from './devices-service.js'
export type { DwellConfig } from './dwell-detector.js'

/** The device gateway: signals with dwell detection, medical alerts, quantum circuits. */
export const devicesCore = defineServiceCore({
  name: 'devices',
  scopes: DEVICES_SCOPES,
  errors: devicesErrors,
  prisma: PrismaClient,
  config: loadDevicesConfig,
  createDomain: ({ runtime, prisma, config }) =>
    createDevicesService({
      prisma,
      db: runtime.db,
      events: runtime.events,
      config,
      onError: (error) => runtime.logger.error({ err: error }, 'alert escalation sweep failed'),
    }),
  jobs: (domain) => domain.registerJobs(),
  close: (domain) => domain.close(),
  resolvers: createDevicesResolvers,
  loaders: (domain, actor) => ({ alertLoader: new DataLoader((ids: readonly string[]) => domain.getAlertsByIds(actor, ids)) }),
})
