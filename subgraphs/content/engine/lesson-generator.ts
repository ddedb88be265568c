import { randomUUID } from 'node:crypto'
import { buildAssessment, type Assessment } from './assessment-generator.js'
import type { DraftProblem, ProblemFamily } from './problem-families.js'
import { draftProblems } from './problem-generator.js'
import type { Random } from './random.js'
import { fleschKincaidGrade } from './readability.js'

/** Section types of a lesson: the 5E model's phases, plus differentiation. */
export const SECTION_TYPES = ['introduction', 'exploration', 'explanation', 'elaboration', 'evaluation', 'support', 'extension'] as const
/** A section type. */
export type SectionType = (typeof SECTION_TYPES)[number]

/** One timed section of a lesson. */
export interface LessonSection {
  id: string
  type: SectionType
  title: string
  content: string
  duration: number
}

/** A lesson as the interface shows it. */
export interface Lesson {
  id: string
  title: string
  subject: string
  topic: string
  gradeLevel: string
  instructionalModel: '5E'
  objectives: string[]
  sections: LessonSection[]
  assessments: Assessment[]
  resources: Array<{ type: string; title: string; items: Array<{ question: string; answer: string }> }>
  standards: string[]
  metadata: { difficulty: number; readingLevel: number; estimatedTime: number }
  generatedAt: string
}

/**
 * Measurable verbs by Bloom's (revised) level. An objective starts with one of them, so that
 * its attainment can be observed.
 */
export const BLOOM_VERBS: Record<string, readonly string[]> = {
  remember: ['define', 'identify', 'list', 'name', 'recall', 'recognize', 'state', 'label', 'match'],
  understand: ['classify', 'compare', 'describe', 'explain', 'interpret', 'summarize', 'paraphrase', 'illustrate', 'estimate', 'represent'],
  apply: ['apply', 'calculate', 'compute', 'convert', 'demonstrate', 'model', 'solve', 'use', 'simplify', 'find', 'measure', 'graph', 'evaluate'],
  analyze: ['analyze', 'differentiate', 'distinguish', 'examine', 'organize', 'relate', 'correct', 'categorize'],
  evaluate: ['assess', 'critique', 'judge', 'justify', 'verify', 'check', 'defend', 'argue'],
  create: ['create', 'design', 'construct', 'develop', 'formulate', 'write', 'compose', 'plan', 'generate'],
}
const MEASURABLE = new Set(Object.values(BLOOM_VERBS).flat())

/**
 * Why an objective is not measurable, or undefined when it is. A leading "Students will be
 * able to" (or SWBAT) is allowed before the verb.
 */
export function objectiveProblem(objective: string): string | undefined {
  const text = objective.trim().replace(/^(students will be able to|students will|swbat|i can)\s+/i, '')
  const verb =
    text
      .split(/\s+/)[0]
      ?.toLowerCase()
      .replace(/[^a-z]/g, '') ?? ''
  if (!verb) return 'must not be empty'
  if (MEASURABLE.has(verb)) return undefined
  return `must start with a measurable (Bloom) verb such as solve, explain, calculate, compare, justify or create; "${verb}" cannot be observed`
}

/** Phase weights of the 5E model, as shares of the lesson's time. */
const PHASES: ReadonlyArray<{ type: SectionType; weight: number }> = [
  { type: 'introduction', weight: 0.1 },
  { type: 'exploration', weight: 0.2 },
  { type: 'explanation', weight: 0.25 },
  { type: 'elaboration', weight: 0.25 },
  { type: 'evaluation', weight: 0.2 },
]

/** Whole minutes in proportion to the weights, summing to exactly `total` (largest remainders). */
export function allocateMinutes(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0)
  const exact = weights.map((w) => (w / sum) * total)
  const minutes = exact.map((m) => Math.max(1, Math.floor(m)))
  let left = total - minutes.reduce((s, m) => s + m, 0)
  const order = exact.map((m, i) => ({ i, r: m - Math.floor(m) })).sort((a, b) => b.r - a.r)
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) minutes[order[k]!.i]! += 1
  for (let k = minutes.length - 1; left < 0; k = (k - 1 + minutes.length) % minutes.length) {
    if (minutes[k]! > 1) {
      minutes[k]! -= 1
      left++
    }
  }
  return minutes
}

const list = (problems: readonly DraftProblem[], withAnswers: boolean) =>
  problems.map((p, i) => `${i + 1}. ${p.question}${withAnswers ? ` (Answer: ${p.answer})` : ''}`).join('\n')

/** Options of one lesson. */
export interface LessonOptions {
  family: ProblemFamily
  subject: string
  topic: string
  gradeLevel: string
  objectives: readonly string[]
  duration: number
  level: number
  includeAssessment: boolean
  differentiation: boolean
  standards: readonly string[]
  random: Random
}

/**
 * Builds a 5E lesson (Engage, Explore, Explain, Elaborate, Evaluate) around problems the
 * engine computes: a hook, a paired exploration, a fully worked example, guided practice with
 * an answer key and an exit ticket. Differentiation adds a support and an extension station
 * taken from the elaboration time, so the sections always add up to the lesson's duration.
 */
