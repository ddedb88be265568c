import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaPGlite } from 'pglite-prisma-adapter'
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils'

/** Runs SQL; the same shape inside and outside a transaction. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>
}

/** The options every generated Prisma client is constructed with. */
export interface PrismaClientOptions {
  adapter: SqlDriverAdapterFactory
  transactionOptions: { maxWait: number; timeout: number }
}

/** Where the data lives: the embedded PGlite or a PostgreSQL server. */
export type DatabaseHandle = { kind: 'embedded'; pglite: PGlite } | { kind: 'postgres'; pool: pg.Pool; url: string }

/** The one database of a process, shared by every service running in it. */
export interface Database extends SqlExecutor {
  readonly handle: DatabaseHandle
  /**
   * Runs `fn` in a transaction. `urgent` work (alarms) goes ahead of queued ordinary work on
   * the embedded database, whose statements take turns; a server runs it as any other.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: { urgent?: boolean }): Promise<T>
  /**
   * Delivers NOTIFY payloads on `channel` until the returned function is called. On a server
   * the listening connection is re-opened after every loss, forever; `hooks` hear each loss
   * and each recovery (notifications sent in between are not delivered: read them back).
   */
  listen(channel: string, onPayload: (payload: string) => void, hooks?: ListenHooks): Promise<() => Promise<void>>
  prismaOptions(): PrismaClientOptions
  close(): Promise<void>
}

/** What a listener hears about its connection. */
export interface ListenHooks {
  /** The connection was lost; reconnection attempts follow with backoff. */
  onLost?(error: unknown): void
  /** Listening again after a loss, `downMs` after it was lost. */
  onRestored?(downMs: number, attempts: number): void
}

/** Backoff between reconnection attempts of a listener: doubling from 100 ms, at most 5 s. */
export const LISTEN_BACKOFF = { initialMs: 100, maxMs: 5000 }

/** How to open the database. */
export type DatabaseOptions = { kind: 'embedded'; dataDir: string | null; snapshot?: Blob | File } | { kind: 'postgres'; url: string; poolSize?: number }

// PGlite queues every caller behind one lock, so Prisma's default 2 s wait for a transaction
// slot counts queueing time too and fails under ordinary load.
const transactionOptions = { maxWait: 10_000, timeout: 15_000 }

/** Opens the embedded database (in a folder, or in memory when `dataDir` is null) or a pool. */
export async function createDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'embedded' ? createEmbedded(options) : createPostgres(options)
}

async function createEmbedded(options: { dataDir: string | null; snapshot?: Blob | File }): Promise<Database> {
  let dataDir: string | undefined
  if (options.dataDir) {
    dataDir = path.resolve(options.dataDir, 'pgdata')
    await mkdir(dataDir, { recursive: true })
  }
  const raw = await PGlite.create({ dataDir, loadDataDir: options.snapshot })
  const pglite = takingTurns(raw)
  const executor = (q: Pick<PGlite, 'query' | 'exec'>): SqlExecutor => ({
    async query<R>(sql: string, params?: unknown[]) {
      return (await q.query<R>(sql, params)).rows
    },
    async exec(sql: string) {
      await q.exec(sql)
    },
  })
  return {
    handle: { kind: 'embedded', pglite },
    ...executor(pglite),
    transaction: (fn, options) => (options?.urgent ? pglite.urgentTransaction : pglite.transaction)((tx) => fn(executor(tx))),
    async listen(channel, onPayload) {
      const unlisten = await pglite.listen(channel, onPayload)
      return async () => unlisten()
    },
    prismaOptions: () => ({ adapter: new PrismaPGlite(pglite), transactionOptions }),
    async close() {
      if (!raw.closed) await raw.close()
    },
  }
}

/**
 * PGlite runs each statement synchronously on the event loop, and hands its lock from one
 * waiting caller to the next through promise callbacks, so twenty queued statements run back to
 * back without timers or sockets getting a turn: a burst of writes stalls every live stream for
 * its whole length. This wrapper lets top-level statements and transactions through one at a
 * time, and once back-to-back work has held the loop for {@link TURN_BUDGET_MS} it waits for
 * the loop to come round before the next, so timers and I/O are served in between. Work that
 * finds the loop idle starts at once: a lone query pays nothing. Inside a transaction the
 * callback's own `tx` is used as before (the lock is held anyway).
 */
const TURN_BUDGET_MS = 10

/** The embedded database with a lane for urgent transactions. */
type TurnTakingPGlite = PGlite & { urgentTransaction: PGlite['transaction'] }

