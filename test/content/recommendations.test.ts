import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const BASE = '/v1/content-ai'

describe('mastery-based recommendations', () => {
  let t: TestTessera
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    t = await build({ services: ['content'] })
    const make = async (name: string, topic: string, difficulty: number, count: number) => {
      const res = await call('POST', '/generate/problems', { topic, difficulty, count, seed: 7 })
      ids[name] = res.json().id
    }
    await make('probability', 'probability', 3, 5)
    await make('wholeNumbers', 'whole numbers', 2, 5)
    await make('percentages', 'percentages', 4, 5)
    await make('fractionsEasy', 'adding fractions', 2, 5)
    await make('fractionsHard', 'adding fractions', 4, 5)
    await make('fractionsLong', 'adding fractions', 3, 20)
  })
  afterAll(() => t.close())

  const call = (method: 'POST', path: string, payload: object) => t.app.inject({ method, url: `${BASE}${path}`, headers: t.auth, payload })
  const results = (studentId: string, contentId: string, scores: number[]) =>
    scores.map((score, i) => ({
      id: randomUUID(),
      studentId,
      contentId,
      verb: 'answered',
      score,
      timestamp: new Date(Date.UTC(2026, 10, 2, 10, i)).toISOString(),
    }))
  const names = (list: Array<{ contentId: string }>) => list.map((r) => Object.keys(ids).find((k) => ids[k] === r.contentId))

  it('points a struggling student to easier work on the topic and its prerequisites, citing the Elo estimate', async () => {
    await call('POST', '/events', { events: results('weak', ids.fractionsEasy!, [0, 0]) })
    const res = await call('POST', '/recommendations', { studentId: 'weak', currentTopic: 'fractions', context: { timeAvailable: 15 } })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    // θ: 0 → −0.249 → −0.474 (two zeros on a level-2 item, b = −0.5); σ(−0.474) = 0.384.
    expect(body.mastery).toEqual([{ topic: 'fraction-arithmetic', mastery: 0.384, results: 2 }])
    expect(names(body.recommendations)).toEqual(['fractionsEasy', 'fractionsHard', 'fractionsLong', 'wholeNumbers'])
    const [easy, , long] = body.recommendations
    expect(easy).toMatchObject({ title: 'Practice: adding fractions', type: 'problem-set', difficulty: 2, estimatedTime: 10 })
    expect(easy.reason).toBe(
      'On fraction-arithmetic: mastery 0.384 from 2 recorded results; difficulty 2 against a target of 2.4; 10 min fits the 15 available.',
    )
    expect(long.estimatedTime).toBe(40)
    expect(long.reason).toContain('more than the 15 available')
    expect(easy.relevance).toBeGreaterThan(long.relevance)
    expect(body.recommendations.find((r: { contentId: string }) => r.contentId === ids.wholeNumbers).reason).toContain(
      'Prerequisite whole-number-arithmetic of fraction-arithmetic',
    )
  })

  it('moves a student who has mastered the topic to harder work and the next topic, leaving out what they completed', async () => {
    await call('POST', '/events', {
      events: [
        ...results('strong', ids.fractionsHard!, Array(10).fill(1)),
        { id: randomUUID(), studentId: 'strong', contentId: ids.fractionsLong, verb: 'completed', timestamp: '2026-11-03T10:00:00Z' },
      ],
    })
    const body = (await call('POST', '/recommendations', { studentId: 'strong', currentTopic: 'adding fractions', limit: 3 })).json()
    expect(body.mastery).toEqual([{ topic: 'fraction-arithmetic', mastery: 0.839, results: 10 }])
    // A next topic is pitched at the student's level in it (no results: 3), so probability
    // (level 3) comes before percentages (level 4), which the fourth place would show.
    expect(names(body.recommendations)).toEqual(['fractionsHard', 'probability', 'fractionsEasy'])
    expect(body.recommendations[1].reason).toBe(
      'Next step after fraction-arithmetic (mastery 0.839 from 10 recorded results); difficulty 3 against a target of 3; 10 min.',
    )
    const more = (await call('POST', '/recommendations', { studentId: 'strong', currentTopic: 'adding fractions', limit: 10 })).json()
    expect(names(more.recommendations)).toEqual(['fractionsHard', 'probability', 'fractionsEasy', 'percentages'])
  })

  it('starts a student with no results at mastery 0.5 and a middle difficulty', async () => {
    const body = (await call('POST', '/recommendations', { studentId: 'new', currentTopic: 'fractions' })).json()
    expect(body.mastery).toEqual([])
    expect(body.recommendations[0].reason).toContain('no recorded results yet (starting estimate 0.5); difficulty 3 against a target of 3')
    expect(names(body.recommendations)).not.toContain('probability')
  })

  it('answers the same over GraphQL', async () => {
    const query =
      'query($input: RecommendationsInput!) { contentRecommendations(input: $input) { mastery { topic mastery results } recommendations { contentId relevance reason } } }'
    const gql = async (input: object) =>
      (await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query, variables: { input } } })).json()
    const rest = (await call('POST', '/recommendations', { studentId: 'weak', currentTopic: 'fractions', context: { timeAvailable: 15 } })).json()
    const res = await gql({ studentId: 'weak', currentTopic: 'fractions', timeAvailable: 15 })
    expect(res.data.contentRecommendations.mastery).toEqual(rest.mastery)
    expect(res.data.contentRecommendations.recommendations).toEqual(
      rest.recommendations.map((r: { contentId: string; relevance: number; reason: string }) => ({
        contentId: r.contentId,
        relevance: r.relevance,
        reason: r.reason,
      })),
    )
    expect((await gql({ studentId: 's', currentTopic: 'fractions', limit: 0 })).errors[0].extensions).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'limit' },
    })
  })

  it('refuses bad requests naming the field', async () => {
    expectError(await call('POST', '/recommendations', { currentTopic: 'fractions' }), 400, 'INVALID_REQUEST', 'studentId')
    expectError(await call('POST', '/recommendations', { studentId: 's', currentTopic: ' ' }), 400, 'INVALID_REQUEST', 'currentTopic')
    expectError(
      await call('POST', '/recommendations', { studentId: 's', currentTopic: 'fractions', context: { timeAvailable: 0 } }),
      400,
      'INVALID_REQUEST',
      'context.timeAvailable',
    )
    expectError(await call('POST', '/recommendations', { studentId: 's', currentTopic: 'fractions', limit: 50 }), 400, 'INVALID_REQUEST', 'limit')
  })
})
