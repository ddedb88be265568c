/**
 * PostgreSQL as a source and a destination. Reads stream through a server-side cursor, one
 * batch at a time; writes go through COPY … FROM STDIN inside one transaction per run, so a
 * failed or aborted run leaves the destination exactly as it was.
 *
 * Identifiers are always quoted with pg's `escapeIdentifier`; values always travel as query
 * parameters or COPY data, never spliced into SQL text.
 *
 * @module
 */
import { once } from 'node:events'
import pg from 'pg'
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams'
import Cursor from 'pg-cursor'
import type { CheckRole, RoleAwareConnector } from './check-role.js'
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
import { integerValue } from './integer-value.js'
import { assertKeys, batchSizeOf, validateTarget } from './validate-target.js'

/** Settings of a PostgreSQL source or destination; omitted fields take the schema's defaults. */
export type PostgresSettings = {
  host: string
  port?: number
  database: string
  schema?: string
  table: string
  user: string
  password?: string
  ssl?: boolean
  connect_timeout_seconds?: number
}

/** PostgreSQL truncates longer identifiers silently, which would make a name match another table. */
const IDENTIFIER = { type: 'string', minLength: 1, maxLength: 63 }

const settingsSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: ['host', 'database', 'table', 'user'],
  properties: {
    host: { type: 'string', minLength: 1, description: 'Server host name or IP address' },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: 5432 },
    database: { ...IDENTIFIER, description: 'Database name' },
    schema: { ...IDENTIFIER, default: 'public' },
    table: { ...IDENTIFIER, description: 'Table (or view, as a source) to read or write' },
    user: { type: 'string', minLength: 1 },
    password: { type: 'string', writeOnly: true },
    ssl: { type: 'boolean', default: false, description: 'Connect over TLS and verify the server certificate' },
    connect_timeout_seconds: { type: 'integer', minimum: 1, maximum: 300, default: 10 },
  },
}

type Resolved = Required<Omit<PostgresSettings, 'password'>> & { password: string | undefined }

function resolve(settings: PostgresSettings): Resolved {
  return {
    host: settings.host,
    port: settings.port ?? 5432,
    database: settings.database,
    schema: settings.schema ?? 'public',
    table: settings.table,
    user: settings.user,
    password: settings.password,
    ssl: settings.ssl ?? false,
    connect_timeout_seconds: settings.connect_timeout_seconds ?? 10,
  }
}

const ident = (name: string) => pg.escapeIdentifier(name)
const qualifiedName = (s: Resolved) => `${ident(s.schema)}.${ident(s.table)}`
const describeTable = (s: Resolved) => `table "${s.schema}"."${s.table}"`

// --- Values: PostgreSQL text → Row conventions ---------------------------------------------

/** pg's own timestamptz parser: handles BC years and ±infinity, which hand-written code would miss. */
const pgParseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date | number

// The form a UTC session sends for every ordinary instant; Date parses its ISO spelling several
// times faster than the general parser (same result, milliseconds truncated alike). Anything
// else (BC years, ±infinity, other offsets) goes to pg's parser.
const PLAIN_UTC = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)\+00$/

function parseTimestamptz(text: string): Date | number {
  const plain = PLAIN_UTC.exec(text)
  return plain ? new Date(`${plain[1]}T${plain[2]}Z`) : pgParseTimestamptz(text)
}

/** A timestamp without zone is read as UTC, so the same row gives the same instant on every server. */
function parseTimestamp(text: string): Date | number {
  if (text === 'infinity' || text === '-infinity') return parseTimestamptz(text)
  return text.endsWith(' BC') ? parseTimestamptz(`${text.slice(0, -3)}+00 BC`) : parseTimestamptz(`${text}+00`)
}

/** A date is midnight UTC (pg's default is local midnight, which shifts with the server's zone). */
function parseDate(text: string): Date | number {
  if (text === 'infinity' || text === '-infinity') return parseTimestamptz(text)
  return text.endsWith(' BC') ? parseTimestamptz(`${text.slice(0, -3)} 00:00:00+00 BC`) : parseTimestamptz(`${text} 00:00:00+00`)
}

