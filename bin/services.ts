import type { FastifyPluginAsync } from 'fastify'
import type { Principal } from '../platform/auth/scopes.js'
import type { RateLimiter } from '../platform/rate-limit/rate-limiter.js'
import type { ServiceModule } from '../platform/service-module.js'
import { devicesRestAdapter } from '../rest-adapters/devices/index.js'
import { devicesModule } from '../subgraphs/devices/index.js'
import { pipelinesRestAdapter } from '../rest-adapters/pipelines/index.js'
import { pipelinesModule } from '../subgraphs/pipelines/index.js'
import { visualizationRestAdapter } from '../rest-adapters/visualization/index.js'
import { visualizationModule } from '../subgraphs/visualization/index.js'

/** What a REST adapter is given. */
export interface RestAdapterOptions<Domain> {
  domain: Domain
  verify(credential: string): Promise<Principal | null>
  limiter: RateLimiter
}

/** A service and the REST adapter that speaks its document's v1 interface. */
export interface ServiceEntry<Domain = never> {
  module: ServiceModule<Domain>
  rest: FastifyPluginAsync<RestAdapterOptions<Domain>>
}

const entry = <Domain>(module: ServiceModule<Domain>, rest: FastifyPluginAsync<RestAdapterOptions<Domain>>) =>
  ({ module, rest }) as unknown as ServiceEntry

/** Every service Tessera runs, by name. */
export const SERVICES: Record<string, ServiceEntry> = {
  devices: entry(devicesModule, devicesRestAdapter),
  visualization: entry(visualizationModule, visualizationRestAdapter),
  pipelines: entry(pipelinesModule, pipelinesRestAdapter),
}

/** Every scope some service checks. */
export const KNOWN_SCOPES: readonly string[] = Object.values(SERVICES).flatMap((s) => s.module.scopes)
