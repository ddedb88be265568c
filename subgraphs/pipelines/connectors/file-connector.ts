/**
 * CSV and NDJSON files under `<dataDir>/files/`, as sources and destinations.
 *
 * A file has no schema and no index: `discover` infers column types from the first rows, and
 * every read (incremental ones too) scans the whole file, streaming. Writes go to a temporary
 * file next to the target that is renamed over it on commit, so a reader sees the old file or
 * the new one, never half of one, and an aborted run leaves the original untouched. What
 * differs between formats lives in files/<format>-format.ts.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import type { CheckRole, RoleAwareConnector } from './check-role.js'
import {
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
import { BOOLEAN_TEXT, csvFormat, NUMBER_TEXT } from './files/csv-format.js'
import { ExactInteger, type Encoder, type FileFormat, type FileSettings } from './files/file-format.js'
import { ndjsonFormat } from './files/ndjson-format.js'
import { INTEGER_TEXT, integerValue } from './integer-value.js'
import { parseTimestamp } from './parse-timestamp.js'
import { resolveInside, resolveLexically } from './resolve-inside.js'
import { batchSizeOf, validateTarget } from './validate-target.js'

export type { CsvSettings } from './files/csv-format.js'
export type { NdjsonSettings } from './files/ndjson-format.js'

/** How many rows `discover` (and every read) looks at to settle the column types. */
export const INFERENCE_ROWS = 1000

const PATH_SCHEMA = { type: 'string', minLength: 1, maxLength: 1024, description: "Path relative to the data folder's files/ folder" }

/**
 * The file a setting names. Without `create`, a missing files folder is no error (there is
 * simply no file yet); with it, the folders are made.
 */
async function locate(settings: FileSettings, context: ConnectorContext, create: boolean): Promise<string> {
  if (typeof settings.path !== 'string' || settings.path === '') throw new ConnectorConfigError('path', 'is required')
  const base = path.join(context.dataDir, 'files')
  if (create) await mkdir(base, { recursive: true })
  // Without the folder there are no symlinks to follow; the lexical check still refuses escapes.
  if (!existsSync(base)) return resolveLexically(base, settings.path, 'path')
  const file = await resolveInside(base, settings.path, 'path')
  if (create) await mkdir(path.dirname(file), { recursive: true })
  return file
}

async function requireFile(settings: FileSettings, context: ConnectorContext): Promise<string> {
  const file = await locate(settings, context, false)
  const info = await stat(file).catch(() => undefined)
  if (!info) throw new ConnectorConfigError('path', `there is no file "${settings.path}"`)
  if (!info.isFile()) throw new ConnectorConfigError('path', `"${settings.path}" is not a file`)
  return file
}

// --- Types -----------------------------------------------------------------------------------

/** The type two samples share: integers widen to numbers, timestamps to strings; any other mix is the format's. */
function widen<S extends FileSettings>(format: FileFormat<S>, a: ColumnType, b: ColumnType): ColumnType {
  if (a === b) return a
  const pair = new Set([a, b])
  if (pair.has('integer') && pair.has('number')) return 'number'
  if (pair.has('timestamp') && pair.has('string')) return 'string'
  return format.mixedType
}

async function inferSchema<S extends FileSettings>(format: FileFormat<S>, file: string, settings: S): Promise<StreamSchema> {
  const stream = format.records(file, settings)
  const types = new Map<string, ColumnType>()
  let seen = 0
  for await (const record of stream.records) {
    for (const [name, value] of record) {
      if (value === null || value === undefined) continue
      const type = format.typeOf(value)
      const before = types.get(name)
      types.set(name, before ? widen(format, before, type) : type)
    }
    if (++seen >= INFERENCE_ROWS) break
  }
  // A column with only nulls in the sample could hold anything: string is the type every value fits.
  // Nullable always: a sample cannot prove that a later row has no empty field.
  const columns: Column[] = stream.names().map((name) => ({ name, type: types.get(name) ?? 'string', nullable: true }))
  return { name: settings.path, columns, primaryKey: [] }
}

type Converter = (value: unknown) => unknown

function mismatch(column: Column, value: unknown): ConnectorConfigError {
  const shown = value instanceof ExactInteger ? value.digits : JSON.stringify(value)
  return new ConnectorConfigError(
    'path',
    `column "${column.name}": ${shown?.slice(0, 60)} is not ${column.type} (the type inferred from the first ${INFERENCE_ROWS} rows)`,
  )
}

