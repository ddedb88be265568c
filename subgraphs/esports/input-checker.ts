import type { ValidationIssue } from '../../platform/errors.js'
import { isRecord } from '../../platform/validation/json-shapes.js'

/** Limits of free-text fields. */
export const TEXT_MAX = { short: 200, long: 5000 } as const

interface Rule {
  required?: boolean
}

/**
 * Reads untyped input field by field and collects every problem, so one answer names every
 * field at fault (VALIDATION_ERROR lists them all). Each reader returns the value when it is
 * valid and `undefined` otherwise (or when absent and not required).
 */
export function createInputChecker() {
  const issues: ValidationIssue[] = []
  const fail = (field: string, message: string) => {
    issues.push({ field, message })
    return undefined
  }
  const absent = (field: string, value: unknown, rule: Rule) => {
    if (value !== undefined && value !== null) return false
    if (rule.required) fail(field, 'is required')
    return true
  }
  return {
    issues,
    fail,
    get ok() {
      return issues.length === 0
    },
    string(field: string, value: unknown, rule: Rule & { max?: number; pattern?: RegExp; patternHint?: string } = {}): string | undefined {
      if (absent(field, value, rule)) return undefined
      if (typeof value !== 'string') return fail(field, 'must be a string')
      const text = value.trim()
      const max = rule.max ?? TEXT_MAX.short
      if (!text) return fail(field, 'must not be empty')
      if (text.length > max) return fail(field, `must be at most ${max} characters`)
      if (rule.pattern && !rule.pattern.test(text)) return fail(field, rule.patternHint ?? `must match ${rule.pattern}`)
      return text
    },
    int(field: string, value: unknown, rule: Rule & { min?: number; max?: number } = {}): number | undefined {
      if (absent(field, value, rule)) return undefined
      const min = rule.min ?? 0
      const max = rule.max ?? 2_147_483_647
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) return fail(field, `must be an integer from ${min} to ${max}`)
      return value
    },
    number(field: string, value: unknown, rule: Rule & { min?: number; max?: number } = {}): number | undefined {
      if (absent(field, value, rule)) return undefined
      const min = rule.min ?? -Number.MAX_VALUE
      const max = rule.max ?? Number.MAX_VALUE
      if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) return fail(field, `must be a number from ${min} to ${max}`)
      return value
    },
    bool(field: string, value: unknown, rule: Rule = {}): boolean | undefined {
      if (absent(field, value, rule)) return undefined
      if (typeof value !== 'boolean') return fail(field, 'must be true or false')
      return value
    },
    oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], rule: Rule = {}): T | undefined {
      if (absent(field, value, rule)) return undefined
      if (typeof value !== 'string' || !allowed.includes(value as T)) return fail(field, `must be one of: ${allowed.join(', ')}`)
      return value as T
    },
    date(field: string, value: unknown, rule: Rule = {}): Date | undefined {
      if (absent(field, value, rule)) return undefined
      const date = value instanceof Date ? value : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : null
      if (!date || Number.isNaN(date.getTime())) return fail(field, 'must be an ISO 8601 date or timestamp')
      return date
    },
    object(field: string, value: unknown, rule: Rule = {}): Record<string, unknown> | undefined {
      if (absent(field, value, rule)) return undefined
      if (!isRecord(value)) return fail(field, 'must be an object')
      return value
    },
    strings(
      field: string,
      value: unknown,
      rule: Rule & { maxItems?: number; max?: number; pattern?: RegExp; patternHint?: string } = {},
    ): string[] | undefined {
      if (absent(field, value, rule)) return undefined
      const maxItems = rule.maxItems ?? 50
      if (!Array.isArray(value)) return fail(field, 'must be an array of strings')
      if (value.length > maxItems) return fail(field, `must have at most ${maxItems} items`)
      const out: string[] = []
      value.forEach((item, i) => {
        const text = this.string(`${field}[${i}]`, item, { required: true, max: rule.max, pattern: rule.pattern, patternHint: rule.patternHint })
        if (text !== undefined) out.push(text)
      })
      return out.length === value.length ? out : undefined
    },
    url(field: string, value: unknown, rule: Rule = {}): string | undefined {
      const text = this.string(field, value, { ...rule, max: 2048 })
      if (text === undefined) return undefined
      try {
        const url = new URL(text)
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(field, 'must be an http or https URL')
        return url.toString()
      } catch {
        return fail(field, 'must be an http or https URL')
      }
    },
  }
}

/** An input checker. */
export type InputChecker = ReturnType<typeof createInputChecker>

/**
 * Merges a partial object into a whole one: nested objects merge key by key, everything else
 * (arrays included) is replaced; `undefined` leaves a key as it was.
 */
export function mergeDeep(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue
    out[key] = isRecord(value) && isRecord(base[key]) ? mergeDeep(base[key] as Record<string, unknown>, value) : value
  }
  return out
}
