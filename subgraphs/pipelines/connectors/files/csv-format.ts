/**
 * CSV files: `delimiter` (default `,`), `header` (default true). An unquoted empty field is
 * NULL and a quoted one ("") the empty string, as in PostgreSQL's CSV.
 *
 * @module
 */
import { createReadStream } from 'node:fs'
import path from 'node:path'
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify/sync'
import { ConnectorConfigError, type Column, type ColumnType } from '../connector.js'
import { INTEGER_TEXT } from '../integer-value.js'
import { parseTimestamp } from '../parse-timestamp.js'
import { jsonText, type FileFormat, type RawRecord, type RecordStream } from './file-format.js'

/** Settings of a CSV file source or destination. */
export type CsvSettings = {
  /** Relative to `<dataDir>/files/`; must stay inside it. */
  path: string
  /** One character; default `,`. */
  delimiter?: string
  /** Whether the first line names the columns; default true. Without one, columns are `column_1`, `column_2`… */
  header?: boolean
}

/** Text a number column may hold. */
export const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
/** Text a boolean column may hold. */
export const BOOLEAN_TEXT = /^(?:true|false)$/i

interface CsvOptions {
  delimiter: string
  header: boolean
}

function csvOptions(settings: CsvSettings): CsvOptions {
  const delimiter = settings.delimiter ?? ','
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new ConnectorConfigError('delimiter', 'must be one character other than a double quote or a line break')
  }
  return { delimiter, header: settings.header ?? true }
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

/** CSV: every value is text until the column types say otherwise. */
export const csvFormat: FileFormat<CsvSettings> = {
  id: 'csv',
  name: 'CSV file',
  settingsProperties: {
    delimiter: { type: 'string', minLength: 1, maxLength: 1, default: ',' },
    header: { type: 'boolean', default: true },
  },
  checkSettings: (settings) => void csvOptions(settings),
  records: (file, settings) => csvRecords(file, settings.path, csvOptions(settings)),
  typeOf(value) {
    const text = value as string
    // Leading zeros (zip codes, account numbers) would be lost as numbers: keep them text.
    if (INTEGER_TEXT.test(text)) return /^-?0\d/.test(text) ? 'string' : 'integer'
    if (NUMBER_TEXT.test(text)) return 'number'
    if (BOOLEAN_TEXT.test(text)) return 'boolean'
    return parseTimestamp(text) ? 'timestamp' : 'string'
  },
  mixedType: 'string',
  asString: (value) => value,
  encoder(columns, settings) {
    const options = {
      delimiter: csvOptions(settings).delimiter,
      // Quote an empty string so it reads back as '' and not as NULL (the bare empty field).
      cast: { string: (value: string) => (value === '' ? { value, quoted_empty: true } : value) },
    }
    return (rows) =>
      stringify(
        rows.map((row) => columns.map((c) => csvField(c, row[c.name]))),
        options,
      )
  },
  header: {
    text(columns, settings) {
      const options = csvOptions(settings)
      return options.header ? stringify([columns.map((c) => c.name)], { delimiter: options.delimiter }) : undefined
    },
    async existing(file, settings) {
      const options = csvOptions(settings)
      if (!options.header) return undefined
      const stream = csvRecords(file, path.basename(file), options)
      for await (const _ of stream.records) break
      const names = stream.names()
      return names.length > 0 ? names : undefined
    },
  },
}
