import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { createTesseraProcess } from '../bin/create-process.js'
import { loadPlatformConfig } from '../platform/config.js'
import { createDatabase } from '../platform/db/database.js'
import { startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js'
import { testEnv } from './support/test-credentials.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite data folder (tar.gz) with every migration, pg-boss's schema and the test credentials. */
    pgliteSnapshot: string
    /** A database on the throwaway PostgreSQL cluster (or TESSERA_TEST_DATABASE_URL). */
    postgresUrl: string
    /** Base URL for further databases on that cluster: append a name. */
    postgresBase: string
  }
}

let cluster: PostgresCluster | undefined

/**
 * Once per run: builds the PGlite snapshot every test process starts from (0.3 s instead of a
 * cold start and migrations), and starts a throwaway PostgreSQL server on a loopback port.
 */
export default async function setup(project: TestProject) {
  const dir = path.resolve('.tessera-test')
  mkdirSync(dir, { recursive: true })
  const env = testEnv()
  const db = await createDatabase({ kind: 'embedded', dataDir: null })
  const tessera = await createTesseraProcess({ mode: { kind: 'all' }, config: loadPlatformConfig(env), env, database: db, announce: () => {}, logger: false })
  await tessera.close()
  if (db.handle.kind !== 'embedded') throw new Error('unreachable')
  const dump = await db.handle.pglite.dumpDataDir('gzip')
  const snapshot = path.join(dir, 'snapshot.tar.gz')
  writeFileSync(snapshot, Buffer.from(await dump.arrayBuffer()))
  await db.close()
  project.provide('pgliteSnapshot', snapshot)

  const external = process.env.TESSERA_TEST_DATABASE_URL
  if (external) {
    project.provide('postgresUrl', external)
    project.provide('postgresBase', external.replace(/\/[^/]*$/, '/'))
  } else {
    cluster = await startPostgresCluster()
    project.provide('postgresUrl', cluster.url)
    project.provide('postgresBase', cluster.url.replace(/\/[^/]*$/, '/'))
  }
  return () => cluster?.stop()
}
