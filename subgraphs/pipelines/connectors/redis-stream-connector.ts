/**
 * Redis Streams as a source and a destination. A stream is an append-only log of entries, each
 * an id (`<milliseconds>-<sequence>`, increasing) and a flat list of string fields; this
 * connector maps one stream key to one table whose `_id` column is the entry id.
 */
import { randomBytes } from 'node:crypto'
import { Redis, type ChainableCommander } from 'ioredis'
import {
  ConnectionError,
  ConnectorConfigError,
  type Column,
  type ColumnType,
  type ReadOptions,
  type Row,
  type StreamSchema,
  type WriteTarget,
  type Writer,
} from './connector.js'
import type { RoleAwareConnector } from './check-role.js'
import { integerValue } from './integer-value.js'
import { parseTimestamp } from './parse-timestamp.js'
import { batchSizeOf } from './validate-target.js'

/**
 * Settings of a `redis_stream` source or destination. A `type` alias, not an interface, so it
 * satisfies the contract's `Record<string, unknown>` bound.
 */
export type RedisStreamSettings = {
  host: string
  /** Default 6379. */
  port?: number
  /** Secret. With `username`: an ACL user's password; alone: the `default` user's (`requirepass`). */
  password?: string
  /** An ACL user (Redis 6+); the `default` user when absent. */
  username?: string
  /** Logical database, 0–15. Default 0. */
  db?: number
  /** Key of the stream. */
  stream: string
  /** Connect over TLS, verifying the server's certificate against Node's CA list. Default false. */
  tls?: boolean
  /** Default 10. */
  connect_timeout_seconds?: number
}

/** The column every row carries: the entry id, which orders the stream and identifies an entry. */
export const REDIS_STREAM_ID_COLUMN = '_id'

/** Entries sampled from each end of the stream to infer columns. */
const SAMPLE_SIZE = 100

/** Shown in `CLIENT LIST`, so an operator can tell Tessera's connections apart. */
const CONNECTION_NAME = 'tessera:redis_stream'

/**
 * A `replace` stages its entries under a temporary key that expires after this long without a
 * write, so a run that dies without aborting does not leave the copy behind for ever.
 */
const STAGING_TTL_MS = 24 * 60 * 60 * 1000

/** Far longer than any command here takes (the longest is the EXEC of one batch). */
const COMMAND_TIMEOUT_MS = 60_000

const MAX_SEQUENCE = 2n ** 64n - 1n
const ENTRY_ID = /^(\d+)-(\d+)$/
const INTEGER = /^-?(0|[1-9]\d*)$/
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

const ID_COLUMN: Column = { name: REDIS_STREAM_ID_COLUMN, type: 'string', nullable: false }

type Resolved = Required<Omit<RedisStreamSettings, 'password' | 'username'>> & Pick<RedisStreamSettings, 'password' | 'username'>

