import jsonld from 'jsonld'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const BASE = '/v1/heritage'
const CRM = 'http://www.cidoc-crm.org/cidoc-crm/'

describe('heritage open metadata', () => {
  let t: TestTessera
  let helmetId: string

  beforeAll(async () => {
    t = await build({ services: ['heritage'] })
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts`,
      headers: t.auth,
      payload: {
        spectrumId: 'TESS.1939.289',
        title: 'Crested helmet',
        culture: 'Anglo-Saxon',
        period: 'early 7th century',
        description: 'An iron helmet with bronze fittings & a face mask.',
        materials: ['iron', 'bronze'],
        dimensions: { height: 31.8, width: 21.5, unit: 'cm' },
        location: { current: 'Room 41', origin: 'Sutton Hoo, Suffolk' },
      },
    })
    helmetId = res.json().id
  })
  afterAll(() => t?.close())

  it('derives the fifteen Dublin Core elements from the artifact', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-dublin-core-source']).toBe('derived')
    const dc = res.json()
    expect(Object.keys(dc)).toEqual([
      'title',
      'creator',
      'subject',
      'description',
      'publisher',
      'contributor',
      'date',
      'type',
      'format',
      'identifier',
      'source',
      'language',
      'relation',
      'coverage',
      'rights',
    ])
    expect(dc.title).toEqual(['Crested helmet'])
    expect(dc.date).toEqual(['early 7th century (601 CE – 633 CE)'])
    expect(dc.type).toEqual(['PhysicalObject'])
    expect(dc.format).toEqual(['iron', 'bronze', 'height 31.8 cm × width 21.5 cm'])
    expect(dc.identifier).toEqual(['TESS.1939.289', `urn:uuid:${helmetId}`])
    expect(dc.coverage).toEqual(['Sutton Hoo, Suffolk', 'Anglo-Saxon'])
    expect(dc.creator).toEqual([])
  })

  it('gives the oai_dc XML form for Accept: application/xml', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`,
      headers: { ...t.auth, accept: 'application/xml' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
    expect(res.body).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<oai_dc:dc xmlns:oai_dc="http:\/\/www.openarchives.org\/OAI\/2.0\/oai_dc\/" xmlns:dc="http:\/\/purl.org\/dc\/elements\/1.1\/"/,
    )
    expect(res.body).toContain('<dc:title>Crested helmet</dc:title>')
    expect(res.body).toContain('<dc:description>An iron helmet with bronze fittings &amp; a face mask.</dc:description>')
    expect(res.body.trim().endsWith('</oai_dc:dc>')).toBe(true)
  })

  it('replaces the record with PUT, refusing unknown elements and non-string values', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`,
      headers: t.auth,
      payload: { title: ['Sutton Hoo helmet'], creator: ['Unknown Anglo-Saxon smith'], rights: ['CC0 1.0'] },
    })
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json().title).toEqual(['Sutton Hoo helmet'])
    expect(put.json().subject).toEqual([])
    const get = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`, headers: t.auth })
    expect(get.headers['x-dublin-core-source']).toBe('replaced')
    expect(get.json()).toEqual(put.json())
    expectError(
      await t.app.inject({
        method: 'PUT',
        url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`,
        headers: t.auth,
        payload: { title: ['x'], colour: ['red'] },
      }),
      400,
      'INVALID_REQUEST',
      'colour',
    )
    expectError(
      await t.app.inject({ method: 'PUT', url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`, headers: t.auth, payload: { title: 'x' } }),
      400,
      'INVALID_REQUEST',
      'title',
    )
    expectError(
      await t.app.inject({ method: 'PUT', url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`, headers: t.auth, payload: { title: [''] } }),
      400,
      'INVALID_REQUEST',
      'title[0]',
    )
    expectError(
      await t.app.inject({
        method: 'PUT',
        url: `${BASE}/artifacts/00000000-0000-4000-8000-000000000000/metadata/dublincore`,
        headers: t.auth,
        payload: { title: ['x'] },
      }),
      404,
      'NOT_FOUND',
    )
    // The refused PUTs changed nothing.
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${helmetId}/metadata/dublincore`, headers: t.auth })).json()).toEqual(put.json())
  })

  it('publishes a Linked Art record that expands as JSON-LD to CIDOC-CRM', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${helmetId}/metadata/cidoc`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/ld+json; charset=utf-8')
    const record = res.json()
    expect(record).toMatchObject({ type: 'HumanMadeObject', _label: 'Crested helmet', id: `urn:uuid:${helmetId}` })
    expect(record.produced_by.timespan).toMatchObject({ begin_of_the_begin: '0601-01-01T00:00:00Z', end_of_the_end: '0633-12-31T23:59:59Z' })
    // No document is fetched: the context is inline, so expansion works offline.
    const [expanded] = await jsonld.expand(record, {
      documentLoader: async (url) => {
        throw new Error(`fetched ${url}`)
      },
    })
    expect(expanded!['@type']).toEqual([`${CRM}E22_Human-Made_Object`])
    expect(expanded!['@id']).toBe(`urn:uuid:${helmetId}`)
    const names = expanded![`${CRM}P1_is_identified_by`] as Array<Record<string, unknown>>
    expect(names.map((n) => (n[`${CRM}P190_has_symbolic_content`] as Array<{ '@value': string }>)[0]!['@value'])).toContain('TESS.1939.289')
    const production = (expanded![`${CRM}P108i_was_produced_by`] as Array<Record<string, unknown>>)[0]!
    const span = (production[`${CRM}P4_has_time-span`] as Array<Record<string, unknown>>)[0]!
    expect(span[`${CRM}P82a_begin_of_the_begin`]).toEqual([{ '@type': 'http://www.w3.org/2001/XMLSchema#dateTime', '@value': '0601-01-01T00:00:00Z' }])
    const materials = expanded![`${CRM}P45_consists_of`] as Array<Record<string, unknown>>
    expect(materials.map((m) => (m['http://www.w3.org/2000/01/rdf-schema#label'] as Array<{ '@value': string }>)[0]!['@value'])).toEqual(['iron', 'bronze'])
    const dims = expanded![`${CRM}P43_has_dimension`] as Array<Record<string, unknown>>
    expect(dims).toHaveLength(2)
    expect(dims[0]![`${CRM}P90_has_value`]).toEqual([{ '@type': 'http://www.w3.org/2001/XMLSchema#decimal', '@value': 31.8 }])
    expect((dims[0]![`${CRM}P91_has_unit`] as Array<{ '@id': string }>)[0]!['@id']).toBe('http://vocab.getty.edu/aat/300379098')
    expect(expanded![`${CRM}P55_has_current_location`]).toBeDefined()
  })

  it('writes BCE periods as ISO 8601 years (1 BCE is year 0000)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts`,
      headers: t.auth,
      payload: { title: 'Kylix', culture: 'Greek', period: '500 BCE-450 BCE' },
    })
    const cidoc = (await t.app.inject({ method: 'GET', url: `${BASE}/artifacts/${res.json().id}/metadata/cidoc`, headers: t.auth })).json()
    expect(cidoc.produced_by.timespan).toMatchObject({ begin_of_the_begin: '-0499-01-01T00:00:00Z', end_of_the_end: '-0449-12-31T23:59:59Z' })
  })
})
