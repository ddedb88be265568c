import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTesseraProcess, type TesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import { build, testEnv, type TestTessera } from '../helper.js'

const QUERY = '{ alerts { total } charts { total } connectors { id } programs { pagination { total } } artifacts { total } contentItems { total } }'
const OWNER: Record<string, string> = {
  devices: 'alerts',
  visualization: 'charts',
  pipelines: 'connectors',
  esports: 'programs',
  heritage: 'artifacts',
  content: 'contentItems',
}

describe('one service down leaves the others’ fields answered (partial data)', () => {
  for (const down of Object.keys(OWNER)) {
    describe(`with ${down} down`, () => {
      let t: TestTessera
      beforeAll(async () => {
        t = await build({ services: Object.keys(OWNER).filter((s) => s !== down) })
      })
      afterAll(() => t.close())

      it(`answers every other root field and one error naming ${down} at ${OWNER[down]}`, async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json', ...t.auth },
          payload: { query: QUERY },
        })
        expect(res.statusCode).toBe(200)
        const { data, errors } = res.json()
        expect(data[OWNER[down]!]).toBeNull()
        for (const [service, field] of Object.entries(OWNER)) if (service !== down) expect(data[field], field).not.toBeNull()
        expect(errors).toHaveLength(1)
        expect(errors[0]).toMatchObject({ path: [OWNER[down]], extensions: { code: 'SUBGRAPH_UNAVAILABLE', subgraph: down } })
      })
    })
  }
})

describe('a hung subgraph: timeout, then the breaker fails fast', () => {
  let hung: Server
  let gateway: TesseraProcess
  const sockets = new Set<import('node:net').Socket>()
  beforeAll(async () => {
    // Accepts connections and never answers, as a SIGSTOPped process does.
    hung = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve))
    const port = (hung.address() as { port: number }).port
    const env = testEnv({ TESSERA_SUBGRAPH_TIMEOUT_MS: '300' })
    gateway = await createTesseraProcess({
      mode: { kind: 'gateway', subgraphUrls: { devices: `http://127.0.0.1:${port}/graphql` } },
      config: loadPlatformConfig(env),
      env,
      announce: () => {},
      logger: false,
    })
  })
  afterAll(async () => {
    await gateway?.close()
    for (const socket of sockets) socket.destroy()
    hung?.close()
  })

  const ask = () =>
    gateway.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      payload: { query: '{ alerts { total } a2: alerts(limit: 1) { total } }' },
    })

  it('answers within the timeout with errors naming the subgraph and each path', async () => {
    const started = Date.now()
    const res = await ask()
    expect(Date.now() - started).toBeLessThan(2000)
    const { data, errors } = res.json()
    expect(data).toEqual({ alerts: null, a2: null })
    expect(errors.map((e: { path: string[] }) => e.path)).toEqual([['alerts'], ['a2']])
    expect(errors[0]).toMatchObject({
      message: expect.stringContaining('Subgraph devices did not answer within 300 ms'),
      extensions: { code: 'SUBGRAPH_TIMEOUT', subgraph: 'devices' },
    })
  })

  it('opens the breaker after 5 failures in a row and then fails at once', async () => {
    for (let i = 0; i < 4; i++) await ask()
    const started = Date.now()
    const res = await ask()
    expect(Date.now() - started).toBeLessThan(200)
    expect(res.json().errors[0].extensions).toMatchObject({ code: 'SUBGRAPH_UNAVAILABLE', subgraph: 'devices' })
  })
})