export function buildLesson(options: LessonOptions): Lesson {
  const { family, level, random } = options
  const stage = family.levels[level - 1]!
  const [hook, explore1, explore2, worked, ...rest] = draftProblems(family, level, 10, random)
  const practice = rest.slice(0, 4)
  const exit = rest.slice(4, 6)
  const objectives = options.objectives.length
    ? [...options.objectives]
    : [
        `Explain each step of ${stage} using a worked example.`,
        `Solve problems on ${stage} and check each answer.`,
        `Identify and correct a typical mistake in ${family.name.toLowerCase()}.`,
      ]
  const weights = PHASES.map((p) => p.weight)
  const types = PHASES.map((p) => p.type)
  if (options.differentiation) {
    // Support and extension run as stations inside the elaboration time.
    weights.splice(3, 1, 0.13, 0.06, 0.06)
    types.splice(4, 0, 'support', 'extension')
  }
  const minutes = allocateMinutes(options.duration, weights)
  const support = options.differentiation ? draftProblems(family, Math.max(1, level - 1), 3, random) : []
  const extension = options.differentiation ? draftProblems(family, Math.min(5, level + 1), 2, random) : []
  const wrongWay = worked!.mistakes[0]

  const content: Record<SectionType, { title: string; text: string }> = {
    introduction: {
      title: 'Engage: a problem to start',
      text: `Show the class this problem and ask for a first guess before anyone calculates.\n\n${hook!.question}\n\nCollect two or three guesses and write them on the board. Tell students that by the end of the lesson they will be able to check which guess is right. Share today's goals:\n${objectives.map((o) => `- ${o}`).join('\n')}\n\n(Key for the teacher: ${hook!.answer}.)`,
    },
    exploration: {
      title: 'Explore: work in pairs',
      text: `In pairs, students try these two problems with any method they like. Each pair writes down how they started.\n\n${list([explore1!, explore2!], false)}\n\nWalk around and ask: "What do you notice about the numbers?" and "How could you check your answer?" Note which strategies appear so you can use them next.\n\n(Key: 1. ${explore1!.answer}; 2. ${explore2!.answer}.)`,
    },
    explanation: {
      title: 'Explain: a worked example',
      text: `Model the method step by step on this problem.\n\n${worked!.question}\n\n${worked!.steps.map((s, i) => `Step ${i + 1}: ${s}`).join('\n')}\n\nAnswer: ${worked!.answer}.\n\n${wrongWay ? `Point out a common error: some students get ${wrongWay}. Ask the class to find where that answer goes wrong. ` : ''}Link the steps back to the strategies the pairs used.`,
    },
    elaboration: {
      title: 'Elaborate: guided practice',
      text: `Students work alone on these problems, then compare with a partner.\n\n${list(practice, false)}\n\nHints to give when a student is stuck: ${family.generate(random, level).hints.join(' ')}`,
    },
    support: {
      title: 'Support station: step by step',
      text: `For students who need more support, work through these problems together, one step at a time.\n\n${list(support, false)}\n\nStart with the first step of each problem and let the student say the next step before writing it. Keep the worked example visible.\n\n(Key: ${support.map((p, i) => `${i + 1}. ${p.answer}`).join('; ')}.)`,
    },
    extension: {
      title: 'Extension station: a harder challenge',
      text: `For students who finish early, these problems go one level further.\n\n${list(extension, false)}\n\nAsk them to write a problem of their own like these and swap it with a partner.\n\n(Key: ${extension.map((p, i) => `${i + 1}. ${p.answer}`).join('; ')}.)`,
    },
    evaluation: {
      title: 'Evaluate: exit ticket',
      text: `Each student answers these on a slip of paper before leaving.\n\n${list(exit, false)}\n\nSort the slips into three piles: both correct, one correct, none correct. Use the piles to plan the next lesson's groups.\n\n(Key: ${exit.map((p, i) => `${i + 1}. ${p.answer}`).join('; ')}.)`,
    },
  }
  const sections = types.map((type, i): LessonSection => ({
    id: randomUUID(),
    type,
    title: content[type].title,
    content: content[type].text,
    duration: minutes[i]!,
  }))
  const assessments = options.includeAssessment
    ? [
        buildAssessment({
          family,
          topic: options.topic,
          questionTypes: ['multiple-choice', 'short-answer'],
          questionCount: 5,
          level,
          standards: options.standards,
          includeRubric: false,
          random,
        }),
      ]
    : []
  return {
    id: randomUUID(),
    title: `${options.topic.charAt(0).toUpperCase()}${options.topic.slice(1)} (${options.subject}, grade ${options.gradeLevel})`,
    subject: options.subject,
    topic: options.topic,
    gradeLevel: options.gradeLevel,
    instructionalModel: '5E',
    objectives,
    sections,
    assessments,
    resources: [{ type: 'answer-key', title: 'Guided practice answer key', items: practice.map((p) => ({ question: p.question, answer: p.answer })) }],
    standards: options.standards.length ? [...options.standards] : [...family.standards],
    metadata: {
      difficulty: level,
      // Measured on what the students read and hear: the sections' prose.
      readingLevel: fleschKincaidGrade(sections.map((s) => s.content).join('\n')),
      estimatedTime: sections.reduce((s, x) => s + x.duration, 0),
    },
    generatedAt: new Date().toISOString(),
  }
}
