import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError } from '../support/standard-error.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, keyFor, playerBody, programBody, restClient } from './fixtures.js'

describe('esports teams, rosters and players', () => {
  let t: TestTessera
  let api: ReturnType<typeof restClient>
  let programId: string
  let otherProgramId: string
  const players: string[] = []
  beforeAll(async () => {
    t = await build({ services: ['esports'] })
    api = restClient(t, (await keyFor(t, ALL)).authorization)
    programId = (await api.created('/programs', programBody())).id
    otherProgramId = (await api.created('/programs', programBody({ institutionId: 'inst-2' }))).id
    for (let i = 0; i < 4; i++) players.push((await api.created('/players', playerBody(programId, i))).id)
  })
  afterAll(() => t.close())

  const team = (overrides: Record<string, unknown> = {}) => ({
    programId,
    name: 'Varsity RL',
    game: 'Rocket League',
    tier: 'varsity',
    season: { year: 2026, league: 'PlayVS', division: 'West' },
    ...overrides,
  })

  it('creates teams and lists them by program with game, tier and season filters', async () => {
    const created = await api.created('/teams', team())
    expect(created).toMatchObject({
      programId,
      tier: 'varsity',
      season: { year: 2026, league: 'PlayVS', division: 'West' },
      roster: { starters: [], substitutes: [] },
      record: { wins: 0, losses: 0, ties: 0 },
    })
    await api.created('/teams', team({ name: 'JV OW', game: 'Overwatch 2', tier: 'jv', season: { year: 2025 } }))
    const list = async (q: string) =>
      (await api.get(`/teams?programId=${programId}${q}`))
        .json()
        .data.map((x: { name: string }) => x.name)
        .sort()
    expect(await list('')).toEqual(['JV OW', 'Varsity RL'])
    expect(await list('&tier=jv')).toEqual(['JV OW'])
    expect(await list('&game=rocket%20league')).toEqual(['Varsity RL'])
    expect(await list('&season=2025')).toEqual(['JV OW'])
    expectError(await api.get('/teams'), 422, 'VALIDATION_ERROR', 'programId')
    expectError(await api.get(`/teams?programId=${programId}&tier=pro`), 422, 'VALIDATION_ERROR', 'tier')
    expectError(await api.get('/teams?programId=00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND')
    expectError(await api.post('/teams', team({ game: 'Chess' })), 422, 'VALIDATION_ERROR', 'game')
    expectError(await api.post('/teams', team({ tier: 'pro', season: {} })), 422, 'VALIDATION_ERROR', 'tier')
    expectError(await api.get(`/teams/${players[0]}`), 404, 'NOT_FOUND')
  })

  it("sets a roster of the program's players, one list per player, and players join the team", async () => {
    const { id } = await api.created('/teams', team())
    const res = await api.patch(`/teams/${id}/roster`, { starters: [players[0], players[1]], substitutes: [players[2]] })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().roster).toEqual({ starters: [players[0], players[1]], substitutes: [players[2]] })
    const p0 = (await api.get(`/players/${players[0]}`)).json()
    expect(p0.teams).toEqual([expect.objectContaining({ teamId: id, role: 'starter' })])
    // Only the list sent changes.
    const subs = (await api.patch(`/teams/${id}/roster`, { substitutes: [players[3]] })).json()
    expect(subs.roster).toEqual({ starters: [players[0], players[1]], substitutes: [players[3]] })
    expect((await api.get(`/players/${players[2]}`)).json().teams).toEqual([])
    expectError(await api.patch(`/teams/${id}/roster`, { substitutes: [players[0]] }), 422, 'VALIDATION_ERROR', 'substitutes[0]')
    const stranger = await api.created('/players', playerBody(otherProgramId, 99))
    const foreign = expectError(await api.patch(`/teams/${id}/roster`, { starters: [stranger.id] }), 422, 'VALIDATION_ERROR', 'starters[0]')
    expect(foreign.message).toMatch(/another program/)
    expectError(await api.patch(`/teams/${id}/roster`, { starters: ['00000000-0000-4000-8000-000000000000'] }), 422, 'VALIDATION_ERROR', 'starters[0]')
    expectError(await api.patch(`/teams/${id}/roster`, {}), 422, 'VALIDATION_ERROR', 'body')
  })

  it('registers players with consent, lists them with filters, and patches groups', async () => {
    const res = await api.post('/players', playerBody(programId, 50, { mediaRelease: false }, { grade: 11, birthYear: 2009 }))
    expect(res.statusCode, res.body).toBe(201)
    const player = res.json()
    expect(player).toMatchObject({
      programId,
      status: 'active',
      minor: true,
      consent: { parentalConsent: true, dataSharing: true, mediaRelease: false, consentDate: '2026-09-01T00:00:00.000Z' },
    })
    expect(player.performance.individualStats).toEqual({ gamesPlayed: 0, winRate: 0, skillRating: 0 })
    expect((await api.get(`/players?programId=${programId}&grade=11`)).json().data.map((p: { id: string }) => p.id)).toEqual([player.id])
    const patched = (
      await api.patch(`/players/${player.id}`, {
        performance: { individualStats: { gamesPlayed: 12, winRate: 0.75, skillRating: 1450 } },
        personal: { grade: 12 },
      })
    ).json()
    expect(patched.performance.individualStats).toEqual({ gamesPlayed: 12, winRate: 0.75, skillRating: 1450 })
    expect(patched.personal).toEqual({ ...player.personal, grade: 12 })
    expect(patched.consent).toEqual(player.consent)
    await api.patch(`/players/${player.id}`, { status: 'graduated' })
    expect((await api.get(`/players?programId=${programId}&status=graduated`)).json().data.map((p: { id: string }) => p.id)).toEqual([player.id])
    expectError(
      await api.patch(`/players/${player.id}`, { performance: { individualStats: { winRate: 2 } } }),
      422,
      'VALIDATION_ERROR',
      'performance.individualStats.winRate',
    )
    expectError(await api.patch(`/players/${player.id}`, { programId: otherProgramId }), 422, 'VALIDATION_ERROR', 'programId')
    expectError(await api.post('/players', playerBody(programId, 50)), 422, 'VALIDATION_ERROR', 'personal.studentId')
    expectError(await api.post('/players', playerBody(programId, 51, {}, { grade: 5 })), 422, 'VALIDATION_ERROR', 'personal.grade')
    expectError(await api.post('/players', { programId, personal: { studentId: 'x', gamerTag: 'ok_tag', grade: 10 } }), 422, 'VALIDATION_ERROR', 'consent')
    expectError(await api.get('/players'), 422, 'VALIDATION_ERROR', 'programId')
    expectError(await api.get(`/players?programId=${programId}&status=retired`), 422, 'VALIDATION_ERROR', 'status')
  })

  it('assigns a player to a team of the same program (200) and lists players by team', async () => {
    const { id: teamId } = await api.created('/teams', team({ name: 'Assign' }))
    const p = await api.created('/players', playerBody(programId, 60))
    const res = await api.post(`/players/${p.id}/teams`, { teamId, role: 'starter', position: 'striker', joinedDate: '2026-10-01T00:00:00Z' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().teams).toEqual([{ teamId, role: 'starter', position: 'striker', joinedDate: '2026-10-01T00:00:00.000Z' }])
    expect((await api.get(`/teams/${teamId}`)).json().roster.starters).toEqual([p.id])
    expect((await api.get(`/players?programId=${programId}&teamId=${teamId}`)).json().data.map((x: { id: string }) => x.id)).toEqual([p.id])
    const otherTeam = await api.created('/teams', { ...team(), programId: otherProgramId })
    expectError(await api.post(`/players/${p.id}/teams`, { teamId: otherTeam.id, role: 'starter' }), 422, 'VALIDATION_ERROR', 'teamId')
    expectError(await api.post(`/players/${p.id}/teams`, { teamId, role: 'captain' }), 422, 'VALIDATION_ERROR', 'role')
    expectError(await api.post(`/players/00000000-0000-4000-8000-000000000000/teams`, { teamId, role: 'starter' }), 404, 'NOT_FOUND')
  })

  it('takes a player who stops being active off every roster', async () => {
    const { id: teamId } = await api.created('/teams', team({ name: 'Leaving' }))
    const p = await api.created('/players', playerBody(programId, 70))
    await api.patch(`/teams/${teamId}/roster`, { starters: [p.id] })
    const res = await api.patch(`/players/${p.id}`, { status: 'inactive' })
    expect(res.json()).toMatchObject({ status: 'inactive', teams: [] })
    expect((await api.get(`/teams/${teamId}`)).json().roster).toEqual({ starters: [], substitutes: [] })
    expectError(await api.patch(`/teams/${teamId}/roster`, { starters: [p.id] }), 422, 'VALIDATION_ERROR', 'starters[0]')
  })

  it('keeps scopes apart: teams:read reads teams, not players', async () => {
    const reader = restClient(t, (await keyFor(t, ['teams:read'])).authorization)
    expect((await reader.get(`/teams?programId=${programId}`)).statusCode).toBe(200)
    expectError(await reader.get(`/players?programId=${programId}`), 403, 'FORBIDDEN')
    expectError(await reader.post('/teams', team()), 403, 'FORBIDDEN')
  })
})
