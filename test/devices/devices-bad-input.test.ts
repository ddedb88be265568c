import { randomUUID } from 'node:crypto'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** One bad request and the answer it must get. */
interface Case {
  /** The route under test, as `METHOD /path` with Fastify's parameter names. */
  route: string
  name: string
  url: string
  /** Defaults to the route's method. */
  method?: Method
  /** JSON-encoded unless `raw` is set. */
  payload?: unknown
  /** A body sent verbatim, with `contentType`. */
  raw?: string
  contentType?: string
  status: number
  code: string
  /** What `error.details.field` must be (or match). */
  field?: string | RegExp
}

const ROUTES = [
  'POST /v1/aac/signal',
  'GET /v1/aac/signal/:signal_id',
  'GET /v1/aac/devices/:device_id/dwell',
  'PUT /v1/aac/devices/:device_id/dwell',
  'GET /v1/aac/devices/:device_id/events',
  'POST /v1/medical/alert',
  'GET /v1/medical/alerts',
  'GET /v1/medical/alert/:alert_id',
  'POST /v1/medical/alert/:alert_id/acknowledge',
  'POST /v1/medical/alert/:alert_id/resolve',
  'POST /v1/quantum/circuit',
  'GET /v1/quantum/circuit/:circuit_id',
  'GET /v1/quantum/gates',
] as const
type Route = (typeof ROUTES)[number]

const BODY_LIMIT = 2048
const uuid = randomUUID()
const anId = (route: string) => route.split(' ')[1]!.replace(/:[a-z_]+/g, (p) => (p === ':device_id' ? 'device-1' : uuid))

const invalid = (route: Route, name: string, payload: unknown, field: string | RegExp): Case => ({
  route,
  name,
  url: anId(route),
  payload,
  status: 400,
  code: 'INVALID_REQUEST',
  field,
})
const invalidQuery = (route: Route, query: string, field: string | RegExp): Case => ({
  route,
  name: `?${query}`,
  url: `${anId(route)}?${query}`,
  status: 400,
  code: 'INVALID_REQUEST',
  field,
})
const notFound = (route: Route, name: string, url: string): Case => ({ route, name, url, status: 404, code: 'NOT_FOUND', field: 'id' })

// Query and path problems are named with their location (`querystring.limit`) by schema
// validation and without it (`limit`) by the domain's range checks; either names the field.
const query = (name: string) => new RegExp(`^(querystring\\.)?${name.replace('.', '\\.')}$`)

const gaze = (data: Record<string, unknown>) => ({ type: 'eye_tracker', device_id: 'eye-1', data: { gaze_point: { x: 1, y: 2 }, ...data } })

/** Cases every route gets: the body-level failures of a write, and a method it does not have. */
function generic(route: Route): Case[] {
  const [method] = route.split(' ') as [Method]
  const url = anId(route)
  const cases: Case[] = [{ route, name: 'a method the path does not have', method: method === 'GET' ? 'PATCH' : 'DELETE', url, status: 404, code: 'NOT_FOUND' }]
  if (method === 'GET') return cases
  cases.push(
    {
      route,
      name: 'malformed JSON',
      url,
      raw: '{"qubits": 2, "gates": [',
      contentType: 'application/json',
      status: 400,
      code: 'INVALID_REQUEST',
      field: 'body',
    },
    { route, name: 'empty body declared as JSON', url, raw: '', contentType: 'application/json', status: 400, code: 'INVALID_REQUEST', field: 'body' },
    {
      route,
      name: 'an XML body',
      url,
      raw: '<alert priority="high"/>',
      contentType: 'application/xml',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      field: 'content-type',
    },
    {
      route,
      name: 'a form body',
      url,
      raw: 'priority=high',
      contentType: 'application/x-www-form-urlencoded',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      field: 'content-type',
    },
    {
      route,
      name: 'JSON sent as text/plain',
      url,
      raw: '{"device_id":"x","priority":"high"}',
      contentType: 'text/plain',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      field: 'content-type',
    },
    {
      route,
      name: 'a 10 kB body over the 2 kB limit',
      url,
      raw: JSON.stringify({ device_id: 'x', priority: 'high', pad: 'x'.repeat(10 * 1024) }),
      contentType: 'application/json',
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      field: 'body',
    },
  )
  // Routes that take a body refuse anything but a JSON object.
  if (!route.endsWith('/acknowledge') && !route.endsWith('/resolve')) {
    cases.push(
      { route, name: 'a JSON array', url, raw: '[]', contentType: 'application/json', status: 400, code: 'INVALID_REQUEST', field: 'body' },
      { route, name: 'JSON null', url, raw: 'null', contentType: 'application/json', status: 400, code: 'INVALID_REQUEST', field: 'body' },
      { route, name: 'a JSON string', url, raw: '"hello"', contentType: 'application/json', status: 400, code: 'INVALID_REQUEST', field: 'body' },
    )
  }
  return cases
}

