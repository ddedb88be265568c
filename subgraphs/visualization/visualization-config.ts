import { z } from 'zod'
import { parseEnv } from '../../platform/config.js'

/** Settings of the visualization service. */
export interface VisualizationConfig {
  /** How long an export's download link works, seconds. */
  exportTtlSeconds: number
  /**
   * The service's public base URL (`https://charts.example.com`), used to build absolute
   * `render_url`, `embed_code` and `download_url` values. When unset, each answer uses the
   * host and scheme its request came in on.
   */
  publicUrl: string | undefined
}

const schema = z.object({
  TESSERA_VIZ_EXPORT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(3600),
  TESSERA_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
})

/** Reads the visualization service's settings from the environment. */
export function loadVisualizationConfig(env: NodeJS.ProcessEnv = process.env): VisualizationConfig {
  const e = parseEnv(schema, env)
  return { exportTtlSeconds: e.TESSERA_VIZ_EXPORT_TTL_SECONDS, publicUrl: e.TESSERA_PUBLIC_URL?.replace(/\/+$/, '') }
}
