import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, TEST_CREDENTIALS, type TestTessera } from '../helper.js'
import { collect, wsClient } from '../support/graphql-ws-client.js'

describe('content over GraphQL', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'], listen: true })
  })
  afterAll(() => t.close())

  const gql = async (query: string, variables?: object, headers: Record<string, string> = t.auth) =>
    (await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables } })).json()

  it('generates the same problems as REST for the same seed', async () => {
    const graph = await gql(
      'mutation { generateProblems(input: { topic: "unit conversion", difficulty: 2, count: 4, seed: 77, format: "multiple-choice" }) { id problems { question choices solution { answer steps } verification { verified } } metadata { generatedCount engine } } }',
    )
    const rest = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/content-ai/generate/problems',
        headers: t.auth,
        payload: { topic: 'unit conversion', difficulty: 2, count: 4, seed: 77, format: 'multiple-choice' },
      })
    ).json()
    const set = graph.data.generateProblems
    expect(set.metadata).toEqual({ generatedCount: 4, engine: 'offline' })
    expect(set.problems.map((p: { question: string }) => p.question)).toEqual(rest.problems.map((p: { question: string }) => p.question))
    expect(set.problems.every((p: { verification: { verified: boolean } }) => p.verification.verified)).toBe(true)
    // Stored like REST's: the id is a content item.
    const item = await gql('query($id: ID!) { contentItem(id: $id) { type origin engine } }', { id: set.id })
    expect(item.data.contentItem).toEqual({ type: 'problem-set', origin: 'generated', engine: 'offline' })
  })

  it('generates lessons and assessments with the domain rules', async () => {
    const lesson = await gql(
      'mutation { generateLesson(input: { subject: "Math", topic: "percentages", gradeLevel: "7", duration: 40, differentiation: true, seed: 2 }) { sections { type duration } metadata { readingLevel estimatedTime engine } } }',
    )
    expect(lesson.data.generateLesson.sections.reduce((s: number, x: { duration: number }) => s + x.duration, 0)).toBe(40)
    expect(lesson.data.generateLesson.sections.map((s: { type: string }) => s.type)).toContain('support')
    const assessment = await gql(
      'mutation { generateAssessment(input: { topic: "probability", questionTypes: ["essay"], questionCount: 2, includeRubric: true }) { totalPoints estimatedTime rubric questions { type points } } }',
    )
    expect(assessment.data.generateAssessment).toMatchObject({ totalPoints: 24, estimatedTime: 20 })
    expect(assessment.data.generateAssessment.rubric.criteria).toHaveLength(3)
    const bad = await gql(
      'mutation { generateLesson(input: { subject: "Math", topic: "percentages", gradeLevel: "7", objectives: ["Know percentages"] }) { id } }',
    )
    expect(bad.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'objectives[0]' } })
    const unknownTopic = await gql('mutation { generateProblems(input: { topic: "poetry" }) { id } }')
    expect(unknownTopic.errors[0].extensions.details.field).toBe('topic')
  })

  it('tells subscribers when content is generated, with the stored item', async () => {
    const client = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    try {
      const sub = collect(client, { query: 'subscription { contentGenerated { event contentId status timestamp item { type title } } }' }, 1, 5_000)
      await sub.ready
      const set = (
        await t.app.inject({ method: 'POST', url: '/v1/content-ai/generate/problems', headers: t.auth, payload: { topic: 'ratios', count: 2 } })
      ).json()
      const [event] = await sub.results
      expect(event?.data?.contentGenerated).toMatchObject({
        event: 'content.generated',
        contentId: set.id,
        status: 'completed',
        item: { type: 'problem-set', title: 'Practice: ratios' },
      })
    } finally {
      await client.dispose()
    }
  })

  it('mirrors every content event of the caller’s environment in contentEvents, filtered by type', async () => {
    const { key } = await t.credentials!.createApiKey({ name: `sandbox ${Date.now()}`, scopes: ['content:read'], environment: 'sandbox' })
    const client = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` })
    const sandbox = wsClient(`${t.url}/graphql`, { authorization: `Bearer ${key}` })
    try {
      const sub = collect(client, { query: 'subscription { contentEvents(events: ["analytics.updated"]) { event contentId status } }' }, 1, 5_000)
      const other = collect(sandbox, { query: 'subscription { contentEvents { event contentId } }' }, 1, 1_000)
      await Promise.all([sub.ready, other.ready])
      const item = (
        await t.app.inject({
          method: 'POST',
          url: '/v1/content-ai/content',
          headers: t.auth,
          payload: { type: 'article', title: 'Rates', content: { text: 'Rates.' } },
        })
      ).json()
      const event = { id: randomUUID(), studentId: 's1', contentId: item.id, verb: 'viewed', timestamp: new Date().toISOString() }
      await t.app.inject({ method: 'POST', url: '/v1/content-ai/events', headers: t.auth, payload: { events: [event] } })
      const [received] = await sub.results
      expect(received?.data?.contentEvents).toEqual({ event: 'analytics.updated', contentId: item.id, status: 'updated' })
      // Production events do not reach a sandbox subscriber.
      await expect(other.results).rejects.toThrow()
      const [bad] = await collect(client, { query: 'subscription { contentEvents(events: ["content.deleted"]) { event } }' }, 1, 5_000).results
      expect(bad?.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'events[0]' } })
    } finally {
      await client.dispose()
      await sandbox.dispose()
    }
  })
})