const CASES: Case[] = [
  ...ROUTES.flatMap(generic),

  // --- Signals ---------------------------------------------------------------------------
  invalid('POST /v1/aac/signal', 'missing type', { data: { state: 'pressed' } }, 'type'),
  invalid('POST /v1/aac/signal', 'missing data', { type: 'switch' }, 'data'),
  invalid('POST /v1/aac/signal', 'data as an array', { type: 'eye_tracker', data: [] }, 'data'),
  invalid('POST /v1/aac/signal', 'data as a string', { type: 'eye_tracker', data: 'x=1,y=2' }, 'data'),
  invalid('POST /v1/aac/signal', 'type as a number', { type: 5, data: {} }, 'type'),
  invalid('POST /v1/aac/signal', 'an unknown type', { type: 'joystick', data: { x: 1 } }, 'type'),
  invalid('POST /v1/aac/signal', 'device_id as a number', { type: 'switch', device_id: 42, data: { state: 'pressed' } }, 'device_id'),
  invalid('POST /v1/aac/signal', 'device_id with a space', { type: 'switch', device_id: 'bed 4', data: { state: 'pressed' } }, 'device_id'),
  invalid('POST /v1/aac/signal', 'an empty device_id', { type: 'switch', device_id: '', data: { state: 'pressed' } }, 'device_id'),
  invalid('POST /v1/aac/signal', 'eye_tracker without gaze_point', { type: 'eye_tracker', data: {} }, 'data.gaze_point'),
  invalid('POST /v1/aac/signal', 'gaze x as a string', { type: 'eye_tracker', data: { gaze_point: { x: '1', y: 2 } } }, 'data.gaze_point.x'),
  invalid('POST /v1/aac/signal', 'gaze y missing', { type: 'eye_tracker', data: { gaze_point: { x: 1 } } }, 'data.gaze_point.y'),
  invalid('POST /v1/aac/signal', 'gaze x off any screen', { type: 'eye_tracker', data: { gaze_point: { x: 2e6, y: 2 } } }, 'data.gaze_point.x'),
  invalid('POST /v1/aac/signal', 'a timestamp that is not a time', gaze({ timestamp: 'yesterday' }), 'data.timestamp'),
  invalid('POST /v1/aac/signal', 'a timestamp two days old', gaze({ timestamp: Date.now() - 2 * 86_400_000 }), 'data.timestamp'),
  invalid('POST /v1/aac/signal', 'a timestamp as a boolean', gaze({ timestamp: true }), 'data.timestamp'),
  invalid('POST /v1/aac/signal', 'an unknown switch state', { type: 'switch', data: { state: 'held' } }, 'data.state'),
  invalid('POST /v1/aac/signal', 'an empty switch_id', { type: 'switch', data: { state: 'pressed', switch_id: '' } }, 'data.switch_id'),
  invalid('POST /v1/aac/signal', 'an unknown sip-puff action', { type: 'sip_puff', data: { action: 'blow' } }, 'data.action'),
  invalid('POST /v1/aac/signal', 'a pressure out of range', { type: 'sip_puff', data: { action: 'sip', pressure: 25 } }, 'data.pressure'),
  invalid('POST /v1/aac/signal', 'a pressure as a string', { type: 'sip_puff', data: { action: 'sip', pressure: 'hard' } }, 'data.pressure'),
  notFound('GET /v1/aac/signal/:signal_id', 'an unknown UUID', `/v1/aac/signal/${randomUUID()}`),
  notFound('GET /v1/aac/signal/:signal_id', 'an id that is not a UUID', '/v1/aac/signal/not-a-signal'),
  { ...invalid('GET /v1/aac/signal/:signal_id', 'an id with a NUL byte', undefined, 'signal_id'), url: '/v1/aac/signal/a%00b' },

  // --- Dwell settings and events ---------------------------------------------------------
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'radius as a string', { radius: 'wide' }, 'radius'),
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'radius of zero', { radius: 0 }, 'radius'),
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'a negative radius', { radius: -10 }, 'radius'),
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'dwell_ms as a string', { dwell_ms: '500' }, 'dwell_ms'),
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'max_gap_ms as a boolean', { max_gap_ms: true }, 'max_gap_ms'),
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'an unknown rearm', { rearm: 'sometimes' }, 'rearm'),
  invalid('PUT /v1/aac/devices/:device_id/dwell', 'an unknown setting', { dwellMs: 500 }, 'dwellMs'),
  { ...invalid('PUT /v1/aac/devices/:device_id/dwell', 'a device id with a space', { radius: 10 }, 'device_id'), url: '/v1/aac/devices/bed%204/dwell' },
  { ...invalid('PUT /v1/aac/devices/:device_id/dwell', 'a device id with a NUL byte', { radius: 10 }, 'device_id'), url: '/v1/aac/devices/a%00b/dwell' },
  invalidQuery('GET /v1/aac/devices/:device_id/events', 'limit=abc', query('limit')),
  invalidQuery('GET /v1/aac/devices/:device_id/events', 'limit=1000', query('limit')),
  invalidQuery('GET /v1/aac/devices/:device_id/events', 'limit=0', query('limit')),
  invalidQuery('GET /v1/aac/devices/:device_id/events', 'limit=2.5', query('limit')),

  // --- Alerts ----------------------------------------------------------------------------
  invalid('POST /v1/medical/alert', 'missing device_id', { priority: 'high' }, 'device_id'),
  invalid('POST /v1/medical/alert', 'missing priority', { device_id: 'pump-1' }, 'priority'),
  invalid('POST /v1/medical/alert', 'priority as a number', { device_id: 'pump-1', priority: 5 }, 'priority'),
  invalid('POST /v1/medical/alert', 'an unknown priority', { device_id: 'pump-1', priority: 'urgent' }, 'priority'),
  invalid('POST /v1/medical/alert', 'priority in capitals', { device_id: 'pump-1', priority: 'HIGH' }, 'priority'),
  invalid('POST /v1/medical/alert', 'device_id as a number', { device_id: 7, priority: 'high' }, 'device_id'),
  invalid('POST /v1/medical/alert', 'device_id with a slash', { device_id: 'ward/7', priority: 'high' }, 'device_id'),
  invalid('POST /v1/medical/alert', 'device_id over 128 characters', { device_id: 'd'.repeat(129), priority: 'high' }, 'device_id'),
  invalid('POST /v1/medical/alert', 'message as a number', { device_id: 'pump-1', priority: 'high', message: 404 }, 'message'),
  invalid('POST /v1/medical/alert', 'message as null', { device_id: 'pump-1', priority: 'high', message: null }, 'message'),
  invalidQuery('GET /v1/medical/alerts', 'limit=abc', query('limit')),
  invalidQuery('GET /v1/medical/alerts', 'limit=1000', query('limit')),
  invalidQuery('GET /v1/medical/alerts', 'limit=0', query('limit')),
  invalidQuery('GET /v1/medical/alerts', 'offset=-1', query('offset')),
  invalidQuery('GET /v1/medical/alerts', 'offset=abc', query('offset')),
  invalidQuery('GET /v1/medical/alerts', 'status=open', query('status')),
  invalidQuery('GET /v1/medical/alerts', 'priority=urgent', query('priority')),
  notFound('GET /v1/medical/alert/:alert_id', 'an unknown UUID', `/v1/medical/alert/${randomUUID()}`),
  notFound('GET /v1/medical/alert/:alert_id', 'an id that is not a UUID', '/v1/medical/alert/12345'),
  notFound('POST /v1/medical/alert/:alert_id/acknowledge', 'an unknown UUID', `/v1/medical/alert/${randomUUID()}/acknowledge`),
  notFound('POST /v1/medical/alert/:alert_id/acknowledge', 'an id that is not a UUID', '/v1/medical/alert/latest/acknowledge'),
  notFound('POST /v1/medical/alert/:alert_id/resolve', 'an unknown UUID', `/v1/medical/alert/${randomUUID()}/resolve`),
  notFound('POST /v1/medical/alert/:alert_id/resolve', 'an id that is not a UUID', '/v1/medical/alert/latest/resolve'),
  { route: 'GET /v1/medical/alerts', name: 'an unknown path under /v1/medical', method: 'GET', url: '/v1/medical/alarms', status: 404, code: 'NOT_FOUND' },
  {
    route: 'GET /v1/medical/alerts',
    name: 'a path deeper than any route',
    method: 'GET',
    url: `/v1/medical/alert/${uuid}/history`,
    status: 404,
    code: 'NOT_FOUND',
  },

  // --- Circuits --------------------------------------------------------------------------
  invalid('POST /v1/quantum/circuit', 'qubits as a string', { qubits: '2', gates: ['H'] }, 'qubits'),
  invalid('POST /v1/quantum/circuit', 'qubits as a fraction', { qubits: 1.5, gates: ['H'] }, 'qubits'),
  invalid('POST /v1/quantum/circuit', 'no qubits', { qubits: 0, gates: [] }, 'qubits'),
  invalid('POST /v1/quantum/circuit', 'missing qubits', { gates: ['H'] }, 'qubits'),
  invalid('POST /v1/quantum/circuit', 'missing gates', { qubits: 1 }, 'gates'),
  invalid('POST /v1/quantum/circuit', 'gates as a string', { qubits: 1, gates: 'H' }, 'gates'),
  invalid('POST /v1/quantum/circuit', 'a gate as a number', { qubits: 1, gates: [1] }, 'gates[0]'),
  invalid('POST /v1/quantum/circuit', 'an unknown gate', { qubits: 1, gates: ['H', 'FOO'] }, 'gates[1]'),
  invalid('POST /v1/quantum/circuit', 'a qubit out of range', { qubits: 2, gates: ['CNOT 0 5'] }, 'gates[0]'),
  invalid('POST /v1/quantum/circuit', 'shots of zero', { qubits: 1, gates: ['H'], shots: 0 }, 'shots'),
  invalid('POST /v1/quantum/circuit', 'shots as a string', { qubits: 1, gates: ['H'], shots: 'many' }, 'shots'),
  invalid('POST /v1/quantum/circuit', 'a negative seed', { qubits: 1, gates: ['H'], shots: 10, seed: -1 }, 'seed'),
  invalid('POST /v1/quantum/circuit', 'a seed beyond 32 bits', { qubits: 1, gates: ['H'], shots: 10, seed: 2 ** 40 }, 'seed'),
  notFound('GET /v1/quantum/circuit/:circuit_id', 'an unknown UUID', `/v1/quantum/circuit/${randomUUID()}`),
  notFound('GET /v1/quantum/circuit/:circuit_id', 'an id that is not a UUID', '/v1/quantum/circuit/bell'),
  { route: 'GET /v1/quantum/gates', name: 'a path below the catalogue', method: 'GET', url: '/v1/quantum/gates/H', status: 404, code: 'NOT_FOUND' },
]

