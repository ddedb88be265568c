import type { Assessment, QuestionType } from './assessment-generator.js'
import type { Lesson } from './lesson-generator.js'
import type { ProblemFormat, ProblemSet } from './problem-generator.js'

/** POST /generate/lesson, validated. */
export interface LessonRequest {
  subject: string
  topic: string
  gradeLevel: string
  objectives: string[]
  /** Minutes. */
  duration: number
  includeAssessment: boolean
  differentiation: boolean
  standards: string[]
  seed: number
}

/** POST /generate/problems, validated. */
export interface ProblemsRequest {
  topic: string
  difficulty: number
  count: number
  includeHints: boolean
  includeSolutions: boolean
  format: ProblemFormat
  seed: number
}

/** POST /generate/assessment, validated. */
export interface AssessmentRequest {
  topic: string
  questionTypes: QuestionType[]
  questionCount: number
  difficulty: number
  standards: string[]
  includeRubric: boolean
  seed: number
}

/** Which engine wrote an item. */
export type EngineName = 'offline' | 'provider'

/**
 * One generation core, two engines: the offline engine (computed, verified, the default) and
 * an OpenAI-compatible chat-completions provider. Both return the same shapes, checked the
 * same way, so a caller cannot tell them apart except by `metadata.engine`.
 */
export interface GenerationEngine {
  name: EngineName
  lesson(request: LessonRequest): Promise<Lesson>
  problems(request: ProblemsRequest): Promise<ProblemSet>
  assessment(request: AssessmentRequest): Promise<Assessment>
}

/** The offline engine has no family for a topic. */
export class UnsupportedTopicError extends Error {
  override name = 'UnsupportedTopicError'
  constructor(readonly topic: string) {
    super(`The offline engine has no problem family for the topic "${topic}"`)
  }
}

/** The provider failed: unreachable, an HTTP error, or output that fails the schema or checks. */
export class ProviderError extends Error {
  override name = 'ProviderError'
}
