import { randomUUID } from 'node:crypto'
import { familyForTopic, type DraftProblem, type ProblemFamily } from './problem-families.js'
import type { Random } from './random.js'

/** Answer formats of generated problems. */
export const PROBLEM_FORMATS = ['short-answer', 'multiple-choice'] as const
/** An answer format. */
export type ProblemFormat = (typeof PROBLEM_FORMATS)[number]

/** The difficulty scale: 1 (introductory) to 5 (challenging); fractions round to the nearest level. */
export const DIFFICULTY = { min: 1, max: 5 } as const

/** A generated problem as the interface shows it. */
export interface Problem {
  id: string
  question: string
  format: ProblemFormat
  /** Options for multiple-choice problems, the answer among them. */
  choices?: string[]
  hints: string[]
  solution: { answer: string; steps: string[] }
  difficulty: number
  tags: string[]
  /** How the answer was checked before it was returned. */
  verification: { method: string; verified: boolean }
}

/** A problem set as the interface shows it. */
export interface ProblemSet {
  id: string
  topic: string
  family: string
  problems: Problem[]
  standards: string[]
  metadata: { generatedCount: number; averageDifficulty: number; engine: string; seed: number }
  generatedAt: string
}

/** The level (1–5) a requested difficulty stands for. */
export const levelOf = (difficulty: number) => Math.min(DIFFICULTY.max, Math.max(DIFFICULTY.min, Math.round(difficulty)))

/**
 * Wrong answers near the right one for when a family's typical mistakes are too few:
 * the answer's first number nudged by one, doubled or halved.
 */
function nearMisses(answer: string): string[] {
  const match = /-?\d+(\.\d+)?/.exec(answer.replace('−', '-'))
  if (!match) return []
  const value = Number(match[0])
  const replace = (n: number) =>
    answer
      .replace('−', '-')
      .replace(match[0], String(Number(n.toPrecision(10))))
      .replace(/^-|(?<=[ =(])-/g, '−')
  return [value + 1, value - 1, value * 2, value + 10, value / 2].map(replace)
}

/** Mistakes with floating-point noise rounded the way a student would write them. */
const tidy = (text: string) => text.replace(/-?\d+\.\d{5,}/g, (n) => String(Number(Number(n).toFixed(2))))

/** Three distractors: the family's typical mistakes first, then near misses. */
export function distractors(draft: Pick<DraftProblem, 'answer' | 'mistakes'>, count = 3): string[] {
  const out: string[] = []
  for (const candidate of [...draft.mistakes.map(tidy), ...nearMisses(draft.answer)]) {
    if (out.length >= count) break
    if (candidate !== draft.answer && !out.includes(candidate)) out.push(candidate)
  }
  return out
}

/** Shapes one drafted problem for the requested format and options. */
export function shapeProblem(
  draft: DraftProblem,
  options: { level: number; format: ProblemFormat; includeHints: boolean; includeSolutions: boolean; random: Random },
): Problem {
  const verified = draft.verify()
  const choices = options.format === 'multiple-choice' ? options.random.shuffle([draft.answer, ...distractors(draft)]) : undefined
  return {
    id: randomUUID(),
    question: options.format === 'multiple-choice' ? `${draft.question} Choose one answer.` : draft.question,
    format: options.format,
    ...(choices ? { choices } : {}),
    hints: options.includeHints ? draft.hints : [],
    // The answer always travels (a teacher's key); the worked steps only when asked for.
    solution: { answer: draft.answer, steps: options.includeSolutions ? draft.steps : [] },
    difficulty: options.level,
    tags: draft.tags,
    verification: { method: 'mathjs re-evaluation of the question', verified },
  }
}

/**
 * Drafts `count` problems of a family at a level: different numbers each time (a draft that
 * repeats an earlier question is drawn again), each verified. A draft that fails its check is
 * dropped and replaced; the engine never returns an unverified answer.
 */
export function draftProblems(family: ProblemFamily, level: number, count: number, random: Random): DraftProblem[] {
  const drafts: DraftProblem[] = []
  const seen = new Set<string>()
  for (let attempt = 0; drafts.length < count && attempt < count * 20; attempt++) {
    const draft = family.generate(random, level)
    if (!draft.verify()) continue
    // Small families (a few dozen distinct questions at level 1) may repeat after many tries.
    if (seen.has(draft.question) && attempt < count * 10) continue
    seen.add(draft.question)
    drafts.push(draft)
  }
  return drafts
}

/** The family of a topic, or undefined. */
export { familyForTopic }
