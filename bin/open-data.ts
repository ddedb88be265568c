import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createSecretBox, type SecretBox } from '../platform/auth/secrets.js'
import type { PlatformConfig } from '../platform/config.js'
import { ConfigError } from '../platform/config.js'
import { createDatabase, type Database } from '../platform/db/database.js'
import type { MigrationSet } from '../platform/db/migrate.js'
import { SERVICES, migrationsOf } from './services.js'

// Where a process's data lives: the embedded folder (locked to one process) or a PostgreSQL
// server, the migrations every part needs, and the key that encrypts secrets at rest.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The platform migrations, applied before any service's. */
export const PLATFORM_MIGRATIONS: MigrationSet = { schema: 'platform', dir: path.join(root, 'platform/prisma/migrations') }

/** Every migration set, platform first. */
export function allMigrations(services: readonly string[] = Object.keys(SERVICES)): MigrationSet[] {
  return [PLATFORM_MIGRATIONS, ...migrationsOf(services)]
}

// A server that cannot be reached is a configuration problem: say which and what to do in one
// line, not a stack trace.
export async function openPostgres(url: string): Promise<Database> {
  let db: Database | undefined
  try {
    db = await createDatabase({ kind: 'postgres', url })
    await db.query('SELECT 1')
    return db
  } catch (error) {
    await db?.close().catch(() => {})
    const code = (error as { code?: string }).code
    const reason = (error as Error).message.split('\n')[0]
    throw new ConfigError(
      `Cannot use the database at ${describeUrl(url)} (${code ? `${code}: ` : ''}${reason}); check DATABASE_URL and that PostgreSQL is running`,
    )
  }
}

// host:port/database of a connection URL, never its password.
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`
  } catch {
    return 'DATABASE_URL'
  }
}

export const SECRET_KEY_REQUIRED = 'Invalid configuration:\n  TESSERA_SECRET_KEY: required with DATABASE_URL (64 hex characters; e.g. `openssl rand -hex 32`)'

// Embedded mode keeps a generated key beside the data; a server database needs the key
// given explicitly, or secrets written by one replica could not be read by another.
export async function loadSecretBox(config: PlatformConfig, db: Database): Promise<SecretBox> {
  if (config.secretKeyHex) return createSecretBox(Buffer.from(config.secretKeyHex, 'hex'))
  if (db.handle.kind === 'postgres') {
    throw new ConfigError(SECRET_KEY_REQUIRED)
  }
  const file = path.resolve(config.dataDir, 'secret.key')
  if (!existsSync(file)) await writeFile(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
  return createSecretBox(Buffer.from((await readFile(file, 'utf8')).trim(), 'hex'))
}

/**
 * Takes the embedded data folder for this process (a PGlite folder may be opened by one
 * process only; a second one would corrupt it, or write what the first never sees). Throws a
 * ConfigError with `inUse(pid)` — by default "stop it or use another DATA_DIR" — when a live
 * process holds it; the lock is released by `cleanups`.
 */
export async function lockDataDir(
  dataDir: string,
  cleanups: Array<() => Promise<void>>,
  inUse = (pid: number) => `DATA_DIR ${dataDir} is in use by process ${pid}; stop it first or use another DATA_DIR`,
) {
  await mkdir(dataDir, { recursive: true })
  const lock = path.resolve(dataDir, 'tessera.pid')
  if (existsSync(lock)) {
    const pid = Number((await readFile(lock, 'utf8')).trim())
    if (pid && pid !== process.pid && isAlive(pid)) throw new ConfigError(inUse(pid))
  }
  await writeFile(lock, String(process.pid))
  cleanups.push(() => rm(lock, { force: true }))
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
