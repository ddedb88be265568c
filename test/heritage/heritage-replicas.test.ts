import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import { TEST_CREDENTIALS, testEnv } from '../support/test-credentials.js'
import { triangleGlb } from './gltf-fixtures.js'
import { multipart } from './multipart.js'

const BASE = '/v1/heritage'
const auth = { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` }
type Replica = Awaited<ReturnType<typeof createTesseraProcess>>

// Two heritage replicas on one PostgreSQL database: a model uploaded through one is served by
// the other, because its bytes live in the database, not in a replica's memory or disk.
describe('heritage replicas on PostgreSQL', () => {
  const name = `heritage_replicas_${process.pid}_${Date.now()}`
  const dirs: string[] = []
  const replicas: Replica[] = []
  let admin: pg.Client

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: inject('postgresUrl') })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
    for (let i = 0; i < 2; i++) {
      const dir = mkdtempSync(path.join(tmpdir(), 'tessera-heritage-replica-'))
      dirs.push(dir)
      const env = testEnv({ PORT: '0', DATA_DIR: dir, DATABASE_URL: `${inject('postgresBase')}${name}` })
      // One after the other: the first applies the migrations and registers the credentials.
      replicas.push(
        await createTesseraProcess({ mode: { kind: 'all', services: ['heritage'] }, config: loadPlatformConfig(env), env, announce: () => {}, logger: false }),
      )
    }
  }, 60_000)
  afterAll(async () => {
    for (const r of replicas) await r.close()
    await admin?.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)
    await admin?.end()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('serves a model uploaded through another replica, whole and by range', async () => {
    const [a, b] = replicas as [Replica, Replica]
    const artifact = (
      await a.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: auth, payload: { title: 'Shared', culture: 'Test', period: 'Tang dynasty' } })
    ).json()
    const glb = triangleGlb()
    const up = await a.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifact.id}/models`,
      ...multipart([{ name: 'file', filename: 's.glb', bytes: glb }], auth),
    })
    expect(up.statusCode, up.body).toBe(201)
    const meta = await b.app.inject({ method: 'GET', url: `${BASE}/artifacts/${artifact.id}/models/${up.json().id}`, headers: auth })
    expect(meta.json()).toMatchObject({ vertexCount: 3, triangleCount: 1, sha256: up.json().sha256 })
    const whole = await b.app.inject({ method: 'GET', url: up.json().url, headers: auth })
    expect(whole.rawPayload.equals(glb)).toBe(true)
    const range = await b.app.inject({ method: 'GET', url: up.json().url, headers: { ...auth, range: 'bytes=4-7' } })
    expect(range.statusCode).toBe(206)
    expect(range.rawPayload.equals(glb.subarray(4, 8))).toBe(true)
    // Search and the period filter run on PostgreSQL too.
    const found = await b.app.inject({ method: 'GET', url: `${BASE}/search?q=shared&period=${encodeURIComponent('8th century')}`, headers: auth })
    expect(found.json().results.map((r: { artifact: { id: string } }) => r.artifact.id)).toEqual([artifact.id])
  })
})
