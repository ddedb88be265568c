import type { FastifyBaseLogger } from 'fastify'
import type { CredentialStore } from '../auth/credential-store.js'
import type { SecretBox } from '../auth/secrets.js'
import type { Database } from '../db/database.js'
import type { EventBus } from '../events/event-bus.js'
import type { JobRunner } from '../jobs/job-runner.js'
import type { RateLimiter } from '../rate-limit/rate-limiter.js'

/** What the platform hands every service when a process starts it. */
export interface ServiceRuntime {
  db: Database
  jobs: JobRunner
  events: EventBus
  credentials: CredentialStore
  limiter: RateLimiter
  logger: FastifyBaseLogger
  env: NodeJS.ProcessEnv
  /** Encrypts secrets a service must read back (connector passwords, webhook secrets). */
  secrets: SecretBox
  /** Absolute path of DATA_DIR: services keep their files below it. */
  dataDir: string
}
