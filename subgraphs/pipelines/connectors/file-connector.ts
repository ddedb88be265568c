/**
 * CSV and NDJSON files under `<dataDir>/files/`, as sources and destinations.
 *
 * A file has no schema and no index: `discover` infers column types from the first rows, and
 * every read (incremental ones too) scans the whole file, streaming. Writes go to a temporary
 * file next to the target that is renamed over it on commit, so a reader sees the old file or
 * the new one, never half of one, and an aborted run leaves the original untouched.
 *
 * @module
 */
import { randomUUID } from 'node:crypto'
import { createReadStream, existsSync } from 'node:fs'
import { copyFile, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify/sync'
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
import { INTEGER_TEXT, integerValue } from './integer-value.js'
import { parseTimestamp } from './parse-timestamp.js'
import { resolveInside, resolveLexically } from './resolve-inside.js'
import { batchSizeOf, validateTarget } from './validate-target.js'

/** Settings of a CSV file source or destination. */
export type CsvSettings = {
  /** Relative to `<dataDir>/files/`; must stay inside it. */
  path: string
  /** One character; default `,`. */
  delimiter?: string
  /** Whether the first line names the columns; default true. Without one, columns are `column_1`, `column_2`… */
  header?: boolean
}

/** Settings of an NDJSON (one JSON object per line) file source or destination. */
export type NdjsonSettings = {
  /** Relative to `<dataDir>/files/`; must stay inside it. */
  path: string
}

/** The file formats this module reads and writes. */
export type FileFormat = 'csv' | 'ndjson'

type FileSettings = CsvSettings

/** How many rows `discover` (and every read) looks at to settle the column types. */
export const INFERENCE_ROWS = 1000

const PATH_SCHEMA = { type: 'string', minLength: 1, maxLength: 1024, description: 'Path relative to the data folder\'s files/ folder' }

function settingsSchema(format: FileFormat): Record<string, unknown> {
  const csv = {
    delimiter: { type: 'string', minLength: 1, maxLength: 1, default: ',' },
    header: { type: 'boolean', default: true },
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    required: ['path'],
    properties: { path: PATH_SCHEMA, ...(format === 'csv' ? csv : {}) },
  }
}

interface CsvOptions {
  delimiter: string
  header: boolean
}

function csvOptions(settings: FileSettings): CsvOptions {
  const delimiter = settings.delimiter ?? ','
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new ConnectorConfigError('delimiter', 'must be one character other than a double quote or a line break')
  }
  return { delimiter, header: settings.header ?? true }
}

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

// --- Parsing ---------------------------------------------------------------------------------

/** Raw values of one record: CSV text (null for an unquoted empty field) or NDJSON values. */
type RawRecord = Map<string, unknown>

interface RecordStream {
  /** Column names known before reading (a CSV header), in order; NDJSON learns them as it goes. */
  names(): string[]
  records: AsyncGenerator<RawRecord>
}

function headerNames(fields: (string | null)[], file: string): string[] {
  const names = fields.map((f, i) => (f === null || f === '' ? `column_${i + 1}` : f))
  const seen = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) throw new ConnectorConfigError('path', `${file}: the header names column "${name}" twice`)
    seen.add(name)
  }
  return names
}

/**
 * A record's fields with every unquoted empty field as NULL; a quoted one ("") stays the empty
 * string, as in PostgreSQL's CSV. csv-parse's per-field `cast` hook could tell them apart too,
 * but builds a context object per field and makes parsing ten times slower; the record's raw
 * text tells it for the few records that have an empty field at all.
 */
function withNulls(raw: string, fields: string[]): (string | null)[] {
  if (!fields.includes('')) return fields
  const out: (string | null)[] = [...fields]
  let pos = raw.charCodeAt(0) === 0xfeff ? 1 : 0
  for (let i = 0; i < fields.length; i++) {
    if (raw.charCodeAt(pos) === 34 /* " */) {
      // Skip to the closing quote; a doubled quote is an escaped one inside the field.
      pos++
      for (;;) {
        const close = raw.indexOf('"', pos)
        if (close < 0) {
          pos = raw.length
          break
        }
        pos = close + 1
        if (raw.charCodeAt(pos) !== 34) break
        pos++
      }
    } else {
      if (fields[i] === '') out[i] = null
      // A bare field is its value verbatim (no trimming, no escapes).
      pos += fields[i]!.length
    }
    pos++ // the one-character delimiter
  }
  return out
}

