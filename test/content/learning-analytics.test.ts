import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const BASE = '/v1/content-ai'
const RANGE = '2026-11-01T00:00:00Z/2026-11-15T00:00:00Z'

/** A lesson's learner events, with the figures worked out by hand in the test below. */
function fixture(contentId: string) {
  const e = (studentId: string, verb: string, timestamp: string, result: Record<string, unknown> = {}) => ({
    id: randomUUID(),
    studentId,
    contentId,
    verb,
    timestamp,
    ...result,
  })
  return [
    // A: three days (returns), interacts, completes, pre 0.4 → post 0.8, delayed 0.6, rates 4; 600 s.
    e('A', 'viewed', '2026-11-02T10:00:00Z', { durationSeconds: 60 }),
    e('A', 'started', '2026-11-02T10:01:00Z'),
    e('A', 'scored', '2026-11-02T10:02:00Z', { score: 0.4, assessment: 'pre' }),
    e('A', 'progressed', '2026-11-02T10:10:00Z', { progress: 0.5, durationSeconds: 300 }),
    e('A', 'completed', '2026-11-03T09:00:00Z', { durationSeconds: 240 }),
    e('A', 'scored', '2026-11-03T09:05:00Z', { score: 0.8, assessment: 'post' }),
    e('A', 'rated', '2026-11-03T09:06:00Z', { rating: 4 }),
    e('A', 'scored', '2026-11-10T09:00:00Z', { score: 0.6, assessment: 'delayed' }),
    // B: one day, two views, answers one item, completes, pre 0.5 → post 0.7, rates 3 then 5; 240 s.
    e('B', 'viewed', '2026-11-05T08:00:00Z', { durationSeconds: 120 }),
    e('B', 'viewed', '2026-11-05T08:30:00Z', { durationSeconds: 30 }),
    e('B', 'scored', '2026-11-05T08:31:00Z', { score: 0.5, assessment: 'pre' }),
    e('B', 'answered', '2026-11-05T08:35:00Z', { score: 1, success: true, durationSeconds: 90 }),
    e('B', 'completed', '2026-11-05T08:40:00Z'),
    e('B', 'scored', '2026-11-05T08:41:00Z', { score: 0.7, assessment: 'post' }),
    e('B', 'rated', '2026-11-05T08:42:00Z', { rating: 3 }),
    e('B', 'rated', '2026-11-05T09:00:00Z', { rating: 5 }),
    // C: one view in the last week of the range; 45 s.
    e('C', 'viewed', '2026-11-09T12:00:00Z', { durationSeconds: 45 }),
    // D: only outside the range (its end is excluded).
    e('D', 'viewed', '2026-10-30T12:00:00Z', { durationSeconds: 500 }),
    e('D', 'completed', '2026-11-15T00:00:00Z'),
  ]
}