function takingTurns(pglite: PGlite): TurnTakingPGlite {
  // Start of the current run of back-to-back work; 0 once the loop has come round since.
  let busySince = 0
  let watching = false
  const watchForLoopTurn = () => {
    if (watching) return
    watching = true
    setImmediate(() => {
      watching = false
      busySince = 0
    })
  }
  // Waiting work in two lanes: urgent work starts before any ordinary work not yet started.
  const lanes = { urgent: [] as Array<() => Promise<void>>, normal: [] as Array<() => Promise<void>> }
  let running = false
  const pump = () => {
    if (running) return
    const next = lanes.urgent.shift() ?? lanes.normal.shift()
    if (!next) return
    running = true
    void next().finally(() => {
      running = false
      pump()
    })
  }
  const inTurn = <T>(work: () => Promise<T>, lane: 'urgent' | 'normal' = 'normal'): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      lanes[lane].push(async () => {
        if (busySince && performance.now() - busySince > TURN_BUDGET_MS) await new Promise<void>((done) => setImmediate(done))
        if (!busySince) busySince = performance.now()
        try {
          resolve(await work())
        } catch (error) {
          reject(error)
        } finally {
          watchForLoopTurn()
        }
      })
      pump()
    })
  const overrides: Partial<Record<keyof TurnTakingPGlite, unknown>> = {
    query: (...args: Parameters<PGlite['query']>) => inTurn(() => pglite.query(...args)),
    exec: (...args: Parameters<PGlite['exec']>) => inTurn(() => pglite.exec(...args)),
    transaction: (...args: Parameters<PGlite['transaction']>) => inTurn(() => pglite.transaction(...args)),
    urgentTransaction: (...args: Parameters<PGlite['transaction']>) => inTurn(() => pglite.transaction(...args), 'urgent'),
  }
  // PGlite keeps its state in private fields, so every other member is used on the instance itself.
  return new Proxy(pglite, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof TurnTakingPGlite]
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  }) as TurnTakingPGlite
}

async function createPostgres(options: { url: string; poolSize?: number }): Promise<Database> {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 })
  // An idle client that loses its connection emits 'error'; without a listener that kills the process.
  pool.on('error', () => {})
  await pool.query('select 1')
  const listeners = new Set<pg.Client>()
  const executor = (q: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async query<R>(sql: string, params?: unknown[]) {
      return (await q.query(sql, params)).rows as R[]
    },
    async exec(sql: string) {
      await q.query(sql)
    },
  })
  return {
    handle: { kind: 'postgres', pool, url: options.url },
    ...executor(pool),
    async transaction(fn) {
      const client = await pool.connect()
      // While a client is checked out the pool does not listen for its errors: a server that
      // goes away between two statements would otherwise crash the process with an unhandled
      // 'error' event. The failure reaches the caller through the next statement instead.
      let broken: Error | undefined
      const onError = (error: Error) => {
        broken = error
      }
      client.on('error', onError)
      try {
        await client.query('BEGIN')
        const result = await fn(executor(client))
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        if (!broken && isConnectionError(error as Error)) broken = error as Error
        throw error
      } finally {
        client.off('error', onError)
        // A client whose connection failed is discarded, not handed to the next caller.
        client.release(broken)
      }
    },
    listen: (channel, onPayload, hooks) => listenWithReconnect(options.url, channel, onPayload, listeners, hooks),
    prismaOptions: () => ({ adapter: new PrismaPg(pool), transactionOptions }),
    async close() {
      await Promise.all([...listeners].map((c) => c.end().catch(() => {})))
      await pool.end()
    },
  }
}

// LISTEN needs one session for its whole life, so it gets its own connection, re-opened
// after every drop for as long as the listener is wanted, with exponential backoff and jitter
// (a server that comes back is not stormed by every replica at once). Notifications sent while
// it was down are lost, which is why the outbox keeps every event: `onRestored` tells the
// consumer to read back what it missed.
async function listenWithReconnect(
  url: string,
  channel: string,
  onPayload: (payload: string) => void,
  listeners: Set<pg.Client>,
  hooks: ListenHooks = {},
): Promise<() => Promise<void>> {
  let stopped = false
  let client: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined
  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: url })
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) onPayload(n.payload)
    })
    try {
      await c.connect()
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    } catch (error) {
      c.on('error', () => {})
      await c.end().catch(() => {})
      throw error
    }
    return c
  }
  const watch = (c: pg.Client) => {
    client = c
    listeners.add(c)
    let lost = false
    const onLost = (error: unknown) => {
      if (lost) return
      lost = true
      listeners.delete(c)
      if (client === c) client = undefined
      c.end().catch(() => {})
      if (stopped) return
      hooks.onLost?.(error)
      void reconnect(Date.now())
    }
    c.on('error', onLost)
    c.on('end', () => onLost(new Error('listening connection ended')))
  }
  const reconnect = async (since: number) => {
    let delay = LISTEN_BACKOFF.initialMs
    for (let attempt = 1; !stopped; attempt++) {
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, delay / 2 + Math.random() * (delay / 2))
      })
      if (stopped) return
      try {
        const c = await connect()
        if (stopped) {
          await c.end().catch(() => {})
          return
        }
        watch(c)
        hooks.onRestored?.(Date.now() - since, attempt)
        return
      } catch {
        delay = Math.min(delay * 2, LISTEN_BACKOFF.maxMs)
      }
    }
  }
  watch(await connect())
  return async () => {
    stopped = true
    clearTimeout(timer)
    const c = client
    client = undefined
    if (c) {
      listeners.delete(c)
      await c.end().catch(() => {})
    }
  }
}

// Errors that leave a connection unusable (as opposed to a statement that failed).
function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P0'))) return true
  return code === undefined && /Connection terminated|ECONNRESET|ECONNREFUSED/.test(error.message)
}
