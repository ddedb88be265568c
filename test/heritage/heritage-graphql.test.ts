import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { brokenGlb, triangleGlb } from './gltf-fixtures.js'
import { multipart } from './multipart.js'

const BASE = '/v1/heritage'

describe('heritage GraphQL subgraph', () => {
  let t: TestTessera
  let readOnly: Record<string, string>
  let otherService: Record<string, string>
  const gql = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = t.auth) =>
    t.app
      .inject({ method: 'POST', url: '/graphql', headers, payload: { query, variables } })
      .then((r) => r.json() as { data?: Record<string, any>; errors?: Array<{ message: string; extensions: { code: string; details?: any } }> })

  beforeAll(async () => {
    t = await build({ services: ['heritage'] })
    readOnly = { authorization: `Bearer ${(await t.credentials!.createApiKey({ name: 'reader', scopes: ['heritage:read'] })).key}` }
    otherService = { authorization: `Bearer ${(await t.credentials!.createApiKey({ name: 'devices', scopes: ['devices:read', 'devices:write'] })).key}` }
  })
  afterAll(() => t?.close())

  it('creates an artifact, uploads a model inline and reads both with metadata and analytics', async () => {
    const created = await gql(
      `mutation ($input: CreateArtifactInput!) { createArtifact(input: $input) { id title periodRange { start end } dimensions { height unit } dublinCoreSource dublinCore { title subject } } }`,
      {
        input: { title: 'Terracotta warrior', culture: 'Chinese', period: 'Qin dynasty', materials: ['terracotta'], dimensions: { height: 1.8, unit: 'm' } },
      },
    )
    expect(created.errors).toBeUndefined()
    const artifact = created.data!.createArtifact
    expect(artifact).toMatchObject({
      title: 'Terracotta warrior',
      periodRange: { start: -221, end: -206 },
      dimensions: { height: 1.8, unit: 'm' },
      dublinCoreSource: 'derived',
      dublinCore: { title: ['Terracotta warrior'], subject: ['Chinese'] },
    })

    const uploaded = await gql(
      `mutation ($input: UploadModelInput!) { uploadModel(input: $input) { id url container size inspection { vertexCount triangleCount materialCount materialNames boundingBox { max unit } } validation { errors validator } } }`,
      {
        input: { artifactId: artifact.id, fileBase64: triangleGlb().toString('base64'), fileName: 'warrior.glb', resolution: 'high' },
      },
    )
    expect(uploaded.errors).toBeUndefined()
    expect(uploaded.data!.uploadModel).toMatchObject({
      container: 'glb',
      size: triangleGlb().length,
      inspection: { vertexCount: 3, triangleCount: 1, materialCount: 1, materialNames: ['terracotta'], boundingBox: { max: [0.5, 0.25, 0.1], unit: 'm' } },
      validation: { errors: 0 },
    })

    const read = await gql(
      `query ($id: ID!) { artifact(id: $id) { models3d { glb usdz } models { id inspection { vertexCount } validation { validator } } linkedArt analytics { totals { views } daily { date views } } viewsPerDay { date views } } }`,
      { id: artifact.id },
    )
    expect(read.errors).toBeUndefined()
    expect(read.data!.artifact.models3d).toEqual({ glb: uploaded.data!.uploadModel.url, usdz: null })
    expect(read.data!.artifact.models).toEqual([
      { id: uploaded.data!.uploadModel.id, inspection: { vertexCount: 3 }, validation: { validator: 'Khronos glTF Validator' } },
    ])
    expect(read.data!.artifact.linkedArt.type).toBe('HumanMadeObject')
    expect(read.data!.artifact.analytics.totals.views).toBe(1)
    expect(read.data!.artifact.analytics.daily).toHaveLength(30)
    expect(read.data!.artifact.viewsPerDay).toHaveLength(30)
    expect(read.data!.artifact.viewsPerDay.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), views: 1 })
    // The REST face sees the same model.
    const rest = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${artifact.id}/models/${uploaded.data!.uploadModel.id}`, headers: t.auth })
    expect(rest.json().sha256).toMatch(/^[0-9a-f]{64}$/)
    const model = await gql(`query ($a: ID!, $m: ID!) { artifactModel(artifactId: $a, modelId: $m) { sha256 } }`, { a: artifact.id, m: rest.json().id })
    expect(model.data!.artifactModel.sha256).toBe(rest.json().sha256)
  })

  it("surfaces the validator's messages and the same codes as REST", async () => {
    const a = (await gql(`mutation { createArtifact(input: { title: "Broken", culture: "Test" }) { id } }`)).data!.createArtifact
    const res = await gql(`mutation ($input: UploadModelInput!) { uploadModel(input: $input) { id } }`, {
      input: { artifactId: a.id, fileBase64: brokenGlb().toString('base64') },
    })
    expect(res.errors![0]!.extensions.code).toBe('INVALID_MODEL')
    expect(res.errors![0]!.extensions.details.issues[0].code).toBe('ACCESSOR_INDEX_OOB')
    const bad = await gql(`mutation { createArtifact(input: { title: "x", culture: "y", dimensions: { height: -1, unit: "cm" } }) { id } }`)
    expect(bad.errors![0]!.extensions).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'dimensions.height' } })
  })

  it('creates tours whose artifacts resolve, searches, and replaces Dublin Core', async () => {
    const a = (
      await gql(
        `mutation { createArtifact(input: { title: "Jade cong", culture: "Liangzhu", period: "3000 BCE-2000 BCE", description: "A ritual jade tube." }) { id } }`,
      )
    ).data!.createArtifact
    const tour = await gql(
      `mutation ($input: CreateTourInput!) { createTour(input: $input) { id type url scenes { artifact { title } scale { x } hotspots { label normal { x } } } artifacts { id } } }`,
      {
        input: {
          name: 'Jades',
          type: 'web',
          artifacts: [a.id],
          scenes: [{ artifactId: a.id, scale: { x: 2, y: 2, z: 2 }, hotspots: [{ label: 'Mask', position: { x: 0, y: 0.1, z: 0 } }] }],
        },
      },
    )
    expect(tour.errors).toBeUndefined()
    expect(tour.data!.createTour).toMatchObject({
      type: 'web',
      scenes: [{ artifact: { title: 'Jade cong' }, scale: { x: 2 }, hotspots: [{ label: 'Mask', normal: null }] }],
      artifacts: [{ id: a.id }],
    })
    const found = await gql(`{ searchArtifacts(q: "jade", period: "Bronze Age") { total period { start end } results { score artifact { title } } } }`)
    expect(found.data!.searchArtifacts).toMatchObject({ total: 1, period: { start: -3300, end: -1200 }, results: [{ artifact: { title: 'Jade cong' } }] })
    const dc = await gql(`mutation ($id: ID!) { replaceDublinCore(artifactId: $id, record: { title: ["Cong"], rights: ["CC0"] }) { title rights subject } }`, {
      id: a.id,
    })
    expect(dc.data!.replaceDublinCore).toEqual({ title: ['Cong'], rights: ['CC0'], subject: [] })
    const rest = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${a.id}/metadata/dublincore`, headers: t.auth })
    expect(rest.json().title).toEqual(['Cong'])
    expect((await gql(`{ artifact(id: "00000000-0000-4000-8000-000000000000") { id } }`)).data!.artifact).toBeNull()
  })

  it('resolves Artifact entities for other subgraphs by id', async () => {
    const a = (await gql(`mutation { createArtifact(input: { title: "Astrolabe", culture: "Islamic", period: "13th century" }) { id } }`)).data!.createArtifact
    // As the gateway asks the subgraph for the fields another subgraph needs (a lesson about it).
    const subgraph = t.services.heritage!.subgraph
    const res = await subgraph.execute(
      {
        query: 'query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Artifact { title culture period periodRange { start end } } } }',
        variables: {
          reps: [
            { __typename: 'Artifact', id: a.id },
            { __typename: 'Artifact', id: '00000000-0000-4000-8000-000000000000' },
          ],
        },
      },
      t.auth,
    )
    expect(res.errors).toBeUndefined()
    expect(res.data!._entities).toEqual([{ title: 'Astrolabe', culture: 'Islamic', period: '13th century', periodRange: { start: 1201, end: 1300 } }, null])
  })

  it('agrees with REST on who may do what (no credential, wrong scope, right scope)', async () => {
    const a = (await gql(`mutation { createArtifact(input: { title: "Parity", culture: "Test" }) { id } }`)).data!.createArtifact
    const pairs: Array<{
      rest: { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: object; multipart?: boolean }
      graphql: string
      scope: 'read' | 'write'
    }> = [
      { rest: { method: 'GET', url: `${BASE}/artifacts` }, graphql: '{ artifacts { total } }', scope: 'read' },
      { rest: { method: 'GET', url: `${BASE}/artifacts/${a.id}` }, graphql: `{ artifact(id: "${a.id}") { id } }`, scope: 'read' },
      {
        rest: { method: 'POST', url: `${BASE}/artifacts`, payload: { title: 'p', culture: 'q' } },
        graphql: 'mutation { createArtifact(input: { title: "p", culture: "q" }) { id } }',
        scope: 'write',
      },
      {
        rest: { method: 'POST', url: `${BASE}/artifacts/${a.id}/models`, multipart: true },
        graphql: `mutation { uploadModel(input: { artifactId: "${a.id}", fileBase64: "${triangleGlb().toString('base64')}" }) { id } }`,
        scope: 'write',
      },
      {
        rest: { method: 'POST', url: `${BASE}/tours`, payload: { name: 't', type: 'vr', artifacts: [a.id] } },
        graphql: `mutation { createTour(input: { name: "t", type: "vr", artifacts: ["${a.id}"] }) { id } }`,
        scope: 'write',
      },
      {
        rest: { method: 'PUT', url: `${BASE}/artifacts/${a.id}/metadata/dublincore`, payload: { title: ['x'] } },
        graphql: `mutation { replaceDublinCore(artifactId: "${a.id}", record: { title: ["x"] }) { title } }`,
        scope: 'write',
      },
      { rest: { method: 'GET', url: `${BASE}/search?q=parity` }, graphql: '{ searchArtifacts(q: "parity") { total } }', scope: 'read' },
    ]
    for (const pair of pairs) {
      for (const [who, headers] of [
        ['nobody', {}],
        ['other service', otherService],
        ['reader', readOnly],
        ['writer', t.auth],
      ] as const) {
        const rest = await t.app.inject({
          method: pair.rest.method,
          url: pair.rest.url,
          ...(pair.rest.multipart ? multipart([{ name: 'file', filename: 'p.glb', bytes: triangleGlb() }], headers) : { headers, payload: pair.rest.payload }),
        })
        const graph = await gql(pair.graphql, {}, headers)
        const restOutcome = rest.statusCode < 300 ? 'ok' : rest.json().error.code
        const graphOutcome = graph.errors ? graph.errors[0]!.extensions.code : 'ok'
        expect(graphOutcome, `${who}: ${pair.graphql}`).toBe(restOutcome)
        const expected = who === 'nobody' ? 'UNAUTHORIZED' : who === 'other service' || (who === 'reader' && pair.scope === 'write') ? 'FORBIDDEN' : 'ok'
        expect(restOutcome, `${who}: ${pair.rest.method} ${pair.rest.url}`).toBe(expected)
      }
    }
  })
})
