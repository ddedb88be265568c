import type { Column, ColumnType, Row } from '../connector.js'

/** Raw values of one record: CSV text (null for an unquoted empty field) or NDJSON values. */
export type RawRecord = Map<string, unknown>

/** The records of one file, streamed. */
export interface RecordStream {
  /** Column names known before reading (a CSV header), in order; NDJSON learns them as it goes. */
  names(): string[]
  records: AsyncGenerator<RawRecord>
}

/** Turns rows into the text appended to a file. */
export type Encoder = (rows: readonly Row[]) => string

/** An integer a file holds with more digits than a double keeps; parsing preserves them. */
export class ExactInteger {
  constructor(readonly digits: string) {}
}

/** Settings every file connector has; a format may add its own. */
export type FileSettings = {
  /** Relative to `<dataDir>/files/`; must stay inside it. */
  path: string
}

/**
 * What one file format knows: how its settings look, how to stream its records, the type of
 * a raw value, and how rows are written. Everything else a file connector does (locating the
 * file, inferring the schema, converting values, cursors, atomic writes) is the same for all.
 */
export interface FileFormat<Settings extends FileSettings> {
  id: 'csv' | 'ndjson'
  /** The connector's display name. */
  name: string
  /** JSON-schema properties of the format's own settings (besides `path`). */
  settingsProperties: Record<string, unknown>
  /** Throws ConnectorConfigError naming a setting the format cannot use. */
  checkSettings(settings: Settings): void
  records(file: string, settings: Settings): RecordStream
  /** The narrowest type of one non-null raw value. */
  typeOf(value: unknown): ColumnType
  /** The type of a column whose samples mix types that do not widen into each other. */
  mixedType: ColumnType
  /** A raw value of a string column as the string a Row holds. */
  asString(value: unknown): unknown
  encoder(columns: readonly Column[], settings: Settings): Encoder
  /**
   * The header line a new file starts with, if the format has one, and the column names an
   * existing file declares (appended rows must line up with them).
   */
  header?: {
    text(columns: readonly Column[], settings: Settings): string | undefined
    existing(file: string, settings: Settings): Promise<string[] | undefined>
  }
}

/** JSON text of a value, with bigints as their digits. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null'
}
