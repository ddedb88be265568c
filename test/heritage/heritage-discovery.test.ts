import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'
import { triangleGlb } from './gltf-fixtures.js'
import { multipart } from './multipart.js'

const BASE = '/v1/heritage'

const COLLECTION = [
  { title: 'Bronze ritual wine vessel', culture: 'Chinese', period: 'Shang dynasty', materials: ['bronze'], description: 'A jue used in ancestral rites.' },
  { title: 'Porcelain dragon jar', culture: 'Chinese', period: '1403-1424', materials: ['porcelain'], description: 'Imperial jar with a five-clawed dragon.' },
  {
    title: 'Celadon bowl',
    culture: 'Korean',
    period: '12th century',
    materials: ['stoneware'],
    description: 'A Goryeo bowl with a dragon incised under the glaze.',
  },
  { title: 'Red-figure amphora', culture: 'Greek', period: '5th century BCE', materials: ['terracotta'], description: 'Athletes at the games.' },
  { title: 'Bronze Age axe head', culture: 'Nordic', period: 'Bronze Age', materials: ['bronze'], description: 'Cast axe head.' },
]

describe('heritage search, tours, analytics and OAI-PMH', () => {
  let t: TestTessera
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    t = await build({ services: ['heritage'] })
    for (const a of COLLECTION) {
      const res = await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: a })
      expect(res.statusCode, res.body).toBe(201)
      ids[a.title] = res.json().id
    }
  })
  afterAll(() => t?.close())

  const search = (query: string) => t.app.inject({ method: 'GET', url: `${BASE}/search?${query}`, headers: t.auth })
  const titles = (res: { json(): { results: Array<{ artifact: { title: string } }> } }) => res.json().results.map((r) => r.artifact.title)

  it('ranks full-text matches: a word in the title above the same word in a description', async () => {
    const res = await search('q=dragon')
    expect(res.statusCode).toBe(200)
    expect(titles(res)).toEqual(['Porcelain dragon jar', 'Celadon bowl'])
    const [first, second] = res.json().results
    expect(first.score).toBeGreaterThan(second.score)
    expect(res.json().total).toBe(2)
    // Stemming: "vessels" finds "vessel"; materials are searched too.
    expect(titles(await search('q=vessels'))).toEqual(['Bronze ritual wine vessel'])
    expect(titles(await search('q=stoneware'))).toEqual(['Celadon bowl'])
  })

  it('filters by culture and by an overlapping period range', async () => {
    expect(titles(await search('q=bronze&culture=chinese'))).toEqual(['Bronze ritual wine vessel'])
    expect(titles(await search('period=Ming%20dynasty'))).toEqual(['Porcelain dragon jar'])
    expect(titles(await search(`period=${encodeURIComponent('early 15th century')}`))).toEqual(['Porcelain dragon jar'])
    expect(titles(await search(`period=${encodeURIComponent('1600 BCE to 1000 BCE')}`))).toEqual(['Bronze ritual wine vessel', 'Bronze Age axe head'])
    const greek = await search(`period=${encodeURIComponent('450 BCE')}`)
    expect(titles(greek)).toEqual(['Red-figure amphora'])
    expect(greek.json().period).toEqual({ start: -450, end: -450 })
    expectError(await search('period=1400-1200'), 400, 'INVALID_REQUEST', 'period')
    expectError(await search('period=tomorrow'), 400, 'INVALID_REQUEST', 'period')
    expectError(await search('limit=500'), 400, 'INVALID_REQUEST', 'limit')
  })

  it('creates a tour of existing artifacts with documented scenes, and refuses unknown ones', async () => {
    const jar = ids['Porcelain dragon jar']!
    const bowl = ids['Celadon bowl']!
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/tours`,
      headers: t.auth,
      payload: {
        name: 'Dragons of East Asia',
        type: 'vr',
        artifacts: [jar, bowl],
        scenes: [
          {
            artifactId: jar,
            position: { x: 0, y: 1.2, z: -2 },
            rotation: { y: 45 },
            scale: 2,
            narration: 'Made for the Yongle emperor.',
            hotspots: [{ label: 'Five claws', text: 'An imperial mark.', position: { x: 0.1, y: 0.2, z: 0 } }],
          },
          { artifactId: bowl },
        ],
      },
    })
    expect(res.statusCode, res.body).toBe(201)
    const tour = res.json()
    expect(res.headers.location).toBe(`${BASE}/tours/${tour.id}`)
    expect(tour).toMatchObject({ name: 'Dragons of East Asia', type: 'vr', artifacts: [jar, bowl], url: `${BASE}/tours/${tour.id}/view` })
    expect(tour.scenes[0]).toEqual({
      artifactId: jar,
      title: null,
      position: { x: 0, y: 1.2, z: -2 },
      rotation: { x: 0, y: 45, z: 0 },
      scale: { x: 2, y: 2, z: 2 },
      narration: 'Made for the Yongle emperor.',
      hotspots: [{ label: 'Five claws', text: 'An imperial mark.', position: { x: 0.1, y: 0.2, z: 0 }, normal: null }],
    })
    expect(tour.scenes[1]).toMatchObject({ artifactId: bowl, scale: { x: 1, y: 1, z: 1 }, hotspots: [] })
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/tours/${tour.id}`, headers: t.auth })).json()).toEqual(tour)

    const unknown = await t.app.inject({
      method: 'POST',
      url: `${BASE}/tours`,
      headers: t.auth,
      payload: { name: 'x', type: 'vr', artifacts: [jar, '00000000-0000-4000-8000-000000000000'] },
    })
    expect(expectError(unknown, 400, 'INVALID_REQUEST', 'artifacts[1]').message).toMatch(/does not exist/)
    expectError(
      await t.app.inject({ method: 'POST', url: `${BASE}/tours`, headers: t.auth, payload: { name: 'x', type: 'hologram', artifacts: [jar] } }),
      400,
      'INVALID_REQUEST',
      'type',
    )
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/tours`,
        headers: t.auth,
        payload: { name: 'x', type: 'vr', artifacts: [jar], scenes: [{ artifactId: bowl }] },
      }),
      400,
      'INVALID_REQUEST',
      'scenes[0].artifactId',
    )
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/tours`,
        headers: t.auth,
        payload: { name: 'x', type: 'vr', artifacts: [jar], scenes: [{ artifactId: jar, scale: 0 }] },
      }),
      400,
      'INVALID_REQUEST',
      'scenes[0].scale.x',
    )
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/tours`,
        headers: t.auth,
        payload: { name: 'x', type: 'vr', artifacts: [jar], scenes: [{ artifactId: jar, hotspots: [{ label: 'h' }] }] },
      }),
      400,
      'INVALID_REQUEST',
      'scenes[0].hotspots[0].position',
    )
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/tours/00000000-0000-4000-8000-000000000000`, headers: t.auth }), 404, 'NOT_FOUND')
  })

  it("serves a tour page with <model-viewer> from this server and the tour's models", async () => {
    const jar = ids['Porcelain dragon jar']!
    const up = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${jar}/models`,
      ...multipart([{ name: 'file', filename: 'jar.glb', bytes: triangleGlb() }], t.auth),
    })
    expect(up.statusCode, up.body).toBe(201)
    const tour = (
      await t.app.inject({ method: 'POST', url: `${BASE}/tours`, headers: t.auth, payload: { name: 'Jar <one>', type: 'web', artifacts: [jar] } })
    ).json()
    const page = await t.app.inject({ method: 'GET', url: tour.url, headers: t.auth })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval';")
    expect(page.body).toContain(`<script type="module" src="${BASE}/assets/model-viewer.min.js"></script>`)
    expect(page.body).toContain(`src="${up.json().url}"`)
    expect(page.body).toContain('<title>Jar &lt;one&gt;</title>')
    expect(page.body).not.toMatch(/https?:\/\//)
    const script = await t.app.inject({ method: 'GET', url: `${BASE}/assets/model-viewer.min.js` })
    expect(script.statusCode).toBe(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(script.body).toContain('model-viewer')
  })

  it('counts views, downloads, tour views and search impressions per day', async () => {
    const vessel = ids['Bronze ritual wine vessel']!
    const url = `${BASE}/artifacts/${vessel}/analytics?from=2000-01-01&to=2000-01-03`
    const empty = await t.app.inject({ method: 'GET', url, headers: t.auth })
    expect(empty.json()).toEqual({
      artifactId: vessel,
      from: '2000-01-01',
      to: '2000-01-03',
      totals: { views: 0, modelDownloads: 0, tourViews: 0, searchImpressions: 0 },
      daily: ['2000-01-01', '2000-01-02', '2000-01-03'].map((date) => ({ date, views: 0, modelDownloads: 0, tourViews: 0, searchImpressions: 0 })),
    })
    const before = (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}/analytics`, headers: t.auth })).json()
    expect(before.daily).toHaveLength(30)
    await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}`, headers: t.auth })
    await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}`, headers: t.auth })
    await search('q=ritual')
    const up = (
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/artifacts/${vessel}/models`,
        ...multipart([{ name: 'file', filename: 'v.glb', bytes: triangleGlb() }], t.auth),
      })
    ).json()
    await t.app.inject({ method: 'GET', url: up.url, headers: t.auth })
    await t.app.inject({ method: 'GET', url: up.url, headers: { ...t.auth, range: 'bytes=100-' } })
    const head = await t.app.inject({ method: 'HEAD', url: up.url, headers: t.auth })
    expect(head.statusCode).toBe(200)
    expect(head.headers['content-length']).toBe(String(triangleGlb().length))
    expect(head.headers['accept-ranges']).toBe('bytes')
    const tour = (
      await t.app.inject({ method: 'POST', url: `${BASE}/tours`, headers: t.auth, payload: { name: 'Bronze', type: 'web', artifacts: [vessel] } })
    ).json()
    await t.app.inject({ method: 'GET', url: tour.url, headers: t.auth })
    const after = (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}/analytics`, headers: t.auth })).json()
    const delta = Object.fromEntries(
      Object.entries(after.totals as Record<string, number>).map(([k, v]) => [k, v - (before.totals as Record<string, number>)[k]!]),
    )
    expect(delta).toEqual({ views: 2, modelDownloads: 1, tourViews: 1, searchImpressions: 1 })
    const today = after.daily.at(-1)
    expect(today.date).toBe(new Date().toISOString().slice(0, 10))
    expect(today.views).toBeGreaterThanOrEqual(2)
    expectError(
      await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}/analytics?from=2020-01-01&to=2022-01-01`, headers: t.auth }),
      400,
      'INVALID_REQUEST',
      'from',
    )
    expectError(
      await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}/analytics?from=2020-02-30`, headers: t.auth }),
      400,
      'INVALID_REQUEST',
      'from',
    )
    expectError(
      await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vessel}/analytics?from=2020-02-03&to=2020-02-01`, headers: t.auth }),
      400,
      'INVALID_REQUEST',
      'from',
    )
    expectError(
      await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/00000000-0000-4000-8000-000000000000/analytics`, headers: t.auth }),
      404,
      'NOT_FOUND',
    )
  })
})
