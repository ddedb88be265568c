import type { ValidationIssue } from '../errors.js'

/** The size rules of one listing: its default and largest page. */
export interface PageRule {
  default: number
  max: number
}

/**
 * Reads `limit` and `offset` of a listing with its defaults, adding an issue (one wording for
 * every interface) for each that is out of range. The caller throws once all its fields are checked.
 */
export function checkPage(page: { limit?: number; offset?: number }, rule: PageRule, issues: ValidationIssue[]): { limit: number; offset: number } {
  const limit = page.limit ?? rule.default
  const offset = page.offset ?? 0
  if (!Number.isInteger(limit) || limit < 1 || limit > rule.max) issues.push({ field: 'limit', message: `must be an integer from 1 to ${rule.max}` })
  if (!Number.isInteger(offset) || offset < 0) issues.push({ field: 'offset', message: 'must be an integer of 0 or more' })
  return { limit, offset }
}
