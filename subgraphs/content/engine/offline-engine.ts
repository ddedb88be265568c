import { randomUUID } from 'node:crypto'
import { buildAssessment } from './assessment-generator.js'
import { UnsupportedTopicError, type GenerationEngine } from './generation-engine.js'
import { buildLesson } from './lesson-generator.js'
import { familyForTopic, type ProblemFamily } from './problem-families.js'
import { draftProblems, levelOf, shapeProblem } from './problem-generator.js'
import { createRandom } from './random.js'

/**
 * Difficulty level (1–5) for a grade: K–3 → 1, 4 → 2, 5–6 → 3, 7 → 4, 8 and above → 5.
 * Grades are written `K`, `5`, `5th`, `grade 5` or a band such as `6-8` (its lower end).
 */
export function levelForGrade(gradeLevel: string): number {
  const text = gradeLevel.trim().toLowerCase()
  if (/^(k|kindergarten|pre-?k)/.test(text)) return 1
  const grade = Number(/\d+/.exec(text)?.[0] ?? NaN)
  if (!Number.isFinite(grade)) return 3
  return grade <= 3 ? 1 : grade === 4 ? 2 : grade <= 6 ? 3 : grade === 7 ? 4 : 5
}

const familyOf = (topic: string): ProblemFamily => {
  const family = familyForTopic(topic)
  if (!family) throw new UnsupportedTopicError(topic)
  return family
}

/** The built-in engine: problems computed and verified offline, lessons and assessments built on them. */
export function createOfflineEngine(): GenerationEngine {
  return {
    name: 'offline',
    async problems(request) {
      const family = familyOf(request.topic)
      const random = createRandom(request.seed)
      const level = levelOf(request.difficulty)
      const problems = draftProblems(family, level, request.count, random).map((draft) =>
        shapeProblem(draft, { level, format: request.format, includeHints: request.includeHints, includeSolutions: request.includeSolutions, random }),
      )
      return {
        id: randomUUID(),
        topic: request.topic,
        family: family.id,
        problems,
        standards: [...family.standards],
        metadata: {
          generatedCount: problems.length,
          averageDifficulty: problems.length ? problems.reduce((s, p) => s + p.difficulty, 0) / problems.length : 0,
          engine: 'offline',
          seed: request.seed,
        },
        generatedAt: new Date().toISOString(),
      }
    },
    async lesson(request) {
      const family = familyOf(request.topic)
      return buildLesson({ ...request, family, level: levelForGrade(request.gradeLevel), random: createRandom(request.seed) })
    },
    async assessment(request) {
      const family = familyOf(request.topic)
      return buildAssessment({ ...request, family, level: levelOf(request.difficulty), random: createRandom(request.seed) })
    },
  }
}
