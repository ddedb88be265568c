/**
 * The connector contract, after the Airbyte protocol (spec / check / discover / read) with dlt's
 * write dispositions: every connector declares its settings as a JSON schema, can check a
 * connection, discover a stream's columns, read in bounded batches and write in batches that
 * become visible all at once on commit.
 */

/** What a connector can be in a pipeline. */
export type ConnectorRole = 'source' | 'destination' | 'both'

/** The document's connector categories, exactly: database, warehouse, streaming. */
export type ConnectorCategory = 'database' | 'warehouse' | 'streaming'

/** Column types rows carry between connectors (values: string, number, boolean, Date, object). */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'json'

export interface Column {
  name: string
  type: ColumnType
  nullable: boolean
}

/** The shape of the one stream (table, file, stream key) a connector's settings point at. */
export interface StreamSchema {
  name: string
  columns: Column[]
  /** Columns that identify a row, when the source knows them (a primary key). */
  primaryKey: string[]
}

/** A record: column name → value (`null` for SQL NULL; integers beyond 2^53 as strings). */
export type Row = Record<string, unknown>

/**
 * How a run writes (dlt's write dispositions): `replace` swaps the whole destination for what
 * the run read; `append` adds rows; `merge` upserts by primary key, so a repeated run leaves
 * no duplicates.
 */
export type WriteMode = 'replace' | 'append' | 'merge'

export interface ReadOptions {
  /** Rows per batch; a reader holds at most about one batch in memory. */
  batchSize: number
  /** Incremental reads: only rows whose `column` is greater than `after` (all when null), in `column` order. */
  cursor?: { column: string; after: unknown }
  signal?: AbortSignal
}

export interface WriteTarget {
  /** Columns of the rows that will be written (after transformations). */
  columns: Column[]
  mode: WriteMode
  /** Key columns; required for `merge`. */
  primaryKey: string[]
}

/**
 * A write in progress. Nothing written is visible to readers of the destination until
 * `commit`; `abort` discards it all, so a failed run leaves the destination as it was.
 */
export interface Writer {
  write(rows: Row[]): Promise<void>
  commit(): Promise<void>
  abort(): Promise<void>
}

/** Raised when a connector cannot reach or log in to its system (CONN_001 / CONN_002). */
export class ConnectionError extends Error {
  override name = 'ConnectionError'
}

/** Raised when settings are well-formed but wrong for the system (a missing table, a bad path). */
export class ConnectorConfigError extends Error {
  override name = 'ConnectorConfigError'
  constructor(
    /** The settings field at fault, e.g. `table`. */
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

/** A connector failure in the interface's terms: the code, the field at fault and why. */
export interface ConnectorFailure {
  /** CONN_001 (source) or CONN_002 (destination) when the system cannot be reached; PIPE_002 for wrong settings. */
  code: 'CONN_001' | 'CONN_002' | 'PIPE_002'
  /** `source`, `destination`, or the settings field under one of them (`destination.table`). */
  field: string
  message: string
}

/** Classifies a connector error on one side of a pipeline; undefined for anything else (a fault). */
export function connectorFailure(error: unknown, side: 'source' | 'destination'): ConnectorFailure | undefined {
  if (error instanceof ConnectorConfigError) return { code: 'PIPE_002', field: `${side}.${error.field}`, message: error.message }
  if (error instanceof ConnectionError)
    return { code: side === 'source' ? 'CONN_001' : 'CONN_002', field: side, message: `Connection to ${side} failed: ${error.message}` }
  return undefined
}

/** What a connector is handed besides its settings. */
export interface ConnectorContext {
  /** Folder that file and embedded-warehouse paths are resolved in; nothing outside it is touched. */
  dataDir: string
  /** The run writing, if any: temporary files carry its id, so a dead run's are recognised. */
  runId?: string
}

/** A connector type. `S` is its settings object (validated against `settingsSchema` first). */
export interface ConnectorDefinition<S extends Record<string, unknown> = Record<string, unknown>> {
  /** The `type` value in a pipeline's source/destination, e.g. `postgres`. */
  id: string
  /** Other accepted `type` values, e.g. `postgresql`. */
  aliases?: readonly string[]
  name: string
  role: ConnectorRole
  category: ConnectorCategory
  supportedVersions?: readonly string[]
  /** JSON schema (draft-07) of the settings, without `type`; validated before any use. */
  settingsSchema: Record<string, unknown>
  /** Settings that are secrets: encrypted at rest, never returned (redacted). */
  secretFields: readonly string[]
  /** Write modes the connector supports; all of them when absent. */
  writeModes?: readonly WriteMode[]
  /**
   * Connects and authenticates; throws ConnectionError or ConnectorConfigError. With a role,
   * also checks what that side needs (a source's table or file must exist; a destination's
   * is created on the first write).
   */
  check(settings: S, context: ConnectorContext, role?: 'source' | 'destination'): Promise<void>
  /** The stream's columns and key (sources; destinations that exist may answer too). */
  discover(settings: S, context: ConnectorContext): Promise<StreamSchema>
  /** Reads in batches of at most `batchSize` rows (sources). */
  read?(settings: S, context: ConnectorContext, options: ReadOptions): AsyncIterable<Row[]>
  /** Opens a write (destinations); creates the destination when it does not exist. */
  openWriter?(settings: S, context: ConnectorContext, target: WriteTarget): Promise<Writer>
}