const { builtins } = pg.types
/** The types read as something other than text; the keys mirror COLUMN_TYPE_BY_NAME below. */
const PARSERS = new Map<number, (text: string) => unknown>([
  [builtins.BOOL, (text) => text === 't'],
  [builtins.INT2, Number],
  [builtins.INT4, Number],
  [builtins.INT8, integerValue],
  [builtins.FLOAT4, Number],
  [builtins.FLOAT8, Number],
  [builtins.NUMERIC, Number],
  [builtins.JSON, JSON.parse],
  [builtins.JSONB, JSON.parse],
  [builtins.DATE, parseDate],
  [builtins.TIMESTAMP, parseTimestamp],
  [builtins.TIMESTAMPTZ, parseTimestamptz],
])
const asText = (text: string) => text

/**
 * Per-client type parsers: everything a column type does not claim stays text (arrays, money,
 * intervals…), so a row always matches what `discover` announced. pg's defaults would turn
 * int4[] into arrays and int8 into strings.
 */
const ROW_TYPES = {
  getTypeParser: (oid: number) => PARSERS.get(oid) ?? asText,
} as unknown as pg.CustomTypesConfig

const COLUMN_TYPE_BY_NAME: Record<string, ColumnType> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  numeric: 'number',
  float4: 'number',
  float8: 'number',
  bool: 'boolean',
  timestamp: 'timestamp',
  timestamptz: 'timestamp',
  date: 'timestamp',
  json: 'json',
  jsonb: 'json',
}

/** Column types of tables this connector creates. */
const PG_TYPE: Record<ColumnType, string> = {
  string: 'text',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  json: 'jsonb',
}

// --- Connecting ------------------------------------------------------------------------------

/** Removes the password from a message, in case a driver or server ever echoes it. */
function redact(message: string, password: string | undefined): string {
  return password ? message.split(password).join('***') : message
}

async function connect(s: Resolved): Promise<pg.Client> {
  const client = new pg.Client({
    host: s.host,
    port: s.port,
    database: s.database,
    user: s.user,
    password: s.password ?? '',
    ssl: s.ssl ? { rejectUnauthorized: true } : false,
    connectionTimeoutMillis: s.connect_timeout_seconds * 1000,
    application_name: 'tessera-pipelines',
    // UTC: timestamps without zone are written and compared as UTC (see parseTimestamp).
    options: '-c TimeZone=UTC',
    types: ROW_TYPES,
  })
  // A client whose connection drops while idle emits 'error'; unheard, it would end the process.
  // The next query on it fails and reports the problem instead.
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => {})
    const code = (error as { code?: string }).code
    const reason = redact(error instanceof Error ? error.message : String(error), s.password)
    if (code === '3D000') throw new ConnectorConfigError('database', `database "${s.database}" does not exist on ${s.host}:${s.port}`)
    throw new ConnectionError(`cannot connect to PostgreSQL at ${s.host}:${s.port} as "${s.user}": ${reason}`)
  }
  return client
}

/** Runs `use` on a fresh connection and always closes it. */
async function withClient<T>(s: Resolved, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connect(s)
  try {
    return await use(client)
  } finally {
    await client.end().catch(() => {})
  }
}

// --- Catalog -----------------------------------------------------------------------------------

interface Relation {
  oid: string
  kind: string
  schema: StreamSchema
  /** Column sets of unique indexes that ON CONFLICT can use (immediate, no predicate or expressions). */
  uniqueKeys: string[][]
}

async function findRelation(client: pg.Client, s: Resolved): Promise<Relation | undefined> {
  const found = await client.query<{ oid: string; kind: string }>(
    `SELECT c.oid::text AS oid, c.relkind::text AS kind FROM pg_catalog.pg_class c
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [s.schema, s.table],
  )
  const relation = found.rows[0]
  if (!relation) return undefined
  // Domains count as their base type: the server sends the base type's oid with each row.
  const columns = await client.query<{ name: string; type: string; nullable: boolean }>(
    `SELECT a.attname AS name, CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END AS type,
            NOT a.attnotnull AS nullable
       FROM pg_catalog.pg_attribute a
       JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_catalog.pg_type bt ON bt.oid = t.typbasetype
      WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [relation.oid],
  )
  const keys = await client.query<{ columns: string[]; primary: boolean }>(
    `SELECT to_json(ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
                            JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                           ORDER BY k.ord)) AS columns,
            i.indisprimary AS primary
       FROM pg_catalog.pg_index i
      WHERE i.indrelid = $1::oid AND i.indisunique AND i.indimmediate AND i.indpred IS NULL AND i.indexprs IS NULL`,
    [relation.oid],
  )
  const schemaColumns: Column[] = columns.rows.map((c) => ({ name: c.name, type: COLUMN_TYPE_BY_NAME[c.type] ?? 'string', nullable: c.nullable }))
  return {
    oid: relation.oid,
    kind: relation.kind,
    schema: { name: `${s.schema}.${s.table}`, columns: schemaColumns, primaryKey: keys.rows.find((k) => k.primary)?.columns ?? [] },
    uniqueKeys: keys.rows.map((k) => k.columns),
  }
}

