import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

describe('POST /v1/quantum/circuit', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'] })
  })
  afterAll(() => t.close())

  it('simulates the legacy Bell body to 0.5/0.5 and stores the result', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', headers: t.auth, payload: { qubits: 2, gates: ['H', 'CNOT'] } })
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body.probabilities).toEqual({ '00': 0.5, '11': 0.5 })
    expect(body.status).toBe('completed')
    expect(res.headers.location).toBe(`/v1/quantum/circuit/${body.circuit_id}`)
    const read = await t.app.inject({ method: 'GET', url: `/v1/quantum/circuit/${body.circuit_id}`, headers: t.auth })
    expect(read.statusCode).toBe(200)
    expect(read.json()).toEqual(body)
  })

  it('samples reproducible counts with shots and a seed', async () => {
    const run = () =>
      t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', headers: t.auth, payload: { qubits: 2, gates: ['H 0', 'CNOT 0 1'], shots: 1000, seed: 42 } })
    const [a, b] = [(await run()).json(), (await run()).json()]
    expect(a.counts).toEqual(b.counts)
    expect(Object.values(a.counts as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(1000)
    expect(Object.keys(a.counts).sort()).toEqual(['00', '11'])
  })

  it('returns a drawn seed when shots come without one, so the run can be repeated', async () => {
    const first = (await t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', headers: t.auth, payload: { qubits: 1, gates: ['H'], shots: 500 } })).json()
    expect(Number.isInteger(first.seed)).toBe(true)
    const again = (
      await t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', headers: t.auth, payload: { qubits: 1, gates: ['H'], shots: 500, seed: first.seed } })
    ).json()
    expect(again.counts).toEqual(first.counts)
  })

  it('names every invalid gate and the out-of-range qubit', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', headers: t.auth, payload: { qubits: 2, gates: ['H 0', 'FOO 1', 'CNOT 0 5'] } })
    expect(res.statusCode).toBe(400)
    const { error } = res.json()
    expect(error.code).toBe('INVALID_REQUEST')
    const fields = error.details.issues.map((i: { field: string }) => i.field)
    expect(fields).toEqual(expect.arrayContaining(['gates[1]', 'gates[2]']))
    expect(error.details.field).toBe(fields[0])
  })

  it('refuses more qubits than the documented maximum', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/quantum/circuit', headers: t.auth, payload: { qubits: 17, gates: [] } })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.details.field).toBe('qubits')
  })
})
