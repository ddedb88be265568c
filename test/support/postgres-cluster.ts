import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { freePort } from './free-port.js'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** A PostgreSQL server for tests. */
export interface PostgresCluster {
  /** Connection URL of a fresh database on the cluster. */
  url: string
  /** Creates another empty database and returns its URL. */
  createDatabase(name: string): string
  /** Stops the server (fast shutdown: connections are cut), keeping its data. */
  pause(): void
  /** Starts a paused server again on the same port. */
  resume(): void
  stop(): void
}

/** Where Debian puts the server binaries (postgresql-15 and later). */
export function findPostgresBin(): string | undefined {
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return undefined
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin/initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined
}

/**
 * Starts a throwaway PostgreSQL cluster on a loopback port (trust auth, fsync off: test data
 * only), with its data in a temporary folder removed by `stop`. As root the server runs as
 * the `postgres` user, since PostgreSQL refuses to run as root.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = findPostgresBin()
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql-15)')
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-pg-'))
  chmodSync(dir, 0o777)
  const data = path.join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args]
    const result = spawnSync(file, argv as string[], { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`)
    return result.stdout
  }
  const port = await freePort()
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale'])
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200`,
      'start',
    ])
  start()
  const createDatabase = (name: string) => {
    run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name])
    return `postgres://postgres@127.0.0.1:${port}/${name}`
  }
  const url = createDatabase('tessera_test')
  return {
    url,
    createDatabase,
    pause: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: start,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
