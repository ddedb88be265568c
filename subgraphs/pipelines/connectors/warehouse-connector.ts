/**
 * The embedded warehouse: DuckDB database files under `<dataDir>/warehouse/<warehouse>/`.
 * Writes go through DuckDB's appender in data chunks, inside one transaction per run; reads
 * stream a query result chunk by chunk.
 *
 * DuckDB lets one process at a time open a file, so every check, read and write opens the
 * database and closes it when done: between runs the file is free for other processes.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBTimestampTZValue,
  JSDuckDBValueConverter,
  TIMESTAMPTZ,
  VARCHAR,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api'
import type { CheckRole, RoleAwareConnector } from './check-role.js'
import {
  ConnectionError,
  ConnectorConfigError,
  type Column,
  type ColumnType,
  type ConnectorContext,
  type ReadOptions,
  type Row,
  type StreamSchema,
  type WriteTarget,
  type Writer,
} from './connector.js'
import { INTEGER_TEXT, integerValue } from './integer-value.js'
import { parseTimestamp } from './parse-timestamp.js'
import { resolveInside, resolveLexically } from './resolve-inside.js'
import { assertKeys, batchSizeOf, validateTarget } from './validate-target.js'

/** Settings of the embedded warehouse; the names follow a cloud warehouse's (account, warehouse, database). */
export type WarehouseSettings = {
  /** Only `local` (or nothing): there is no remote account to reach. */
  account?: string
  /** Folder under `<dataDir>/warehouse/`. */
  warehouse: string
  /** Database file name, without `.duckdb`. */
  database: string
  schema?: string
  table: string
}

/** Folder and file names: no separators, no dots, so nothing can leave the data folder. */
const NAME = /^[A-Za-z0-9_-]{1,63}$/
const NAME_SCHEMA = { type: 'string', pattern: NAME.source }

const settingsSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: ['warehouse', 'database', 'table'],
  properties: {
    account: { type: 'string', description: 'Only "local", the embedded warehouse' },
    warehouse: { ...NAME_SCHEMA, description: 'Folder of database files' },
    database: { ...NAME_SCHEMA, description: 'Database file (without .duckdb)' },
    schema: { type: 'string', minLength: 1, maxLength: 255, default: 'main' },
    table: { type: 'string', minLength: 1, maxLength: 255 },
  },
}

interface Target {
  file: string
  schema: string
  table: string
  label: string
}

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

const qualifiedName = (t: Target) => `${ident(t.schema)}.${ident(t.table)}`

/** Validates the names and finds the database file; `create` makes its folder. */
async function locate(settings: WarehouseSettings, context: ConnectorContext, create: boolean): Promise<Target> {
  if (settings.account !== undefined && settings.account !== 'local') {
    throw new ConnectorConfigError('account', 'only the embedded warehouse "local" is available')
  }
  for (const field of ['warehouse', 'database'] as const) {
    if (typeof settings[field] !== 'string' || !NAME.test(settings[field])) {
      throw new ConnectorConfigError(field, 'must be 1 to 63 letters, digits, "_" or "-"')
    }
  }
  const base = path.join(context.dataDir, 'warehouse')
  const relative = path.join(settings.warehouse, `${settings.database}.duckdb`)
  if (create) await mkdir(base, { recursive: true })
  // resolveInside also refuses a warehouse folder that is a symlink to elsewhere.
  const file = existsSync(base) ? await resolveInside(base, relative, 'warehouse') : resolveLexically(base, relative, 'warehouse')
  if (create) await mkdir(path.dirname(file), { recursive: true })
  const schema = settings.schema ?? 'main'
  return { file, schema, table: settings.table, label: `table ${schema}.${settings.table} in warehouse ${settings.warehouse}/${settings.database}` }
}

interface Session {
  instance: DuckDBInstance
  connection: DuckDBConnection
}

