import type { ValidationIssue } from '../../../platform/errors.js'
import { familyForTopic } from '../engine/problem-families.js'
import { contentErrors as errors } from '../errors.js'

/**
 * Which family builds on which (Common Core progressions): a student weak in a prerequisite of
 * the current topic is pointed back to it; one who has mastered the current topic, forward.
 */
export const PREREQUISITES: Record<string, string[]> = {
  'whole-number-arithmetic': [],
  'decimal-arithmetic': ['whole-number-arithmetic'],
  'fraction-arithmetic': ['whole-number-arithmetic'],
  percentages: ['fraction-arithmetic', 'decimal-arithmetic'],
  ratios: ['fraction-arithmetic'],
  'linear-equations': ['whole-number-arithmetic', 'fraction-arithmetic'],
  'systems-of-equations': ['linear-equations'],
  'area-and-perimeter': ['whole-number-arithmetic'],
  'unit-conversion': ['decimal-arithmetic'],
  probability: ['fraction-arithmetic'],
}

/** The Elo model's constants: step size, and the start (mastery 0.5) of a cold student. */
export const MASTERY_MODEL = { k: 0.4, initialTheta: 0, weakBelow: 0.6, masteredFrom: 0.8 } as const
/** Weights of relevance: topic relation, difficulty fit, time fit, objective fit. */
export const RELEVANCE_WEIGHTS = { topic: 0.4, difficulty: 0.3, time: 0.2, objectives: 0.1 } as const
/** How many recommendations come back, by default and at most. */
export const RECOMMENDATION_LIMITS = { defaultCount: 5, maxCount: 20, minutesPerProblem: 2 } as const

/** A stored item as the recommender reads it. */
export interface Candidate {
  id: string
  type: string
  title: string
  subject: string | null
  body: Record<string, unknown>
  metadata: Record<string, unknown>
}

/** One scored result (`answered` or `scored`) of the student on an item of a topic. */
export interface StudentResult {
  contentId: string
  score: number
  occurredAt: Date
}

/** A student's estimated mastery of a topic family. */
export interface Mastery {
  topic: string
  mastery: number
  results: number
}

/** A recommendation as the interface shows it. */
export interface Recommendation {
  contentId: string
  title: string
  type: string
  relevance: number
  estimatedTime: number
  difficulty: number
  reason: string
}

/** A validated POST /recommendations. */
export interface RecommendationRequest {
  studentId: string
  currentTopic: string
  timeAvailable: number | null
  objectives: string[]
  count: number
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x))
const STOP = new Set(['the', 'and', 'for', 'with', 'of', 'to', 'a', 'an', 'in', 'on', 'using', 'students', 'will', 'be', 'able'])
const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 2 && !STOP.has(w)),
  )

/** Checks the request: studentId and currentTopic required; timeAvailable in minutes, 1–1440. */
export function parseRecommendationRequest(input: Record<string, unknown>): RecommendationRequest {
  const issues: ValidationIssue[] = []
  const text = (key: string, max: number) => {
    const v = input[key]
    if (typeof v === 'string' && v.trim() && v.length <= max) return v.trim()
    issues.push({ field: key, message: `is required: a non-empty string of at most ${max} characters` })
    return ''
  }
  const studentId = text('studentId', 100)
  const currentTopic = text('currentTopic', 200)
  const context = input.context ?? {}
  let timeAvailable: number | null = null
  let objectives: string[] = []
  if (!isObject(context)) issues.push({ field: 'context', message: 'must be an object' })
  else {
    if (context.timeAvailable !== undefined && context.timeAvailable !== null) {
      const t = num(context.timeAvailable)
      if (t === null || t < 1 || t > 1440) issues.push({ field: 'context.timeAvailable', message: 'must be a number of minutes from 1 to 1440' })
      else timeAvailable = t
    }
    if (context.objectives !== undefined && context.objectives !== null) {
      const o = context.objectives
      if (!Array.isArray(o) || o.length > 20 || o.some((s) => typeof s !== 'string' || !s.trim() || s.length > 300))
        issues.push({ field: 'context.objectives', message: 'must be an array of at most 20 non-empty strings' })
      else objectives = o as string[]
    }
  }
  let count: number = RECOMMENDATION_LIMITS.defaultCount
  if (input.limit !== undefined && input.limit !== null) {
    const l = num(input.limit)
    if (l === null || !Number.isInteger(l) || l < 1 || l > RECOMMENDATION_LIMITS.maxCount)
      issues.push({ field: 'limit', message: `must be an integer from 1 to ${RECOMMENDATION_LIMITS.maxCount}` })
    else count = l
  }
  if (issues.length) throw errors.invalid(issues)
  return { studentId, currentTopic, timeAvailable, objectives, count }
}