function csvRecords(file: string, label: string, options: CsvOptions): RecordStream {
  let names: string[] = []
  async function* records(): AsyncGenerator<RawRecord> {
    const input = createReadStream(file)
    // raw: each record comes with its source text, which tells quoted fields from bare ones.
    const parser = parse({ delimiter: options.delimiter, bom: true, skip_empty_lines: true, raw: true })
    input.on('error', (error) => parser.destroy(error))
    input.pipe(parser)
    let first = true
    try {
      for await (const parsed of parser as AsyncIterable<{ raw: string; record: string[] }>) {
        const fields = withNulls(parsed.raw, parsed.record)
        if (first) {
          first = false
          if (options.header) {
            names = headerNames(fields, label)
            continue
          }
          names = fields.map((_, i) => `column_${i + 1}`)
        }
        const record: RawRecord = new Map()
        for (let i = 0; i < names.length; i++) record.set(names[i]!, fields[i] ?? null)
        yield record
      }
    } catch (error) {
      if (error instanceof ConnectorConfigError) throw error
      throw new ConnectorConfigError('path', `${label} is not valid CSV: ${(error as Error).message}`)
    } finally {
      input.destroy()
      parser.destroy()
    }
  }
  return { names: () => names, records: records() }
}

/** An integer an NDJSON line holds with more digits than a double keeps; parsing preserves them. */
class BigIntegerText {
  constructor(readonly digits: string) {}
}

