import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { collect, wsClient } from '../support/graphql-ws-client.js'
import { MAX_INPUT_DEPTH, inspectInput } from '../../platform/validation/inspect-input.js'

// `{"a":{"a":…}}` nested `levels` deep, built as text: JSON.stringify itself would recurse.
const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
const deepValue = (levels: number) => JSON.parse(deepJson(levels)) as unknown

describe('inspectInput', () => {
  it('walks 100,000 levels without recursion and names where the nesting goes too deep', () => {
    const problem = inspectInput(deepValue(100_000))
    expect(problem?.message).toBe(`must not nest arrays and objects deeper than ${MAX_INPUT_DEPTH} levels`)
    expect(problem?.field).toBe(Array(MAX_INPUT_DEPTH).fill('a').join('.'))
  })

  it('accepts nesting up to the limit and still finds NUL characters in order', () => {
    expect(inspectInput(deepValue(MAX_INPUT_DEPTH - 1))).toBeUndefined()
    expect(inspectInput({ a: ['x', 'y\u0000'], b: '\u0000' })).toEqual({ field: 'a[1]', message: 'must not contain the NUL character (U+0000)' })
    expect(inspectInput({ a: 'x\u0000' }, '', { nul: false })).toBeUndefined()
  })
})

describe('deeply nested input is refused with 400 in each interface body', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices', 'visualization', 'pipelines'], listen: true })
  })
  afterAll(() => t.close())

  it('answers 400 naming the field on every documented JSON body, never 500', async () => {
    const routes: Array<{ method: string; url: string }> = []
    for (const service of ['devices', 'visualization', 'pipelines']) {
      const doc = (await t.app.inject({ method: 'GET', url: `/openapi/${service}.json` })).json()
      for (const [path, operations] of Object.entries<Record<string, { requestBody?: unknown }>>(doc.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (operation.requestBody) routes.push({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, 'x1') })
        }
      }
    }
    expect(routes.length).toBeGreaterThanOrEqual(10)
    const body = `{"data":${deepJson(5000)}}`
    for (const route of routes) {
      const res = await t.app.inject({
        method: route.method as 'POST',
        url: route.url,
        headers: { ...t.auth, 'content-type': 'application/json' },
        payload: body,
      })
      expect(res.statusCode, `${route.method} ${route.url}: ${res.body}`).toBe(400)
      expect(res.body, `${route.method} ${route.url}`).toMatch(/deeper than 64 levels/)
      expect(res.body).toContain('data.a.a.a')
    }
  })

  it('refuses deep GraphQL variables with 400 before execution, over HTTP and GET', async () => {
    const payload = `{"query":"mutation($i: AlertInput!) { raiseAlert(input: $i) { id } }","variables":{"i":${deepJson(5000)}}}`
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: { ...t.auth, 'content-type': 'application/json' }, payload })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: expect.stringMatching(/^variables\.i\.a\.a/) } })
    const query = encodeURIComponent('query($x: JSON) { __typename }')
    const get = await t.app.inject({
      method: 'GET',
      url: `/graphql?query=${query}&variables=${encodeURIComponent(`{"x":${deepJson(5000)}}`)}`,
      headers: { ...t.auth, 'apollo-require-preflight': 'true' },
    })
    expect(get.statusCode).toBe(400)
    expect(get.json().errors[0].extensions.code).toBe('BAD_USER_INPUT')
  })

  it('refuses deep variables of a subscription with an error, not a closed socket', async () => {
    const client = wsClient(`${t.url}/graphql`, { authorization: t.auth.authorization })
    try {
      const outcome = await new Promise<unknown>((resolve) => {
        const timer = setTimeout(() => resolve('timeout'), 3000)
        client.subscribe(
          { query: 'subscription($d: String) { alertRaised(deviceId: $d) { id } }', variables: { d: deepValue(500) as never } },
          { next: (value) => resolve(value), error: (error) => (clearTimeout(timer), resolve(error)), complete: () => resolve('complete') },
        )
      })
      expect(JSON.stringify(outcome)).toMatch(/deeper than 64 levels/)
    } finally {
      await client.dispose()
    }
  })
})
