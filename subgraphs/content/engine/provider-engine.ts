import { randomUUID } from 'node:crypto'
import * as math from 'mathjs'
import { z } from 'zod'
import { ITEM_MINUTES, ITEM_POINTS, QUESTION_TYPES, type Assessment } from './assessment-generator.js'
import { ProviderError, type GenerationEngine } from './generation-engine.js'
import { allocateMinutes, objectiveProblem, SECTION_TYPES, type Lesson } from './lesson-generator.js'
import { levelOf, type Problem } from './problem-generator.js'
import { fleschKincaidGrade } from './readability.js'

/** Where the OpenAI-compatible chat-completions endpoint is, read from the environment. */
export interface ProviderConfig {
  /** Base URL ending before `/chat/completions`, e.g. `http://127.0.0.1:8080/v1` (CONTENT_PROVIDER_URL). */
  url: string
  /** Model name sent in each request (CONTENT_PROVIDER_MODEL, default `default`). */
  model: string
  /** Sent as `Authorization: Bearer` when set (CONTENT_PROVIDER_API_KEY); never logged. */
  apiKey?: string
  /** Milliseconds per request (CONTENT_PROVIDER_TIMEOUT_MS, default 30000). */
  timeoutMs: number
  /** `offline`: fall back to the offline engine when the provider fails (default); `none`: answer 503. */
  fallback: 'offline' | 'none'
}

const problemSchema = z.object({
  question: z.string().min(1),
  hints: z.array(z.string()).default([]),
  answer: z.string().min(1),
  steps: z.array(z.string()).default([]),
  /** A mathjs expression whose value is the answer: how the answer is checked here. */
  expression: z.string().min(1),
  choices: z.array(z.string()).optional(),
  tags: z.array(z.string()).default([]),
})
const problemsSchema = z.object({ problems: z.array(problemSchema).min(1) })
const lessonSchema = z.object({
  title: z.string().min(1),
  objectives: z.array(z.string().min(1)).min(1),
  sections: z.array(z.object({ type: z.enum(SECTION_TYPES), title: z.string().min(1), content: z.string().min(1), duration: z.number().positive() })).min(1),
})
const assessmentSchema = z.object({
  title: z.string().min(1),
  questions: z
    .array(z.object({ type: z.enum(QUESTION_TYPES), prompt: z.string().min(1), choices: z.array(z.string()).optional(), answer: z.string().min(1) }))
    .min(1),
})

/** True when the answer's value equals the expression's, as numbers or fractions. */
export function answerMatches(answer: string, expression: string): boolean {
  try {
    const expected = math.evaluate(expression) as unknown
    const given = math.evaluate(
      answer
        .replace(/^[a-z]\s*=\s*/i, '')
        .replace(/[−–]/g, '-')
        .replace(/[$%]/g, ''),
    ) as unknown
    if (typeof expected !== 'number' || typeof given !== 'number') return false
    return Math.abs(expected - given) <= 1e-9 * Math.max(1, Math.abs(expected))
  } catch {
    return false
  }
}

/**
 * The engine for any OpenAI-compatible chat-completions endpoint (llama.cpp, vLLM, Ollama or
 * a hosted one). It asks for JSON, validates it against the same shapes the offline engine
 * produces, and applies the same rules: every problem's answer re-evaluated, section minutes
 * summing to the duration, measurable objectives, the reading level measured here.
 */
