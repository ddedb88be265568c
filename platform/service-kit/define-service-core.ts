import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Principal } from '../auth/scopes.js'
import type { PrismaClientOptions } from '../db/database.js'
import type { MigrationSet } from '../db/migrate.js'
import type { ErrorRegistry } from '../errors.js'
import { createServiceSubgraph } from '../graphql/create-service-subgraph.js'
import type { Subgraph } from '../graphql/subgraph.js'
import type { JobRunner } from '../jobs/job-runner.js'
import type { ServiceRuntime } from './service-runtime.js'

const subgraphsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../subgraphs')

/** A generated Prisma client class of a service (subgraphs/<name>/generated/prisma). */
export type PrismaClientClass = new (options: PrismaClientOptions) => { $disconnect(): Promise<void> }

/** What the domain factory of a service is handed. */
export interface DomainDependencies<Prisma, Config> {
  runtime: ServiceRuntime
  /** The service's own Prisma client on the process's database; the kit disconnects it. */
  prisma: Prisma
  /** The service's settings, read and checked before the database was opened. */
  config: Config
}

/**
 * The domain half of a service: everything that does not speak HTTP. By convention its
 * name is also its Postgres schema (migrations in subgraphs/<name>/prisma/migrations) and its
 * SDL file (schema/<name>.graphql).
 */
export interface ServiceCoreDefinition<Domain, Client extends PrismaClientClass, Loaders extends object, Config> {
  /** Lower-case service name, e.g. `devices`. */
  name: string
  /** Every scope the service checks, e.g. `devices:read`. */
  scopes: readonly string[]
  /** The service's coded errors. */
  errors: ErrorRegistry
  /** The service's generated Prisma client class. */
  prisma: Client
  /**
   * Reads the service's settings from the environment; throws ConfigError naming the variable.
   * Called when the process starts, before the database is touched.
   */
  config?(env: NodeJS.ProcessEnv): Config
  /** Builds the domain: the one place where the service's rules live. */
  createDomain(dependencies: DomainDependencies<InstanceType<Client>, Config>): Domain | Promise<Domain>
  /** GraphQL resolvers over the domain (types from codegen). */
  resolvers(domain: Domain): object
  /** Per-request additions to the resolver context (DataLoaders for the caller). */
  loaders?(domain: Domain, actor: Principal | null): Loaders
  /** Defines the service's queues and cron jobs on the process's job runner. */
  jobs?(domain: Domain, jobs: JobRunner): void
  /** Releases what the domain holds (timers, pools); the Prisma client is disconnected after it. */
  close?(domain: Domain): Promise<void>
}

/** A service's domain as started in a process: the domain for its REST face, the subgraph for the gateway. */
export interface ServiceInstance<Domain> {
  domain: Domain
  subgraph: Subgraph
  close(): Promise<void>
}

/** A defined service core, ready to be started by a process. */
export interface ServiceCore<Domain> {
  name: string
  scopes: readonly string[]
  errors: ErrorRegistry
  migrations: MigrationSet
  /** Checks the service's settings (throws ConfigError); the process calls it before opening the database. */
  checkConfig(env: NodeJS.ProcessEnv): void
  start(runtime: ServiceRuntime): Promise<ServiceInstance<Domain>>
}

/** Where a service's migrations live, by convention; its Postgres schema is its name with `_` for `-`. */
export function serviceMigrations(name: string): MigrationSet {
  return { schema: name.replaceAll('-', '_'), dir: path.join(subgraphsDir, name, 'prisma/migrations') }
}

/**
 * Defines the domain half of a service. The kit opens its Prisma client, builds the domain,
 * defines its jobs, builds its subgraph from schema/<name>.graphql with the shared context
 * (caller, request id, loaders), and closes everything in reverse order.
 */
export function defineServiceCore<Domain, Client extends PrismaClientClass, Loaders extends object = object, Config = undefined>(
  definition: ServiceCoreDefinition<Domain, Client, Loaders, Config>,
): ServiceCore<Domain> {
  const readConfig = (env: NodeJS.ProcessEnv) => definition.config?.(env) as Config
  return {
    name: definition.name,
    scopes: definition.scopes,
    errors: definition.errors,
    migrations: serviceMigrations(definition.name),
    checkConfig: (env) => void readConfig(env),
    async start(runtime) {
      const prisma = new definition.prisma(runtime.db.prismaOptions()) as InstanceType<Client>
      try {
        const domain = await definition.createDomain({ runtime, prisma, config: readConfig(runtime.env) })
        definition.jobs?.(domain, runtime.jobs)
        const subgraph = createServiceSubgraph({
          name: definition.name,
          resolvers: definition.resolvers(domain),
          errors: definition.errors,
          runtime,
          extend: (actor) => definition.loaders?.(domain, actor) ?? ({} as Loaders),
        })
        return {
          domain,
          subgraph,
          async close() {
            await definition.close?.(domain)
            await prisma.$disconnect()
          },
        }
      } catch (error) {
        await prisma.$disconnect()
        throw error
      }
    },
  }
}
