import type { ValidationIssue } from '../../../platform/errors.js'
import { isContentId } from '../content-library.js'
import { contentErrors as errors } from '../errors.js'

/**
 * What a learner did with an item, in xAPI's spirit (actor, verb, object, result): `viewed` it
 * opened, `started` began working, `progressed` reached `progress`, `interacted` (a click,
 * a hint, a video seek), `answered` one item (`score`, `success`), `completed`, `scored` a
 * whole pre/post/delayed assessment (`score`, `assessment`), `rated` its satisfaction (1–5).
 */
export const LEARNING_VERBS = ['viewed', 'started', 'progressed', 'interacted', 'answered', 'completed', 'scored', 'rated'] as const
/** A learning verb. */
export type LearningVerb = (typeof LEARNING_VERBS)[number]

/** When a `scored` assessment was taken: before the item, right after it, or weeks later. */
export const ASSESSMENT_PHASES = ['pre', 'post', 'delayed'] as const

/** Limits of POST /events. */
export const EVENT_LIMITS = { batch: 500, studentId: 100, durationSeconds: 86_400, futureSkewMs: 5 * 60_000 } as const

/** One validated learner event. */
export interface LearningEventInput {
  id: string
  studentId: string
  contentId: string
  verb: LearningVerb
  occurredAt: Date
  durationSeconds: number | null
  progress: number | null
  score: number | null
  success: boolean | null
  assessment: (typeof ASSESSMENT_PHASES)[number] | null
  rating: number | null
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/
const FIELDS = ['id', 'studentId', 'contentId', 'verb', 'timestamp', 'durationSeconds', 'progress', 'score', 'success', 'assessment', 'rating']

/**
 * Checks a batch of events; every problem is reported with its `events[i].field`, and one bad
 * event refuses the batch (nothing is half-recorded). Which result fields a verb needs:
 * progressed → progress; answered → score (success optional); scored → score and assessment;
 * rated → rating. Others are optional; a field that does not fit the verb is refused.
 */
export function parseLearningEvents(input: { events?: unknown }, now: Date): LearningEventInput[] {
  const issues: ValidationIssue[] = []
  const list = input.events
  if (!Array.isArray(list) || list.length === 0 || list.length > EVENT_LIMITS.batch) {
    throw errors.invalid([{ field: 'events', message: `must be an array of 1 to ${EVENT_LIMITS.batch} events` }])
  }
  const seen = new Set<string>()
  const events = list.map((raw, i): LearningEventInput | null => {
    const at = `events[${i}]`
    const fail = (field: string, message: string) => {
      issues.push({ field: `${at}.${field}`, message })
      return null
    }
    if (!isObject(raw)) {
      issues.push({ field: at, message: 'must be an object' })
      return null
    }
    for (const key of Object.keys(raw)) if (!FIELDS.includes(key)) fail(key, `is not a field of an event (fields: ${FIELDS.join(', ')})`)
    const id =
      typeof raw.id === 'string' && isContentId(raw.id) ? raw.id.toLowerCase() : fail('id', 'must be a UUID chosen by the sender (it makes resending safe)')
    if (id && seen.has(id)) fail('id', 'appears twice in this batch')
    if (id) seen.add(id)
    const studentId =
      typeof raw.studentId === 'string' && raw.studentId.trim() && raw.studentId.length <= EVENT_LIMITS.studentId
        ? raw.studentId.trim()
        : fail('studentId', `must be a non-empty string of at most ${EVENT_LIMITS.studentId} characters`)
    const contentId =
      typeof raw.contentId === 'string' && isContentId(raw.contentId) ? raw.contentId.toLowerCase() : fail('contentId', 'must be a content id (UUID)')
    const verb =
      typeof raw.verb === 'string' && (LEARNING_VERBS as readonly string[]).includes(raw.verb)
        ? (raw.verb as LearningVerb)
        : fail('verb', `must be one of: ${LEARNING_VERBS.join(', ')}`)
    let occurredAt: Date | null = null
    if (typeof raw.timestamp !== 'string' || !ISO_INSTANT.test(raw.timestamp) || Number.isNaN(Date.parse(raw.timestamp)))
      fail('timestamp', 'must be an ISO 8601 date-time with a time zone')
    else if (Date.parse(raw.timestamp) > now.getTime() + EVENT_LIMITS.futureSkewMs) fail('timestamp', 'must not be in the future')
    else occurredAt = new Date(raw.timestamp)
    const number = (key: string, min: number, max: number, integer = false): number | null => {
      const v = raw[key]
      if (v === undefined || v === null) return null
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v)))
        return fail(key, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`)
      return v
    }
    const durationSeconds = number('durationSeconds', 0, EVENT_LIMITS.durationSeconds)
    const progress = number('progress', 0, 1)
    const score = number('score', 0, 1)
    const rating = number('rating', 1, 5, true)
    let success: boolean | null = null
    if (raw.success !== undefined && raw.success !== null) success = typeof raw.success === 'boolean' ? raw.success : fail('success', 'must be true or false')
    let assessment: LearningEventInput['assessment'] = null
    if (raw.assessment !== undefined && raw.assessment !== null) {
      assessment = (ASSESSMENT_PHASES as readonly string[]).includes(raw.assessment as string)
        ? (raw.assessment as LearningEventInput['assessment'])
        : fail('assessment', `must be one of: ${ASSESSMENT_PHASES.join(', ')}`)
    }
    const needs: Partial<Record<LearningVerb, string[]>> = { progressed: ['progress'], answered: ['score'], scored: ['score', 'assessment'], rated: ['rating'] }
    const allowed: Record<string, LearningVerb[]> = {
      progress: ['progressed'],
      score: ['answered', 'scored'],
      success: ['answered'],
      assessment: ['scored'],
      rating: ['rated'],
    }
    if (verb) {
      for (const key of needs[verb] ?? []) if (raw[key] === undefined || raw[key] === null) fail(key, `is required for the verb ${verb}`)
      for (const [key, verbs] of Object.entries(allowed))
        if (raw[key] !== undefined && raw[key] !== null && !verbs.includes(verb))
          fail(key, `is only given with the verb${verbs.length > 1 ? 's' : ''} ${verbs.join(', ')}`)
    }
    if (!id || !studentId || !contentId || !verb || !occurredAt) return null
    return { id, studentId, contentId, verb, occurredAt, durationSeconds, progress, score, success, assessment, rating }
  })
  if (issues.length) throw errors.invalid(issues)
  return events as LearningEventInput[]
}
