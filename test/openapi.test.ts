import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from './helper.js'

describe('OpenAPI documents of the REST interfaces', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())

  it('describes the device gateway from the schemas that validate it, without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi/devices.json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/aac/signal', '/v1/medical/alert', '/v1/quantum/circuit', '/v1/medical/alert/{alert_id}/acknowledge']),
    )
    const circuit = doc.paths['/v1/quantum/circuit'].post.requestBody.content['application/json'].schema
    expect(circuit.required).toEqual(['qubits', 'gates'])
    expect(doc.paths['/v1/medical/alert/{alert_id}'].get.parameters).toEqual([expect.objectContaining({ name: 'alert_id', in: 'path', required: true })])
    expect(doc.paths['/v1/medical/alerts'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['status', 'device_id', 'priority', 'limit', 'offset'])
    expect(doc.components['x-error-codes'].CONFLICT).toEqual({ status: 409, message: expect.any(String) })
    expect(doc.paths['/openapi/devices.json']).toBeUndefined()
  })

  it('gives every operation a unique operationId, a summary and a tag, and names the server', async () => {
    for (const service of ['devices', 'pipelines', 'visualization']) {
      const doc = (await t.app.inject({ method: 'GET', url: `/openapi/${service}.json` })).json()
      expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
      const operations = Object.values(doc.paths as Record<string, Record<string, { operationId: string; summary: string; tags: string[] }>>).flatMap((p) =>
        Object.values(p),
      )
      expect(operations.length).toBeGreaterThan(5)
      const ids = operations.map((o) => o.operationId)
      expect(new Set(ids).size).toBe(ids.length)
      for (const o of operations) {
        expect(o.summary).toMatch(/\S/)
        expect(o.tags.length).toBe(1)
      }
    }
    const devices = (await t.app.inject({ method: 'GET', url: '/openapi/devices.json' })).json()
    expect(devices.paths['/v1/medical/alert/{alert_id}/acknowledge'].post.operationId).toBe('postV1MedicalAlertByAlertIdAcknowledge')
    expect(devices.paths['/v1/medical/alert/{alert_id}/acknowledge'].post.tags).toEqual(['medical'])
  })

  it('describes the pipelines with the documented error codes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi/pipelines.json' })).json()
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/pipelines',
        '/v1/pipelines/{pipeline_id}',
        '/v1/pipelines/{pipeline_id}/run',
        '/v1/connectors',
        '/v1/pipelines/{pipeline_id}/runs',
        '/v1/runs/{run_id}/logs',
      ]),
    )
    expect(Object.keys(doc.paths['/v1/pipelines/{pipeline_id}'])).toEqual(expect.arrayContaining(['get', 'delete']))
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(['AUTH_001', 'PIPE_001', 'PIPE_002', 'CONN_001', 'CONN_002', 'RATE_001']),
    )
  })
})
