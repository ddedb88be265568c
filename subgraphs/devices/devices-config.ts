import { z } from 'zod'
import { ConfigError, parseEnv } from '../../platform/config.js'
import { validateDwellConfig, type DwellConfig } from './dwell-detector.js'
import type { AlertPriority } from './alert-lifecycle.js'

/** Settings of the device gateway. */
export interface DevicesConfig {
  /** Dwell settings for devices that have none of their own. */
  dwellDefaults: DwellConfig
  escalation: {
    /** Seconds an alert may stay unacknowledged before each escalation, by priority. */
    delaySeconds: Record<AlertPriority, number>
    /** Escalations after which the gateway stops escalating an alert. */
    maxLevel: number
    /** How often each process escalates the alerts that are due, in one batch (ms). */
    pollMs: number
  }
}

const seconds = z.coerce
  .number()
  .min(0.5)
  .max(7 * 24 * 3600)

const schema = z.object({
  TESSERA_DWELL_RADIUS: z.coerce.number().optional(),
  TESSERA_DWELL_MS: z.coerce.number().optional(),
  TESSERA_DWELL_MAX_GAP_MS: z.coerce.number().optional(),
  TESSERA_DWELL_REARM: z.string().optional(),
  TESSERA_ALERT_ESCALATE_HIGH_SECONDS: seconds.default(60),
  TESSERA_ALERT_ESCALATE_MEDIUM_SECONDS: seconds.default(300),
  TESSERA_ALERT_ESCALATE_LOW_SECONDS: seconds.default(900),
  TESSERA_ALERT_MAX_ESCALATIONS: z.coerce.number().int().min(0).max(10).default(3),
  TESSERA_ALERT_ESCALATION_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(250),
})

/** Reads the device gateway's settings from the environment. */
export function loadDevicesConfig(env: NodeJS.ProcessEnv = process.env): DevicesConfig {
  const e = parseEnv(schema, env)
  const dwell = validateDwellConfig(
    Object.fromEntries(
      Object.entries({
        radius: e.TESSERA_DWELL_RADIUS,
        dwellMs: e.TESSERA_DWELL_MS,
        maxGapMs: e.TESSERA_DWELL_MAX_GAP_MS,
        rearm: e.TESSERA_DWELL_REARM,
      }).filter(([, v]) => v !== undefined),
    ),
  )
  if (!dwell.ok) {
    throw new ConfigError(`Invalid configuration:\n${dwell.issues.map((i) => `  TESSERA_DWELL (${i.field}): ${i.message}`).join('\n')}`)
  }
  return {
    dwellDefaults: dwell.config,
    escalation: {
      delaySeconds: {
        high: e.TESSERA_ALERT_ESCALATE_HIGH_SECONDS,
        medium: e.TESSERA_ALERT_ESCALATE_MEDIUM_SECONDS,
        low: e.TESSERA_ALERT_ESCALATE_LOW_SECONDS,
      },
      maxLevel: e.TESSERA_ALERT_MAX_ESCALATIONS,
      pollMs: e.TESSERA_ALERT_ESCALATION_POLL_MS,
    },
  }
}