async function requireRelation(client: pg.Client, s: Resolved): Promise<Relation> {
  const relation = await findRelation(client, s)
  if (!relation) throw new ConnectorConfigError('table', `${describeTable(s)} does not exist in database "${s.database}"`)
  return relation
}

// --- Reading -------------------------------------------------------------------------------------

/** A cursor value as a query parameter; Dates as UTC text, since pg would send local time. */
function cursorParameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'bigint') return value.toString()
  if (value !== null && typeof value === 'object') return JSON.stringify(value)
  return value
}

async function* read(settings: PostgresSettings, options: ReadOptions): AsyncGenerator<Row[]> {
  const batchSize = batchSizeOf(options)
  const s = resolve(settings)
  const client = await connect(s)
  try {
    const { schema } = await requireRelation(client, s)
    let sql = `SELECT ${schema.columns.map((c) => ident(c.name)).join(', ')} FROM ${qualifiedName(s)}`
    const values: unknown[] = []
    if (options.cursor) {
      const { column, after } = options.cursor
      if (!schema.columns.some((c) => c.name === column)) throw new ConnectorConfigError('cursor', `${describeTable(s)} has no column "${column}"`)
      if (after !== null && after !== undefined) {
        // The comparison drops NULLs; plain ascending order lets an index on the column serve it.
        sql += ` WHERE ${ident(column)} > $1 ORDER BY ${ident(column)}`
        values.push(cursorParameter(after))
      } else {
        // First run: every row, NULL cursors first, so the last row read carries the highest value.
        sql += ` ORDER BY ${ident(column)} NULLS FIRST`
      }
    } else if (schema.primaryKey.length > 0) {
      // A stable order makes a full read repeatable and lets a reader resume by key.
      sql += ` ORDER BY ${schema.primaryKey.map(ident).join(', ')}`
    }
    // pg-cursor keeps an open portal and fetches batchSize rows per round trip: the server holds
    // the result, the client at most one batch, however many rows the table has.
    const cursor = client.query(new Cursor<Row>(sql, values))
    try {
      for (;;) {
        options.signal?.throwIfAborted()
        const rows = await cursor.read(batchSize)
        if (rows.length === 0) break
        yield rows
        if (rows.length < batchSize) break
      }
    } finally {
      await cursor.close().catch(() => {})
    }
  } finally {
    await client.end().catch(() => {})
  }
}

// --- Writing ---------------------------------------------------------------------------------------

/** A CSV field in double quotes: COPY's CSV format takes commas, newlines and backslashes inside quotes literally. */
function quoted(text: string): string {
  return text.includes('"') ? `"${text.replaceAll('"', '""')}"` : `"${text}"`
}

// A replacer makes JSON.stringify several times slower, so it is used only for the rare value
// that holds a BigInt (which plain stringify refuses).
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null'
  }
}

function numberText(value: number): string {
  // String(1e21) is '1e+21', which bigint columns refuse; BigInt prints every digit.
  return Number.isInteger(value) && Math.abs(value) >= 1e21 ? BigInt(value).toString() : String(value)
}

function dateText(value: Date): string {
  if (Number.isNaN(value.getTime())) throw new RangeError('an invalid Date cannot be written')
  return value.toISOString()
}

type FieldEncoder = (value: unknown) => string

/**
 * How a non-null value of a column type becomes a COPY CSV field. Text is always quoted, so an
 * empty string stays an empty string while NULL is the bare empty field, and `\.` in the data
 * cannot end the COPY.
 */
