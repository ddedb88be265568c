import { defineService } from '../../platform/service-kit/index.js'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { renameFields } from '../../platform/errors.js'
import {
  devicesCore,
  type AlertRecord,
  type CircuitRecord,
  type DevicesService,
  type DwellConfig,
  type DwellEventRecord,
  type SignalRecord,
} from '../../subgraphs/devices/index.js'

const id = { type: 'string', minLength: 1, maxLength: 200 } as const
const params = <N extends string>(name: N) => ({ type: 'object', required: [name], properties: { [name]: id } as { [K in N]: typeof id } }) as const

/**
 * The device gateway's v1 REST interface under /v1 (Document 1, "Device gateway"): the three
 * documented POSTs, plus the reads and alert actions a client of such a gateway needs
 * (documented in docs/devices.md as extensions).
 */
export const devicesService = defineService(devicesCore, {
  prefixes: ['/v1/aac', '/v1/medical', '/v1/quantum'],
  openapi: {
    title: 'Tessera device gateway',
    description: 'Assistive signals with dwell detection, medical alerts, quantum circuits (v1).',
  },
  realm: 'tessera-devices',
  async routes(app, { domain }) {
    // --- Signals -----------------------------------------------------------------------------
    app.post(
      '/v1/aac/signal',
      {
        schema: {
          body: {
            type: 'object',
            required: ['type', 'data'],
            properties: { type: { type: 'string' }, data: { type: 'object' }, device_id: { type: 'string' } },
          },
        },
      },
      async (request, reply) => {
        const result = await domain.submitSignal(request.principal, request.body)
        return reply
          .code(201)
          .header('location', `/v1/aac/signal/${result.signal.id}`)
          .send({ ...signalBody(result.signal), dwell_events: result.events.map(dwellEventBody) })
      },
    )

    app.get('/v1/aac/signal/:signal_id', { schema: { params: params('signal_id') } }, async (request) =>
      signalBody(await domain.getSignal(request.principal, request.params.signal_id)),
    )

    app.get('/v1/aac/devices/:device_id/dwell', { schema: { params: params('device_id') } }, async (request) => {
      const { device_id } = request.params
      return dwellConfigBody(device_id, await domain.getDwellConfig(request.principal, device_id))
    })

    app.put(
      '/v1/aac/devices/:device_id/dwell',
      {
        schema: {
          params: params('device_id'),
          body: {
            type: 'object',
            additionalProperties: false,
            properties: { radius: { type: 'number' }, dwell_ms: { type: 'number' }, max_gap_ms: { type: 'number' }, rearm: { type: 'string' } },
          },
        },
      },
      async (request) => {
        const { device_id } = request.params
        const body = request.body
        try {
          const config = await domain.configureDwell(request.principal, device_id, {
            radius: body.radius,
            dwellMs: body.dwell_ms,
            maxGapMs: body.max_gap_ms,
            rearm: body.rearm,
          })
          return dwellConfigBody(device_id, config)
        } catch (error) {
          // The domain names settings as GraphQL does; this body spells them as sent.
          throw renameFields(error, { dwellMs: 'dwell_ms', maxGapMs: 'max_gap_ms' })
        }
      },
    )

    app.get(
      '/v1/aac/devices/:device_id/events',
      {
        schema: { params: params('device_id'), querystring: { type: 'object', properties: { limit: { type: 'integer' } } } },
      },
      async (request) => {
        const { device_id } = request.params
        const { limit } = request.query
        const events = await domain.listDwellEvents(request.principal, device_id, limit)
        return { device_id, events: events.map(dwellEventBody) }
      },
    )

    // --- Alerts ------------------------------------------------------------------------------
    app.post(
      '/v1/medical/alert',
      {
        schema: {
          body: {
            type: 'object',
            required: ['device_id', 'priority'],
            properties: { device_id: { type: 'string' }, priority: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
      async (request, reply) => {
        const alert = await domain.raiseAlert(request.principal, request.body)
        return reply.code(201).header('location', `/v1/medical/alert/${alert.id}`).send(alertBody(alert))
      },
    )

    app.get(
      '/v1/medical/alerts',
      {
        schema: {
          querystring: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              device_id: { type: 'string' },
              priority: { type: 'string' },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
            },
          },
        },
      },
      async (request) => {
        const q = request.query
        const page = await domain.listAlerts(request.principal, {
          status: q.status,
          deviceId: q.device_id,
          priority: q.priority,
          limit: q.limit,
          offset: q.offset,
        })
        return { data: page.items.map(alertBody), total: page.total, limit: page.limit, offset: page.offset }
      },
    )

    app.get('/v1/medical/alert/:alert_id', { schema: { params: params('alert_id') } }, async (request) =>
      alertBody(await domain.getAlert(request.principal, request.params.alert_id)),
    )

    app.post('/v1/medical/alert/:alert_id/acknowledge', { schema: { params: params('alert_id') } }, async (request) =>
      alertBody(await domain.acknowledgeAlert(request.principal, request.params.alert_id)),
    )

    app.post('/v1/medical/alert/:alert_id/resolve', { schema: { params: params('alert_id') } }, async (request) =>
      alertBody(await domain.resolveAlert(request.principal, request.params.alert_id)),
    )

    // --- Circuits ----------------------------------------------------------------------------
    app.post(
      '/v1/quantum/circuit',
      {
        schema: {
          body: {
            type: 'object',
            required: ['qubits', 'gates'],
            properties: {
              qubits: { type: 'integer' },
              gates: { type: 'array', items: { type: 'string' } },
              shots: { type: 'integer' },
              seed: { type: 'integer' },
            },
          },
        },
      },
      async (request, reply) => {
        const circuit = await domain.runCircuit(request.principal, request.body)
        return reply.code(201).header('location', `/v1/quantum/circuit/${circuit.id}`).send(circuitBody(circuit))
      },
    )

    app.get('/v1/quantum/circuit/:circuit_id', { schema: { params: params('circuit_id') } }, async (request) =>
      circuitBody(await domain.getCircuit(request.principal, request.params.circuit_id)),
    )

    app.get('/v1/quantum/gates', async (request) => {
      const { gates, limits } = domain.describeGates(request.principal)
      return {
        gates: gates.map((g) => ({ name: g.name, qubits: g.arity, parametric: g.parametric, aliases: g.aliases, description: g.description })),
        limits: { max_qubits: limits.maxQubits, max_gates: limits.maxGates, max_shots: limits.maxShots },
      }
    })
  },
})

const iso = (d: Date | null) => (d ? d.toISOString() : null)

function signalBody(s: SignalRecord) {
  return { signal_id: s.id, device_id: s.deviceId, type: s.type, data: s.data, observed_at: iso(s.observedAt), received_at: iso(s.receivedAt) }
}

function dwellEventBody(e: DwellEventRecord) {
  return { event_id: e.id, device_id: e.deviceId, kind: e.kind, x: e.x, y: e.y, dwell_ms: e.dwellMs, reason: e.reason, occurred_at: iso(e.occurredAt) }
}

function dwellConfigBody(deviceId: string, c: DwellConfig) {
  return { device_id: deviceId, radius: c.radius, dwell_ms: c.dwellMs, max_gap_ms: c.maxGapMs, rearm: c.rearm }
}

function alertBody(a: AlertRecord) {
  return {
    alert_id: a.id,
    device_id: a.deviceId,
    priority: a.priority,
    message: a.message,
    status: a.status,
    escalation_level: a.escalationLevel,
    raised_at: iso(a.raisedAt),
    acknowledged_at: iso(a.acknowledgedAt),
    acknowledged_by: a.acknowledgedBy,
    resolved_at: iso(a.resolvedAt),
    resolved_by: a.resolvedBy,
    escalated_at: iso(a.escalatedAt),
  }
}

function circuitBody(c: CircuitRecord) {
  return {
    circuit_id: c.id,
    status: 'completed',
    qubits: c.qubits,
    gates: c.gates,
    shots: c.shots,
    seed: c.seed,
    probabilities: c.probabilities,
    counts: c.counts,
    duration_ms: c.durationMs,
    created_at: iso(c.createdAt),
  }
}