/** Converts a non-null raw value to the column's type, in the Row conventions. */
function converter<S extends FileSettings>(format: FileFormat<S>, column: Column): Converter {
  const fail = (value: unknown): never => {
    throw mismatch(column, value)
  }
  switch (column.type) {
    case 'integer':
      return (v) => {
        if (typeof v === 'number' && Number.isInteger(v)) return v
        if (v instanceof ExactInteger) return integerValue(v.digits)
        return typeof v === 'string' && INTEGER_TEXT.test(v) ? integerValue(v) : fail(v)
      }
    case 'number':
      return (v) => {
        if (typeof v === 'number') return v
        if (v instanceof ExactInteger) return Number(v.digits)
        return typeof v === 'string' && NUMBER_TEXT.test(v) ? Number(v) : fail(v)
      }
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : typeof v === 'string' && BOOLEAN_TEXT.test(v) ? v.toLowerCase() === 'true' : fail(v))
    case 'timestamp':
      return (v) => (typeof v === 'string' ? (parseTimestamp(v) ?? fail(v)) : v instanceof Date ? v : fail(v))
    case 'json':
      return (v) => (v instanceof ExactInteger ? v.digits : v)
    case 'string':
      return format.asString
  }
}

/** Orders two non-null values of a column type (cursor comparisons). */
function compare(type: ColumnType, a: unknown, b: unknown): number {
  switch (type) {
    case 'integer':
      if (typeof a === 'number' && typeof b === 'number') return a - b
      return BigInt(a as string | number) < BigInt(b as string | number) ? -1 : BigInt(a as string | number) > BigInt(b as string | number) ? 1 : 0
    case 'number':
      return (a as number) - (b as number)
    case 'timestamp':
      return (a as Date).getTime() - (b as Date).getTime()
    case 'boolean':
      return Number(a) - Number(b)
    default: {
      const x = typeof a === 'string' ? a : JSON.stringify(a)
      const y = typeof b === 'string' ? b : JSON.stringify(b)
      return x < y ? -1 : x > y ? 1 : 0
    }
  }
}

// --- Reading -------------------------------------------------------------------------------------

