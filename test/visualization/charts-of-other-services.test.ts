import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { playerBody, programBody } from '../esports/fixtures.js'
import { build, type TestTessera } from '../helper.js'

// The visualization subgraph draws other services' series through the graph (@requires):
// an esports team's season and a heritage artifact's views, in the query that asks for them.
describe('charts of other services’ data, through the gateway', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['esports', 'heritage', 'visualization'] })
  })
  afterAll(() => t.close())

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query, variables } })
    const body = res.json() as { data?: Record<string, any>; errors?: unknown[] }
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined()
    return body.data!
  }

  it('charts a team’s wins after each match of its season', async () => {
    const programId = (await gql('mutation($input: CreateProgramInput!) { createProgram(input: $input) { id } }', { input: programBody() })).createProgram.id
    const team = (
      await gql(
        `mutation { createTeam(input: { programId: "${programId}", name: "Varsity", game: "Rocket League", tier: varsity, season: { year: 2026 } }) { id } }`,
      )
    ).createTeam
    const player = (await gql('mutation($input: CreatePlayerInput!) { createPlayer(input: $input) { id } }', { input: playerBody(programId, 1) })).createPlayer
    await gql(`mutation { assignPlayerToTeam(playerId: "${player.id}", input: { teamId: "${team.id}", role: starter }) { id } }`)
    for (const [day, outcome, score] of [
      ['02', 'win', 3],
      ['09', 'loss', 0],
      ['16', 'win', 2],
    ] as const) {
      const match = (
        await gql(
          `mutation { createMatch(input: { type: league, teamId: "${team.id}", opponent: { name: "Eagles" }, schedule: { date: "2026-11-${day}T18:00:00Z", location: "online" } }) { id } }`,
        )
      ).createMatch
      await gql(
        `mutation { recordMatchResult(matchId: "${match.id}", input: { score: { team: ${score}, opponent: 1 }, outcome: ${outcome}, duration: 1500 }) { status } }`,
      )
    }
    const { team: read } = await gql(`{ team(id: "${team.id}") { seasonChart(config: { title: "Season" }) { chartType dataPoints data svg } } }`)
    expect(read.seasonChart.chartType).toBe('line')
    expect(read.seasonChart.dataPoints).toBe(3)
    expect((read.seasonChart.data as Array<{ value: number }>).map((p) => p.value)).toEqual([1, 1, 2])
    expect(read.seasonChart.svg).toContain('<svg')
    expect(read.seasonChart.svg).toContain('Season')
  })

  it('charts an artifact’s views per day', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/heritage/artifacts',
      headers: t.auth,
      payload: { title: 'Meiping vase', culture: 'Chinese' },
    })
    const id = created.json().id as string
    for (let i = 0; i < 3; i++) expect((await t.app.inject({ method: 'GET', url: `/v1/heritage/artifacts/${id}`, headers: t.auth })).statusCode).toBe(200)
    const { artifact } = await gql(`{ artifact(id: "${id}") { viewsPerDay { date views } analyticsChart(chartType: "bar") { chartType data } } }`)
    expect(artifact.analyticsChart.chartType).toBe('bar')
    const points = artifact.analyticsChart.data as Array<{ label: string; value: number }>
    // The three reads above, and this query's own read of the artifact.
    expect(points.reduce((sum, p) => sum + p.value, 0)).toBe(4)
    expect(points).toEqual((artifact.viewsPerDay as Array<{ date: string; views: number }>).map((d) => ({ label: d.date, value: d.views })))
  })
})
