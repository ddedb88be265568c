import pg from 'pg'
import { inject } from 'vitest'
import type { PostgresSettings } from '../../subgraphs/pipelines/connectors/postgres-connector.js'

/** A database of its own on the test cluster, so that test files can run in parallel. */
export interface PipelinesDatabase {
  name: string
  url: string
  /** Connection settings of the postgres connector for this database (add `table`). */
  connection: Omit<PostgresSettings, 'table'>
  /** A client on the cluster's main database, e.g. to create roles. */
  admin: pg.Client
  /** Drops the database, closing whatever is still connected to it. */
  drop(): Promise<void>
}

/** Creates a fresh database named after `prefix`; call from a `beforeAll`. */
export async function createPipelinesDatabase(prefix: string): Promise<PipelinesDatabase> {
  const name = `${prefix}_${process.pid}_${Date.now()}`
  const admin = new pg.Client(inject('postgresUrl'))
  await admin.connect()
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
  const url = `${inject('postgresBase')}${name}`
  const parsed = new URL(url)
  return {
    name,
    url,
    connection: {
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      database: name,
      user: decodeURIComponent(parsed.username || 'postgres'),
      ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    },
    admin,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)
      await admin.end()
    },
  }
}
