import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError } from '../support/standard-error.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, keyFor, playerBody, programBody, restClient } from './fixtures.js'

describe('esports matches, consent rules and careers', () => {
  let t: TestTessera
  let api: ReturnType<typeof restClient>
  let programId: string
  let teamId: string
  let consented: string
  let noParentalConsent: string
  let noMediaRelease: string
  let adult: string
  beforeAll(async () => {
    t = await build({ services: ['esports'] })
    api = restClient(t, (await keyFor(t, ALL)).authorization)
    programId = (await api.created('/programs', programBody())).id
    teamId = (await api.created('/teams', { programId, name: 'Varsity', game: 'Rocket League', tier: 'varsity', season: { year: 2026 } })).id
    consented = (await api.created('/players', playerBody(programId, 1))).id
    noParentalConsent = (await api.created('/players', playerBody(programId, 2, { parentalConsent: false }))).id
    noMediaRelease = (await api.created('/players', playerBody(programId, 3, { mediaRelease: false }))).id
    adult = (await api.created('/players', playerBody(programId, 4, { parentalConsent: false }, { grade: 12, birthYear: 2007 }))).id
    await api.patch(`/teams/${teamId}/roster`, { starters: [consented, noParentalConsent, noMediaRelease, adult] })
  })
  afterAll(() => t.close())

  const match = (starters: string[], date = '2026-11-01T18:00:00Z', type = 'league') => ({
    type,
    teamId,
    opponent: { name: 'Central Eagles', institution: 'Central High' },
    schedule: { date, location: 'online', venue: 'PlayVS' },
    roster: { starters },
  })

  it('refuses a minor without parental consent on a match roster; an adult needs none', async () => {
    const error = expectError(await api.post('/matches', match([consented, noParentalConsent])), 422, 'VALIDATION_ERROR', 'roster.starters[1]')
    expect(error.message).toMatch(/parental consent/)
    expect((await api.get(`/players/${adult}`)).json().minor).toBe(false)
    const ok = await api.created('/matches', match([consented, adult]))
    expect(ok).toMatchObject({ status: 'scheduled', result: null, roster: { starters: [consented, adult] }, schedule: { location: 'online' } })
  })

  it('records a result that moves the team record, corrections included', async () => {
    const m = await api.created('/matches', match([consented]))
    const res = await api.patch(`/matches/${m.id}/result`, {
      score: { team: 3, opponent: 1 },
      outcome: 'win',
      duration: 1800,
      analysis: { vod: 'https://vod.example/1', coachNotes: 'Good rotations' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      status: 'completed',
      result: { score: { team: 3, opponent: 1 }, outcome: 'win', duration: 1800, analysis: { vod: 'https://vod.example/1', coachNotes: 'Good rotations' } },
    })
    const before = (await api.get(`/teams/${teamId}`)).json().record
    await api.patch(`/matches/${m.id}/result`, { score: { team: 1, opponent: 2 }, outcome: 'loss' })
    const after = (await api.get(`/teams/${teamId}`)).json().record
    expect(after).toEqual({ wins: before.wins - 1, losses: before.losses + 1, ties: before.ties })
    expectError(await api.patch(`/matches/${m.id}/result`, { score: { team: 1, opponent: 2 }, outcome: 'win' }), 422, 'VALIDATION_ERROR', 'outcome')
    expectError(await api.patch(`/matches/${m.id}/result`, { outcome: 'win' }), 422, 'VALIDATION_ERROR', 'score')
    expect((await api.get(`/teams/${teamId}`)).json().record).toEqual(after)
  })

  it('hides the VOD of a match played by someone without a media release', async () => {
    const m = await api.created('/matches', match([consented, noMediaRelease]))
    const res = (
      await api.patch(`/matches/${m.id}/result`, { score: { team: 2, opponent: 2 }, outcome: 'tie', analysis: { vod: 'https://vod.example/2' } })
    ).json()
    expect(res.result.analysis).toEqual({ vod: null, coachNotes: null, vodWithheld: true })
    expect((await api.get(`/matches/${m.id}`)).json().result.analysis.vod).toBeNull()
    await api.patch(`/players/${noMediaRelease}`, { consent: { mediaRelease: true } })
    expect((await api.get(`/matches/${m.id}`)).json().result.analysis.vod).toBe('https://vod.example/2')
  })

  it("lists a team's matches by type and date window", async () => {
    await api.created('/matches', match([consented], '2027-01-10T18:00:00Z', 'scrimmage'))
    await api.created('/matches', match([consented], '2027-02-10T18:00:00Z', 'playoff'))
    const ids = async (q: string) => (await api.get(`/matches?teamId=${teamId}${q}`)).json().data.map((x: { type: string }) => x.type)
    expect(await ids('&startDate=2027-01-01T00:00:00Z')).toEqual(['scrimmage', 'playoff'])
    expect(await ids('&startDate=2027-01-01T00:00:00Z&endDate=2027-01-31T00:00:00Z')).toEqual(['scrimmage'])
    expect(await ids('&type=playoff')).toEqual(['playoff'])
    expectError(await api.get('/matches'), 422, 'VALIDATION_ERROR', 'teamId')
    expectError(await api.get(`/matches?teamId=${teamId}&startDate=yesterday`), 422, 'VALIDATION_ERROR', 'startDate')
    expectError(await api.post('/matches', { ...match([consented]), type: 'friendly' }), 422, 'VALIDATION_ERROR', 'type')
    expectError(await api.get('/matches/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND')
  })

  it('keeps a career profile with interests, experiences, achievements and a summary', async () => {
    const empty = (await api.get(`/players/${consented}/career`)).json()
    expect(empty).toEqual({
      playerId: consented,
      interests: [],
      experiences: [],
      achievements: [],
      summary: { experienceCount: 0, achievementCount: 0, totalAwarded: 0, skills: [], lastActivity: null },
    })
    const interests = await api.patch(`/players/${consented}/career/interests`, { interests: ['content_creator', 'analyst', 'analyst'] })
    expect(interests.json().interests).toEqual(['content_creator', 'analyst'])
    const exp = await api.created(`/players/${consented}/career/experiences`, {
      type: 'internship',
      title: 'Broadcast intern',
      organization: 'PlayVS',
      description: 'Cast weekly matches',
      dateRange: { start: '2026-06-01T00:00:00Z', end: '2026-08-01T00:00:00Z' },
      skills: ['casting', 'obs'],
    })
    expect(exp).toMatchObject({ type: 'internship', dateRange: { start: '2026-06-01T00:00:00.000Z', end: '2026-08-01T00:00:00.000Z' } })
    await api.created(`/players/${consented}/career/achievements`, {
      type: 'scholarship',
      title: 'Esports scholarship',
      issuer: 'State University',
      date: '2026-09-15T00:00:00Z',
      amount: 5000,
    })
    const career = (await api.get(`/players/${consented}/career`)).json()
    expect(career.summary).toEqual({
      experienceCount: 1,
      achievementCount: 1,
      totalAwarded: 5000,
      skills: ['casting', 'obs'],
      lastActivity: '2026-09-15T00:00:00.000Z',
    })
    expectError(await api.patch(`/players/${consented}/career/interests`, { interests: ['Content Creator'] }), 422, 'VALIDATION_ERROR', 'interests[0]')
    expectError(
      await api.post(`/players/${consented}/career/experiences`, {
        type: 'internship',
        title: 'x',
        dateRange: { start: '2026-06-01T00:00:00Z', end: '2026-01-01T00:00:00Z' },
      }),
      422,
      'VALIDATION_ERROR',
      'dateRange.end',
    )
    expectError(
      await api.post(`/players/${consented}/career/achievements`, { type: 'scholarship', title: 'x', date: '2026-01-01T00:00:00Z', amount: -1 }),
      422,
      'VALIDATION_ERROR',
      'amount',
    )
    const noCareer = restClient(t, (await keyFor(t, ['players:read'])).authorization)
    expectError(await noCareer.get(`/players/${consented}/career`), 403, 'FORBIDDEN')
  })
})
