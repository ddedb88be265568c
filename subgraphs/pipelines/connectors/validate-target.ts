import { ConnectorConfigError, type ColumnType, type ReadOptions, type WriteTarget } from './connector.js'

const COLUMN_TYPES: ReadonlySet<ColumnType> = new Set(['string', 'integer', 'number', 'boolean', 'timestamp', 'json'])

/**
 * Refuses a write target no destination can honour, before anything is touched: no columns,
 * duplicate or empty names, unknown types or modes, a key naming a column that is not written,
 * and `merge` without a key (it could only append).
 */
export function validateTarget(target: WriteTarget): void {
  if (target.columns.length === 0) throw new ConnectorConfigError('columns', 'a write needs at least one column')
  const names = new Set<string>()
  for (const column of target.columns) {
    if (!column.name) throw new ConnectorConfigError('columns', 'a column has an empty name')
    if (names.has(column.name)) throw new ConnectorConfigError('columns', `column "${column.name}" appears twice`)
    if (!COLUMN_TYPES.has(column.type)) throw new ConnectorConfigError('columns', `column "${column.name}" has unknown type "${String(column.type)}"`)
    names.add(column.name)
  }
  if (!['replace', 'append', 'merge'].includes(target.mode)) throw new ConnectorConfigError('mode', `unknown write mode "${String(target.mode)}"`)
  if (new Set(target.primaryKey).size !== target.primaryKey.length) throw new ConnectorConfigError('primaryKey', 'a key column appears twice')
  for (const key of target.primaryKey) {
    if (!names.has(key)) throw new ConnectorConfigError('primaryKey', `key column "${key}" is not among the written columns`)
  }
  if (target.mode === 'merge' && target.primaryKey.length === 0) throw new ConnectorConfigError('primaryKey', 'merge needs a primary key to match rows on')
}

/** The batch size of a read, refused unless a positive integer (a reader's memory bound). */
export function batchSizeOf(options: ReadOptions): number {
  const size = options.batchSize
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batchSize must be a positive integer, got ${String(size)}`)
  return size
}

/** Throws when a merge row lacks a key value: NULL never matches, so it would duplicate on every run. */
export function assertKeys(rows: readonly Record<string, unknown>[], primaryKey: readonly string[]): void {
  for (const row of rows) {
    for (const key of primaryKey) {
      if (row[key] === null || row[key] === undefined) throw new Error(`merge: a row has no value for key column "${key}"`)
    }
  }
}