function fieldEncoder(type: ColumnType): FieldEncoder {
  switch (type) {
    case 'integer':
    case 'number':
      return (v) => (typeof v === 'number' ? numberText(v) : typeof v === 'bigint' ? v.toString() : quoted(String(v)))
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? (v ? 't' : 'f') : quoted(String(v)))
    case 'timestamp':
      return (v) => (v instanceof Date ? dateText(v) : typeof v === 'number' ? dateText(new Date(v)) : quoted(String(v)))
    case 'json':
      return (v) => quoted(jsonText(v))
    case 'string':
      return (v) => (typeof v === 'string' ? quoted(v) : v instanceof Date ? dateText(v) : typeof v === 'object' ? quoted(jsonText(v)) : quoted(String(v)))
  }
}

function csvEncoder(columns: readonly Column[]): (rows: readonly Row[]) => string {
  const fields = columns.map((c) => [c.name, fieldEncoder(c.type)] as const)
  return (rows) => {
    let text = ''
    for (const row of rows) {
      let line = ''
      for (let i = 0; i < fields.length; i++) {
        const [name, encode] = fields[i]!
        const value = row[name]
        if (i > 0) line += ','
        if (value !== null && value !== undefined) line += encode(value)
      }
      text += `${line}\n`
    }
    return text
  }
}

function createTableSql(s: Resolved, target: WriteTarget): string {
  const columns = target.columns.map((c) => `${ident(c.name)} ${PG_TYPE[c.type]}${c.nullable ? '' : ' NOT NULL'}`)
  if (target.primaryKey.length > 0) columns.push(`PRIMARY KEY (${target.primaryKey.map(ident).join(', ')})`)
  return `CREATE TABLE ${qualifiedName(s)} (${columns.join(', ')})`
}

const STAGE = 'pg_temp.tessera_stage'
const STAGE_ORDER = '__tessera_seq'

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x))

class PostgresWriter implements Writer {
  #failure: Error | undefined
  #copyDone = false
  #closed = false

  constructor(
    private readonly client: pg.Client,
    private readonly copy: CopyStreamQuery,
    private readonly encode: (rows: readonly Row[]) => string,
    /** Statements that move staged rows into the table, run after the COPY and before COMMIT. */
    private readonly finish: readonly string[],
    private readonly mergeKey: readonly string[],
  ) {
    copy.on('error', (error: Error) => {
      this.#failure ??= error
    })
  }