describe('learner events and content analytics', () => {
  let t: TestTessera
  let contentId: string
  beforeAll(async () => {
    t = await build({ services: ['content'] })
    const item = await call('POST', '/content', { type: 'article', title: 'Unit rates', content: { text: 'A unit rate compares a quantity to one unit.' } })
    contentId = item.json().id
  })
  afterAll(() => t.close())

  const call = (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method, url: `${BASE}${path}`, headers, ...(payload ? { payload } : {}) })

  it('records a batch once, whatever the number of times it is sent, and computes every figure from it', async () => {
    const events = fixture(contentId)
    const first = await call('POST', '/events', { events })
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json()).toEqual({ received: 19, recorded: 19, duplicates: 0 })
    const again = await call('POST', '/events', { events: [...events.slice(0, 3), fixture(contentId)[0]] })
    expect(again.json()).toEqual({ received: 4, recorded: 1, duplicates: 3 })
    // The extra view (student A, 2 Nov, 60 s) is part of the figures below.

    const res = await call('GET', `/analytics/${contentId}?timeRange=${encodeURIComponent(RANGE)}`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      contentId,
      timeRange: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-15T00:00:00.000Z' },
      // A, B, C: 5 views; A and B completed (2/3); (660 + 240 + 45) s / 3; A and B interacted;
      // only A came back on another day.
      engagement: { views: 5, completionRate: 0.6667, averageTimeOnContent: 315, interactionRate: 0.6667, returnRate: 0.3333 },
      // Gains 0.4 and 0.2; A kept 0.6 of 0.8; last ratings 4 and 5.
      effectiveness: { averageLearningGain: 0.3, retentionRate: 0.75, satisfactionScore: 4.5, pairedScores: 2, delayedScores: 1, ratings: 2 },
      // A (10 Nov) and C (9 Nov) acted in the last 7 days of the range.
      usage: { totalStudents: 3, activeStudents: 2, completedStudents: 2 },
    })
  })

  it('takes presets, ISO 8601 intervals with durations and start,end pairs, and selects blocks', async () => {
    const get = async (query: string) => (await call('GET', `/analytics/${contentId}?${query}`)).json()
    const usage = { totalStudents: 3, activeStudents: 2, completedStudents: 2 }
    expect(await get(`timeRange=2026-11-01/P14D&metrics=usage`)).toEqual({
      contentId,
      timeRange: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-15T00:00:00.000Z' },
      usage,
    })
    expect((await get(`timeRange=P2W/2026-11-15T00:00:00Z&metrics=usage`)).usage).toEqual(usage)
    expect(await get(`timeRange=${encodeURIComponent('2026-11-01T00:00:00Z,2026-11-15T00:00:00Z')}&metrics=usage,engagement`)).toMatchObject({
      usage,
      engagement: { views: 5 },
    })
    expect(Object.keys(await get('metrics=engagement, usage'))).toEqual(['contentId', 'timeRange', 'engagement', 'usage'])
    // `all` runs from the first event (D's, 30 Oct) to now and counts D too.
    const all = await get('timeRange=all&metrics=usage')
    expect(all.timeRange.start).toBe('2026-10-30T12:00:00.000Z')
    expect(all.usage).toMatchObject({ totalStudents: 4, completedStudents: 3 })
    // The default (30d) and an early range with no events: zeros, not errors.
    expect((await get('timeRange=2026-01-01/P7D')).engagement).toEqual({
      views: 0,
      completionRate: 0,
      averageTimeOnContent: 0,
      interactionRate: 0,
      returnRate: 0,
    })
    expect((await call('GET', `/analytics/${contentId}`)).statusCode).toBe(200)
  })

  it('refuses bad ranges, unknown blocks and unknown items', async () => {
    expectError(await call('GET', `/analytics/${contentId}?timeRange=yesterday`), 400, 'INVALID_REQUEST', 'timeRange')
    expectError(await call('GET', `/analytics/${contentId}?timeRange=2026-11-15/2026-11-01`), 400, 'INVALID_REQUEST', 'timeRange')
    expectError(await call('GET', `/analytics/${contentId}?timeRange=2026-11-01/P1M`), 400, 'INVALID_REQUEST', 'timeRange')
    expectError(await call('GET', `/analytics/${contentId}?metrics=engagement,popularity`), 400, 'INVALID_REQUEST', 'metrics')
    expectError(await call('GET', `/analytics/${randomUUID()}`), 404, 'NOT_FOUND', 'contentId')
  })

  it('checks every event and records nothing from a batch with a bad one', async () => {
    const good = () => ({ id: randomUUID(), studentId: 'E', contentId, verb: 'viewed', timestamp: '2026-11-20T10:00:00Z' })
    const bad = async (event: Record<string, unknown>, field: string) => {
      const res = await call('POST', '/events', { events: [good(), { ...good(), ...event }] })
      expectError(res, 400, 'INVALID_REQUEST', `events[1].${field}`)
    }
    await bad({ verb: 'liked' }, 'verb')
    await bad({ verb: 'progressed' }, 'progress')
    await bad({ verb: 'answered', score: 1.5 }, 'score')
    await bad({ verb: 'scored', score: 0.5 }, 'assessment')
    await bad({ verb: 'rated', rating: 4.5 }, 'rating')
    await bad({ rating: 4 }, 'rating')
    await bad({ id: 'e-1' }, 'id')
    await bad({ contentId: randomUUID() }, 'contentId')
    await bad({ timestamp: '2026-11-20 10:00' }, 'timestamp')
    await bad({ timestamp: '2999-01-01T00:00:00Z' }, 'timestamp')
    await bad({ durationSeconds: -1 }, 'durationSeconds')
    await bad({ mood: 'happy' }, 'mood')
    const twice = good()
    expectError(await call('POST', '/events', { events: [twice, twice] }), 400, 'INVALID_REQUEST', 'events[1].id')
    expectError(await call('POST', '/events', { events: [] }), 400, 'INVALID_REQUEST', 'events')
    expectError(await call('POST', '/events', {}), 400, 'INVALID_REQUEST', 'events')
    // None of the good events above was kept.
    const usage = (await call('GET', `/analytics/${contentId}?timeRange=2026-11-20/P1D&metrics=usage`)).json().usage
    expect(usage.totalStudents).toBe(0)
  })

  it('needs content:events to record and content:read to read analytics', async () => {
    const { key } = await t.credentials!.createApiKey({ name: `k ${randomUUID()}`, scopes: ['content:read'] })
    const reader = { 'x-api-key': key }
    expectError(await call('POST', '/events', { events: [] }, reader), 403, 'FORBIDDEN')
    expect((await call('GET', `/analytics/${contentId}?metrics=usage`, undefined, reader)).statusCode).toBe(200)
    expectError(await call('GET', `/analytics/${contentId}`, undefined, {}), 401, 'UNAUTHORIZED')
  })

  it('records events and reads analytics over GraphQL with the same rules', async () => {
    const gql = async (query: string, variables: object) =>
      (await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query, variables } })).json()
    const record = 'mutation($events: [LearningEventInput!]!) { recordLearningEvents(events: $events) { received recorded duplicates } }'
    const event = { id: randomUUID(), studentId: 'G', contentId, verb: 'rated', timestamp: '2026-11-21T10:00:00Z', rating: 2 }
    expect((await gql(record, { events: [event] })).data.recordLearningEvents).toEqual({ received: 1, recorded: 1, duplicates: 0 })
    expect((await gql(record, { events: [event] })).data.recordLearningEvents).toEqual({ received: 1, recorded: 0, duplicates: 1 })
    const bad = await gql(record, { events: [{ ...event, id: randomUUID(), rating: 9 }] })
    expect(bad.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'events[0].rating' } })
    const read =
      'query($id: ID!, $range: String, $metrics: String) { contentAnalytics(contentId: $id, timeRange: $range, metrics: $metrics) { contentId timeRange { start end } engagement { views } effectiveness { satisfactionScore ratings } usage { totalStudents } } }'
    const res = await gql(read, { id: contentId, range: '2026-11-21/P1D', metrics: 'effectiveness,usage' })
    expect(res.data.contentAnalytics).toEqual({
      contentId,
      timeRange: { start: '2026-11-21T00:00:00.000Z', end: '2026-11-22T00:00:00.000Z' },
      engagement: null,
      effectiveness: { satisfactionScore: 2, ratings: 1 },
      usage: { totalStudents: 1 },
    })
    expect((await gql(read, { id: contentId, range: 'soon' })).errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'timeRange' } })
  })

  it('deletes an item’s events with it', async () => {
    const item = (await call('POST', '/content', { type: 'article', title: 'Scratch', content: { text: 'x' } })).json()
    await call('POST', '/events', { events: [{ id: randomUUID(), studentId: 'Z', contentId: item.id, verb: 'viewed', timestamp: '2026-11-20T10:00:00Z' }] })
    expect((await call('DELETE', `/content/${item.id}`)).statusCode).toBe(204)
    expectError(await call('GET', `/analytics/${item.id}`), 404, 'NOT_FOUND')
  })
})
