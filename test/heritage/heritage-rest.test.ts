import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, TEST_CREDENTIALS, type TestTessera } from '../helper.js'
import { ISO_UTC, expectError } from '../support/standard-error.js'
import { brokenGlb, triangleGlb, triangleGltfJson } from './gltf-fixtures.js'
import { multipart } from './multipart.js'

const BASE = '/v1/heritage'
const VASE = {
  spectrumId: 'TESS.2026.1',
  title: 'Blue and white porcelain vase',
  culture: 'Chinese',
  period: 'Ming dynasty',
  description: 'A meiping vase painted in cobalt blue with dragons among clouds.',
  materials: ['porcelain', 'cobalt pigment'],
  dimensions: { height: 42.5, width: 24, depth: 24, unit: 'cm' },
  location: { current: 'Gallery 3, case 12', origin: 'Jingdezhen, Jiangxi' },
}

describe('heritage REST interface', () => {
  let t: TestTessera
  let readOnly: Record<string, string>
  let vaseId: string

  beforeAll(async () => {
    t = await build({ services: ['heritage'] })
    readOnly = { authorization: `Bearer ${(await t.credentials!.createApiKey({ name: 'kiosk', scopes: ['heritage:read'] })).key}` }
    const created = await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: VASE })
    expect(created.statusCode, created.body).toBe(201)
    vaseId = created.json().id
  })
  afterAll(() => t?.close())

  const upload = (artifactId: string, file: Buffer, name = 'vase.glb', fields: Record<string, string> = { format: 'glTF-2.0', resolution: 'high' }) =>
    t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifactId}/models`,
      ...multipart([...Object.entries(fields).map(([n, value]) => ({ name: n, value })), { name: 'file', filename: name, bytes: file }], t.auth),
    })

  it('catalogues an artifact with every documented field and reads it back', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    const a = res.json()
    expect(a).toMatchObject({
      id: vaseId,
      spectrumId: 'TESS.2026.1',
      title: VASE.title,
      culture: 'Chinese',
      period: 'Ming dynasty',
      periodRange: { start: 1368, end: 1644 },
      materials: VASE.materials,
      dimensions: VASE.dimensions,
      location: VASE.location,
      '3dModels': { glb: null, usdz: null },
    })
    expect(a.metadata.dublinCore.title).toEqual([VASE.title])
    expect(a.metadata.cidocCrm.type).toBe('HumanMadeObject')
    expect(a.metadata.technical.models).toEqual([])
    expect(a.createdAt).toMatch(ISO_UTC)
  })

  it('answers create with 201 and a Location, and refuses bad fields naming each', async () => {
    const ok = await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { title: 'Bronze ding', culture: 'Chinese' } })
    expect(ok.statusCode).toBe(201)
    expect(ok.headers.location).toBe(`${BASE}/artifacts/${ok.json().id}`)
    expectError(
      await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { culture: 'Chinese' } }),
      400,
      'INVALID_REQUEST',
      'title',
    )
    expectError(
      await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { title: ' ', culture: 'Chinese' } }),
      400,
      'INVALID_REQUEST',
      'title',
    )
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/artifacts`,
        headers: t.auth,
        payload: { title: 'x', culture: 'y', dimensions: { height: 3, unit: 'cubits' } },
      }),
      400,
      'INVALID_REQUEST',
      'dimensions.unit',
    )
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/artifacts`,
        headers: t.auth,
        payload: { title: 'x', culture: 'y', dimensions: { height: -3, unit: 'cm' } },
      }),
      400,
      'INVALID_REQUEST',
      'dimensions.height',
    )
    expectError(
      await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { title: 'x', culture: 'y', period: 'whenever' } }),
      400,
      'INVALID_REQUEST',
      'period',
    )
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/artifacts`,
        headers: t.auth,
        payload: { title: 'x', culture: 'y', metadata: { dublinCore: { colour: ['blue'] } } },
      }),
      400,
      'INVALID_REQUEST',
      'metadata.dublinCore.colour',
    )
    expectError(
      await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { title: 'x', culture: 'y', owner: 'me' } }),
      400,
      'INVALID_REQUEST',
      'owner',
    )
    expectError(await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { ...VASE } }), 409, 'CONFLICT', 'spectrumId')
  })

  it('lists by culture with documented paging defaults and maximum', async () => {
    await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts`,
      headers: t.auth,
      payload: { title: 'Amphora', culture: 'Greek', period: '5th century BCE' },
    })
    const greek = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts?culture=greek`, headers: t.auth })
    expect(greek.json()).toMatchObject({ total: 1, limit: 20, offset: 0 })
    expect(greek.json().artifacts[0].title).toBe('Amphora')
    const page = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts?limit=1&offset=1`, headers: t.auth })
    expect(page.json().artifacts).toHaveLength(1)
    expect(page.json().total).toBeGreaterThanOrEqual(3)
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/artifacts?limit=101`, headers: t.auth }), 400, 'INVALID_REQUEST', 'limit')
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/artifacts?offset=-1`, headers: t.auth }), 400, 'INVALID_REQUEST', 'offset')
  })

  it('needs a credential, the right scope, and answers 404 for unknown ids', async () => {
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/artifacts` }), 401, 'UNAUTHORIZED')
    const forbidden = await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: readOnly, payload: { title: 'x', culture: 'y' } })
    expect(expectError(forbidden, 403, 'FORBIDDEN').details.requiredScope).toBe('heritage:write')
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}`, headers: readOnly })).statusCode).toBe(200)
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/7d0c9a9e-0000-4000-8000-000000000000`, headers: t.auth }), 404, 'NOT_FOUND')
    expectError(await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/not-an-id`, headers: t.auth }), 404, 'NOT_FOUND')
    expectError(
      await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}/models/7d0c9a9e-0000-4000-8000-000000000000`, headers: t.auth }),
      404,
      'NOT_FOUND',
    )
  })

  it('takes an OAuth access token (client credentials) with its scopes', async () => {
    const token = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${TEST_CREDENTIALS.clientId}&client_secret=${TEST_CREDENTIALS.clientSecret}&scope=heritage:read`,
    })
    expect(token.statusCode).toBe(200)
    const bearer = { authorization: `Bearer ${token.json().access_token}` }
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}`, headers: bearer })).statusCode).toBe(200)
    const write = await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: bearer, payload: { title: 'x', culture: 'y' } })
    expectError(write, 403, 'FORBIDDEN')
    expect(write.headers['www-authenticate']).toMatch(/^Bearer realm="tessera-heritage", error="insufficient_scope"/)
  })

  it('stores a valid GLB, reports its metadata exactly, and serves it with ranges', async () => {
    const glb = triangleGlb()
    const res = await upload(vaseId, glb)
    expect(res.statusCode, res.body).toBe(201)
    const model = res.json()
    expect(res.headers.location).toBe(`${BASE}/artifacts/${vaseId}/models/${model.id}`)
    const meta = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}/models/${model.id}`, headers: t.auth })
    expect(meta.statusCode).toBe(200)
    const m = meta.json()
    expect(m).toMatchObject({
      format: 'glTF-2.0',
      resolution: 'high',
      container: 'glb',
      fileName: 'vase.glb',
      contentType: 'model/gltf-binary',
      fileSize: glb.length,
      vertexCount: 3,
      triangleCount: 1,
      meshes: 1,
      primitives: 1,
      materials: { count: 1, names: ['terracotta'] },
      textures: { count: 0, items: [] },
      boundingBox: { min: [0, 0, 0], max: [0.5, 0.25, 0.1], size: [0.5, 0.25, 0.1], unit: 'm' },
      extensionsUsed: [],
      validation: { validator: 'Khronos glTF Validator', version: '2.0.0-dev.3.10', errors: 0, warnings: 0 },
    })
    expect(m.sha256).toBe((await import('node:crypto')).createHash('sha256').update(glb).digest('hex'))
    expect(m.uploadedAt).toMatch(ISO_UTC)

    const artifact = (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}`, headers: t.auth })).json()
    expect(artifact['3dModels'].glb).toBe(`${BASE}/artifacts/${vaseId}/models/${model.id}/file`)
    const whole = await t.app.inject({ method: 'GET', url: artifact['3dModels'].glb, headers: t.auth })
    expect(whole.statusCode).toBe(200)
    expect(whole.headers['content-type']).toBe('model/gltf-binary')
    expect(whole.headers['accept-ranges']).toBe('bytes')
    expect(whole.rawPayload.equals(glb)).toBe(true)
    const part = await t.app.inject({ method: 'GET', url: artifact['3dModels'].glb, headers: { ...t.auth, range: 'bytes=0-3' } })
    expect(part.statusCode).toBe(206)
    expect(part.headers['content-range']).toBe(`bytes 0-3/${glb.length}`)
    expect(part.body).toBe('glTF')
    const tail = await t.app.inject({ method: 'GET', url: artifact['3dModels'].glb, headers: { ...t.auth, range: 'bytes=-4' } })
    expect(tail.rawPayload.equals(glb.subarray(glb.length - 4))).toBe(true)
    const past = await t.app.inject({ method: 'GET', url: artifact['3dModels'].glb, headers: { ...t.auth, range: `bytes=${glb.length}-` } })
    expect(past.statusCode).toBe(416)
    expect(past.headers['content-range']).toBe(`bytes */${glb.length}`)
  })

  it('accepts glTF JSON with an embedded buffer', async () => {
    const res = await upload(vaseId, triangleGltfJson(), 'vase.gltf', { format: 'glTF-2.0', resolution: 'low' })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({ container: 'gltf', contentType: 'model/gltf+json', vertexCount: 3, triangleCount: 1, resolution: 'low' })
  })

  it("refuses a model with validation errors listing the validator's messages, and stores nothing", async () => {
    const before = (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}`, headers: t.auth })).json().metadata.technical.models.length
    const res = await upload(vaseId, brokenGlb())
    const error = expectError(res, 422, 'INVALID_MODEL', 'file')
    expect(error.details.validator.errors).toBe(1)
    expect(error.details.issues[0]).toMatchObject({ code: 'ACCESSOR_INDEX_OOB', severity: 'error', pointer: '/meshes/0/primitives/0/indices' })
    expect(error.details.issues[0].reason).toMatch(/greater than the maximum vertex index/)
    const after = (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${vaseId}`, headers: t.auth })).json().metadata.technical.models.length
    expect(after).toBe(before)
  })

  it('refuses a file that is not glTF, bad form fields, and a non-multipart body', async () => {
    expectError(await upload(vaseId, Buffer.from('%PDF-1.7 not a model at all')), 415, 'UNSUPPORTED_MEDIA_TYPE', 'file')
    expectError(await upload(vaseId, Buffer.from('{"hello": "world"}'), 'x.gltf'), 415, 'UNSUPPORTED_MEDIA_TYPE', 'file')
    expectError(await upload(vaseId, triangleGlb(), 'v.glb', { format: 'OBJ' }), 400, 'INVALID_REQUEST', 'format')
    expectError(await upload(vaseId, triangleGlb(), 'v.glb', { resolution: 'gigantic' }), 400, 'INVALID_REQUEST', 'resolution')
    expectError(await upload(vaseId, triangleGlb(), 'v.glb', { colour: 'blue' }), 400, 'INVALID_REQUEST', 'colour')
    const noFile = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${vaseId}/models`,
      ...multipart([{ name: 'format', value: 'glTF-2.0' }], t.auth),
    })
    expectError(noFile, 400, 'INVALID_REQUEST', 'file')
    const json = await t.app.inject({ method: 'POST', url: `${BASE}/artifacts/${vaseId}/models`, headers: t.auth, payload: { file: 'x' } })
    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE')
    expectError(await upload('7d0c9a9e-0000-4000-8000-000000000000', triangleGlb()), 404, 'NOT_FOUND')
    // A body cut off mid-file, and a multipart type without its boundary: 400, and nothing kept.
    const chunks = async () => (await t.db!.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.file_chunks'))[0]!.n
    const before = await chunks()
    const cut = `--b0\r\nContent-Disposition: form-data; name="file"; filename="a.glb"\r\n\r\n${triangleGlb().toString('latin1')}`
    const truncated = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${vaseId}/models`,
      headers: { ...t.auth, 'content-type': 'multipart/form-data; boundary=b0' },
      payload: Buffer.from(cut, 'latin1'),
    })
    expect(expectError(truncated, 400, 'INVALID_REQUEST', 'body').message).toMatch(/not well-formed multipart/)
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/artifacts/${vaseId}/models`,
        headers: { ...t.auth, 'content-type': 'multipart/form-data' },
        payload: 'x',
      }),
      400,
      'INVALID_REQUEST',
      'body',
    )
    expect(await chunks()).toBe(before)
    const forbidden = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${vaseId}/models`,
      ...multipart([{ name: 'file', filename: 'v.glb', bytes: triangleGlb() }], readOnly),
    })
    expectError(forbidden, 403, 'FORBIDDEN')
  })
})