/** The topic family an item is about, from its title, subject and tags. */
export function topicOf(item: Candidate): string | null {
  const problems = Array.isArray(item.body.problems) ? (item.body.problems as Array<{ tags?: unknown }>) : []
  const tags = problems.flatMap((p) => (Array.isArray(p.tags) ? p.tags.filter((t): t is string => typeof t === 'string') : []))
  return familyForTopic([item.title, item.subject ?? '', typeof item.body.topic === 'string' ? item.body.topic : '', ...tags].join(' '))?.id ?? null
}

/**
 * Difficulty 1–5: a lesson's `metadata.difficulty`, a problem set's `averageDifficulty`, the
 * mean of an assessment's question difficulties, else `metadata.difficulty`, else 3.
 */
export function difficultyOf(item: Candidate): number {
  const meta = isObject(item.body.metadata) ? item.body.metadata : {}
  const questions = Array.isArray(item.body.questions)
    ? (item.body.questions as Array<{ difficulty?: unknown }>).map((q) => num(q.difficulty)).filter((d): d is number => d !== null)
    : []
  const d =
    num(meta.difficulty) ??
    num(meta.averageDifficulty) ??
    (questions.length ? questions.reduce((a, b) => a + b, 0) / questions.length : null) ??
    num(item.metadata.difficulty) ??
    3
  return Math.min(5, Math.max(1, d))
}

/**
 * Minutes: `estimatedTime` (lesson metadata or assessment), a video's duration, 2 minutes a
 * problem, the sum of section durations, `metadata.estimatedTime`, else 10.
 */
export function estimatedTimeOf(item: Candidate): number {
  const meta = isObject(item.body.metadata) ? item.body.metadata : {}
  const sections = Array.isArray(item.body.sections)
    ? (item.body.sections as Array<{ duration?: unknown }>).reduce((sum, s) => sum + (num(s.duration) ?? 0), 0)
    : 0
  const problems = Array.isArray(item.body.problems) ? item.body.problems.length * RECOMMENDATION_LIMITS.minutesPerProblem : 0
  const video = item.type === 'video' && num(item.body.duration) !== null ? Math.ceil(num(item.body.duration)! / 60) : 0
  return num(meta.estimatedTime) ?? num(item.body.estimatedTime) ?? (video || problems || sections || num(item.metadata.estimatedTime) || 10)
}

/**
 * Elo mastery per topic: the student's ability θ starts at 0; each result (score s, 0–1) on an
 * item of difficulty d moves θ by k·(s − p), where p = σ(θ − b) is the expected score and
 * b = (d − 3) / 2 the item's difficulty on the same scale. Mastery is σ(θ): the expected score
 * on a middle-difficulty item. Results are taken in time order.
 */
export function estimateMastery(results: readonly StudentResult[], items: ReadonlyMap<string, Candidate>): Map<string, Mastery> {
  const theta = new Map<string, { theta: number; results: number }>()
  for (const r of [...results].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())) {
    const item = items.get(r.contentId)
    const topic = item ? topicOf(item) : null
    if (!item || !topic) continue
    const state = theta.get(topic) ?? { theta: MASTERY_MODEL.initialTheta, results: 0 }
    const expected = sigmoid(state.theta - (difficultyOf(item) - 3) / 2)
    theta.set(topic, { theta: state.theta + MASTERY_MODEL.k * (r.score - expected), results: state.results + 1 })
  }
  return new Map([...theta].map(([topic, s]) => [topic, { topic, mastery: round(sigmoid(s.theta), 3), results: s.results }]))
}

