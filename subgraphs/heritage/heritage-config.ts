import { z } from 'zod'
import { parseEnv } from '../../platform/config.js'

/** Settings of the heritage service. */
export interface HeritageConfig {
  /** Largest model file accepted (bytes); larger uploads get 413. */
  maxModelBytes: number
  /** Name and contact the OAI-PMH Identify verb announces. */
  repositoryName: string
  adminEmail: string
  /** Absolute base URL of the interface (for OAI-PMH's baseURL); the request's host when unset. */
  publicUrl: string | undefined
}

const schema = z.object({
  TESSERA_HERITAGE_MAX_MODEL_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 * 1024 ** 3)
    .default(64 * 1024 * 1024),
  TESSERA_HERITAGE_REPOSITORY_NAME: z.string().min(1).default('Tessera heritage collection'),
  TESSERA_HERITAGE_ADMIN_EMAIL: z.string().email().default('collections@example.org'),
  TESSERA_HERITAGE_PUBLIC_URL: z.string().url().optional(),
})

/** Reads the heritage service's settings from the environment. */
export function loadHeritageConfig(env: NodeJS.ProcessEnv = process.env): HeritageConfig {
  const e = parseEnv(schema, env)
  return {
    maxModelBytes: e.TESSERA_HERITAGE_MAX_MODEL_BYTES,
    repositoryName: e.TESSERA_HERITAGE_REPOSITORY_NAME,
    adminEmail: e.TESSERA_HERITAGE_ADMIN_EMAIL,
    publicUrl: e.TESSERA_HERITAGE_PUBLIC_URL?.replace(/\/$/, ''),
  }
}