/** Marks protected integers inside the JSON text; a private-use character no real data starts a string with. */
const BIG = '\uE000'
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** Quotes (with the marker) every bare integer token beyond ±2^53, skipping string contents. */
function protectBigIntegers(text: string): string {
  let out = ''
  let copied = 0
  let i = 0
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === 34 /* " */) {
      i++
      while (i < text.length && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 /* \ */ ? 2 : 1
      i++
      continue
    }
    if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      NUMBER_TOKEN.lastIndex = i
      const token = NUMBER_TOKEN.exec(text)?.[0]
      if (!token) {
        i++
        continue
      }
      if (INTEGER_TEXT.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(copied, i)}"${BIG}${token}"`
        copied = i + token.length
      }
      i += token.length
      continue
    }
    i++
  }
  return out + text.slice(copied)
}

function unwrapNested(value: unknown): unknown {
  if (value instanceof BigIntegerText) return value.digits
  if (Array.isArray(value)) return value.map(unwrapNested)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapNested(v)]))
  return value
}

/** JSON.parse that keeps integers beyond 2^53 exact: top-level ones as BigIntegerText, nested ones as digit strings. */
function parseJsonLine(line: string): unknown {
  // 16 digits in a row is the cheapest sign that a long integer may be present.
  if (!/\d{16}/.test(line)) return JSON.parse(line)
  const parsed: unknown = JSON.parse(protectBigIntegers(line), (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(BIG) ? new BigIntegerText(value.slice(1)) : value,
  )
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return parsed
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v instanceof BigIntegerText ? v : unwrapNested(v)]))
}

function ndjsonRecords(file: string, label: string): RecordStream {
  const names: string[] = []
  const known = new Set<string>()
  async function* records(): AsyncGenerator<RawRecord> {
    const input = createReadStream(file, { encoding: 'utf8' })
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
    let number = 0
    try {
      for await (const raw of lines) {
        number++
        const line = number === 1 && raw.startsWith('\uFEFF') ? raw.slice(1) : raw
        if (line.trim() === '') continue
        let value: unknown
        try {
          value = parseJsonLine(line)
        } catch (error) {
          throw new ConnectorConfigError('path', `${label} line ${number} is not valid JSON: ${(error as Error).message}`)
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          throw new ConnectorConfigError('path', `${label} line ${number} is not a JSON object`)
        }
        const record: RawRecord = new Map(Object.entries(value))
        for (const key of record.keys()) {
          if (!known.has(key)) {
            known.add(key)
            names.push(key)
          }
        }
        yield record
      }
    } finally {
      lines.close()
      input.destroy()
    }
  }
  return { names: () => names, records: records() }
}

function recordStream(format: FileFormat, file: string, settings: FileSettings): RecordStream {
  return format === 'csv' ? csvRecords(file, settings.path, csvOptions(settings)) : ndjsonRecords(file, settings.path)
}

// --- Types -----------------------------------------------------------------------------------

const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const BOOLEAN_TEXT = /^(?:true|false)$/i

/** The narrowest type of one non-null raw value. */
function typeOf(format: FileFormat, value: unknown): ColumnType {
  if (format === 'csv') {
    const text = value as string
    // Leading zeros (zip codes, account numbers) would be lost as numbers: keep them text.
    if (INTEGER_TEXT.test(text)) return /^-?0\d/.test(text) ? 'string' : 'integer'
    if (NUMBER_TEXT.test(text)) return 'number'
    if (BOOLEAN_TEXT.test(text)) return 'boolean'
    return parseTimestamp(text) ? 'timestamp' : 'string'
  }
  if (value instanceof BigIntegerText) return 'integer'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'string') return parseTimestamp(value) ? 'timestamp' : 'string'
  return 'json'
}

/** The type two samples share: integers widen to numbers, timestamps to strings; in NDJSON any other mix is JSON. */
function widen(format: FileFormat, a: ColumnType, b: ColumnType): ColumnType {
  if (a === b) return a
  const pair = new Set([a, b])
  if (pair.has('integer') && pair.has('number')) return 'number'
  if (pair.has('timestamp') && pair.has('string')) return 'string'
  return format === 'csv' ? 'string' : 'json'
}

async function inferSchema(format: FileFormat, file: string, settings: FileSettings): Promise<StreamSchema> {
  const stream = recordStream(format, file, settings)
  const types = new Map<string, ColumnType>()
  let seen = 0
  for await (const record of stream.records) {
    for (const [name, value] of record) {
      if (value === null || value === undefined) continue
      const type = typeOf(format, value)
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
  const shown = value instanceof BigIntegerText ? value.digits : JSON.stringify(value)
  return new ConnectorConfigError('path', `column "${column.name}": ${shown?.slice(0, 60)} is not ${column.type} (the type inferred from the first ${INFERENCE_ROWS} rows)`)
}

/** Converts a non-null raw value to the column's type, in the Row conventions. */
function converter(format: FileFormat, column: Column): Converter {
  const fail = (value: unknown): never => {
    throw mismatch(column, value)
  }
  switch (column.type) {
    case 'integer':
      return (v) => {
        if (typeof v === 'number' && Number.isInteger(v)) return v
        if (v instanceof BigIntegerText) return integerValue(v.digits)
        return typeof v === 'string' && INTEGER_TEXT.test(v) ? integerValue(v) : fail(v)
      }
    case 'number':
      return (v) => {
        if (typeof v === 'number') return v
        if (v instanceof BigIntegerText) return Number(v.digits)
        return typeof v === 'string' && NUMBER_TEXT.test(v) ? Number(v) : fail(v)
      }
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : typeof v === 'string' && BOOLEAN_TEXT.test(v) ? v.toLowerCase() === 'true' : fail(v))
    case 'timestamp':
      return (v) => (typeof v === 'string' ? (parseTimestamp(v) ?? fail(v)) : v instanceof Date ? v : fail(v))
    case 'json':
      return (v) => (v instanceof BigIntegerText ? v.digits : v)
    case 'string':
      return format === 'csv' ? (v) => v : (v) => (typeof v === 'string' ? v : v instanceof BigIntegerText ? v.digits : JSON.stringify(v))
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

async function* read(format: FileFormat, settings: FileSettings, context: ConnectorContext, options: ReadOptions): AsyncGenerator<Row[]> {
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
  const stream = recordStream(format, file, settings)
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

function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null'
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError('an invalid Date cannot be written')
    return value.toISOString()
  }
  if (typeof value === 'object') return jsonText(value)
  return String(value)
}

/** A CSV field: text, or null for SQL NULL (written as a bare empty field; '' is written as ""). */
function csvField(column: Column, value: unknown): string | null {
  if (value === null || value === undefined) return null
  // JSON columns are JSON text in a CSV, so a string value stays distinguishable from an object.
  return column.type === 'json' ? jsonText(value) : scalarText(value)
}

/** An NDJSON value: JSON, with integers beyond 2^53 (strings in a Row) written as bare digits. */
function ndjsonValue(column: Column, value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (column.type === 'integer' && typeof value === 'string' && INTEGER_TEXT.test(value)) return value
  if (typeof value === 'bigint') return value.toString()
  return jsonText(value)
}

type Encoder = (rows: readonly Row[]) => string

function encoder(format: FileFormat, columns: readonly Column[], options: CsvOptions): Encoder {
  if (format === 'ndjson') {
    const keys = columns.map((c) => `${JSON.stringify(c.name)}:`)
    return (rows) => {
      let text = ''
      for (const row of rows) {
        let line = '{'
        for (let i = 0; i < columns.length; i++) line += `${i > 0 ? ',' : ''}${keys[i]!}${ndjsonValue(columns[i]!, row[columns[i]!.name])}`
        text += `${line}}\n`
      }
      return text
    }
  }
  const csv = {
    delimiter: options.delimiter,
    // Quote an empty string so it reads back as '' and not as NULL (the bare empty field).
    cast: { string: (value: string) => (value === '' ? { value, quoted_empty: true } : value) },
  }
  return (rows) => stringify(rows.map((row) => columns.map((c) => csvField(c, row[c.name]))), csv)
}

/** The header of an existing CSV file, to check that appended rows line up with it. */
async function existingHeader(file: string, options: CsvOptions): Promise<string[] | undefined> {
  const stream = csvRecords(file, path.basename(file), options)
  for await (const _ of stream.records) break
  const names = stream.names()
  return names.length > 0 ? names : undefined
}

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

async function openWriter(format: FileFormat, settings: FileSettings, context: ConnectorContext, target: WriteTarget): Promise<Writer> {
  validateTarget(target)
  if (target.mode === 'merge') {
    throw new ConnectorConfigError('mode', 'a file cannot be merged by key without loading all of it; use replace or append')
  }
  const options = format === 'csv' ? csvOptions(settings) : { delimiter: ',', header: false }
  const file = await locate(settings, context, true)
  const info = await stat(file).catch(() => undefined)
  if (info && !info.isFile()) throw new ConnectorConfigError('path', `"${settings.path}" is not a file`)
  // Same folder as the target: rename is atomic only within one file system.
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${context.runId ?? randomUUID()}.tmp`)
  let header = format === 'csv' && options.header
  let separate = false
  if (target.mode === 'append' && info && info.size > 0) {
    if (header) {
      const names = await existingHeader(file, options)
      const wanted = target.columns.map((c) => c.name)
      if (names && names.join('\u0000') !== wanted.join('\u0000')) {
        throw new ConnectorConfigError('path', `${settings.path} has columns (${names.join(', ')}), the rows to append have (${wanted.join(', ')})`)
      }
      header = false
    }
    separate = !(await endsWithNewline(file, info.size))
    // Append to a copy: the original stays as it was until the commit renames the copy over it.
    await copyFile(file, temp)
  }
  const handle = await open(temp, target.mode === 'append' && info && info.size > 0 ? 'a' : 'wx')
  try {
    if (separate) await handle.write('\n')
    if (header) await handle.write(stringify([target.columns.map((c) => c.name)], { delimiter: options.delimiter }))
  } catch (error) {
    await handle.close().catch(() => {})
    await rm(temp, { force: true })
    throw error
  }
  return new FileWriter(handle, temp, file, encoder(format, target.columns, options))
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
export function fileConnector(format: 'csv'): RoleAwareConnector<CsvSettings>
export function fileConnector(format: 'ndjson'): RoleAwareConnector<NdjsonSettings>
export function fileConnector(format: FileFormat): RoleAwareConnector<FileSettings> {
  return {
    id: format,
    name: format === 'csv' ? 'CSV file' : 'NDJSON file',
    role: 'both',
    // Merging by key would need the whole file in memory or an index a file does not have.
    writeModes: ['replace', 'append'],
    // The document knows three categories. Files are batch tables loaded and unloaded whole
    // (replace or append, no transactions, no change feed), which is what a warehouse's
    // staging area is; they are neither a database nor a stream.
    category: 'warehouse',
    settingsSchema: settingsSchema(format),
    secretFields: [],

    async check(settings, context, role?: CheckRole) {
      if (format === 'csv') csvOptions(settings)
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
export const csvConnector = fileConnector('csv')

/** NDJSON files: one JSON object per line; integers beyond 2^53 keep every digit. */
export const ndjsonConnector = fileConnector('ndjson')
