import type { GraphQLError } from 'graphql'
import { parseWithinLimits, type DocumentLimits } from './query-limits.js'

/** Options of the document check cache. */
export interface DocumentCheckOptions {
  limits: DocumentLimits
  /** How many operation texts to remember (least recently used go first). */
  maxEntries?: number
}

const DEFAULT_MAX_ENTRIES = 1000
// Longer texts are checked every time: the cache stays within a few megabytes.
const MAX_REMEMBERED_LENGTH = 16 * 1024

/**
 * The size-limit check of an operation text (tokens, nesting, aliases, directives), remembered
 * by the text itself: front ends send the same few operations again and again, and parsing one
 * to count its aliases costs as much as executing a cheap read. Only texts that pass are
 * remembered; a refused text is checked afresh each time, so the cache holds no error objects
 * and cannot be filled with texts that never run; nor are texts over 16 KiB.
 */
export function createDocumentCheck(options: DocumentCheckOptions) {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
  const passed = new Set<string>()
  return {
    /** The error to answer with 400, or undefined when the text is within the limits. */
    check(query: string): GraphQLError | undefined {
      if (passed.has(query)) {
        // Most recently used last: a Set iterates in insertion order.
        passed.delete(query)
        passed.add(query)
        return undefined
      }
      const parsed = parseWithinLimits(query, options.limits)
      if ('error' in parsed) return parsed.error
      if (query.length > MAX_REMEMBERED_LENGTH) return undefined
      if (passed.size >= maxEntries) passed.delete(passed.values().next().value as string)
      passed.add(query)
      return undefined
    },
    /** How many texts are remembered. */
    get size() {
      return passed.size
    },
  }
}

/** A gateway's document check. */
export type DocumentCheck = ReturnType<typeof createDocumentCheck>