/**
 * Regressions: a NUL character (PostgreSQL text cannot hold one) anywhere in the input, device
 * ids the write refuses sent to the reads, and ids longer than the router's default limit.
 */
const REGRESSIONS: Array<Case & { bug: string }> = [
  {
    ...invalid('POST /v1/medical/alert', 'a message with a NUL byte', { device_id: 'pump-1', priority: 'high', message: 'line\u0000break' }, 'message'),
    bug: 'NUL → 500',
  },
  {
    ...invalid('POST /v1/aac/signal', 'a switch_id with a NUL byte', { type: 'switch', data: { state: 'pressed', switch_id: 'a\u0000' } }, 'data.switch_id'),
    bug: 'NUL → 500',
  },
  { ...invalidQuery('GET /v1/medical/alerts', 'device_id=a%00b', query('device_id')), bug: 'NUL → 500' },
  {
    ...invalid('GET /v1/aac/devices/:device_id/dwell', 'a device id with a NUL byte', undefined, 'device_id'),
    url: '/v1/aac/devices/a%00b/dwell',
    bug: 'NUL → 500',
  },
  {
    ...invalid('GET /v1/aac/devices/:device_id/events', 'a device id with a NUL byte', undefined, 'device_id'),
    url: '/v1/aac/devices/a%00b/events',
    bug: 'NUL → 500',
  },
  {
    ...invalid('GET /v1/aac/devices/:device_id/dwell', 'a device id with a space', undefined, 'device_id'),
    url: '/v1/aac/devices/bed%204/dwell',
    bug: 'unchecked device id',
  },
  {
    ...invalid('GET /v1/aac/devices/:device_id/events', 'a device id with a space', undefined, 'device_id'),
    url: '/v1/aac/devices/bed%204/events',
    bug: 'unchecked device id',
  },
  { ...notFound('GET /v1/medical/alert/:alert_id', 'a 150-character id', `/v1/medical/alert/${'a'.repeat(150)}`), bug: '414 outside the error body' },
  { ...notFound('GET /v1/aac/signal/:signal_id', 'a 150-character id', `/v1/aac/signal/${'a'.repeat(150)}`), bug: '414 outside the error body' },
  { ...notFound('GET /v1/quantum/circuit/:circuit_id', 'a 150-character id', `/v1/quantum/circuit/${'c'.repeat(150)}`), bug: '414 outside the error body' },
  {
    ...notFound('POST /v1/medical/alert/:alert_id/resolve', 'a 150-character id', `/v1/medical/alert/${'a'.repeat(150)}/resolve`),
    bug: '414 outside the error body',
  },
]

