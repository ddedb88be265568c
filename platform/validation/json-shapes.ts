/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether `value` is a UUID, the shape of every id Tessera generates. Services check it before
 * a lookup, so a malformed id is a plain 404 rather than a database type error.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}
