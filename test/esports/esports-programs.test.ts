import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError } from '../support/standard-error.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, programBody, restClient, tokenFor } from './fixtures.js'

describe('esports programs', () => {
  let t: TestTessera
  let api: ReturnType<typeof restClient>
  beforeAll(async () => {
    t = await build({ services: ['esports'] })
    api = restClient(t, (await tokenFor(t, ALL)).authorization)
  })
  afterAll(() => t.close())

  it('creates a program with defaults, reads it back, and lists it', async () => {
    const res = await api.post('/programs', programBody())
    expect(res.statusCode, res.body).toBe(201)
    const program = res.json()
    expect(res.headers.location).toBe(`/v1/programs/${program.id}`)
    expect(program.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(program.standard).toBe('OneRoster-1.2')
    expect(program.program.status).toBe('planning')
    expect(program.institution.location).toEqual({ country: 'US', state: 'CA', city: 'Fresno' })
    const got = await api.get(`/programs/${program.id}`)
    expect(got.json()).toEqual(program)
  })

  it('filters by institution and status, pages with the documented defaults and bounds', async () => {
    for (let i = 0; i < 5; i++) await api.created('/programs', programBody({ institutionId: 'inst-paging', name: `P${i}` }))
    await api.created('/programs', programBody({ institutionId: 'inst-paging', status: 'active', name: 'Live' }))
    const all = (await api.get('/programs?institutionId=inst-paging')).json()
    expect(all.pagination).toEqual({ page: 1, limit: 20, total: 6, totalPages: 1 })
    const page2 = (await api.get('/programs?institutionId=inst-paging&limit=4&page=2')).json()
    expect(page2.data).toHaveLength(2)
    expect(page2.pagination).toEqual({ page: 2, limit: 4, total: 6, totalPages: 2 })
    const active = (await api.get('/programs?institutionId=inst-paging&status=active')).json()
    expect(active.data.map((p: { program: { name: string } }) => p.program.name)).toEqual(['Live'])
    expect((await api.get('/programs?limit=100')).statusCode).toBe(200)
    expectError(await api.get('/programs?limit=101'), 422, 'VALIDATION_ERROR', 'limit')
    expectError(await api.get('/programs?limit=0'), 422, 'VALIDATION_ERROR', 'limit')
    expectError(await api.get('/programs?page=0'), 422, 'VALIDATION_ERROR', 'page')
    expectError(await api.get('/programs?status=closed'), 422, 'VALIDATION_ERROR', 'status')
  })

  it('patches only the fields sent, merging nested objects', async () => {
    const program = await api.created('/programs', programBody())
    const res = await api.patch(`/programs/${program.id}`, { institution: { location: { city: 'Clovis' } }, program: { games: ['Valorant'] } })
    expect(res.statusCode, res.body).toBe(200)
    const updated = res.json()
    expect(updated.institution).toEqual({ ...program.institution, location: { country: 'US', state: 'CA', city: 'Clovis' } })
    expect(updated.program).toEqual({ ...program.program, games: ['Valorant'] })
  })

  it('follows the status lifecycle and keeps archived programs read-only', async () => {
    const program = await api.created('/programs', programBody())
    const to = (status: string) => api.patch(`/programs/${program.id}`, { program: { status } })
    expectError(await to('suspended'), 422, 'VALIDATION_ERROR', 'program.status')
    expect((await to('active')).statusCode).toBe(200)
    expect((await to('suspended')).statusCode).toBe(200)
    expect((await to('active')).statusCode).toBe(200)
    expectError(await to('planning'), 422, 'VALIDATION_ERROR', 'program.status')
    expect((await to('archived')).statusCode).toBe(200)
    const locked = expectError(await api.patch(`/programs/${program.id}`, { program: { name: 'Renamed' } }), 422, 'VALIDATION_ERROR', 'program.status')
    expect(locked.message).toMatch(/read-only/)
    expectError(
      await api.post('/teams', { programId: program.id, name: 'T', game: 'Rocket League', tier: 'varsity', season: { year: 2026 } }),
      422,
      'VALIDATION_ERROR',
      'programId',
    )
    expect((await api.get(`/programs/${program.id}`)).json().program.name).toBe('Lincoln Esports')
  })

  it('names every field at fault and writes nothing', async () => {
    const before = (await api.get('/programs')).json().pagination.total
    const res = await api.post('/programs', {
      institution: { name: '', type: 'castle' },
      program: { name: 'X', gradeLevels: { min: 12, max: 9 }, games: 'chess' },
    })
    const error = expectError(res, 422, 'VALIDATION_ERROR')
    const fields = error.details.issues.map((i: { field: string }) => i.field)
    expect(fields).toEqual(expect.arrayContaining(['institution.id', 'institution.name', 'institution.type', 'program.gradeLevels', 'program.games']))
    expectError(await api.post('/programs', { program: {} }), 422, 'VALIDATION_ERROR', 'institution')
    expectError(await api.post('/programs', [1]), 422, 'VALIDATION_ERROR')
    expect((await api.get('/programs')).json().pagination.total).toBe(before)
  })

  it('deletes with 204, then 404s in the documented body', async () => {
    const program = await api.created('/programs', programBody())
    const res = await api.delete(`/programs/${program.id}`)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expectError(await api.get(`/programs/${program.id}`), 404, 'NOT_FOUND')
    expectError(await api.delete(`/programs/${program.id}`), 404, 'NOT_FOUND')
    expectError(await api.get('/programs/not-a-uuid'), 404, 'NOT_FOUND')
  })

  it('answers 401 without or with a bad token, 403 without the scope', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/v1/programs' }), 401, 'UNAUTHORIZED')
    expectError(await t.app.inject({ method: 'GET', url: '/v1/programs', headers: { authorization: 'Bearer tst_nope' } }), 401, 'UNAUTHORIZED')
    const reader = restClient(t, (await tokenFor(t, ['programs:read'])).authorization)
    expect((await reader.get('/programs')).statusCode).toBe(200)
    const denied = expectError(await reader.post('/programs', programBody()), 403, 'FORBIDDEN')
    expect(denied.details.requiredScope).toBe('programs:write')
    const teamsOnly = restClient(t, (await tokenFor(t, ['teams:read'])).authorization)
    expectError(await teamsOnly.get('/programs'), 403, 'FORBIDDEN')
  })
})
