import { serviceMigrations, type Service } from '../platform/service-kit/index.js'
import { DEVICES_SCOPES } from '../subgraphs/devices/scopes.js'
import { PIPELINES_SCOPES } from '../subgraphs/pipelines/scopes.js'
import { VISUALIZATION_SCOPES } from '../subgraphs/visualization/scopes.js'
import { ESPORTS_SCOPES } from '../subgraphs/esports/scopes.js'
import { CONTENT_SCOPES } from '../subgraphs/content/scopes.js'
import { HERITAGE_SCOPES } from '../subgraphs/heritage/scopes.js'

/** A service as the command line knows it before loading it: its scopes, and how to load it. */
export interface CatalogEntry {
  scopes: readonly string[]
  /** Imports the service (its domain, subgraph and REST face) only when a process runs it. */
  load(): Promise<Service>
}

// Services are imported on demand: `tessera --help` or `tessera keys list` must not load
// Apollo, Vega or DuckDB. The scopes come from each service's small scopes file.
/** Every service Tessera runs, by name. */
export const SERVICES: Record<string, CatalogEntry> = {
  devices: { scopes: DEVICES_SCOPES, load: async () => (await import('../rest-adapters/devices/index.js')).devicesService as Service },
  visualization: { scopes: VISUALIZATION_SCOPES, load: async () => (await import('../rest-adapters/visualization/index.js')).visualizationService as Service },
  pipelines: { scopes: PIPELINES_SCOPES, load: async () => (await import('../rest-adapters/pipelines/index.js')).pipelinesService as Service },
  esports: { scopes: ESPORTS_SCOPES, load: async () => (await import('../rest-adapters/esports/index.js')).esportsService as Service },
  content: { scopes: CONTENT_SCOPES, load: async () => (await import('../rest-adapters/content/index.js')).contentService as Service },
  heritage: { scopes: HERITAGE_SCOPES, load: async () => (await import('../rest-adapters/heritage/index.js')).heritageService as Service },
}

/** Every scope some service checks. */
export const KNOWN_SCOPES: readonly string[] = Object.values(SERVICES).flatMap((s) => s.scopes)

/** The migrations of the named services (without loading them). */
export const migrationsOf = (names: readonly string[]) => names.map(serviceMigrations)
