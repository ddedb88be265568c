import type { ValidationIssue } from '../../platform/errors.js'
import { contentErrors as errors } from './errors.js'

/** Types of stored content: what the generators produce, and what teachers add by hand. */
export const CONTENT_TYPES = ['lesson', 'problem-set', 'assessment', 'video', 'article', 'activity', 'worksheet'] as const
/** A content type. */
export type ContentType = (typeof CONTENT_TYPES)[number]

/** Page sizes of GET /content: page 1 and 20 items by default, at most 100. */
export const CONTENT_PAGE = { defaultLimit: 20, maxLimit: 100 } as const

/** Limits of stored content. */
export const CONTENT_LIMITS = { title: 300, subject: 100, gradeLevel: 40, standards: 50, bodyBytes: 512 * 1024 } as const

/** Stored content as a caller sends it (POST /content, or the fields of a PUT). */
export interface ContentInput {
  type: ContentType
  title: string
  content: Record<string, unknown>
  metadata: { subject: string | null; gradeLevel: string | null; standards: string[]; extra: Record<string, unknown> }
}

/** True for a well-formed content id (a UUID); anything else cannot name an item. */
export const isContentId = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * What each type's content object must hold, so a stored lesson can be personalized, translated
 * and validated like a generated one: a lesson has sections (title, content, duration), a
 * problem set problems (question, solution.answer), an assessment questions (a prompt).
 */
function checkBody(type: ContentType, body: Record<string, unknown>, issues: ValidationIssue[]) {
  const array = (name: string, each: (item: Record<string, unknown>, at: string) => void) => {
    const value = body[name]
    if (!Array.isArray(value) || value.length === 0) return issues.push({ field: `content.${name}`, message: `is required for a ${type}: a non-empty array` })
    value.forEach((item, i) =>
      isObject(item) ? each(item, `content.${name}[${i}]`) : issues.push({ field: `content.${name}[${i}]`, message: 'must be an object' }),
    )
  }
  const text = (item: Record<string, unknown>, at: string, key: string) => {
    if (typeof item[key] !== 'string' || !(item[key] as string).trim()) issues.push({ field: `${at}.${key}`, message: 'must be a non-empty string' })
  }
  switch (type) {
    case 'lesson':
      return array('sections', (s, at) => {
        text(s, at, 'title')
        text(s, at, 'content')
        if (typeof s.duration !== 'number' || !(s.duration >= 0)) issues.push({ field: `${at}.duration`, message: 'must be a number of minutes, 0 or more' })
      })
    case 'problem-set':
      return array('problems', (p, at) => {
        text(p, at, 'question')
        if (!isObject(p.solution) || typeof p.solution.answer !== 'string') issues.push({ field: `${at}.solution.answer`, message: 'must be a string' })
      })
    case 'assessment':
      return array('questions', (q, at) => {
        if (typeof q.prompt !== 'string' && typeof q.question !== 'string') issues.push({ field: `${at}.prompt`, message: 'must be a non-empty string' })
      })
    default:
      return undefined
  }
}

/**
 * Validates stored content. With `partial` (PUT), absent fields keep their stored values;
 * given ones are checked the same way.
 */
export function parseContentInput(input: Record<string, unknown>, current?: ContentInput): ContentInput {
  const issues: ValidationIssue[] = []
  const type = input.type ?? current?.type
  if (typeof type !== 'string' || !CONTENT_TYPES.includes(type as ContentType))
    issues.push({ field: 'type', message: `must be one of: ${CONTENT_TYPES.join(', ')}` })
  const title = input.title ?? current?.title
  if (typeof title !== 'string' || !title.trim() || title.length > CONTENT_LIMITS.title)
    issues.push({ field: 'title', message: `must be a non-empty string of at most ${CONTENT_LIMITS.title} characters` })
  const content = input.content ?? current?.content
  if (!isObject(content)) issues.push({ field: 'content', message: 'must be an object' })
  else if (Buffer.byteLength(JSON.stringify(content)) > CONTENT_LIMITS.bodyBytes)
    issues.push({ field: 'content', message: `must be at most ${CONTENT_LIMITS.bodyBytes} bytes as JSON` })
  const rawMeta = input.metadata === undefined ? undefined : input.metadata
  if (rawMeta !== undefined && !isObject(rawMeta)) issues.push({ field: 'metadata', message: 'must be an object' })
  const meta = isObject(rawMeta) ? rawMeta : undefined
  const optionalText = (key: 'subject' | 'gradeLevel', max: number): string | null => {
    if (!meta || !(key in meta)) return current?.metadata[key] ?? null
    const v = meta[key]
    if (v === null) return null
    if (typeof v !== 'string' || !v.trim() || v.length > max) {
      issues.push({ field: `metadata.${key}`, message: `must be a non-empty string of at most ${max} characters` })
      return null
    }
    return v.trim()
  }
  const subject = optionalText('subject', CONTENT_LIMITS.subject)
  const gradeLevel = optionalText('gradeLevel', CONTENT_LIMITS.gradeLevel)
  let standards = current?.metadata.standards ?? []
  if (meta && 'standards' in meta) {
    const v = meta.standards
    if (!Array.isArray(v) || v.length > CONTENT_LIMITS.standards || v.some((s) => typeof s !== 'string' || !s.trim() || s.length > 40)) {
      issues.push({ field: 'metadata.standards', message: `must be an array of at most ${CONTENT_LIMITS.standards} codes (strings)` })
    } else standards = v.map((s: string) => s.trim())
  }
  const extra = meta
    ? Object.fromEntries(Object.entries(meta).filter(([k]) => !['subject', 'gradeLevel', 'standards'].includes(k)))
    : (current?.metadata.extra ?? {})
  if (!issues.length) checkBody(type as ContentType, content as Record<string, unknown>, issues)
  if (issues.length) throw errors.invalid(issues)
  return {
    type: type as ContentType,
    title: (title as string).trim(),
    content: content as Record<string, unknown>,
    metadata: { subject, gradeLevel, standards, extra },
  }
}
