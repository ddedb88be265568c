/**
 * PostgreSQL text cannot hold U+0000, so a NUL in any input string would fail at the database
 * as a 500. Returns the path of the first string (or object key) containing one, e.g.
 * `data.switch_id` or `gates[2]`, so the edge can answer 400 naming the field.
 */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`)
      if (found) return found
    }
    return undefined
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key
      if (key.includes('\u0000')) return at
      const found = findNul(inner, at)
      if (found) return found
    }
  }
  return undefined
}