/**
 * Opens the database file. DuckDB's own instance cache hands every caller in this process the
 * same database while any of them has it open: two separate instances on one file would each
 * think they own it (file locks do not separate threads of one process) and the later commit
 * would overwrite the earlier. The cache holds no database once the last user has closed it,
 * so the file is free for other processes between runs. Readers open it read-write as well,
 * since one cached database cannot be opened with two configurations.
 */
async function open(target: Target): Promise<Session> {
  let instance: DuckDBInstance
  try {
    instance = await DuckDBInstance.fromCache(target.file)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    // Another process holding the file is the embedded warehouse's "cannot connect".
    if (/lock/i.test(message)) throw new ConnectionError(`the warehouse database is in use by another process: ${message}`)
    throw new ConnectorConfigError('database', `cannot open the warehouse database: ${message}`)
  }
  try {
    return { instance, connection: await instance.connect() }
  } catch (error) {
    instance.closeSync()
    throw error
  }
}

function close(session: Session): void {
  try {
    session.connection.closeSync()
  } finally {
    session.instance.closeSync()
  }
}

// --- Catalog -----------------------------------------------------------------------------------

function columnType(dataType: string): ColumnType {
  const t = dataType.toUpperCase()
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/.test(t)) return 'integer'
  if (/^(FLOAT|REAL|DOUBLE)$/.test(t) || t.startsWith('DECIMAL')) return 'number'
  if (t === 'BOOLEAN') return 'boolean'
  if (t === 'DATE' || t.startsWith('TIMESTAMP')) return 'timestamp'
  // Nested values come out as JSON: objects and arrays are what a Row carries for them.
  if (t === 'JSON' || t.startsWith('STRUCT') || t.startsWith('MAP') || t.startsWith('UNION') || t.endsWith(']')) return 'json'
  return 'string'
}

interface Table {
  schema: StreamSchema
  dataTypes: Map<string, string>
}

