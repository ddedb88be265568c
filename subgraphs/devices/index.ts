import { fileURLToPath } from 'node:url'
import DataLoader from 'dataloader'
import { createServiceSubgraph } from '../../platform/graphql/create-service-subgraph.js'
import type { ServiceModule } from '../../platform/service-module.js'
import { loadDevicesConfig } from './devices-config.js'
import { createDevicesService, type DevicesService } from './devices-service.js'
import { devicesErrors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { createDevicesResolvers } from './resolvers.js'

export { devicesErrors } from './errors.js'
export { CIRCUIT_LIMITS, SUPPORTED_GATES } from './quantum-circuit.js'
export { ALERT_PRIORITIES, ALERT_STATUSES } from './alert-lifecycle.js'
export { SIGNAL_TYPES } from './signal-input.js'
export { MAX_PAGE_SIZE, type AlertRecord, type CircuitRecord, type DevicesService, type DwellEventRecord, type SignalRecord } from './devices-service.js'
export type { DwellConfig } from './dwell-detector.js'

/** The device gateway: signals with dwell detection, medical alerts, quantum circuits. */
export const devicesModule: ServiceModule<DevicesService> = {
  name: 'devices',
  scopes: ['devices:read', 'devices:write'],
  migrations: { schema: 'devices', dir: fileURLToPath(new URL('./prisma/migrations', import.meta.url)) },
  async create(runtime) {
    const prisma = new PrismaClient(runtime.db.prismaOptions())
    const domain = createDevicesService({ prisma, jobs: runtime.jobs, events: runtime.events, config: loadDevicesConfig(runtime.env) })
    domain.registerJobs()
    const subgraph = createServiceSubgraph({
      name: 'devices',
      resolvers: createDevicesResolvers(domain),
      errors: devicesErrors,
      runtime,
      extend: (actor) => ({ alertLoader: new DataLoader((ids: readonly string[]) => domain.getAlertsByIds(actor, ids)) }),
    })
    return { domain, subgraph, close: () => prisma.$disconnect() }
  },
}
