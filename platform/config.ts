import { z } from 'zod'

/** Raised when a setting is wrong; start-up prints it and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes')

const port = z.coerce.number().int().min(0).max(65535)

const platformSchema = z.object({
  PORT: port.default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TESSERA_BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  TESSERA_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(1000),
  TESSERA_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  TESSERA_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  TESSERA_API_KEY: z.string().min(20, 'must be at least 20 characters').optional(),
  TESSERA_CLIENT_ID: z.string().min(3).max(128).optional(),
  TESSERA_CLIENT_SECRET: z.string().min(20, 'must be at least 20 characters').optional(),
  TESSERA_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  TESSERA_INTROSPECTION: bool.default(true),
  TESSERA_GATEWAY_FAST_PATH: bool.default(true),
  TESSERA_MAX_QUERY_DEPTH: z.coerce.number().int().min(2).max(100).default(12),
  TESSERA_MAX_QUERY_COST: z.coerce.number().int().min(10).default(10_000),
  TESSERA_MAX_QUERY_TOKENS: z.coerce.number().int().min(100).max(1_000_000).default(10_000),
  TESSERA_MAX_QUERY_ALIASES: z.coerce.number().int().min(0).max(100_000).default(100),
  TESSERA_MAX_QUERY_DIRECTIVES: z.coerce.number().int().min(0).max(100_000).default(50),
  TESSERA_SUBGRAPH_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  TESSERA_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
})

/** The settings every deployable shares, validated once at start. */
export interface PlatformConfig {
  /** TCP port of the one public server (`PORT`, default 4000). */
  port: number
  /** Interface to listen on (`HOST`, default 127.0.0.1: loopback until you choose otherwise). */
  host: string
  /** Folder of the embedded database and the generated secret key (`DATA_DIR`, default ./data). */
  dataDir: string
  /** PostgreSQL server to use instead of the embedded database (`DATABASE_URL`). */
  databaseUrl: string | undefined
  /** pino level (`LOG_LEVEL`). */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Largest request body in bytes (`TESSERA_BODY_LIMIT`, default 1 MiB). */
  bodyLimit: number
  /** Requests per credential per window (`TESSERA_RATE_LIMIT_MAX`, default 1000). */
  rateLimit: { max: number; windowSeconds: number }
  /** 32-byte key that encrypts secrets at rest; generated into DATA_DIR when absent. */
  secretKeyHex: string | undefined
  /** Development credentials to register on first start instead of random ones. */
  bootstrap: { apiKey?: string; clientId?: string; clientSecret?: string }
  /** Lifetime of OAuth access tokens in seconds. */
  tokenTtlSeconds: number
  /** Gateway settings. */
  gateway: {
    introspection: boolean
    fastPath: boolean
    maxDepth: number
    maxCost: number
    maxTokens: number
    maxAliases: number
    maxDirectives: number
    subgraphTimeoutMs: number
  }
  /** How long a graceful shutdown waits for in-flight work before it gives up. */
  shutdownGraceMs: number
}

/**
 * Reads and validates a zod schema against the environment, turning every problem into
 * one readable message (`PORT: Too big…`) rather than a stack trace.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  return parsed.data
}

/** Builds the platform configuration from environment variables. */
export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const e = parseEnv(platformSchema, blankToUndefined(env))
  if (Boolean(e.TESSERA_CLIENT_ID) !== Boolean(e.TESSERA_CLIENT_SECRET)) {
    throw new ConfigError('Invalid configuration:\n  TESSERA_CLIENT_ID and TESSERA_CLIENT_SECRET must be set together')
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.TESSERA_BODY_LIMIT,
    rateLimit: { max: e.TESSERA_RATE_LIMIT_MAX, windowSeconds: e.TESSERA_RATE_LIMIT_WINDOW_SECONDS },
    secretKeyHex: e.TESSERA_SECRET_KEY,
    bootstrap: {
      apiKey: e.TESSERA_API_KEY,
      clientId: e.TESSERA_CLIENT_ID,
      clientSecret: e.TESSERA_CLIENT_SECRET,
    },
    tokenTtlSeconds: e.TESSERA_TOKEN_TTL_SECONDS,
    gateway: {
      introspection: e.TESSERA_INTROSPECTION,
      fastPath: e.TESSERA_GATEWAY_FAST_PATH,
      maxDepth: e.TESSERA_MAX_QUERY_DEPTH,
      maxCost: e.TESSERA_MAX_QUERY_COST,
      maxTokens: e.TESSERA_MAX_QUERY_TOKENS,
      maxAliases: e.TESSERA_MAX_QUERY_ALIASES,
      maxDirectives: e.TESSERA_MAX_QUERY_DIRECTIVES,
      subgraphTimeoutMs: e.TESSERA_SUBGRAPH_TIMEOUT_MS,
    },
    shutdownGraceMs: e.TESSERA_SHUTDOWN_GRACE_MS,
  }
}

// An exported-but-empty variable (`PORT=`) means "not set", as shells and compose files use it.
function blankToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(env)) out[k] = v === '' ? undefined : v
  return out
}