async function* read<S extends FileSettings>(format: FileFormat<S>, settings: S, context: ConnectorContext, options: ReadOptions): AsyncGenerator<Row[]> {
  const batchSize = batchSizeOf(options)
  const file = await requireFile(settings, context)
  const schema = await inferSchema(format, file, settings)
  const columns = schema.columns.map((column) => ({ column, convert: converter(format, column) }))
  let cursor: { column: Column; after: unknown; last: unknown } | undefined
  if (options.cursor) {
    const { column: name, after } = options.cursor
    const column = schema.columns.find((c) => c.name === name)
    if (!column) throw new ConnectorConfigError('cursor', `${settings.path} has no column "${name}"`)
    let start: unknown = null
    if (after !== null && after !== undefined) {
      try {
        // A saved cursor comes back as JSON (a Date as its ISO text): convert it like file data.
        start = converter(format, column)(after instanceof Date ? after.toISOString() : after)
      } catch {
        throw new ConnectorConfigError('cursor', `the cursor value ${String(after)} is not ${column.type}, the type of "${name}"`)
      }
    }
    cursor = { column, after: start, last: null }
  }
  const stream = format.records(file, settings)
  let batch: Row[] = []
  let number = 0
  for await (const record of stream.records) {
    number++
    const row: Row = {}
    for (const { column, convert } of columns) {
      const raw = record.get(column.name)
      row[column.name] = raw === null || raw === undefined ? null : convert(raw)
    }
    if (cursor) {
      const value = row[cursor.column.name]
      // A file has no index: an incremental read scans it all and keeps the rows past the cursor.
      // Rows without a cursor value cannot be placed in cursor order, so they are left out.
      if (value === null || (cursor.after !== null && compare(cursor.column.type, value, cursor.after) <= 0)) continue
      // The contract promises cursor order, and a run saves the last row's value as the next
      // cursor; a file out of order would make that skip rows, so it is refused instead.
      if (cursor.last !== null && compare(cursor.column.type, value, cursor.last) < 0) {
        throw new ConnectorConfigError(
          'cursor',
          `${settings.path} is not sorted by "${cursor.column.name}" (record ${number}); incremental reads of a file need it in cursor order`,
        )
      }
      cursor.last = value
    }
    batch.push(row)
    if (batch.length === batchSize) {
      options.signal?.throwIfAborted()
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

// --- Writing ---------------------------------------------------------------------------------------

async function endsWithNewline(file: string, size: number): Promise<boolean> {
  const handle = await open(file, 'r')
  try {
    const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1)
    return buffer[0] === 0x0a
  } finally {
    await handle.close()
  }
}

class FileWriter implements Writer {
  #closed = false

  constructor(
    private readonly handle: FileHandle,
    private readonly temp: string,
    private readonly file: string,
    private readonly encode: Encoder,
  ) {}

  async write(rows: Row[]): Promise<void> {
    if (this.#closed) throw new Error('the writer is already committed or aborted')
    if (rows.length > 0) await this.handle.write(this.encode(rows))
  }

  async commit(): Promise<void> {
    if (this.#closed) throw new Error('the writer is already committed or aborted')
    try {
      // On disk before the rename, so a crash cannot leave the new name on an empty file.
      await this.handle.sync()
      await this.handle.close()
      await rename(this.temp, this.file)
      this.#closed = true
    } catch (error) {
      await this.abort()
      throw error
    }
  }

  async abort(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.handle.close().catch(() => {})
    await rm(this.temp, { force: true })
  }
}

async function openWriter<S extends FileSettings>(format: FileFormat<S>, settings: S, context: ConnectorContext, target: WriteTarget): Promise<Writer> {
  validateTarget(target)
  if (target.mode === 'merge') {
    throw new ConnectorConfigError('mode', 'a file cannot be merged by key without loading all of it; use replace or append')
  }
  format.checkSettings(settings)
  const file = await locate(settings, context, true)
  const info = await stat(file).catch(() => undefined)
  if (info && !info.isFile()) throw new ConnectorConfigError('path', `"${settings.path}" is not a file`)
  // Same folder as the target: rename is atomic only within one file system.
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${context.runId ?? randomUUID()}.tmp`)
  let header = format.header?.text(target.columns, settings)
  let separate = false
  if (target.mode === 'append' && info && info.size > 0) {
    if (header !== undefined) {
      const names = await format.header?.existing(file, settings)
      const wanted = target.columns.map((c) => c.name)
      if (names && names.join('\u0000') !== wanted.join('\u0000')) {
        throw new ConnectorConfigError('path', `${settings.path} has columns (${names.join(', ')}), the rows to append have (${wanted.join(', ')})`)
      }
      header = undefined
    }
    separate = !(await endsWithNewline(file, info.size))
    // Append to a copy: the original stays as it was until the commit renames the copy over it.
    await copyFile(file, temp)
  }
  const handle = await open(temp, target.mode === 'append' && info && info.size > 0 ? 'a' : 'wx')
  try {
    if (separate) await handle.write('\n')
    if (header !== undefined) await handle.write(header)
  } catch (error) {
    await handle.close().catch(() => {})
    await rm(temp, { force: true })
    throw error
  }
  return new FileWriter(handle, temp, file, format.encoder(target.columns, settings))
}

// --- The definitions -----------------------------------------------------------------------------

const TEMP_FILE = /^\..+\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.tmp$/
const MAX_SCANNED = 100_000

/**
 * Removes the temporary files writers left under `DATA_DIR/pipelines/files` (a process killed
 * mid-run leaves its whole output there), except those of runs `isLive` says are still being
 * written. Returns the paths removed.
 */
export async function removeTempFiles(context: ConnectorContext, isLive: (runId: string) => boolean): Promise<string[]> {
  const removed: string[] = []
  const folders = [path.join(context.dataDir, 'files')]
  let scanned = 0
  // Breadth-first with an explicit queue and a bound: a huge tree is not walked forever.
  while (folders.length && scanned < MAX_SCANNED) {
    const folder = folders.shift()!
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      scanned++
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) folders.push(full)
      const match = entry.isFile() ? TEMP_FILE.exec(entry.name) : null
      if (match && !isLive(match[1]!)) {
        await rm(full, { force: true })
        removed.push(full)
      }
    }
  }
  return removed
}

/** A file connector for one format: a source (streaming, inferred types) and a destination (atomic rename). */
export function fileConnector<S extends FileSettings>(format: FileFormat<S>): RoleAwareConnector<S> {
  return {
    id: format.id,
    name: format.name,
    role: 'both',
    // Merging by key would need the whole file in memory or an index a file does not have.
    writeModes: ['replace', 'append'],
    // The document knows three categories. Files are batch tables loaded and unloaded whole
    // (replace or append, no transactions, no change feed), which is what a warehouse's
    // staging area is; they are neither a database nor a stream.
    category: 'warehouse',
    settingsSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: { path: PATH_SCHEMA, ...format.settingsProperties },
    },
    secretFields: [],

    async check(settings, context, role?: CheckRole) {
      format.checkSettings(settings)
      if (role === 'source') {
        const file = await requireFile(settings, context)
        // Opening proves it readable; a header-only or empty file is still a valid (empty) source.
        const handle = await open(file, 'r')
        await handle.close()
        return
      }
      const file = await locate(settings, context, false)
      const info = await stat(file).catch(() => undefined)
      if (info && !info.isFile()) throw new ConnectorConfigError('path', `"${settings.path}" is not a file`)
    },

    async discover(settings, context) {
      return inferSchema(format, await requireFile(settings, context), settings)
    },

    read(settings, context, options) {
      return read(format, settings, context, options)
    },

    openWriter(settings, context, target) {
      return openWriter(format, settings, context, target)
    },
  }
}

/** CSV files: `delimiter` (default `,`), `header` (default true); empty unquoted fields are NULL. */
export const csvConnector = fileConnector(csvFormat)

/** NDJSON files: one JSON object per line; integers beyond 2^53 keep every digit. */
export const ndjsonConnector = fileConnector(ndjsonFormat)
