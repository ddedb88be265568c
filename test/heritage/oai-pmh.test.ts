import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

const BASE = '/v1/heritage'
const OAI = `${BASE}/oai`

/** The text of every `<name>` element (no nesting of the same name in OAI-PMH). */
const all = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!.trim())
const one = (xml: string, name: string) => all(xml, name)[0]

/**
 * The parts of OAI-PMH 2.0 §3.2 every response needs: the XML declaration, the OAI-PMH root in
 * its namespace with the schema location, responseDate in UTC seconds, and a request element.
 */
function expectOaiEnvelope(xml: string) {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"')).toBe(true)
  expect(xml).toContain('xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"')
  expect(one(xml, 'responseDate')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  expect(one(xml, 'request')).toMatch(/^http:\/\/localhost(:\d+)?\/v1\/heritage\/oai$/)
  expect(xml.trim().endsWith('</OAI-PMH>')).toBe(true)
  // Well-formed enough: every opened element is closed, in order.
  const stack: string[] = []
  for (const m of xml.replace(/<\?xml[^>]*\?>/, '').matchAll(/<(\/?)([\w:]+)[^>]*?(\/?)>/g)) {
    if (m[3]) continue
    if (m[1]) expect(stack.pop()).toBe(m[2])
    else stack.push(m[2]!)
  }
  expect(stack).toEqual([])
}

describe('OAI-PMH 2.0 endpoint', () => {
  let t: TestTessera
  const ids: string[] = []
  const get = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${OAI}?${query}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
    expectOaiEnvelope(res.body)
    return res.body
  }

  beforeAll(async () => {
    t = await build({ services: ['heritage'] })
    for (let i = 0; i < 53; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${BASE}/artifacts`,
        headers: t.auth,
        payload: { title: `Coin ${i}`, culture: 'Roman', period: '1st century' },
      })
      ids.push(res.json().id)
    }
  })
  afterAll(() => t?.close())

  it('identifies the repository', async () => {
    const xml = await get('verb=Identify')
    expect(one(xml, 'protocolVersion')).toBe('2.0')
    expect(one(xml, 'granularity')).toBe('YYYY-MM-DDThh:mm:ssZ')
    expect(one(xml, 'deletedRecord')).toBe('no')
    expect(one(xml, 'earliestDatestamp')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    expect(one(xml, 'adminEmail')).toContain('@')
    expect(xml).toContain('<request verb="Identify">')
  })

  it('lists oai_dc as its metadata format', async () => {
    const xml = await get('verb=ListMetadataFormats')
    expect(all(xml, 'metadataPrefix')).toEqual(['oai_dc'])
    expect(one(xml, 'metadataNamespace')).toBe('http://www.openarchives.org/OAI/2.0/oai_dc/')
  })

  it('harvests every record in pages with resumption tokens', async () => {
    const first = await get('verb=ListRecords&metadataPrefix=oai_dc')
    expect(all(first, 'record')).toHaveLength(50)
    const token = /<resumptionToken completeListSize="53" cursor="0">([^<]+)<\/resumptionToken>/.exec(first)?.[1]
    expect(token).toBeDefined()
    expect(first).toContain('<dc:title>Coin 0</dc:title>')
    expect(first).toContain(`<identifier>oai:heritage.tessera:${ids[0]}</identifier>`)
    const second = await get(`verb=ListRecords&resumptionToken=${encodeURIComponent(token!)}`)
    expect(all(second, 'record')).toHaveLength(3)
    expect(second).toContain('<resumptionToken completeListSize="53" cursor="50"/>')
    const identifiers = [...all(first, 'identifier'), ...all(second, 'identifier')].filter((i) => i.startsWith('oai:'))
    expect(new Set(identifiers)).toEqual(new Set(ids.map((id) => `oai:heritage.tessera:${id}`)))
    const headers = await get('verb=ListIdentifiers&metadataPrefix=oai_dc')
    expect(all(headers, 'header')).toHaveLength(50)
    expect(headers).not.toContain('<metadata>')
  })

  it('gets one record and filters by datestamp', async () => {
    const xml = await get(`verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:heritage.tessera:${ids[7]}`)
    expect(xml).toContain('<dc:title>Coin 7</dc:title>')
    expect(xml).toContain('<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"')
    expect(await get('verb=ListRecords&metadataPrefix=oai_dc&from=2000-01-01&until=2000-12-31')).toContain('<error code="noRecordsMatch">')
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    expect(await get(`verb=ListIdentifiers&metadataPrefix=oai_dc&from=${tomorrow}`)).toContain('<error code="noRecordsMatch">')
    expect(all(await get('verb=ListIdentifiers&metadataPrefix=oai_dc&from=2000-01-01'), 'header')).toHaveLength(50)
  })

  it('answers protocol errors with their codes, inside a 200 response', async () => {
    const cases: Array<[string, string]> = [
      ['', 'badVerb'],
      ['verb=Harvest', 'badVerb'],
      ['verb=ListRecords', 'badArgument'],
      ['verb=ListRecords&metadataPrefix=oai_dc&colour=red', 'badArgument'],
      ['verb=ListRecords&metadataPrefix=oai_dc&from=2001-01-01&until=2002-01-01T00:00:00Z', 'badArgument'],
      ['verb=ListRecords&metadataPrefix=oai_dc&from=yesterday', 'badArgument'],
      ['verb=ListRecords&metadataPrefix=marcxml', 'cannotDisseminateFormat'],
      ['verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:heritage.tessera:00000000-0000-4000-8000-000000000000', 'idDoesNotExist'],
      ['verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:elsewhere:1', 'idDoesNotExist'],
      ['verb=ListRecords&resumptionToken=garbage', 'badResumptionToken'],
      ['verb=ListSets', 'noSetHierarchy'],
      ['verb=ListRecords&metadataPrefix=oai_dc&set=coins', 'noSetHierarchy'],
    ]
    for (const [query, code] of cases) {
      const xml = await get(query)
      expect(xml, query).toContain(`<error code="${code}">`)
      if (code === 'badVerb' || code === 'badArgument') expect(xml, query).toMatch(/<request>http/)
    }
  })

  it('needs a heritage:read credential like every other operation', async () => {
    expect((await t.app.inject({ method: 'GET', url: `${OAI}?verb=Identify` })).statusCode).toBe(401)
  })
})
