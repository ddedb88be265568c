/**
 * Deepest nesting of arrays and objects accepted in client input: REST bodies and GraphQL
 * variables. Real documents of these interfaces nest a handful of levels; the bound keeps every
 * walker over client input (validation, the database driver, JSON scalars) far from the stack
 * limit, which a recursive walk reached at about 3,000 levels.
 */
export const MAX_INPUT_DEPTH = 64

/** What is wrong with a piece of client input, and where. */
export interface InputProblem {
  /** Path of the offending value, e.g. `data.switch_id` or `gates[2]` (`body` for the root). */
  field: string
  message: string
}

/** What {@link inspectInput} looks for. */
export interface InspectOptions {
  /** Deepest nesting allowed (default {@link MAX_INPUT_DEPTH}). */
  maxDepth?: number
  /** Whether a NUL character is a problem (default true; a gateway leaves it to the services). */
  nul?: boolean
}

/**
 * Walks client input once, without recursion, and returns the first problem: a string (or
 * object key) holding U+0000, which PostgreSQL text cannot store and would fail at the
 * database as a 500, or arrays/objects nested deeper than `maxDepth`.
 */
export function inspectInput(value: unknown, root = '', options: InspectOptions = {}): InputProblem | undefined {
  const maxDepth = options.maxDepth ?? MAX_INPUT_DEPTH
  const nul = options.nul ?? true
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }]
  while (stack.length) {
    const { value: current, path, depth } = stack.pop()!
    if (typeof current === 'string') {
      if (nul && current.includes('\u0000')) return { field: path || 'body', message: NUL_MESSAGE }
      continue
    }
    if (!current || typeof current !== 'object') continue
    if (depth >= maxDepth) return { field: path || 'body', message: `must not nest arrays and objects deeper than ${maxDepth} levels` }
    // Pushed in reverse so the first problem in document order is the one reported.
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${path}[${i}]`, depth: depth + 1 })
      continue
    }
    const entries = Object.entries(current)
    if (nul) for (const [key] of entries) if (key.includes('\u0000')) return { field: path ? `${path}.${key}` : key, message: NUL_MESSAGE }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i]!
      stack.push({ value: inner, path: path ? `${path}.${key}` : key, depth: depth + 1 })
    }
  }
  return undefined
}

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)'
