import { randomUUID } from 'node:crypto'
import type { ProblemFamily } from './problem-families.js'
import { distractors, draftProblems } from './problem-generator.js'
import type { Random } from './random.js'

/** Item types of an assessment. */
export const QUESTION_TYPES = ['multiple-choice', 'short-answer', 'essay'] as const
/** An item type. */
export type QuestionType = (typeof QUESTION_TYPES)[number]

/** Points per item type: an essay is scored on the rubric (3 criteria × 4 levels). */
export const ITEM_POINTS: Record<QuestionType, number> = { 'multiple-choice': 2, 'short-answer': 3, essay: 12 }
/** Minutes a student needs per item type at difficulty 3; ±15% per level above or below. */
export const ITEM_MINUTES: Record<QuestionType, number> = { 'multiple-choice': 1.5, 'short-answer': 3, essay: 10 }

/** One assessment item. */
export interface AssessmentQuestion {
  id: string
  type: QuestionType
  prompt: string
  choices?: string[]
  /** The key: the answer, or for essays what a full answer contains. */
  answer: string
  solutionSteps: string[]
  points: number
  difficulty: number
  tags: string[]
}

/** A rubric: criteria × levels, each cell a descriptor. */
export interface Rubric {
  levels: Array<{ score: number; label: string }>
  criteria: Array<{ name: string; descriptors: Array<{ score: number; descriptor: string }> }>
  /** What the rubric scores: one essay item's points. */
  maxPoints: number
}

/** An assessment as the interface shows it. */
export interface Assessment {
  id: string
  title: string
  topic: string
  questions: AssessmentQuestion[]
  rubric: Rubric | null
  standards: string[]
  estimatedTime: number
  totalPoints: number
  generatedAt: string
}

const LEVELS = [
  { score: 4, label: 'Exemplary' },
  { score: 3, label: 'Proficient' },
  { score: 2, label: 'Developing' },
  { score: 1, label: 'Beginning' },
]

/** The rubric for constructed responses on a family's problems. */
export function buildRubric(family: ProblemFamily): Rubric {
  const topic = family.name.toLowerCase()
  const criteria: Rubric['criteria'] = [
    {
      name: 'Mathematical accuracy',
      descriptors: [
        `All calculations in ${topic} are correct and the final answer is correct with units or simplest form.`,
        'The final answer is correct; at most one minor slip that does not change it.',
        'The method is partly correct but an error leads to a wrong answer.',
        'Calculations are missing or mostly incorrect.',
      ].map((descriptor, i) => ({ score: 4 - i, descriptor })),
    },
    {
      name: 'Reasoning and strategy',
      descriptors: [
        `Chooses an efficient strategy for ${family.summary}, justifies every step and checks the answer.`,
        'Uses an appropriate strategy and explains most steps.',
        'Strategy is unclear or only some steps are explained.',
        'No strategy or reasoning is shown.',
      ].map((descriptor, i) => ({ score: 4 - i, descriptor })),
    },
    {
      name: 'Communication and notation',
      descriptors: [
        'Uses precise vocabulary and correct notation; the work is organised and easy to follow.',
        'Uses mostly correct vocabulary and notation; the work can be followed.',
        'Vocabulary or notation has several errors; the work is hard to follow.',
        'The response is disorganised or uses incorrect notation throughout.',
      ].map((descriptor, i) => ({ score: 4 - i, descriptor })),
    },
  ]
  return { levels: LEVELS, criteria, maxPoints: criteria.length * LEVELS[0]!.score }
}

/** Options of one assessment. */
export interface AssessmentOptions {
  family: ProblemFamily
  topic: string
  title?: string
  questionTypes: readonly QuestionType[]
  questionCount: number
  level: number
  standards: readonly string[]
  includeRubric: boolean
  random: Random
}

/**
 * Builds an assessment from the problem engine: item types in turn, multiple-choice items with
 * distractors from typical mistakes, short-answer items with their computed key, and essays
 * that ask for a full explanation or an error analysis of a typical mistake.
 */
export function buildAssessment(options: AssessmentOptions): Assessment {
  const { family, level, random } = options
  const drafts = draftProblems(family, level, options.questionCount, random)
  const questions = drafts.map((draft, i): AssessmentQuestion => {
    const type = options.questionTypes[i % options.questionTypes.length]!
    const base = { id: randomUUID(), type, points: ITEM_POINTS[type], difficulty: level, tags: draft.tags }
    switch (type) {
      case 'multiple-choice':
        return {
          ...base,
          prompt: draft.question,
          choices: random.shuffle([draft.answer, ...distractors(draft)]),
          answer: draft.answer,
          solutionSteps: draft.steps,
        }
      case 'short-answer':
        return { ...base, prompt: draft.question, answer: draft.answer, solutionSteps: draft.steps }
      case 'essay': {
        const [mistake] = distractors(draft, 1)
        // Alternate between explaining a method and analysing a typical error.
        return i % 2 === 0 || !mistake
          ? {
              ...base,
              prompt: `${draft.question} Explain how you solve it: describe each step, say why the step is valid, and show how you check your answer.`,
              answer: `Correct answer ${draft.answer}, reached by: ${draft.steps.join(' ')}`,
              solutionSteps: draft.steps,
            }
          : {
              ...base,
              prompt: `A student answered "${mistake}" to this problem: ${draft.question} Explain the student's mistake, give the correct answer, and describe how to avoid the mistake.`,
              answer: `The correct answer is ${draft.answer}, not ${mistake}. ${draft.steps.join(' ')}`,
              solutionSteps: draft.steps,
            }
      }
    }
  })
  const minutes = questions.reduce((s, q) => s + ITEM_MINUTES[q.type], 0) * (1 + (level - 3) * 0.15)
  return {
    id: randomUUID(),
    title: options.title ?? `${family.name} assessment: ${options.topic}`,
    topic: options.topic,
    questions,
    rubric: options.includeRubric ? buildRubric(family) : null,
    standards: options.standards.length ? [...options.standards] : [...family.standards],
    estimatedTime: Math.ceil(minutes),
    totalPoints: questions.reduce((s, q) => s + q.points, 0),
    generatedAt: new Date().toISOString(),
  }
}