export function createProviderEngine(config: ProviderConfig, fetchImpl: typeof fetch = fetch): GenerationEngine {
  const ask = async <T>(schema: z.ZodType<T>, system: string, user: string): Promise<T> => {
    let response: Response
    try {
      response = await fetchImpl(`${config.url.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
        body: JSON.stringify({
          model: config.model,
          temperature: 0.4,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: `${system} Answer with one JSON object only, no prose around it.` },
            { role: 'user', content: user },
          ],
        }),
        signal: AbortSignal.timeout(config.timeoutMs),
      })
    } catch (error) {
      throw new ProviderError(`The content provider is unreachable (${(error as Error).name})`)
    }
    if (!response.ok) throw new ProviderError(`The content provider answered HTTP ${response.status}`)
    let text: unknown
    try {
      const body = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> }
      text = body.choices?.[0]?.message?.content
    } catch {
      throw new ProviderError('The content provider sent a body that is not JSON')
    }
    if (typeof text !== 'string') throw new ProviderError('The content provider sent no message content')
    let json: unknown
    try {
      // Some servers wrap JSON in a code fence despite response_format.
      json = JSON.parse(text.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''))
    } catch {
      throw new ProviderError('The content provider did not answer with JSON')
    }
    const parsed = schema.safeParse(json)
    if (!parsed.success)
      throw new ProviderError(
        `The content provider's JSON does not match the schema: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
      )
    return parsed.data
  }

  return {
    name: 'provider',
    async problems(request) {
      const level = levelOf(request.difficulty)
      const out = await ask(
        problemsSchema,
        'You write school mathematics practice problems with correct answers.',
        `Write ${request.count} ${request.format} problems on "${request.topic}" at difficulty ${level} of 5. Return {"problems":[{"question","hints":[...],"answer","steps":[...],"expression","choices":[...] (multiple-choice only),"tags":[...]}]}. "expression" is a plain arithmetic expression (numbers and + - * / ^ ( ) only) whose value equals the answer.`,
      )
      // Only problems whose answer the expression confirms are returned.
      const problems = out.problems.filter((p) => answerMatches(p.answer, p.expression)).slice(0, request.count)
      if (problems.length < request.count)
        throw new ProviderError(`The content provider's answers failed verification (${problems.length} of ${request.count} confirmed)`)
      const shaped = problems.map((p): Problem => ({
        id: randomUUID(),
        question: p.question,
        format: request.format,
        ...(request.format === 'multiple-choice' ? { choices: p.choices?.includes(p.answer) ? p.choices : [p.answer, ...(p.choices ?? [])] } : {}),
        hints: request.includeHints ? p.hints : [],
        solution: { answer: p.answer, steps: request.includeSolutions ? p.steps : [] },
        difficulty: level,
        tags: p.tags,
        verification: { method: `mathjs evaluation of ${p.expression}`, verified: true },
      }))
      return {
        id: randomUUID(),
        topic: request.topic,
        family: 'provider',
        problems: shaped,
        standards: [],
        metadata: { generatedCount: shaped.length, averageDifficulty: level, engine: 'provider', seed: request.seed },
        generatedAt: new Date().toISOString(),
      }
    },
    async lesson(request) {
      const out = await ask(
        lessonSchema,
        'You are an experienced teacher writing lesson plans on the 5E model (Engage, Explore, Explain, Elaborate, Evaluate).',
        `Write a ${request.duration}-minute ${request.subject} lesson on "${request.topic}" for grade ${request.gradeLevel}.${request.objectives.length ? ` Objectives: ${request.objectives.join('; ')}.` : ''}${request.differentiation ? ' Include one "support" and one "extension" section.' : ''} Return {"title","objectives":[...],"sections":[{"type":one of ${SECTION_TYPES.join('|')},"title","content","duration"}]}. Objectives start with a measurable Bloom verb.`,
      )
      const objectives = request.objectives.length ? request.objectives : out.objectives.filter((o) => !objectiveProblem(o))
      if (!objectives.length) throw new ProviderError('The content provider wrote no measurable objective')
      const minutes = allocateMinutes(
        request.duration,
        out.sections.map((s) => s.duration),
      )
      const sections = out.sections.map((s, i) => ({ id: randomUUID(), type: s.type, title: s.title, content: s.content, duration: minutes[i]! }))
      return {
        id: randomUUID(),
        title: out.title,
        subject: request.subject,
        topic: request.topic,
        gradeLevel: request.gradeLevel,
        instructionalModel: '5E',
        objectives,
        sections,
        assessments: [],
        resources: [],
        standards: request.standards,
        metadata: { difficulty: 3, readingLevel: fleschKincaidGrade(sections.map((s) => s.content).join('\n')), estimatedTime: request.duration },
        generatedAt: new Date().toISOString(),
      } satisfies Lesson
    },
    async assessment(request) {
      const level = levelOf(request.difficulty)
      const out = await ask(
        assessmentSchema,
        'You write school assessments with answer keys.',
        `Write an assessment on "${request.topic}" with ${request.questionCount} questions of these types in turn: ${request.questionTypes.join(', ')}, difficulty ${level} of 5. Return {"title","questions":[{"type","prompt","choices":[...] (multiple-choice only),"answer"}]}.`,
      )
      const questions = out.questions.slice(0, request.questionCount).map((q) => ({
        id: randomUUID(),
        type: q.type,
        prompt: q.prompt,
        ...(q.choices ? { choices: q.choices } : {}),
        answer: q.answer,
        solutionSteps: [],
        points: ITEM_POINTS[q.type],
        difficulty: level,
        tags: [],
      }))
      return {
        id: randomUUID(),
        title: out.title,
        topic: request.topic,
        questions,
        rubric: null,
        standards: request.standards,
        estimatedTime: Math.ceil(questions.reduce((s, q) => s + ITEM_MINUTES[q.type], 0) * (1 + (level - 3) * 0.15)),
        totalPoints: questions.reduce((s, q) => s + q.points, 0),
        generatedAt: new Date().toISOString(),
      } satisfies Assessment
    },
  }
}

/** Reads the provider's settings from the environment; undefined when none is configured. */
export function loadProviderConfig(env: NodeJS.ProcessEnv): ProviderConfig | undefined {
  const url = env.CONTENT_PROVIDER_URL?.trim()
  if (!url) return undefined
  if (!/^https?:\/\//.test(url)) throw new Error('CONTENT_PROVIDER_URL must be an http(s) URL')
  const timeoutMs = Number(env.CONTENT_PROVIDER_TIMEOUT_MS ?? 30_000)
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100) throw new Error('CONTENT_PROVIDER_TIMEOUT_MS must be a whole number of milliseconds, at least 100')
  const fallback = env.CONTENT_PROVIDER_FALLBACK ?? 'offline'
  if (fallback !== 'offline' && fallback !== 'none') throw new Error('CONTENT_PROVIDER_FALLBACK must be offline or none')
  return { url, model: env.CONTENT_PROVIDER_MODEL ?? 'default', apiKey: env.CONTENT_PROVIDER_API_KEY, timeoutMs, fallback }
}
