import { ConfigError } from '../config.js'
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from './retry-schedule.js'

/** Operator settings of webhook delivery, read once from the environment. */
export interface WebhooksConfig {
  /**
   * `TESSERA_WEBHOOKS_ALLOW_PRIVATE=true` lets webhooks go to private, loopback and link-local
   * addresses — for local development and tests only (default false).
   */
  allowPrivate: boolean
  /** `TESSERA_WEBHOOKS_TIMEOUT_MS`: bound of one attempt (default 10000, 100–30000). */
  timeoutMs: number
  /** `TESSERA_WEBHOOKS_MAX_ATTEMPTS`, `TESSERA_WEBHOOKS_RETRY_BASE_MS`, `TESSERA_WEBHOOKS_RETRY_MAX_MS`. */
  retry: RetrySchedule
  /** `TESSERA_WEBHOOKS_POLL_MS`: how often a replica looks for missed events and stalled attempts (default 2000). */
  pollMs: number
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`Invalid configuration:\n  ${name}: must be an integer from ${min} to ${max}`)
  return value
}

/** Reads and checks the webhook settings; a bad one fails the start with a clear message. */
export function loadWebhooksConfig(env: NodeJS.ProcessEnv): WebhooksConfig {
  const allow = (env.TESSERA_WEBHOOKS_ALLOW_PRIVATE ?? 'false').toLowerCase()
  if (!['true', 'false', '1', '0', 'yes', 'no'].includes(allow))
    throw new ConfigError('Invalid configuration:\n  TESSERA_WEBHOOKS_ALLOW_PRIVATE: true or false')
  return {
    allowPrivate: ['true', '1', 'yes'].includes(allow),
    timeoutMs: int(env, 'TESSERA_WEBHOOKS_TIMEOUT_MS', 10_000, 100, 30_000),
    retry: {
      maxAttempts: int(env, 'TESSERA_WEBHOOKS_MAX_ATTEMPTS', DEFAULT_RETRY_SCHEDULE.maxAttempts, 1, 50),
      baseDelayMs: int(env, 'TESSERA_WEBHOOKS_RETRY_BASE_MS', DEFAULT_RETRY_SCHEDULE.baseDelayMs, 10, 3600_000),
      maxDelayMs: int(env, 'TESSERA_WEBHOOKS_RETRY_MAX_MS', DEFAULT_RETRY_SCHEDULE.maxDelayMs, 10, 24 * 3600_000),
    },
    pollMs: int(env, 'TESSERA_WEBHOOKS_POLL_MS', 2000, 100, 60_000),
  }
}
