import { randomInt } from 'node:crypto'
import type { ValidationIssue } from '../../platform/errors.js'
import { QUESTION_TYPES, type QuestionType } from './engine/assessment-generator.js'
import type { AssessmentRequest, LessonRequest, ProblemsRequest } from './engine/generation-engine.js'
import { objectiveProblem } from './engine/lesson-generator.js'
import { DIFFICULTY, PROBLEM_FORMATS, type ProblemFormat } from './engine/problem-generator.js'
import { contentErrors as errors } from './errors.js'

/** Size limits of generator requests. */
export const GENERATION_LIMITS = {
  /** Problems per POST /generate/problems. */
  maxProblems: 1000,
  /** Items per assessment. */
  maxQuestions: 50,
  /** Lesson minutes. */
  minDuration: 10,
  maxDuration: 240,
  maxObjectives: 10,
  maxStandards: 20,
  maxText: 200,
} as const

type Input = Record<string, unknown>

/** Collects field issues and throws them together as one INVALID_REQUEST. */
function createChecker(input: Input) {
  const issues: ValidationIssue[] = []
  const fail = (field: string, message: string) => {
    issues.push({ field, message })
    return undefined
  }
  return {
    issues,
    text(field: string, required: boolean, fallback = ''): string {
      const v = input[field]
      if (v === undefined || v === null) return required ? (fail(field, 'is required'), '') : fallback
      if (typeof v !== 'string' || !v.trim()) return fail(field, 'must be a non-empty string') ?? ''
      if (v.length > GENERATION_LIMITS.maxText) return fail(field, `must be at most ${GENERATION_LIMITS.maxText} characters`) ?? ''
      return v.trim()
    },
    number(field: string, min: number, max: number, fallback: number, integer = false): number {
      const v = input[field]
      if (v === undefined || v === null) return fallback
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
        return fail(field, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`) ?? fallback
      }
      return v
    },
    flag(field: string, fallback: boolean): boolean {
      const v = input[field]
      if (v === undefined || v === null) return fallback
      if (typeof v !== 'boolean') return fail(field, 'must be a boolean') ?? fallback
      return v
    },
    texts(field: string, max: number): string[] {
      const v = input[field]
      if (v === undefined || v === null) return []
      if (!Array.isArray(v) || v.length > max) return fail(field, `must be an array of at most ${max} strings`) ?? []
      const out: string[] = []
      v.forEach((s, i) => {
        if (typeof s !== 'string' || !s.trim() || s.length > GENERATION_LIMITS.maxText)
          fail(`${field}[${i}]`, `must be a non-empty string of at most ${GENERATION_LIMITS.maxText} characters`)
        else out.push(s.trim())
      })
      return out
    },
    oneOf<T extends string>(field: string, allowed: readonly T[], fallback: T): T {
      const v = input[field]
      if (v === undefined || v === null) return fallback
      if (typeof v !== 'string' || !allowed.includes(v as T)) return fail(field, `must be one of: ${allowed.join(', ')}`) ?? fallback
      return v as T
    },
    seed(): number {
      return this.number('seed', 0, 2 ** 32 - 1, randomInt(0, 2 ** 31), true)
    },
    done() {
      if (issues.length) throw errors.invalid(issues)
    },
  }
}

/** Validates POST /generate/problems. Defaults: difficulty 3, count 10, hints and solutions on, short-answer. */
export function parseProblemsRequest(input: Input): ProblemsRequest {
  const c = createChecker(input)
  const request: ProblemsRequest = {
    topic: c.text('topic', true),
    difficulty: c.number('difficulty', DIFFICULTY.min, DIFFICULTY.max, 3),
    count: c.number('count', 1, GENERATION_LIMITS.maxProblems, 10, true),
    includeHints: c.flag('includeHints', true),
    includeSolutions: c.flag('includeSolutions', true),
    format: c.oneOf<ProblemFormat>('format', PROBLEM_FORMATS, 'short-answer'),
    seed: c.seed(),
  }
  c.done()
  return request
}

/** Validates POST /generate/lesson. Defaults: 45 minutes, no assessment, no differentiation. */
export function parseLessonRequest(input: Input): LessonRequest {
  const c = createChecker(input)
  const request: LessonRequest = {
    subject: c.text('subject', true),
    topic: c.text('topic', true),
    gradeLevel: c.text('gradeLevel', true),
    objectives: c.texts('objectives', GENERATION_LIMITS.maxObjectives),
    duration: c.number('duration', GENERATION_LIMITS.minDuration, GENERATION_LIMITS.maxDuration, 45, true),
    includeAssessment: c.flag('includeAssessment', false),
    differentiation: c.flag('differentiation', false),
    standards: c.texts('standards', GENERATION_LIMITS.maxStandards),
    seed: c.seed(),
  }
  request.objectives.forEach((objective, i) => {
    const problem = objectiveProblem(objective)
    if (problem) c.issues.push({ field: `objectives[${i}]`, message: problem })
  })
  c.done()
  return request
}

/** Validates POST /generate/assessment. Defaults: all three types, 10 questions, difficulty 3, no rubric. */
export function parseAssessmentRequest(input: Input): AssessmentRequest {
  const c = createChecker(input)
  let questionTypes: QuestionType[] = [...QUESTION_TYPES]
  const types = input.questionTypes
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.length === 0 || types.some((t) => !QUESTION_TYPES.includes(t as QuestionType))) {
      c.issues.push({ field: 'questionTypes', message: `must be a non-empty array of: ${QUESTION_TYPES.join(', ')}` })
    } else questionTypes = [...new Set(types as QuestionType[])]
  }
  const request: AssessmentRequest = {
    topic: c.text('topic', true),
    questionTypes,
    questionCount: c.number('questionCount', 1, GENERATION_LIMITS.maxQuestions, 10, true),
    difficulty: c.number('difficulty', DIFFICULTY.min, DIFFICULTY.max, 3),
    standards: c.texts('standards', GENERATION_LIMITS.maxStandards),
    includeRubric: c.flag('includeRubric', false),
    seed: c.seed(),
  }
  c.done()
  return request
}
