import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { createTesseraProcess, type ProcessMode } from '../bin/create-process.js'
import { loadPlatformConfig } from '../platform/config.js'
import { createDatabase } from '../platform/db/database.js'
import { TEST_CREDENTIALS, testEnv } from './support/test-credentials.js'

export { TEST_CREDENTIALS, testEnv }

/** Options of a test process. */
export interface BuildOptions {
  env?: Record<string, string>
  mode?: ProcessMode
  /** Only these services (all-in-one mode): a test that needs one service does not start the rest. */
  services?: readonly string[]
  /** Listen on a loopback port (for WebSocket tests); inject() needs none. */
  listen?: boolean
}

/**
 * A whole Tessera process on an in-memory PGlite restored from the run's snapshot — what
 * `npm start` runs, minus the port unless asked. Call `close()` (or use with `afterAll`).
 */
export async function build(options: BuildOptions = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-test-'))
  const env = testEnv({ PORT: '0', DATA_DIR: dataDir, ...options.env })
  const db = await createDatabase({ kind: 'embedded', dataDir: null, snapshot: new Blob([readFileSync(inject('pgliteSnapshot'))]) })
  const tessera = await createTesseraProcess({
    mode: options.mode ?? { kind: 'all', services: options.services },
    config: loadPlatformConfig(env),
    env,
    database: db,
    announce: () => {},
    logger: false,
  })
  const url = options.listen ? await tessera.listen() : undefined
  return {
    ...tessera,
    url,
    apiKey: TEST_CREDENTIALS.apiKey,
    auth: { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` },
    /** DATA_DIR of this process (files and the embedded warehouse live below it). */
    dataDir,
    async close() {
      await tessera.close()
      await db.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A built test process. */
export type TestTessera = Awaited<ReturnType<typeof build>>
