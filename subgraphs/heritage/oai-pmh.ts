import { escapeXml, toOaiDcXml, type DublinCoreRecord } from './dublin-core.js'

/** One harvestable record: an artifact's Dublin Core with its datestamp. */
export interface OaiItem {
  id: string
  datestamp: Date
  record: DublinCoreRecord
}

/** What the OAI-PMH endpoint reads from the catalogue. */
export interface OaiRepository {
  earliestDatestamp(): Promise<Date | null>
  /** Items changed in [from, until], oldest change first, and how many there are in all. */
  page(range: { from?: Date; until?: Date }, offset: number, limit: number): Promise<{ items: OaiItem[]; total: number }>
  get(id: string): Promise<OaiItem | null>
}

/** Fixed facts of the repository. */
export interface OaiOptions {
  baseUrl: string
  repositoryName: string
  adminEmail: string
  now: Date
  /** Records or identifiers per response before a resumption token. */
  pageSize: number
}

/** The namespace identifier in every OAI identifier (`oai:heritage.tessera:<artifact id>`). */
export const OAI_NAMESPACE = 'heritage.tessera'
const VERBS = ['Identify', 'ListMetadataFormats', 'ListSets', 'ListIdentifiers', 'ListRecords', 'GetRecord'] as const
type Verb = (typeof VERBS)[number]
const ARGUMENTS: Record<Verb, { required: string[]; optional: string[] }> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ['identifier'] },
  ListSets: { required: [], optional: ['resumptionToken'] },
  ListIdentifiers: { required: ['metadataPrefix'], optional: ['from', 'until', 'set', 'resumptionToken'] },
  ListRecords: { required: ['metadataPrefix'], optional: ['from', 'until', 'set', 'resumptionToken'] },
  GetRecord: { required: ['identifier', 'metadataPrefix'], optional: [] },
}

class OaiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const utc = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')
export const oaiIdentifier = (id: string) => `oai:${OAI_NAMESPACE}:${id}`