/** Settings are schema-validated before use, but defaults may not have been filled in. */
function resolve(settings: RedisStreamSettings): Resolved {
  return {
    ...settings,
    port: settings.port ?? 6379,
    db: settings.db ?? 0,
    tls: settings.tls ?? false,
    connect_timeout_seconds: settings.connect_timeout_seconds ?? 10,
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Defence in depth: no message this connector builds may carry the password. */
function redact(text: string, password: string | undefined): string {
  return password ? text.split(password).join('[redacted]') : text
}

/**
 * A ConnectionError from a client failure. It deliberately carries no `cause`: ioredis errors
 * keep the command that failed, and the failed command of a login is `HELLO 3 AUTH <user> <password>`.
 */
function connectionError(settings: Resolved, error: unknown): ConnectionError {
  const where = `${settings.host}:${settings.port}`
  const reason = redact(messageOf(error), settings.password)
  if (/^WRONGPASS/.test(reason)) return new ConnectionError(`Redis at ${where} refused the login: wrong username or password, or the user is disabled`)
  if (/^NOAUTH/.test(reason)) return new ConnectionError(`Redis at ${where} requires a password`)
  return new ConnectionError(`cannot connect to Redis at ${where}: ${reason}`)
}

/** One client for one operation: opened with bounded retries, failures translated, always closed. */
class Connection {
  private lastError: unknown

  private constructor(
    readonly client: Redis,
    readonly settings: Resolved,
  ) {
    // ioredis reports why a connection failed only as an `error` event (the promise of
    // `connect` just says "Connection is closed"); keeping it also stops ioredis printing it.
    client.on('error', (error: unknown) => {
      this.lastError = error
    })
  }

  static async open(settings: Resolved): Promise<Connection> {
    const timeout = Math.round(settings.connect_timeout_seconds * 1000)
    const connection = new Connection(
      new Redis({
        host: settings.host,
        port: settings.port,
        username: settings.username,
        password: settings.password,
        tls: settings.tls ? {} : undefined,
        connectionName: CONNECTION_NAME,
        connectTimeout: timeout,
        lazyConnect: true,
        // A pipeline run fails fast and is retried by its schedule, not by a client looping for ever.
        maxRetriesPerRequest: 1,
        retryStrategy: () => null,
        // A server that stops answering mid-run fails the run instead of holding it for ever.
        commandTimeout: COMMAND_TIMEOUT_MS,
      }),
      settings,
    )
    // `connectTimeout` only covers opening the socket: a server (or proxy) that accepts it and
    // never answers the handshake would otherwise keep `connect` pending for ever.
    const connecting = connection.client.connect()
    connecting.catch(() => {})
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${settings.connect_timeout_seconds} s`)), timeout)
    })
    try {
      await Promise.race([connecting, timedOut])
    } catch (error) {
      connection.client.disconnect()
      throw connectionError(settings, connection.lastError ?? error)
    } finally {
      clearTimeout(timer)
    }
    // Not the `db` option: ioredis only reports a failed SELECT as an event and carries on in
    // database 0, where a run would then read or overwrite the wrong stream.
    if (settings.db !== 0) {
      try {
        await connection.client.select(settings.db)
      } catch (error) {
        const failure = /DB index is out of range/i.test(messageOf(error))
          ? new ConnectorConfigError('db', `Redis at ${settings.host}:${settings.port} has no database ${settings.db}`)
          : connection.translate(error)
        await connection.close()
        throw failure
      }
    }
    return connection
  }

  /** Runs commands, turning a lost connection into ConnectionError and a wrong key type into ConnectorConfigError. */
  async run<T>(operation: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await operation(this.client)
    } catch (error) {
      throw this.translate(error)
    }
  }

  translate(error: unknown): Error {
    if (error instanceof ConnectionError || error instanceof ConnectorConfigError) return error
    if (/^WRONGTYPE/.test(messageOf(error))) {
      return new ConnectorConfigError('stream', `Redis key "${this.settings.stream}" holds another kind of value, not a stream`)
    }
    if (this.client.status !== 'ready') return connectionError(this.settings, this.lastError ?? error)
    if (/^Command timed out/.test(messageOf(error))) return connectionError(this.settings, `no answer within ${COMMAND_TIMEOUT_MS / 1000} s`)
    return error instanceof Error ? error : new Error(messageOf(error))
  }

  /** Throws when the key holds something else than a stream; false when it does not exist. */
  async streamExists(key = this.settings.stream): Promise<boolean> {
    const type = await this.run((client) => client.type(key))
    if (type === 'none') return false
    if (type !== 'stream') throw new ConnectorConfigError('stream', `Redis key "${key}" holds a ${type}, not a stream`)
    return true
  }

  /** Columns inferred from the first and last entries (none when the stream is missing or empty). */
  async sampleColumns(): Promise<Column[]> {
    if (!(await this.streamExists())) return []
    const key = this.settings.stream
    const head = await this.run((client) => client.xrange(key, '-', '+', 'COUNT', SAMPLE_SIZE))
    // The newest entries too: producers add fields over time, and a field added later than the
    // first hundred entries would otherwise never be discovered.
    const tail = await this.run((client) => client.xrevrange(key, '+', '-', 'COUNT', SAMPLE_SIZE))
    const seen = new Set(head.map(([id]) => id))
    return inferColumns([...head, ...tail.reverse().filter(([id]) => !seen.has(id))])
  }

  /**
   * QUIT so the server drops the connection at once, but never wait on a server that stopped
   * answering: after a second the socket is closed regardless.
   */
  async close(): Promise<void> {
    if (this.client.status === 'end') return
    if (this.client.status === 'ready') {
      let timer: NodeJS.Timeout | undefined
      try {
        await Promise.race([this.client.quit(), new Promise((resolve) => (timer = setTimeout(resolve, 1000)))])
      } catch {
        // Closing anyway.
      } finally {
        clearTimeout(timer)
      }
    }
    this.client.disconnect()
  }
}

/** The narrowest type a field value reads as (every value in a stream is a string). */
function classify(value: string): ColumnType {
  // No leading zeros: `00742` is a code, and as an integer it would come back as 742.
  if (INTEGER.test(value)) return 'integer'
  if (NUMBER.test(value) && Number.isFinite(Number(value))) return 'number'
  // Exactly what the writer writes, so a boolean column round-trips unchanged.
  if (value === 'true' || value === 'false') return 'boolean'
  if (parseTimestamp(value)) return 'timestamp'
  if (value.startsWith('{') || value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value)
      if (typeof parsed === 'object' && parsed !== null) return 'json'
    } catch {
      // Not JSON after all.
    }
  }
  return 'string'
}

function widen(a: ColumnType, b: ColumnType): ColumnType {
  if (a === b) return a
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'number'
  return 'string'
}

/**
 * Every field seen, in order of first appearance, typed by its values. All are nullable: an
 * entry may leave out any field, and nothing stops a later entry doing so.
 */
function inferColumns(entries: Array<[id: string, fields: string[]]>): Column[] {
  const types = new Map<string, ColumnType>()
  for (const [, fields] of entries) {
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const name = fields[i] as string
      if (name === REDIS_STREAM_ID_COLUMN) continue
      const type = classify(fields[i + 1] as string)
      const known = types.get(name)
      types.set(name, known === undefined ? type : widen(known, type))
    }
  }
  return [...types].map(([name, type]) => ({ name, type, nullable: true }))
}

/**
 * A field value as its column's type. A value that does not fit (an entry after the sample that
 * breaks the pattern) is passed on as its text rather than dropped: a typed destination then
 * rejects it with its own error. Integers beyond 2^53 stay strings, as the contract asks.
 */
function convert(value: string, type: ColumnType): unknown {
  switch (type) {
    case 'integer':
      return INTEGER.test(value) ? integerValue(value) : value
    case 'number':
      return NUMBER.test(value) && Number.isFinite(Number(value)) ? Number(value) : value
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value
    case 'timestamp':
      return parseTimestamp(value) ?? value
    case 'json':
      try {
        return JSON.parse(value) as unknown
      } catch {
        return value
      }
    case 'string':
      return value
  }
}

/** Rows have exactly the discovered columns: missing fields are null, unknown fields are left out. */
function toRow([id, fields]: [string, string[]], columns: Map<string, ColumnType>): Row {
  const row: Row = { [REDIS_STREAM_ID_COLUMN]: id }
  for (const name of columns.keys()) row[name] = null
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const type = columns.get(fields[i] as string)
    if (type !== undefined && fields[i] !== REDIS_STREAM_ID_COLUMN) row[fields[i] as string] = convert(fields[i + 1] as string, type)
  }
  return row
}

/** The smallest entry id greater than `id`: XRANGE's `(` exclusive start needs Redis 6.2. */
function nextId(id: string): string {
  const match = ENTRY_ID.exec(id)
  if (!match) throw new Error(`"${id}" is not a Redis stream entry id (<milliseconds>-<sequence>)`)
  const ms = BigInt(match[1] as string)
  const seq = BigInt(match[2] as string)
  return seq < MAX_SEQUENCE ? `${ms}-${seq + 1n}` : `${ms + 1n}-0`
}

/** A value as stream field text; null and undefined mean "no field". */
function encode(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (value instanceof Date) return value.toISOString()
  return JSON.stringify(value)
}

function entryFields(row: Row, columns: readonly string[], index: number): string[] {
  const fields: string[] = []
  for (const name of columns) {
    const text = encode(row[name])
    if (text !== undefined) fields.push(name, text)
  }
  // XADD needs at least one field; inventing one would change the data, skipping would lose a row.
  if (fields.length === 0) throw new Error(`row ${index} of the batch has no non-null value: a Redis stream entry needs at least one field`)
  return fields
}

/** Throws the first command error of an EXEC (Redis runs the rest of a transaction regardless). */
function checkExec(connection: Connection, results: [Error | null, unknown][] | null): void {
  if (results === null) throw new Error('Redis discarded the transaction')
  for (const [error] of results) if (error) throw connection.translate(error)
}

/**
 * See the connector's TSDoc for what each mode guarantees. One connection per writer, closed by
 * commit or abort (also when they fail).
 */
class StreamWriter implements Writer {
  private state: 'open' | 'committed' | 'aborted' | 'failed' = 'open'
  private written = 0

  constructor(
    private readonly connection: Connection,
    private readonly mode: 'replace' | 'append',
    /** The stream (append) or the staging key (replace). */
    private readonly key: string,
    private readonly columns: readonly string[],
  ) {}

  async write(rows: Row[]): Promise<void> {
    if (this.state !== 'open') throw new Error(`this Redis stream writer is ${this.state}`)
    if (rows.length === 0) return
    const entries = rows.map((row, i) => entryFields(row, this.columns, i))
    // MULTI: no reader sees part of a batch, and a batch costs one round trip.
    const tx = this.connection.client.multi()
    for (const fields of entries) tx.xadd(this.key, '*', ...fields)
    if (this.mode === 'replace') tx.pexpire(this.key, STAGING_TTL_MS)
    checkExec(this.connection, await this.connection.run(() => tx.exec()))
    this.written += rows.length
  }

  async commit(): Promise<void> {
    if (this.state !== 'open') throw new Error(`this Redis stream writer is ${this.state}`)
    const { stream } = this.connection.settings
    try {
      if (this.mode === 'replace') {
        const tx = this.connection.client.multi()
        // Nothing written: the destination still becomes an existing, empty stream.
        if (this.written === 0) createEmptyStream(tx, this.key)
        // One transaction: readers see the old stream until the new one takes its place whole.
        // PERSIST drops the staging expiry, which RENAME carries over.
        tx.rename(this.key, stream)
        tx.persist(stream)
        checkExec(this.connection, await this.connection.run(() => tx.exec()))
      } else if (this.written === 0 && !(await this.connection.streamExists())) {
        const tx = this.connection.client.multi()
        createEmptyStream(tx, stream)
        checkExec(this.connection, await this.connection.run(() => tx.exec()))
      }
      this.state = 'committed'
    } catch (error) {
      this.state = 'failed'
      await this.discardStaging()
      throw error
    } finally {
      await this.connection.close()
    }
  }

  /** Best effort, never throws: a staging key that cannot be deleted now expires on its own. */
  async abort(): Promise<void> {
    if (this.state !== 'open') return
    this.state = 'aborted'
    try {
      await this.discardStaging()
    } finally {
      await this.connection.close()
    }
  }

  private async discardStaging(): Promise<void> {
    if (this.mode !== 'replace') return
    try {
      await this.connection.client.del(this.key)
    } catch {
      // STAGING_TTL_MS removes it.
    }
  }
}

/** Redis has no "create stream" command; a consumer group created with MKSTREAM and dropped again leaves one. */
function createEmptyStream(tx: ChainableCommander, key: string): void {
  const group = `tessera-create-${randomBytes(6).toString('hex')}`
  tx.xgroup('CREATE', key, group, '$', 'MKSTREAM')
  tx.xgroup('DESTROY', key, group)
}

/**
 * Redis Streams (`redis_stream`, alias `redis`), source and destination, one stream key per pipeline.
 *
 * Reading: rows are the stream's entries in id order, with `_id` (the entry id, the primary key
 * and the only incremental cursor) plus one column per field. Redis stores every field as a
 * string, so `discover` infers types from the first and the last 100 entries, as for a CSV file:
 * integer (no leading zeros), number, boolean (`true`/`false`), timestamp (ISO 8601; without a
 * zone, UTC), json (object or array), else string; every field column is nullable. A missing or
 * empty stream discovers as just `_id`. `read` infers the same way, so its rows match `discover`:
 * fields outside the sample are left out, and a value that does not fit its column's type is
 * passed on as text. A run reads in XRANGE pages of `batchSize` up to the newest entry at its
 * start; entries added meanwhile are left to the next run.
 *
 * Writing: every row becomes one entry (XADD with an id Redis assigns — incoming `_id` values
 * are not written), fields in column order, null values left out. Each batch is one MULTI/EXEC.
 * A stream cannot be rolled back, so the modes are:
 * - `replace`: batches go to a staging key `<stream>:tessera-tmp-<random>`; commit RENAMEs it over
 *   the stream in one transaction, abort deletes it. Readers see the old stream or the new one,
 *   never a mix; the old stream's consumer groups go with it.
 * - `append`: batches are added to the stream directly, so each is visible as soon as written
 *   (not at commit), and abort cannot take entries back; commit only creates the stream when
 *   nothing was written and it does not exist. Delivery is at-least-once: re-running a failed
 *   run appends its first batches a second time.
 * - `merge`: refused (ConnectorConfigError on `mode`); a stream has no key to upsert on.
 */
export const redisStreamConnector: RoleAwareConnector<RedisStreamSettings> = {
  id: 'redis_stream',
  aliases: ['redis'],
  name: 'Redis Streams',
  role: 'both',
  category: 'streaming',
  // Streams are append-only: there is no key to merge on.
  writeModes: ['replace', 'append'],
  supportedVersions: ['6', '7'],
  // Without `type: 'object'`, which the pipeline configuration adds (the contract's convention).
  settingsSchema: {
    additionalProperties: false,
    required: ['host', 'stream'],
    properties: {
      host: { type: 'string', minLength: 1, description: 'Host name or IP address of the Redis server' },
      port: { type: 'integer', minimum: 1, maximum: 65535, default: 6379 },
      username: { type: 'string', minLength: 1, description: 'ACL user (Redis 6+); the default user when absent' },
      password: { type: 'string', description: 'Password of the user (secret)' },
      db: { type: 'integer', minimum: 0, maximum: 15, default: 0 },
      stream: { type: 'string', minLength: 1, description: 'Key of the stream' },
      tls: { type: 'boolean', default: false },
      connect_timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 10 },
    },
  },
  secretFields: ['password'],

  /**
   * Logs in, PINGs and checks that the key, if it exists, is a stream. The same for either role:
   * a missing stream is an empty source (producers often create it with their first entry) and
   * a destination the writer creates.
   */
  async check(settings) {
    const connection = await Connection.open(resolve(settings))
    try {
      await connection.run((client) => client.ping())
      await connection.streamExists()
    } finally {
      await connection.close()
    }
  },

  async discover(settings): Promise<StreamSchema> {
    const resolved = resolve(settings)
    const connection = await Connection.open(resolved)
    try {
      const columns = await connection.sampleColumns()
      return { name: resolved.stream, columns: [ID_COLUMN, ...columns], primaryKey: [REDIS_STREAM_ID_COLUMN] }
    } finally {
      await connection.close()
    }
  },

  async *read(settings, _context, options: ReadOptions) {
    const resolved = resolve(settings)
    const batchSize = batchSizeOf(options)
    let start = '-'
    if (options.cursor) {
      if (options.cursor.column !== REDIS_STREAM_ID_COLUMN) {
        throw new ConnectorConfigError(
          'cursor_column',
          `a Redis stream is read incrementally by its entry id: the cursor column must be "${REDIS_STREAM_ID_COLUMN}", not "${options.cursor.column}"`,
        )
      }
      const after = options.cursor.after
      if (after !== null && after !== undefined) start = nextId(String(after))
    }
    const connection = await Connection.open(resolved)
    try {
      const columns = new Map((await connection.sampleColumns()).map((c) => [c.name, c.type]))
      const key = resolved.stream
      const newest = await connection.run((client) => client.xrevrange(key, '+', '-', 'COUNT', 1))
      const end = newest[0]?.[0]
      if (end === undefined) return
      for (;;) {
        options.signal?.throwIfAborted()
        const entries = await connection.run((client) => client.xrange(key, start, end, 'COUNT', batchSize))
        const last = entries[entries.length - 1]
        if (last === undefined) return
        yield entries.map((entry) => toRow(entry, columns))
        if (entries.length < batchSize) return
        start = nextId(last[0])
      }
    } finally {
      // Also reached when the consumer stops iterating early (return() on the generator).
      await connection.close()
    }
  },

  async openWriter(settings, _context, target: WriteTarget): Promise<Writer> {
    const resolved = resolve(settings)
    if (target.mode === 'merge') throw new ConnectorConfigError('mode', 'streams are append-only: merge is not supported')
    if (target.mode !== 'replace' && target.mode !== 'append') throw new ConnectorConfigError('mode', `unknown write mode "${String(target.mode)}"`)
    const columns = target.columns.map((c) => c.name).filter((name) => name !== REDIS_STREAM_ID_COLUMN)
    const connection = await Connection.open(resolved)
    try {
      // Fail before writing anything when the key is a list, a hash, …
      await connection.streamExists()
    } catch (error) {
      await connection.close()
      throw error
    }
    const key = target.mode === 'replace' ? `${resolved.stream}:tessera-tmp-${randomBytes(8).toString('hex')}` : resolved.stream
    return new StreamWriter(connection, target.mode, key, columns)
  },
}
