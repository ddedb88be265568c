import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError, expectRateLimitHeaders } from '../support/standard-error.js'

const BASE = '/v1/content-ai'

describe('content generators over REST', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'] })
  })
  afterAll(() => t.close())

  const post = (path: string, payload: object, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers, payload })

  it('generates verified short-answer problems with hints and steps, stored under the returned id', async () => {
    const res = await post('/generate/problems', {
      topic: 'adding fractions',
      difficulty: 2,
      count: 5,
      includeHints: true,
      includeSolutions: true,
      format: 'short-answer',
      seed: 7,
    })
    expect(res.statusCode, res.body).toBe(201)
    expectRateLimitHeaders(res)
    const set = res.json()
    expect(res.headers.location).toBe(`${BASE}/content/${set.id}`)
    expect(set.problems).toHaveLength(5)
    expect(set.metadata).toMatchObject({ generatedCount: 5, averageDifficulty: 2, engine: 'offline' })
    for (const p of set.problems) {
      expect(p.question).toMatch(/^Calculate \d+\/\d+ \+ \d+\/\d+\./)
      expect(p.solution.answer).toMatch(/^\d+(\/\d+)?$/)
      expect(p.solution.steps.length).toBeGreaterThan(1)
      expect(p.hints.length).toBeGreaterThan(0)
      expect(p.verification.verified).toBe(true)
      expect(p.difficulty).toBe(2)
    }
    const stored = await t.app.inject({ method: 'GET', url: `${BASE}/content/${set.id}`, headers: t.auth })
    expect(stored.statusCode).toBe(200)
    expect(stored.json()).toMatchObject({ type: 'problem-set', origin: 'generated', engine: 'offline', content: { id: set.id } })
  })

  it('is reproducible with a seed, and leaves hints and steps out when asked', async () => {
    const a = (await post('/generate/problems', { topic: 'percentages', count: 3, seed: 42, includeHints: false, includeSolutions: false })).json()
    const b = (await post('/generate/problems', { topic: 'percentages', count: 3, seed: 42 })).json()
    expect(a.problems.map((p: { question: string }) => p.question)).toEqual(b.problems.map((p: { question: string }) => p.question))
    expect(a.problems[0].hints).toEqual([])
    expect(a.problems[0].solution.steps).toEqual([])
    expect(a.problems[0].solution.answer).toBe(b.problems[0].solution.answer)
  })

  it('writes multiple-choice problems whose distractors differ from the answer and each other', async () => {
    const set = (await post('/generate/problems', { topic: 'linear equations', difficulty: 3, count: 20, format: 'multiple-choice', seed: 3 })).json()
    for (const p of set.problems) {
      expect(p.choices).toHaveLength(4)
      expect(new Set(p.choices).size).toBe(4)
      expect(p.choices).toContain(p.solution.answer)
    }
  })

  it('refuses a topic outside the families with the supported topics listed', async () => {
    const res = await post('/generate/problems', { topic: 'the French revolution' })
    const error = expectError(res, 400, 'INVALID_REQUEST', 'topic')
    for (const family of [
      'fraction-arithmetic',
      'percentages',
      'ratios',
      'linear-equations',
      'systems-of-equations',
      'area-and-perimeter',
      'unit-conversion',
      'probability',
      'decimal-arithmetic',
      'whole-number-arithmetic',
    ]) {
      expect(error.details.reason).toContain(family)
    }
    const topics = await t.app.inject({ method: 'GET', url: `${BASE}/topics`, headers: t.auth })
    expect(topics.json().topics.map((x: { id: string }) => x.id)).toContain('probability')
  })

  it('names the field and the requirement for bad input', async () => {
    expectError(await post('/generate/problems', { topic: 'ratios', difficulty: 9 }), 400, 'INVALID_REQUEST', 'difficulty')
    expectError(await post('/generate/problems', { topic: 'ratios', count: 0 }), 400, 'INVALID_REQUEST', 'count')
    expectError(await post('/generate/problems', { topic: 'ratios', count: 2.5 }), 400, 'INVALID_REQUEST', 'count')
    expectError(await post('/generate/problems', { topic: 'ratios', format: 'essay' }), 400, 'INVALID_REQUEST', 'format')
    expectError(await post('/generate/problems', {}), 400, 'INVALID_REQUEST', 'topic')
    expectError(await post('/generate/problems', { topic: 'ratios', colour: 'red' }), 400, 'INVALID_REQUEST', 'colour')
    expectError(
      await post('/generate/lesson', { subject: 'Math', topic: 'ratios', gradeLevel: '6', objectives: ['Understand ratios'] }),
      400,
      'INVALID_REQUEST',
      'objectives[0]',
    )
    expectError(await post('/generate/lesson', { subject: 'Math', topic: 'ratios', gradeLevel: '6', duration: 5 }), 400, 'INVALID_REQUEST', 'duration')
    expectError(await post('/generate/assessment', { topic: 'ratios', questionTypes: ['true-false'] }), 400, 'INVALID_REQUEST', 'questionTypes[0]')
    expectError(await post('/generate/assessment', { topic: 'ratios', questionCount: 51 }), 400, 'INVALID_REQUEST', 'questionCount')
  })

  it('builds a 5E lesson whose sections add up to the duration, with a measured reading level', async () => {
    const res = await post('/generate/lesson', {
      subject: 'Mathematics',
      topic: 'ratios and rates',
      gradeLevel: '6',
      duration: 50,
      includeAssessment: true,
      differentiation: true,
      objectives: ['Solve unit rate problems', 'Explain how equivalent ratios are made'],
      standards: ['6.RP.A.2', '6.RP.A.3'],
      seed: 11,
    })
    expect(res.statusCode, res.body).toBe(201)
    const lesson = res.json()
    expect(lesson.sections.map((s: { type: string }) => s.type)).toEqual([
      'introduction',
      'exploration',
      'explanation',
      'elaboration',
      'support',
      'extension',
      'evaluation',
    ])
    expect(lesson.sections.reduce((s: number, x: { duration: number }) => s + x.duration, 0)).toBe(50)
    expect(lesson.metadata.estimatedTime).toBe(50)
    expect(lesson.standards).toEqual(['6.RP.A.2', '6.RP.A.3'])
    expect(lesson.objectives).toEqual(['Solve unit rate problems', 'Explain how equivalent ratios are made'])
    // Real material: the worked example shows steps and an answer, the exit ticket has a key.
    const explain = lesson.sections.find((s: { type: string }) => s.type === 'explanation')
    expect(explain.content).toMatch(/Step 1: .+\nStep 2: /)
    expect(explain.content).toMatch(/Answer: /)
    expect(lesson.sections.find((s: { type: string }) => s.type === 'evaluation').content).toMatch(/Key: 1\. .+; 2\. /)
    expect(lesson.metadata.readingLevel).toBeGreaterThan(0)
    expect(lesson.metadata.readingLevel).toBeLessThan(14)
    expect(lesson.assessments).toHaveLength(1)
    expect(lesson.assessments[0].questions).toHaveLength(5)
    const plain = (await post('/generate/lesson', { subject: 'Mathematics', topic: 'probability', gradeLevel: '7', duration: 37, seed: 1 })).json()
    expect(plain.sections).toHaveLength(5)
    expect(plain.sections.reduce((s: number, x: { duration: number }) => s + x.duration, 0)).toBe(37)
    expect(plain.assessments).toEqual([])
    for (const objective of plain.objectives) expect(objective).toMatch(/^(Explain|Solve|Identify) /)
  })

  it('builds an assessment whose points sum to totalPoints, with a rubric and a time from the item counts', async () => {
    const res = await post('/generate/assessment', {
      topic: 'area of triangles',
      questionTypes: ['multiple-choice', 'short-answer', 'essay'],
      questionCount: 6,
      difficulty: 3,
      standards: ['6.G.A.1'],
      includeRubric: true,
      seed: 5,
    })
    expect(res.statusCode, res.body).toBe(201)
    const a = res.json()
    expect(a.questions.map((q: { type: string }) => q.type)).toEqual(['multiple-choice', 'short-answer', 'essay', 'multiple-choice', 'short-answer', 'essay'])
    expect(a.totalPoints).toBe(a.questions.reduce((s: number, q: { points: number }) => s + q.points, 0))
    expect(a.totalPoints).toBe(2 * (2 + 3 + 12))
    // 2 × (1.5 + 3 + 10) minutes at difficulty 3.
    expect(a.estimatedTime).toBe(29)
    expect(a.rubric.criteria).toHaveLength(3)
    for (const c of a.rubric.criteria) expect(c.descriptors.map((d: { score: number }) => d.score)).toEqual([4, 3, 2, 1])
    expect(a.rubric.maxPoints).toBe(12)
    expect(a.standards).toEqual(['6.G.A.1'])
    const noRubric = (await post('/generate/assessment', { topic: 'probability', questionCount: 2 })).json()
    expect(noRubric.rubric).toBeNull()
  })

  it('answers 401 without a credential and 403 without the scope, in the documented body', async () => {
    expectError(await t.app.inject({ method: 'POST', url: `${BASE}/generate/problems`, payload: { topic: 'ratios' } }), 401, 'UNAUTHORIZED')
    const { key } = await t.credentials!.createApiKey({ name: 'reader', scopes: ['content:read'] })
    expectError(await post('/generate/problems', { topic: 'ratios' }, { 'x-api-key': key }), 403, 'FORBIDDEN')
    // X-API-Key is accepted as well as Authorization: Bearer.
    const ok = await t.app.inject({ method: 'GET', url: `${BASE}/content`, headers: { 'x-api-key': key } })
    expect(ok.statusCode).toBe(200)
  })
})