  async write(rows: Row[]): Promise<void> {
    if (this.#closed) throw new Error('the writer is already committed or aborted')
    if (this.#failure) throw this.#failure
    if (rows.length === 0) return
    if (this.mergeKey.length > 0) assertKeys(rows, this.mergeKey)
    // One chunk in flight at a time: waiting for 'drain' keeps memory at about one batch.
    if (!this.copy.write(this.encode(rows))) await once(this.copy, 'drain')
    if (this.#failure) throw this.#failure
  }

  async commit(): Promise<void> {
    if (this.#closed) throw new Error('the writer is already committed or aborted')
    try {
      if (this.#failure) throw this.#failure
      await new Promise<void>((done, fail) => {
        this.copy.once('finish', done)
        this.copy.once('error', fail)
        this.copy.end()
      })
      this.#copyDone = true
      for (const sql of this.finish) await this.client.query(sql)
      await this.client.query('COMMIT')
      this.#closed = true
      await this.client.end().catch(() => {})
    } catch (error) {
      await this.abort()
      throw error
    }
  }

  async abort(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    try {
      if (!this.#failure && !this.#copyDone) {
        // destroy() sends CopyFail; the server answers with an error, after which the
        // connection takes queries again. Bounded, since a dead server never answers.
        const closed = once(this.copy, 'close').catch(() => {})
        this.copy.destroy()
        await Promise.race([closed, new Promise((done) => setTimeout(done, 5000).unref())])
      }
      await this.client.query('ROLLBACK')
    } catch {
      // Closing the connection below rolls the transaction back on the server just the same.
    } finally {
      await this.client.end().catch(() => {})
    }
  }
}

async function openWriter(settings: PostgresSettings, target: WriteTarget): Promise<Writer> {
  validateTarget(target)
  const s = resolve(settings)
  const client = await connect(s)
  try {
    await client.query('BEGIN')
    const table = qualifiedName(s)
    const names = target.columns.map((c) => ident(c.name)).join(', ')
    const existing = await findRelation(client, s)
    const finish: string[] = []
    let staged = false
    if (!existing) {
      const schemaFound = await client.query('SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1', [s.schema])
      if (schemaFound.rowCount === 0) await client.query(`CREATE SCHEMA ${ident(s.schema)}`)
      await client.query(createTableSql(s, target))
      // A new table is invisible to others until COMMIT: append and replace can load it directly.
      staged = target.mode === 'merge'
    } else {
      if (existing.kind !== 'r' && existing.kind !== 'p') throw new ConnectorConfigError('table', `${describeTable(s)} is not a table`)
      const present = new Set(existing.schema.columns.map((c) => c.name))
      const missing = target.columns.filter((c) => !present.has(c.name)).map((c) => `"${c.name}"`)
      if (missing.length > 0) throw new ConnectorConfigError('table', `${describeTable(s)} has no column ${missing.join(', ')}`)
      if (target.mode === 'merge' && !existing.uniqueKeys.some((key) => sameSet(key, target.primaryKey))) {
        throw new ConnectorConfigError('table', `merge needs a primary key or unique index on (${target.primaryKey.join(', ')}) in ${describeTable(s)}`)
      }
      // replace stages too: the table keeps serving its old rows until the swap at commit, and
      // keeps its definition, grants, indexes and dependent views (a drop-and-rename would not).
      staged = target.mode !== 'append'
    }
    if (staged) {
      await client.query(`CREATE TEMP TABLE tessera_stage ON COMMIT DROP AS SELECT ${names} FROM ${table} WITH NO DATA`)
      if (target.mode === 'merge') {
        // Arrival order, so that of several rows with one key in a run the last one wins.
        await client.query(`ALTER TABLE ${STAGE} ADD COLUMN ${ident(STAGE_ORDER)} bigint GENERATED ALWAYS AS IDENTITY`)
        const key = target.primaryKey.map(ident).join(', ')
        const others = target.columns.filter((c) => !target.primaryKey.includes(c.name)).map((c) => `${ident(c.name)} = EXCLUDED.${ident(c.name)}`)
        finish.push(
          `INSERT INTO ${table} (${names}) SELECT DISTINCT ON (${key}) ${names} FROM ${STAGE} ORDER BY ${key}, ${ident(STAGE_ORDER)} DESC
           ON CONFLICT (${key}) ${others.length > 0 ? `DO UPDATE SET ${others.join(', ')}` : 'DO NOTHING'}`,
        )
      } else {
        finish.push(`TRUNCATE ${table}`, `INSERT INTO ${table} (${names}) SELECT ${names} FROM ${STAGE}`)
      }
    }
    const copy = client.query(copyFrom(`COPY ${staged ? STAGE : table} (${names}) FROM STDIN WITH (FORMAT csv)`))
    return new PostgresWriter(client, copy, csvEncoder(target.columns), finish, target.mode === 'merge' ? target.primaryKey : [])
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    await client.end().catch(() => {})
    throw error
  }
}

// --- The definition ------------------------------------------------------------------------------

/** PostgreSQL 12 and later, as a source (cursor reads) and a destination (COPY in one transaction). */
export const postgresConnector: RoleAwareConnector<PostgresSettings> = {
  id: 'postgres',
  aliases: ['postgresql'],
  name: 'PostgreSQL',
  role: 'both',
  category: 'database',
  supportedVersions: ['12', '13', '14', '15', '16', '17'],
  settingsSchema,
  secretFields: ['password'],

  async check(settings, _context, role?: CheckRole) {
    const s = resolve(settings)
    await withClient(s, async (client) => {
      await client.query('SELECT 1')
      if (role !== 'source') return
      await requireRelation(client, s)
      try {
        await client.query(`SELECT * FROM ${qualifiedName(s)} LIMIT 0`)
      } catch (error) {
        if ((error as { code?: string }).code === '42501') throw new ConnectionError(`user "${s.user}" may not read ${describeTable(s)}`)
        throw error
      }
    })
  },

  async discover(settings) {
    const s = resolve(settings)
    return withClient(s, async (client) => (await requireRelation(client, s)).schema)
  },

  read(settings, _context, options) {
    return read(settings, options)
  },

  openWriter(settings, _context, target) {
    return openWriter(settings, target)
  },
}