/** Every route the running app serves under the device gateway's prefixes, from printRoutes. */
function servedRoutes(tree: string): string[] {
  const routes: string[] = []
  const paths: string[] = []
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line)
    if (!m) continue
    const depth = m[1]!.length / 4
    const path = (depth > 0 ? (paths[depth - 1] ?? '') : '') + m[2]!
    paths[depth] = path
    paths.length = depth + 1
    for (const method of m[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push(`${method} ${path}`)
  }
  return routes.filter((r) => /^\S+ \/v1\/(aac|medical|quantum)(\/|$)/.test(r)).sort()
}

describe('bad input on every device gateway endpoint', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['devices'], env: { TESSERA_BODY_LIMIT: String(BODY_LIMIT) } })
  })
  afterAll(() => t.close())

  const send = (c: Case) => {
    const [routeMethod] = c.route.split(' ') as [Method]
    const options: InjectOptions = { method: c.method ?? routeMethod, url: c.url, headers: { ...t.auth } }
    if (c.raw !== undefined) {
      options.payload = c.raw
      options.headers = { ...options.headers, 'content-type': c.contentType ?? 'application/json' }
    } else if (c.payload !== undefined) {
      options.payload = c.payload as InjectOptions['payload']
    }
    return t.app.inject(options)
  }

  const expectStandardError = (res: LightMyRequestResponse, c: Case) => {
    expect(res.statusCode).toBeLessThan(500)
    expect(res.statusCode).toBe(c.status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.json()
    expect(Object.keys(body)).toEqual(['error'])
    const { error } = body
    expect(error.code).toBe(c.code)
    expect(typeof error.message).toBe('string')
    expect(error.message.length).toBeGreaterThan(0)
    expect(typeof error.details).toBe('object')
    expect(new Date(error.timestamp).toISOString()).toBe(error.timestamp)
    expect(error.requestId).toBe(res.headers['x-request-id'])
    expect(res.headers['x-ratelimit-limit']).toBeDefined()
    if (c.field !== undefined) {
      if (typeof c.field === 'string') expect(error.details.field).toBe(c.field)
      else expect(error.details.field).toMatch(c.field)
    }
    if (c.code === 'INVALID_REQUEST') {
      expect(error.details.issues.map((i: { field: string }) => i.field)).toContain(error.details.field)
      expect(typeof error.details.reason).toBe('string')
    }
  }

  it('covers every route the gateway serves, and only those', () => {
    const served = servedRoutes(t.app.printRoutes({ commonPrefix: false }))
    expect(served).toEqual([...ROUTES].sort())
    for (const route of ROUTES) {
      const own = [...CASES, ...REGRESSIONS].filter((c) => c.route === route && (c.method ?? route.split(' ')[0]) === route.split(' ')[0])
      expect(own.length, `${route} has no case of its own`).toBeGreaterThan(0)
    }
  })

  it.each(CASES)('$route — $name → $status $code', async (c) => {
    expectStandardError(await send(c), c)
  })

  it.each(REGRESSIONS)('$route — $name → $status $code ($bug)', async (c) => {
    expectStandardError(await send(c), c)
  })
})