/** A `from`/`until` argument: day or second granularity (the repository's finest is seconds). */
function parseDatestamp(value: string, name: string, end: boolean): { date: Date; granularity: 'day' | 'second' } {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  const second = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value)
  const date = day ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`) : second ? new Date(end ? value.replace('Z', '.999Z') : value) : undefined
  if (!date || Number.isNaN(date.getTime()) || (day && date.toISOString().slice(0, 10) !== value)) {
    throw new OaiError('badArgument', `${name} must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ`)
  }
  return { date, granularity: day ? 'day' : 'second' }
}

interface Token {
  prefix: string
  from?: string
  until?: string
  offset: number
}

const encodeToken = (t: Token) => Buffer.from(JSON.stringify(t)).toString('base64url')
function decodeToken(text: string): Token {
  try {
    const t = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Token
    if (typeof t.prefix === 'string' && Number.isInteger(t.offset) && t.offset >= 0) return t
  } catch {
    // falls through to the protocol's error
  }
  throw new OaiError('badResumptionToken', 'The resumption token is invalid or has expired')
}

/**
 * Answers one OAI-PMH 2.0 request (all six verbs, oai_dc, resumption tokens, day and second
 * granularity). Protocol errors are part of the response, as the protocol says, never thrown.
 * Returns the XML document.
 */
export async function answerOai(args: Record<string, string | string[] | undefined>, repo: OaiRepository, options: OaiOptions): Promise<string> {
  const head = (request: string) => [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">',
    `  <responseDate>${utc(options.now)}</responseDate>`,
    request,
  ]
  const plainRequest = `  <request>${escapeXml(options.baseUrl)}</request>`
  const verb = typeof args.verb === 'string' ? args.verb : undefined
  try {
    if (!verb || !(VERBS as readonly string[]).includes(verb))
      throw new OaiError('badVerb', verb ? `${verb} is not an OAI-PMH verb` : 'The verb argument is missing or repeated')
    const v = verb as Verb
    const allowed = new Set(['verb', ...ARGUMENTS[v].required, ...ARGUMENTS[v].optional])
    const given: Record<string, string> = {}
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined) continue
      if (!allowed.has(key)) throw new OaiError('badArgument', `${key} is not an argument of ${v}`)
      if (Array.isArray(value)) throw new OaiError('badArgument', `${key} is repeated`)
      if (key !== 'verb') given[key] = value
    }
    const exclusive = given.resumptionToken !== undefined
    if (exclusive && Object.keys(given).length > 1) throw new OaiError('badArgument', 'resumptionToken is an exclusive argument')
    if (!exclusive) for (const r of ARGUMENTS[v].required) if (given[r] === undefined) throw new OaiError('badArgument', `${r} is required for ${v}`)
    const attrs = Object.entries({ verb: v, ...given })
      .map(([k, val]) => ` ${k}="${escapeXml(val)}"`)
      .join('')
    const request = `  <request${attrs}>${escapeXml(options.baseUrl)}</request>`
    const body = await answerVerb(v, given, repo, options)
    return [...head(request), ...body, '</OAI-PMH>', ''].join('\n')
  } catch (error) {
    if (!(error instanceof OaiError)) throw error
    const request =
      error.code === 'badVerb' || error.code === 'badArgument'
        ? plainRequest
        : `  <request verb="${escapeXml(verb ?? '')}">${escapeXml(options.baseUrl)}</request>`
    return [...head(request), `  <error code="${error.code}">${escapeXml(error.message)}</error>`, '</OAI-PMH>', ''].join('\n')
  }
}

function checkPrefix(prefix: string) {
  if (prefix !== 'oai_dc') throw new OaiError('cannotDisseminateFormat', `${prefix} is not a metadata format of this repository (oai_dc is)`)
}

function localId(identifier: string): string {
  const prefix = `oai:${OAI_NAMESPACE}:`
  if (!identifier.startsWith(prefix)) throw new OaiError('idDoesNotExist', `${identifier} is not an identifier of this repository`)
  const id = identifier.slice(prefix.length)
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new OaiError('idDoesNotExist', `${identifier} does not exist`)
  return id
}

const header = (item: OaiItem, indent: string) => [
  `${indent}<header>`,
  `${indent}  <identifier>${oaiIdentifier(item.id)}</identifier>`,
  `${indent}  <datestamp>${utc(item.datestamp)}</datestamp>`,
  `${indent}</header>`,
]

const record = (item: OaiItem) => [
  '    <record>',
  ...header(item, '      '),
  '      <metadata>',
  toOaiDcXml(item.record, { indent: '        ' }),
  '      </metadata>',
  '    </record>',
]

async function answerVerb(verb: Verb, args: Record<string, string>, repo: OaiRepository, options: OaiOptions): Promise<string[]> {
  switch (verb) {
    case 'Identify': {
      const earliest = (await repo.earliestDatestamp()) ?? options.now
      return [
        '  <Identify>',
        `    <repositoryName>${escapeXml(options.repositoryName)}</repositoryName>`,
        `    <baseURL>${escapeXml(options.baseUrl)}</baseURL>`,
        '    <protocolVersion>2.0</protocolVersion>',
        `    <adminEmail>${escapeXml(options.adminEmail)}</adminEmail>`,
        `    <earliestDatestamp>${utc(earliest)}</earliestDatestamp>`,
        '    <deletedRecord>no</deletedRecord>',
        '    <granularity>YYYY-MM-DDThh:mm:ssZ</granularity>',
        '  </Identify>',
      ]
    }
    case 'ListMetadataFormats': {
      if (args.identifier !== undefined && !(await repo.get(localId(args.identifier))))
        throw new OaiError('idDoesNotExist', `${args.identifier} does not exist`)
      return [
        '  <ListMetadataFormats>',
        '    <metadataFormat>',
        '      <metadataPrefix>oai_dc</metadataPrefix>',
        '      <schema>http://www.openarchives.org/OAI/2.0/oai_dc.xsd</schema>',
        '      <metadataNamespace>http://www.openarchives.org/OAI/2.0/oai_dc/</metadataNamespace>',
        '    </metadataFormat>',
        '  </ListMetadataFormats>',
      ]
    }
    case 'ListSets':
      throw new OaiError('noSetHierarchy', 'This repository does not support sets')
    case 'GetRecord': {
      checkPrefix(args.metadataPrefix!)
      const item = await repo.get(localId(args.identifier!))
      if (!item) throw new OaiError('idDoesNotExist', `${args.identifier} does not exist`)
      return ['  <GetRecord>', ...record(item), '  </GetRecord>']
    }
    case 'ListIdentifiers':
    case 'ListRecords': {
      const token: Token =
        args.resumptionToken !== undefined ? decodeToken(args.resumptionToken) : { prefix: args.metadataPrefix!, from: args.from, until: args.until, offset: 0 }
      if (args.set !== undefined) throw new OaiError('noSetHierarchy', 'This repository does not support sets')
      checkPrefix(token.prefix)
      const from = token.from !== undefined ? parseDatestamp(token.from, 'from', false) : undefined
      const until = token.until !== undefined ? parseDatestamp(token.until, 'until', true) : undefined
      if (from && until && from.granularity !== until.granularity) throw new OaiError('badArgument', 'from and until must have the same granularity')
      if (from && until && from.date > until.date) throw new OaiError('badArgument', 'from is later than until')
      const { items, total } = await repo.page({ from: from?.date, until: until?.date }, token.offset, options.pageSize)
      if (total === 0) throw new OaiError('noRecordsMatch', 'No records match the arguments')
      if (token.offset >= total) throw new OaiError('badResumptionToken', 'The resumption token is past the end of the list')
      const element = verb
      const next = token.offset + items.length
      const resumption =
        next < total
          ? `    <resumptionToken completeListSize="${total}" cursor="${token.offset}">${encodeToken({ ...token, offset: next })}</resumptionToken>`
          : token.offset > 0
            ? `    <resumptionToken completeListSize="${total}" cursor="${token.offset}"/>`
            : undefined
      const entries = verb === 'ListIdentifiers' ? items.flatMap((i) => header(i, '    ')) : items.flatMap(record)
      return [`  <${element}>`, ...entries, ...(resumption ? [resumption] : []), `  </${element}>`]
    }
  }
}