async function findTable(connection: DuckDBConnection, target: Target): Promise<Table | undefined> {
  const columns = (
    await connection.runAndReadAll(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_catalog = current_database() AND table_schema = $1 AND table_name = $2
        ORDER BY ordinal_position`,
      [target.schema, target.table],
    )
  ).getRowObjectsJS() as { column_name: string; data_type: string; is_nullable: string }[]
  if (columns.length === 0) return undefined
  const keys = (
    await connection.runAndReadAll(
      `SELECT constraint_column_names AS names FROM duckdb_constraints()
        WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2 AND constraint_type = 'PRIMARY KEY'`,
      [target.schema, target.table],
    )
  ).getRowObjectsJS() as { names: string[] }[]
  return {
    schema: {
      name: `${target.schema}.${target.table}`,
      columns: columns.map((c) => ({ name: c.column_name, type: columnType(c.data_type), nullable: c.is_nullable === 'YES' })),
      primaryKey: keys[0]?.names ?? [],
    },
    dataTypes: new Map(columns.map((c) => [c.column_name, c.data_type])),
  }
}

async function requireTable(connection: DuckDBConnection, target: Target): Promise<Table> {
  const table = await findTable(connection, target)
  if (!table) throw new ConnectorConfigError('table', `${target.label} does not exist`)
  return table
}

async function requireFile(settings: WarehouseSettings, context: ConnectorContext): Promise<Target> {
  const target = await locate(settings, context, false)
  if (!existsSync(target.file)) {
    throw new ConnectorConfigError('database', `warehouse database ${settings.warehouse}/${settings.database} does not exist`)
  }
  return target
}

// --- Reading -------------------------------------------------------------------------------------

/** A DuckDB value (after the JS converter) in the Row conventions for its column type. */
function rowValue(type: ColumnType, value: unknown): unknown {
  if (value === null) return null
  switch (type) {
    case 'integer':
      return typeof value === 'bigint' ? integerValue(value.toString()) : value
    case 'json':
      return JSON.parse(value as string)
    default:
      return value
  }
}

/** The select-list item for a column: strings and nested values are converted by DuckDB itself. */
function selectItem(column: Column): string {
  const name = ident(column.name)
  if (column.type === 'string') return `CAST(${name} AS VARCHAR) AS ${name}`
  if (column.type === 'json') return `CAST(to_json(${name}) AS VARCHAR) AS ${name}`
  return name
}

function cursorParameter(value: unknown): DuckDBValue {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return value
  return JSON.stringify(value)
}

async function* read(settings: WarehouseSettings, context: ConnectorContext, options: ReadOptions): AsyncGenerator<Row[]> {
  const batchSize = batchSizeOf(options)
  const target = await requireFile(settings, context)
  const session = await open(target)
  try {
    const { schema } = await requireTable(session.connection, target)
    let sql = `SELECT ${schema.columns.map(selectItem).join(', ')} FROM ${qualifiedName(target)}`
    const values: DuckDBValue[] = []
    if (options.cursor) {
      const { column, after } = options.cursor
      if (!schema.columns.some((c) => c.name === column)) throw new ConnectorConfigError('cursor', `${target.label} has no column "${column}"`)
      if (after !== null && after !== undefined) {
        sql += ` WHERE ${ident(column)} > $1`
        values.push(cursorParameter(after))
      }
      // NULLS FIRST: the last row of the read then carries the highest cursor value.
      sql += ` ORDER BY ${ident(column)} ASC NULLS FIRST`
    } else if (schema.primaryKey.length > 0) {
      sql += ` ORDER BY ${schema.primaryKey.map(ident).join(', ')}`
    }
    // stream(): DuckDB hands over one chunk (about 2048 rows) at a time instead of the whole result.
    const result = await session.connection.stream(sql, values)
    const columns = schema.columns
    let batch: Row[] = []
    for (;;) {
      options.signal?.throwIfAborted()
      const chunk = await result.fetchChunk()
      if (!chunk || chunk.rowCount === 0) break
      for (const values of chunk.convertRows(JSDuckDBValueConverter)) {
        const row: Row = {}
        for (let i = 0; i < columns.length; i++) {
          const column = columns[i]!
          row[column.name] = rowValue(column.type, values[i] ?? null)
        }
        batch.push(row)
        if (batch.length === batchSize) {
          yield batch
          batch = []
        }
      }
    }
    if (batch.length > 0) yield batch
  } finally {
    close(session)
  }
}

// --- Writing ---------------------------------------------------------------------------------------

const DUCKDB_TYPE: Record<ColumnType, string> = {
  integer: 'BIGINT',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
  json: 'JSON',
  string: 'VARCHAR',
}

/** Chunk vector types; JSON is VARCHAR underneath, and the appender takes text for it. */
const CHUNK_TYPE: Record<ColumnType, DuckDBType> = {
  integer: BIGINT,
  number: DOUBLE,
  boolean: BOOLEAN,
  timestamp: TIMESTAMPTZ,
  json: VARCHAR,
  string: VARCHAR,
}

function refuse(column: Column, value: unknown): never {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value === 'object' ? 'an object' : String(value)
  throw new TypeError(`column "${column.name}": cannot write ${shown} as ${column.type}`)
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

function timestampValue(column: Column, date: Date): DuckDBTimestampTZValue {
  const ms = date.getTime()
  if (Number.isNaN(ms)) refuse(column, date)
  return new DuckDBTimestampTZValue(BigInt(ms) * 1000n)
}

type ToDuckDB = (value: unknown) => DuckDBValue

/** How a non-null Row value becomes a DuckDB value for a column; anything that does not fit is refused. */
function toDuckDB(column: Column): ToDuckDB {
  switch (column.type) {
    case 'integer':
      return (v) => {
        if (typeof v === 'bigint') return v
        if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
        if (typeof v === 'string' && INTEGER_TEXT.test(v)) return BigInt(v)
        return refuse(column, v)
      }
    case 'number':
      return (v) => {
        if (typeof v === 'number') return v
        if (typeof v === 'bigint') return Number(v)
        const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN
        return Number.isNaN(n) && v !== 'NaN' ? refuse(column, v) : n
      }
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : refuse(column, v))
    case 'timestamp':
      return (v) => {
        if (v instanceof Date) return timestampValue(column, v)
        if (typeof v === 'number') return timestampValue(column, new Date(v))
        if (typeof v === 'string') return timestampValue(column, parseTimestamp(v) ?? new Date(v))
        return refuse(column, v)
      }
    case 'json':
      return (v) => jsonText(v)
    case 'string':
      return (v) => (typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : typeof v === 'object' ? jsonText(v) : String(v))
  }
}

function columnDefinitions(target: WriteTarget, withConstraints: boolean): string[] {
  const definitions = target.columns.map((c) => `${ident(c.name)} ${DUCKDB_TYPE[c.type]}${withConstraints && !c.nullable ? ' NOT NULL' : ''}`)
  if (withConstraints && target.primaryKey.length > 0) definitions.push(`PRIMARY KEY (${target.primaryKey.map(ident).join(', ')})`)
  return definitions
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048
const STAGE = 'tessera_stage'
const STAGE_ORDER = '__tessera_seq'

class WarehouseWriter implements Writer {
  #closed = false
  #sequence = 0n
  readonly #types: DuckDBType[]
  readonly #converters: { name: string; convert: ToDuckDB }[]

  constructor(
    private readonly session: Session,
    private readonly appender: DuckDBAppender,
    columns: readonly Column[],
    /** Statements that move staged rows into the table, run before COMMIT. */
    private readonly finish: readonly string[],
    private readonly mergeKey: readonly string[],
    /** Whether the appender's table has the arrival-order column last (merge staging). */
    private readonly ordered: boolean,
  ) {
    this.#types = columns.map((c) => CHUNK_TYPE[c.type])
    if (ordered) this.#types.push(BIGINT)
    this.#converters = columns.map((c) => ({ name: c.name, convert: toDuckDB(c) }))
  }

  async write(rows: Row[]): Promise<void> {
    if (this.#closed) throw new Error('the writer is already committed or aborted')
    if (this.mergeKey.length > 0) assertKeys(rows, this.mergeKey)
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      const part = rows.slice(start, start + CHUNK_ROWS)
      const columns: DuckDBValue[][] = this.#converters.map(({ name, convert }) =>
        part.map((row) => {
          const value = row[name]
          return value === null || value === undefined ? null : convert(value)
        }),
      )
      if (this.ordered) columns.push(part.map(() => this.#sequence++))
      const chunk = DuckDBDataChunk.create(this.#types, part.length)
      chunk.setColumns(columns)
      this.appender.appendDataChunk(chunk)
    }
  }

  async commit(): Promise<void> {
    if (this.#closed) throw new Error('the writer is already committed or aborted')
    try {
      this.appender.flushSync()
      this.appender.closeSync()
      for (const sql of this.finish) await this.session.connection.run(sql)
      await this.session.connection.run('COMMIT')
      this.#closed = true
      close(this.session)
    } catch (error) {
      await this.abort()
      throw error
    }
  }

  async abort(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    try {
      try {
        // clear(): closing would flush the pending rows first, for nothing.
        this.appender.clear()
        this.appender.closeSync()
      } catch {
        // Already closed by a failed commit.
      }
      await this.session.connection.run('ROLLBACK')
    } catch {
      // Closing without COMMIT discards the transaction just the same.
    } finally {
      close(this.session)
    }
  }
}

async function openWriter(settings: WarehouseSettings, context: ConnectorContext, target: WriteTarget): Promise<Writer> {
  validateTarget(target)
  const place = await locate(settings, context, true)
  const session = await open(place)
  const { connection } = session
  try {
    await connection.run('BEGIN TRANSACTION')
    await connection.run(`CREATE SCHEMA IF NOT EXISTS ${ident(place.schema)}`)
    const table = qualifiedName(place)
    const names = target.columns.map((c) => ident(c.name)).join(', ')
    const existing = target.mode === 'replace' ? undefined : await findTable(connection, place)
    if (existing) {
      const missing = target.columns.filter((c) => !existing.dataTypes.has(c.name)).map((c) => `"${c.name}"`)
      if (missing.length > 0) throw new ConnectorConfigError('table', `${place.label} has no column ${missing.join(', ')}`)
    } else {
      // replace recreates the table: DuckDB's DDL is transactional, so readers keep the old
      // table until COMMIT and a rollback brings it back; views bind by name and survive.
      await connection.run(`CREATE ${target.mode === 'replace' ? 'OR REPLACE ' : ''}TABLE ${table} (${columnDefinitions(target, true).join(', ')})`)
    }
    // A table made in this transaction, in the run's own column order, takes the appender
    // directly; otherwise rows are staged and moved by SQL, which maps columns by name and casts.
    const direct = !existing && target.mode !== 'merge'
    const finish: string[] = []
    if (!direct) {
      const order = target.mode === 'merge' ? [`${ident(STAGE_ORDER)} BIGINT`] : []
      await connection.run(`CREATE TEMP TABLE ${STAGE} (${[...columnDefinitions(target, false), ...order].join(', ')})`)
      const stage = `temp.main.${STAGE}`
      if (target.mode === 'merge') {
        const key = target.primaryKey.map(ident)
        // Delete-then-insert works with or without a key constraint on the table; within one
        // run the last row for a key wins.
        finish.push(
          `DELETE FROM ${table} WHERE (${key.join(', ')}) IN (SELECT ${key.join(', ')} FROM ${stage})`,
          `INSERT INTO ${table} (${names}) SELECT ${names} FROM ${stage}
             QUALIFY row_number() OVER (PARTITION BY ${key.join(', ')} ORDER BY ${ident(STAGE_ORDER)} DESC) = 1`,
        )
      } else {
        finish.push(`INSERT INTO ${table} (${names}) SELECT ${names} FROM ${stage}`)
      }
      finish.push(`DROP TABLE ${stage}`)
    }
    const appender = direct ? await connection.createAppender(place.table, place.schema) : await connection.createAppender(STAGE, 'main', 'temp')
    return new WarehouseWriter(session, appender, target.columns, finish, target.mode === 'merge' ? target.primaryKey : [], target.mode === 'merge')
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => {})
    close(session)
    throw error
  }
}

// --- The definition ------------------------------------------------------------------------------

/** The embedded DuckDB warehouse, as a destination (appender, one transaction) and a source. */
export const warehouseConnector: RoleAwareConnector<WarehouseSettings> = {
  id: 'warehouse',
  aliases: ['duckdb'],
  name: 'Embedded warehouse (DuckDB)',
  role: 'both',
  category: 'warehouse',
  // The DuckDB release embedded through @duckdb/node-api.
  supportedVersions: ['1.5'],
  settingsSchema,
  secretFields: [],

  async check(settings, context, role?: CheckRole) {
    const place = await locate(settings, context, false)
    if (!existsSync(place.file)) {
      // A destination's file is created by its first write.
      if (role === 'source') throw new ConnectorConfigError('database', `warehouse database ${settings.warehouse}/${settings.database} does not exist`)
      return
    }
    const session = await open(place)
    try {
      await session.connection.run('SELECT 1')
      if (role === 'source') await requireTable(session.connection, place)
    } finally {
      close(session)
    }
  },

  async discover(settings, context) {
    const place = await requireFile(settings, context)
    const session = await open(place)
    try {
      return (await requireTable(session.connection, place)).schema
    } finally {
      close(session)
    }
  },

  read(settings, context, options) {
    return read(settings, context, options)
  },

  openWriter(settings, context, target) {
    return openWriter(settings, context, target)
  },
}
