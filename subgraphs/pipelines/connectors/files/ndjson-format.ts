/**
 * NDJSON files: one JSON object per line; integers beyond 2^53 keep every digit.
 *
 * @module
 */
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { ConnectorConfigError, type Column } from '../connector.js'
import { INTEGER_TEXT } from '../integer-value.js'
import { parseTimestamp } from '../parse-timestamp.js'
import { ExactInteger, jsonText, type FileFormat, type RawRecord, type RecordStream } from './file-format.js'

/** Settings of an NDJSON (one JSON object per line) file source or destination. */
export type NdjsonSettings = {
  /** Relative to `<dataDir>/files/`; must stay inside it. */
  path: string
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
  if (value instanceof ExactInteger) return value.digits
  if (Array.isArray(value)) return value.map(unwrapNested)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapNested(v)]))
  return value
}

/** JSON.parse that keeps integers beyond 2^53 exact: top-level ones as ExactInteger, nested ones as digit strings. */
function parseJsonLine(line: string): unknown {
  // 16 digits in a row is the cheapest sign that a long integer may be present.
  if (!/\d{16}/.test(line)) return JSON.parse(line)
  const parsed: unknown = JSON.parse(protectBigIntegers(line), (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(BIG) ? new ExactInteger(value.slice(1)) : value,
  )
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return parsed
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v instanceof ExactInteger ? v : unwrapNested(v)]))
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

/** An NDJSON value: JSON, with integers beyond 2^53 (strings in a Row) written as bare digits. */
function ndjsonValue(column: Column, value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (column.type === 'integer' && typeof value === 'string' && INTEGER_TEXT.test(value)) return value
  if (typeof value === 'bigint') return value.toString()
  return jsonText(value)
}

/** NDJSON: values keep their JSON types; columns are the keys seen, in order of appearance. */
export const ndjsonFormat: FileFormat<NdjsonSettings> = {
  id: 'ndjson',
  name: 'NDJSON file',
  settingsProperties: {},
  checkSettings: () => {},
  records: (file, settings) => ndjsonRecords(file, settings.path),
  typeOf(value) {
    if (value instanceof ExactInteger) return 'integer'
    if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
    if (typeof value === 'boolean') return 'boolean'
    if (typeof value === 'string') return parseTimestamp(value) ? 'timestamp' : 'string'
    return 'json'
  },
  mixedType: 'json',
  asString: (value) => (typeof value === 'string' ? value : value instanceof ExactInteger ? value.digits : JSON.stringify(value)),
  encoder(columns) {
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
  },
}
