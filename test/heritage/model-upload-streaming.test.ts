import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'
import { largeGlbStream, triangleGlb } from './gltf-fixtures.js'
import { multipart } from './multipart.js'

const BASE = '/v1/heritage'
const LIMIT = 6 * 1024 * 1024

describe('heritage model uploads: streaming and the size limit', () => {
  let t: TestTessera
  let artifactId: string
  const chunkCount = async () => (await t.db!.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.file_chunks'))[0]!.n

  beforeAll(async () => {
    t = await build({ services: ['heritage'], env: { TESSERA_HERITAGE_MAX_MODEL_BYTES: String(LIMIT) } })
    artifactId = (await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { title: 'Large model', culture: 'Test' } })).json()
      .id
  })
  afterAll(() => t?.close())

  it('streams a large model into the database while the request is still arriving', async () => {
    const big = largeGlbStream(5 * 1024 * 1024)
    const hash = createHash('sha256')
    const seen: number[] = []
    const before = await chunkCount()
    async function* body() {
      let sent = 0
      let next = 1024 * 1024
      for await (const part of big.stream()) {
        hash.update(part)
        sent += part.length
        yield part
        if (sent >= next) {
          next += 1024 * 1024
          seen.push((await chunkCount()) - before)
        }
      }
    }
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifactId}/models`,
      ...multipart(
        [
          { name: 'file', filename: 'big.glb', bytes: body },
          { name: 'resolution', value: 'high' },
        ],
        t.auth,
      ),
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({ fileSize: big.size, sha256: hash.digest('hex'), vertexCount: 3, triangleCount: 1, resolution: 'high' })
    // Chunks were written as the body arrived, not after it had been collected.
    expect(seen.length).toBeGreaterThanOrEqual(4)
    expect(seen.at(-2)!).toBeGreaterThan(seen[0]!)
    const download = await t.app.inject({ method: 'GET', url: res.json().url, headers: { ...t.auth, range: `bytes=${big.size - 16}-` } })
    expect(download.statusCode).toBe(206)
    expect(download.rawPayload.length).toBe(16)
  })

  it('answers 413 above the documented limit and keeps none of the upload', async () => {
    const before = await chunkCount()
    const models = async () =>
      (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${artifactId}`, headers: t.auth })).json().metadata.technical.models.length
    const count = await models()
    const big = largeGlbStream(LIMIT + 512 * 1024)
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifactId}/models`,
      ...multipart([{ name: 'file', filename: 'huge.glb', bytes: big.stream }], t.auth),
    })
    const error = expectError(res, 413, 'PAYLOAD_TOO_LARGE', 'file')
    expect(error.details.limit).toBe(LIMIT)
    expect(await chunkCount()).toBe(before)
    expect(await models()).toBe(count)
  })

  it('takes the form fields before or after the file', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifactId}/models`,
      ...multipart(
        [
          { name: 'file', filename: 'a.glb', bytes: triangleGlb() },
          { name: 'format', value: 'glTF-2.0' },
          { name: 'resolution', value: 'medium' },
        ],
        t.auth,
      ),
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({ format: 'glTF-2.0', resolution: 'medium' })
    const twice = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifactId}/models`,
      ...multipart(
        [
          { name: 'file', filename: 'a.glb', bytes: triangleGlb() },
          { name: 'file', filename: 'b.glb', bytes: triangleGlb() },
        ],
        t.auth,
      ),
    })
    expectError(twice, 400, 'INVALID_REQUEST', 'file')
  })
})
