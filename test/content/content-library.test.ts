import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError, expectRateLimitHeaders } from '../support/standard-error.js'

const BASE = '/v1/content-ai'

const lesson = {
  type: 'lesson',
  title: 'Fractions on a number line',
  content: { sections: [{ type: 'introduction', title: 'Warm-up', content: 'Mark 1/2 and 3/4 on a number line.', duration: 10 }] },
  metadata: { subject: 'Mathematics', gradeLevel: '3', standards: ['3.NF.A.2'], author: 'Ms Rivera' },
}

describe('stored content over REST and GraphQL', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'] })
  })
  afterAll(() => t.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object) =>
    t.app.inject({ method, url: `${BASE}${path}`, headers: t.auth, ...(payload ? { payload } : {}) })
  const gql = async (query: string, variables?: object) =>
    (await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query, variables } })).json()

  it('creates, reads, updates and deletes an item with 201/200/200/204 and 404 after', async () => {
    const created = await call('POST', '/content', lesson)
    expect(created.statusCode, created.body).toBe(201)
    expectRateLimitHeaders(created)
    const item = created.json()
    expect(created.headers.location).toBe(`${BASE}/content/${item.id}`)
    expect(item).toMatchObject({
      type: 'lesson',
      title: lesson.title,
      content: lesson.content,
      origin: 'stored',
      metadata: { subject: 'Mathematics', gradeLevel: '3', standards: ['3.NF.A.2'], author: 'Ms Rivera' },
    })

    const read = await call('GET', `/content/${item.id}`)
    expect(read.json()).toEqual(item)

    const updated = await call('PUT', `/content/${item.id}`, { title: 'Fractions on the number line', metadata: { gradeLevel: '4' } })
    expect(updated.statusCode).toBe(200)
    // Fields not sent stay as they were.
    expect(updated.json()).toMatchObject({
      title: 'Fractions on the number line',
      content: lesson.content,
      metadata: { subject: 'Mathematics', gradeLevel: '4', standards: ['3.NF.A.2'] },
    })

    const deleted = await call('DELETE', `/content/${item.id}`)
    expect(deleted.statusCode).toBe(204)
    expect(deleted.body).toBe('')
    expectError(await call('GET', `/content/${item.id}`), 404, 'NOT_FOUND', 'contentId')
    expectError(await call('PUT', `/content/${item.id}`, { title: 'x' }), 404, 'NOT_FOUND')
    expectError(await call('DELETE', `/content/${item.id}`), 404, 'NOT_FOUND')
    expectError(await call('GET', '/content/not-a-uuid'), 404, 'NOT_FOUND')
  })

  it('validates the content object by type and never half-writes', async () => {
    expectError(await call('POST', '/content', { ...lesson, content: { sections: [] } }), 400, 'INVALID_REQUEST', 'content.sections')
    expectError(
      await call('POST', '/content', { ...lesson, content: { sections: [{ title: 'x', content: 'y' }] } }),
      400,
      'INVALID_REQUEST',
      'content.sections[0].duration',
    )
    expectError(await call('POST', '/content', { ...lesson, type: 'poem' }), 400, 'INVALID_REQUEST', 'type')
    expectError(await call('POST', '/content', { ...lesson, title: '' }), 400, 'INVALID_REQUEST', 'title')
    expectError(await call('POST', '/content', { ...lesson, content: [1] }), 400, 'INVALID_REQUEST', 'content')
    expectError(await call('POST', '/content', { ...lesson, metadata: { standards: 'RP' } }), 400, 'INVALID_REQUEST', 'metadata.standards')
    expectError(
      await call('POST', '/content', { type: 'problem-set', title: 'P', content: { problems: [{ question: 'What is 2 + 2?' }] } }),
      400,
      'INVALID_REQUEST',
      'content.problems[0].solution.answer',
    )
    const before = (await call('GET', '/content?limit=100')).json().total
    const item = (await call('POST', '/content', lesson)).json()
    expectError(await call('PUT', `/content/${item.id}`, { content: { sections: 'none' } }), 400, 'INVALID_REQUEST', 'content.sections')
    expectError(await call('PUT', `/content/${item.id}`, {}), 400, 'INVALID_REQUEST')
    expect((await call('GET', `/content/${item.id}`)).json().content).toEqual(lesson.content)
    expect((await call('GET', '/content?limit=100')).json().total).toBe(before + 1)
  })

  it('filters by subject, gradeLevel and type and pages with defaults 1 and 20, at most 100', async () => {
    const subject = `Science ${randomUUID()}`
    for (let i = 0; i < 23; i++) {
      await call('POST', '/content', {
        type: i % 2 ? 'article' : 'activity',
        title: `Item ${i}`,
        content: { text: `Body ${i}` },
        metadata: { subject, gradeLevel: i < 20 ? '5' : '6' },
      })
    }
    const first = (await call('GET', `/content?subject=${encodeURIComponent(subject)}`)).json()
    expect(first).toMatchObject({ page: 1, limit: 20, total: 23 })
    expect(first.items).toHaveLength(20)
    expect(first.items[0].title).toBe('Item 22')
    const second = (await call('GET', `/content?subject=${encodeURIComponent(subject)}&page=2`)).json()
    expect(second.items.map((i: { title: string }) => i.title)).toEqual(['Item 2', 'Item 1', 'Item 0'])
    expect((await call('GET', `/content?subject=${encodeURIComponent(subject)}&gradeLevel=6`)).json().total).toBe(3)
    expect((await call('GET', `/content?subject=${encodeURIComponent(subject)}&type=article&gradeLevel=5`)).json().total).toBe(10)
    expectError(await call('GET', '/content?limit=101'), 400, 'INVALID_REQUEST', 'limit')
    expectError(await call('GET', '/content?page=0'), 400, 'INVALID_REQUEST', 'page')
    expectError(await call('GET', '/content?type=poem'), 400, 'INVALID_REQUEST', 'type')
  })

  it('serves the same library over GraphQL with the same rules', async () => {
    const created = await gql(
      'mutation($input: CreateContentInput!) { createContent(input: $input) { id type title metadata { subject gradeLevel standards extra } origin } }',
      {
        input: {
          type: 'worksheet',
          title: 'Ratio tables',
          content: { text: 'Complete the table.' },
          metadata: { subject: 'Math', gradeLevel: '6', standards: ['6.RP.A.3'], extra: { pages: 2 } },
        },
      },
    )
    const item = created.data.createContent
    expect(item).toMatchObject({
      type: 'worksheet',
      origin: 'stored',
      metadata: { subject: 'Math', gradeLevel: '6', standards: ['6.RP.A.3'], extra: { pages: 2 } },
    })
    const rest = (await call('GET', `/content/${item.id}`)).json()
    expect(rest.metadata).toEqual({ subject: 'Math', gradeLevel: '6', standards: ['6.RP.A.3'], pages: 2 })
    const updated = await gql('mutation($id: ID!) { updateContent(id: $id, input: { title: "Ratio tables 2" }) { title } }', { id: item.id })
    expect(updated.data.updateContent.title).toBe('Ratio tables 2')
    const listed = await gql('{ contentItems(type: "worksheet", subject: "Math") { total items { id } } }')
    expect(listed.data.contentItems.items.map((i: { id: string }) => i.id)).toContain(item.id)
    const bad = await gql('{ contentItems(limit: 500) { total } }')
    expect(bad.errors[0].extensions.code).toBe('INVALID_REQUEST')
    expect((await gql('mutation($id: ID!) { deleteContent(id: $id) }', { id: item.id })).data.deleteContent).toBe(true)
    const gone = await gql('mutation($id: ID!) { deleteContent(id: $id) }', { id: item.id })
    expect(gone.errors[0].extensions.code).toBe('NOT_FOUND')
  })

  it('gives REST and GraphQL the same outcome without a credential and without the scope', async () => {
    const { key } = await t.credentials!.createApiKey({ name: 'generator only', scopes: ['content:generate'] })
    const headers = { authorization: `Bearer ${key}` }
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/content`, headers }), 403, 'FORBIDDEN')
    const graph = (await t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: '{ contentItems { total } }' } })).json()
    expect(graph.errors[0].extensions.code).toBe('FORBIDDEN')
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/content` }), 401, 'UNAUTHORIZED')
    const anonymous = (await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ contentItems { total } }' } })).json()
    expect(anonymous.errors[0].extensions.code).toBe('UNAUTHORIZED')
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/nothing`, headers: t.auth }), 404, 'NOT_FOUND')
  })
})