/** The difficulty a student is ready for: 3 at mastery 0.5, one level per 0.2 of mastery, 1–5. */
export const targetDifficulty = (mastery: number) => Math.min(5, Math.max(1, round(3 + (mastery - 0.5) * 5, 1)))

/**
 * Ranks the candidates for the request (README: relevance = 0.4 topic + 0.3 difficulty + 0.2
 * time + 0.1 objectives). Items unrelated to the topic and items the student completed are left
 * out. Ties keep the newest item first (the candidates' order).
 */
export function recommend(
  request: RecommendationRequest,
  candidates: readonly Candidate[],
  mastery: ReadonlyMap<string, Mastery>,
  completed: ReadonlySet<string>,
): Recommendation[] {
  const current = familyForTopic(request.currentTopic)?.id ?? null
  const topicWords = words(request.currentTopic)
  const objectiveWords = words(request.objectives.join(' '))
  const masteryOf = (topic: string) => mastery.get(topic) ?? { topic, mastery: 0.5, results: 0 }
  const describe = (m: Mastery) =>
    m.results ? `mastery ${m.mastery} from ${m.results} recorded result${m.results === 1 ? '' : 's'}` : 'no recorded results yet (starting estimate 0.5)'
  const scored = candidates.flatMap((item) => {
    if (completed.has(item.id)) return []
    const topic = topicOf(item)
    let topicFit = 0
    let why = ''
    if (current && topic === current) {
      topicFit = 1
      why = `On ${current}: ${describe(masteryOf(current))}`
    } else if (
      current &&
      topic &&
      PREREQUISITES[current]?.includes(topic) &&
      masteryOf(current).mastery < MASTERY_MODEL.weakBelow &&
      masteryOf(topic).mastery < MASTERY_MODEL.masteredFrom
    ) {
      topicFit = 0.7
      why = `Prerequisite ${topic} of ${current} to strengthen first (${current}: ${describe(masteryOf(current))}; ${topic}: ${describe(masteryOf(topic))})`
    } else if (current && topic && PREREQUISITES[topic]?.includes(current) && masteryOf(current).mastery >= MASTERY_MODEL.masteredFrom) {
      topicFit = 0.5
      why = `Next step after ${current} (${describe(masteryOf(current))})`
    } else {
      const shared = [...words(`${item.title} ${item.subject ?? ''}`)].filter((w) => topicWords.has(w)).length
      if (!shared || current) return []
      topicFit = 0.6 * Math.min(1, shared / Math.max(1, topicWords.size))
      why = `Title shares ${shared} word${shared === 1 ? '' : 's'} with "${request.currentTopic}"`
    }
    const level = targetDifficulty(masteryOf(topic ?? current ?? '').mastery)
    const difficulty = difficultyOf(item)
    const difficultyFit = 1 - Math.abs(difficulty - level) / 4
    const minutes = estimatedTimeOf(item)
    const timeFit = request.timeAvailable === null || minutes <= request.timeAvailable ? 1 : request.timeAvailable / minutes
    const itemText = words(`${item.title} ${JSON.stringify(item.body.objectives ?? '')}`)
    const objectiveFit = objectiveWords.size ? [...objectiveWords].filter((w) => itemText.has(w)).length / objectiveWords.size : 1
    const w = RELEVANCE_WEIGHTS
    const relevance = round(w.topic * topicFit + w.difficulty * difficultyFit + w.time * timeFit + w.objectives * objectiveFit, 3)
    const time =
      request.timeAvailable === null
        ? `${minutes} min`
        : minutes <= request.timeAvailable
          ? `${minutes} min fits the ${request.timeAvailable} available`
          : `${minutes} min, more than the ${request.timeAvailable} available`
    const reason = `${why}; difficulty ${round(difficulty, 1)} against a target of ${level}; ${time}.`
    return [{ contentId: item.id, title: item.title, type: item.type, relevance, estimatedTime: minutes, difficulty: round(difficulty, 1), reason }]
  })
  return scored.sort((a, b) => b.relevance - a.relevance).slice(0, request.count)
}
