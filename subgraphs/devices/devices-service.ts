import { randomInt, randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { createAuthorizer } from '../../platform/auth/authorize.js'
import { checkPage } from '../../platform/validation/page.js'
import type { Principal } from '../../platform/auth/scopes.js'
import { isUuid } from '../../platform/validation/json-shapes.js'
import type { ValidationIssue } from '../../platform/errors.js'
import { outboxRow, writeOutbox as appendOutbox, type EventBus, type OutboxRow } from '../../platform/events/event-bus.js'
import { mapAsyncIterator } from '../../platform/events/map-async-iterator.js'
import type { Database } from '../../platform/db/database.js'
import { ALERT_PRIORITIES, ALERT_STATUSES, nextStatus, prioritiesAtLeast, type AlertAction, type AlertPriority, type AlertStatus } from './alert-lifecycle.js'
import type { DevicesConfig } from './devices-config.js'
import { feedGaze, validateDwellConfig, type DwellConfig, type DwellEvent as DetectorEvent, type DwellState } from './dwell-detector.js'
import { devicesErrors as errors } from './errors.js'
import { Prisma, type PrismaClient } from './generated/prisma/client.js'
import { CIRCUIT_LIMITS, parseCircuit, simulateCircuit, SUPPORTED_GATES } from './quantum/index.js'
import { DEVICE_ID_PATTERN, parseSignal, type SignalType } from './signal-input.js'

/** An alert as the domain sees it. */
export interface AlertRecord {
  id: string
  deviceId: string
  priority: AlertPriority
  message: string | null
  status: AlertStatus
  escalationLevel: number
  raisedAt: Date
  acknowledgedAt: Date | null
  acknowledgedBy: string | null
  resolvedAt: Date | null
  resolvedBy: string | null
  escalatedAt: Date | null
}

export interface SignalRecord {
  id: string
  deviceId: string
  type: SignalType
  data: Record<string, unknown>
  observedAt: Date
  receivedAt: Date
}

export interface DwellEventRecord {
  id: string
  deviceId: string
  kind: DetectorEvent['kind']
  x: number
  y: number
  dwellMs: number | null
  reason: string | null
  occurredAt: Date
}

export interface CircuitRecord {
  id: string
  qubits: number
  gates: string[]
  shots: number | null
  seed: number | null
  probabilities: Record<string, number>
  counts: Record<string, number> | null
  durationMs: number
  createdAt: Date
}

/** A page of alerts. */
export interface AlertPage {
  items: AlertRecord[]
  total: number
  limit: number
  offset: number
}

/** Filters of an alert listing. */
export interface AlertFilter {
  /** One of ALERT_STATUSES; anything else is refused naming the field. */
  status?: string
  deviceId?: string
  /** One of ALERT_PRIORITIES; anything else is refused naming the field. */
  priority?: string
  limit?: number
  offset?: number
}

/** Names of the events the device gateway publishes (outbox `type`). */
export const DEVICE_EVENTS = {
  alertRaised: 'alert.raised',
  alertAcknowledged: 'alert.acknowledged',
  alertResolved: 'alert.resolved',
  alertEscalated: 'alert.escalated',
  dwell: 'dwell.event',
} as const

/** Most alerts one escalation sweep escalates in one transaction. */
export const ESCALATION_BATCH = 1000
const SCHEMA = 'devices'
export const MAX_PAGE_SIZE = 100

/** What the device gateway needs from the platform. */
export interface DevicesServiceDeps {
  prisma: PrismaClient
  /** The database itself, for the escalation sweep's urgent transactions. */
  db: Database
  events: EventBus
  config: DevicesConfig
  now?: () => Date
  /** Told of a failed escalation sweep (the next one tries again). */
  onError?: (error: unknown) => void
}

type Tx = Prisma.TransactionClient

/**
 * The device gateway's domain: signals with per-device dwell detection, medical alerts with
 * their lifecycle and escalation, and circuit simulation. REST handlers and GraphQL
 * resolvers call these methods and only translate shapes; every rule, authorization included,
 * lives here so the two faces cannot disagree.
 */
export function createDevicesService(deps: DevicesServiceDeps) {
  const { prisma, events, config } = deps
  const now = deps.now ?? (() => new Date())

  const authorize = createAuthorizer(errors, 'devices')
  const invalid = (issues: ValidationIssue[]) => errors.invalid(issues)
  const notFound = (what: string, id: string) => errors.create('NOT_FOUND', `${what} ${id} not found`, { field: 'id', reason: 'not found' })
  const writeOutbox = (tx: Tx, rows: OutboxRow[]) => appendOutbox(tx, 'devices', rows)

  let sweep: NodeJS.Timeout | undefined
  const escalateAfter = (priority: AlertPriority) => new Date(now().getTime() + config.escalation.delaySeconds[priority] * 1000)

  async function effectiveDwellConfig(db: Tx | PrismaClient, deviceId: string): Promise<DwellConfig> {
    const row = await db.aacDevice.findUnique({ where: { deviceId } })
    return { ...config.dwellDefaults, ...((row?.dwellConfig as Partial<DwellConfig> | null) ?? {}) }
  }

  const checkDeviceId = (deviceId: string | undefined, issues: ValidationIssue[]) => {
    if (deviceId !== undefined && !DEVICE_ID_PATTERN.test(deviceId))
      issues.push({ field: 'device_id', message: 'must be 1-128 characters of letters, digits and . _ : -' })
  }

  const PAGE = { default: 20, max: MAX_PAGE_SIZE }

  async function transition(actor: Principal | null, id: string, action: AlertAction): Promise<AlertRecord> {
    const who = authorize(actor, 'write')
    if (!isUuid(id)) throw notFound('Alert', id)
    return prisma.$transaction(async (tx) => {
      const [locked] = await tx.$queryRaw<{ status: AlertStatus }[]>`SELECT status FROM devices.alerts WHERE id = ${id}::uuid FOR UPDATE`
      if (!locked) throw notFound('Alert', id)
      const status = nextStatus(locked.status, action)
      if (!status) {
        throw errors.create('CONFLICT', `Alert ${id} is ${locked.status} and cannot be ${action === 'acknowledge' ? 'acknowledged' : 'resolved'}`, {
          field: 'status',
          reason: `already ${locked.status}`,
        })
      }
      const at = now()
      const row = await tx.alert.update({
        where: { id },
        data: action === 'acknowledge' ? { status, acknowledgedAt: at, acknowledgedBy: who.id } : { status, resolvedAt: at, resolvedBy: who.id },
      })
      const alert = toAlert(row)
      await writeOutbox(tx, [outboxRow(action === 'acknowledge' ? DEVICE_EVENTS.alertAcknowledged : DEVICE_EVENTS.alertResolved, id, alert)])
      return alert
    })
  }

  const service = {
    /** Stores a signal; an eye tracker's gaze point also advances the device's dwell detector. */
    async submitSignal(actor: Principal | null, body: { type?: unknown; data?: unknown; device_id?: unknown }) {
      const who = authorize(actor, 'write')
      const parsed = parseSignal(body, who.id.replace(/^[a-z]+:/, ''), now())
      if (!parsed.ok) throw invalid(parsed.issues)
      const input = parsed.signal
      return prisma.$transaction(async (tx) => {
        const id = randomUUID()
        const row = await tx.signal.create({
          data: {
            id,
            deviceId: input.deviceId,
            type: input.type,
            data: input.data as Prisma.InputJsonObject,
            observedAt: input.observedAt,
            submittedBy: who.id,
          },
        })
        const dwell: DwellEventRecord[] = []
        if (input.type === 'eye_tracker') {
          // One row per device, locked for the update, so replicas feeding the same device serialise.
          await tx.$executeRaw`INSERT INTO devices.aac_devices (device_id) VALUES (${input.deviceId}) ON CONFLICT DO NOTHING`
          const [device] = await tx.$queryRaw<{ dwell_config: Partial<DwellConfig> | null; dwell_state: DwellState }[]>`
            SELECT dwell_config, dwell_state FROM devices.aac_devices WHERE device_id = ${input.deviceId} FOR UPDATE`
          const gaze = input.data.gaze_point as { x: number; y: number }
          const step = feedGaze(
            device?.dwell_state ?? null,
            { x: gaze.x, y: gaze.y, t: input.observedAt.getTime() },
            { ...config.dwellDefaults, ...(device?.dwell_config ?? {}) },
          )
          await tx.aacDevice.update({
            where: { deviceId: input.deviceId },
            data: { dwellState: step.state === null ? Prisma.DbNull : step.state, updatedAt: now() },
          })
          for (const e of step.events) {
            dwell.push({
              id: randomUUID(),
              deviceId: input.deviceId,
              kind: e.kind,
              x: e.x,
              y: e.y,
              dwellMs: e.kind === 'selection' ? Math.round(e.dwellMs) : null,
              reason: e.kind === 'dwell_cancelled' ? e.reason : null,
              occurredAt: new Date(e.at),
            })
          }
          if (dwell.length) {
            await tx.dwellEvent.createMany({ data: dwell.map((d) => ({ ...d, signalId: id })) })
            await writeOutbox(
              tx,
              dwell.map((d) => outboxRow(DEVICE_EVENTS.dwell, d.deviceId, d)),
            )
          }
        }
        return { signal: toSignal(row), events: dwell }
      })
    },

    async getSignal(actor: Principal | null, id: string): Promise<SignalRecord> {
      authorize(actor, 'read')
      const row = isUuid(id) ? await prisma.signal.findUnique({ where: { id } }) : null
      if (!row) throw notFound('Signal', id)
      return toSignal(row)
    },

    /** Raises an alert and schedules its escalation, in one transaction. */
    async raiseAlert(actor: Principal | null, body: { device_id?: unknown; priority?: unknown; message?: unknown }): Promise<AlertRecord> {
      const who = authorize(actor, 'write')
      const issues: ValidationIssue[] = []
      if (typeof body.device_id !== 'string' || !DEVICE_ID_PATTERN.test(body.device_id)) {
        issues.push({ field: 'device_id', message: 'is required: 1-128 characters of letters, digits and . _ : -' })
      }
      if (!ALERT_PRIORITIES.includes(body.priority as AlertPriority))
        issues.push({ field: 'priority', message: `must be one of: ${ALERT_PRIORITIES.join(', ')}` })
      if (body.message !== undefined && body.message !== null && (typeof body.message !== 'string' || body.message.length > 2000)) {
        issues.push({ field: 'message', message: 'must be a string of at most 2000 characters' })
      }
      if (issues.length) throw invalid(issues)
      const priority = body.priority as AlertPriority
      return prisma.$transaction(async (tx) => {
        const row = await tx.alert.create({
          data: {
            id: randomUUID(),
            deviceId: body.device_id as string,
            priority,
            message: (body.message as string | undefined) ?? null,
            status: 'active',
            raisedAt: now(),
            raisedBy: who.id,
            nextEscalationAt: config.escalation.maxLevel > 0 ? escalateAfter(priority) : null,
          },
        })
        const alert = toAlert(row)
        await writeOutbox(tx, [outboxRow(DEVICE_EVENTS.alertRaised, alert.id, alert)])
        return alert
      })
    },

    async getAlert(actor: Principal | null, id: string): Promise<AlertRecord> {
      authorize(actor, 'read')
      const row = isUuid(id) ? await prisma.alert.findUnique({ where: { id } }) : null
      if (!row) throw notFound('Alert', id)
      return toAlert(row)
    },

    /** Alerts by id, in the order asked, null for unknown ids (for batched entity loading). */
    async getAlertsByIds(actor: Principal | null, ids: readonly string[]): Promise<(AlertRecord | null)[]> {
      authorize(actor, 'read')
      const valid = ids.filter((id) => isUuid(id))
      const rows = valid.length ? await prisma.alert.findMany({ where: { id: { in: valid } } }) : []
      const byId = new Map(rows.map((r) => [r.id, toAlert(r)]))
      return ids.map((id) => byId.get(id) ?? null)
    },

    async listAlerts(actor: Principal | null, filter: AlertFilter): Promise<AlertPage> {
      authorize(actor, 'read')
      const issues: ValidationIssue[] = []
      const { limit, offset } = checkPage(filter, PAGE, issues)
      if (filter.status !== undefined && !(ALERT_STATUSES as readonly string[]).includes(filter.status))
        issues.push({ field: 'status', message: `must be one of: ${ALERT_STATUSES.join(', ')}` })
      if (filter.priority !== undefined && !(ALERT_PRIORITIES as readonly string[]).includes(filter.priority))
        issues.push({ field: 'priority', message: `must be one of: ${ALERT_PRIORITIES.join(', ')}` })
      checkDeviceId(filter.deviceId, issues)
      if (issues.length) throw invalid(issues)
      const where = { status: filter.status, deviceId: filter.deviceId, priority: filter.priority }
      const [rows, total] = await prisma.$transaction([
        prisma.alert.findMany({ where, orderBy: [{ raisedAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset }),
        prisma.alert.count({ where }),
      ])
      return { items: rows.map(toAlert), total, limit, offset }
    },

    acknowledgeAlert: (actor: Principal | null, id: string) => transition(actor, id, 'acknowledge'),
    resolveAlert: (actor: Principal | null, id: string) => transition(actor, id, 'resolve'),

    /**
     * Escalates every active alert whose escalation is due, oldest due first, up to
     * {@link ESCALATION_BATCH} at once: one transaction raises their levels, sets each one's
     * next due time (none past the last level) and writes their events. Rows are claimed with
     * SKIP LOCKED, so replicas sweeping at once share the work; a process killed mid-sweep
     * rolls back, and the next sweep of any process escalates those alerts.
     */
    async escalateDue(): Promise<AlertRecord[]> {
      const at = now()
      const { delaySeconds: delay, maxLevel } = config.escalation
      // Alarms go ahead of queued ordinary writes on the embedded database (see Database).
      return deps.db.transaction(
        async (tx) => {
          const rows = await tx.query<Parameters<typeof toAlert>[0]>(
            `WITH due AS (
               SELECT id FROM devices.alerts
               WHERE status = 'active' AND next_escalation_at <= $1
               ORDER BY next_escalation_at
               LIMIT ${ESCALATION_BATCH}
               FOR UPDATE SKIP LOCKED
             )
             UPDATE devices.alerts AS a
             SET escalation_level = a.escalation_level + 1,
                 escalated_at = $1,
                 next_escalation_at = CASE WHEN a.escalation_level + 1 >= $2::int THEN NULL
                   ELSE $1::timestamptz + (CASE a.priority WHEN 'high' THEN $3::float8 WHEN 'medium' THEN $4::float8 ELSE $5::float8 END) * INTERVAL '1 second'
                 END
             FROM due WHERE a.id = due.id
             RETURNING a.id, a.device_id AS "deviceId", a.priority, a.message, a.status, a.escalation_level AS "escalationLevel",
               a.raised_at AS "raisedAt", a.acknowledged_at AS "acknowledgedAt", a.acknowledged_by AS "acknowledgedBy",
               a.resolved_at AS "resolvedAt", a.resolved_by AS "resolvedBy", a.escalated_at AS "escalatedAt"`,
            [at, maxLevel, delay.high, delay.medium, delay.low],
          )
          if (rows.length === 0) return []
          const alerts = rows
            .map((row) => toAlert({ ...row, raisedAt: new Date(row.raisedAt), escalatedAt: new Date(at) }))
            .sort((a, b) => a.raisedAt.getTime() - b.raisedAt.getTime())
          await appendOutbox(
            tx,
            SCHEMA,
            alerts.map((alert) => outboxRow(DEVICE_EVENTS.alertEscalated, alert.id, alert)),
          )
          return alerts
        },
        { urgent: true },
      )
    },

    /** Stops the escalation sweep. */
    async close() {
      clearInterval(sweep)
    },

    /** Validates, simulates and stores a circuit. */
    async runCircuit(actor: Principal | null, body: unknown): Promise<CircuitRecord> {
      const who = authorize(actor, 'write')
      const parsed = parseCircuit(body)
      if (!parsed.ok) throw invalid(parsed.issues)
      const { circuit } = parsed
      // Without a seed one is drawn and returned, so any sampled result can be reproduced.
      const seed = circuit.shots !== undefined ? (circuit.seed ?? randomInt(0, 2 ** 32 - 1)) : circuit.seed
      const started = performance.now()
      const result = simulateCircuit(circuit, { shots: circuit.shots, seed })
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000
      const row = await prisma.circuit.create({
        data: {
          id: randomUUID(),
          qubits: circuit.qubits,
          gates: (body as { gates: string[] }).gates,
          shots: circuit.shots ?? null,
          seed: seed === undefined ? null : BigInt(seed),
          probabilities: result.probabilities,
          counts: result.counts ?? Prisma.DbNull,
          durationMs,
          submittedBy: who.id,
        },
      })
      return toCircuit(row)
    },

    /** The gates circuits may use and the simulator's limits. */
    describeGates(actor: Principal | null) {
      authorize(actor, 'read')
      return { gates: SUPPORTED_GATES, limits: CIRCUIT_LIMITS }
    },

    async getCircuit(actor: Principal | null, id: string): Promise<CircuitRecord> {
      authorize(actor, 'read')
      const row = isUuid(id) ? await prisma.circuit.findUnique({ where: { id } }) : null
      if (!row) throw notFound('Circuit', id)
      return toCircuit(row)
    },

    async getDwellConfig(actor: Principal | null, deviceId: string): Promise<DwellConfig> {
      authorize(actor, 'read')
      const issues: ValidationIssue[] = []
      checkDeviceId(deviceId, issues)
      if (issues.length) throw invalid(issues)
      return effectiveDwellConfig(prisma, deviceId)
    },

    /** Changes a device's dwell settings (partial: unnamed settings keep their value). */
    async configureDwell(actor: Principal | null, deviceId: string, input: Record<string, unknown>): Promise<DwellConfig> {
      authorize(actor, 'write')
      const issues: ValidationIssue[] = []
      checkDeviceId(deviceId, issues)
      if (issues.length) throw invalid(issues)
      if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid([{ field: 'body', message: 'must be an object' }])
      const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null))
      const current = await effectiveDwellConfig(prisma, deviceId)
      const checked = validateDwellConfig({ ...current, ...defined })
      if (!checked.ok) throw invalid(checked.issues)
      await prisma.aacDevice.upsert({
        where: { deviceId },
        // New settings start a new fixation: a half-made one was measured against the old ones.
        create: { deviceId, dwellConfig: checked.config, dwellState: Prisma.DbNull },
        update: { dwellConfig: checked.config, dwellState: Prisma.DbNull, updatedAt: now() },
      })
      return checked.config
    },

    async listDwellEvents(actor: Principal | null, deviceId: string, limit = 20): Promise<DwellEventRecord[]> {
      authorize(actor, 'read')
      const issues: ValidationIssue[] = []
      checkPage({ limit }, PAGE, issues)
      checkDeviceId(deviceId, issues)
      if (issues.length) throw invalid(issues)
      const rows = await prisma.dwellEvent.findMany({ where: { deviceId }, orderBy: [{ occurredAt: 'desc' }, { id: 'asc' }], take: limit })
      return rows.map(toDwellEvent)
    },

    /** Live alert events, filtered; ends when the consumer stops iterating. */
    watchAlerts(actor: Principal | null, filter: { types: readonly string[]; deviceId?: string; minPriority?: AlertPriority }): AsyncIterable<AlertRecord> {
      authorize(actor, 'read')
      const priorities = filter.minPriority ? prioritiesAtLeast(filter.minPriority) : null
      const stream = events.subscribe<AlertRecord>({
        schema: SCHEMA,
        types: filter.types,
        where: (e) => {
          const alert = e.payload as AlertRecord
          return (!filter.deviceId || alert.deviceId === filter.deviceId) && (!priorities || priorities.includes(alert.priority))
        },
      })
      return mapAsyncIterator(stream, (e) => reviveAlert(e.payload))
    },

    /** Live dwell and selection events. */
    watchDwell(actor: Principal | null, deviceId?: string): AsyncIterable<DwellEventRecord> {
      authorize(actor, 'read')
      const stream = events.subscribe<DwellEventRecord>({
        schema: SCHEMA,
        types: [DEVICE_EVENTS.dwell],
        where: (e) => !deviceId || e.aggregateId === deviceId,
      })
      return mapAsyncIterator(stream, (e) => ({ ...e.payload, occurredAt: new Date(e.payload.occurredAt) }))
    },

    /** Starts the device gateway's background work: the escalation sweep. */
    registerJobs() {
      // Every process sweeps; a full batch means more are due, so the next one follows at once.
      let sweeping = false
      const tick = async () => {
        if (sweeping) return
        sweeping = true
        try {
          while ((await service.escalateDue()).length === ESCALATION_BATCH);
        } catch (error) {
          deps.onError?.(error)
        } finally {
          sweeping = false
        }
      }
      sweep = setInterval(() => void tick(), config.escalation.pollMs)
      sweep.unref()
    },
  }
  return service
}

/** The device gateway's domain service. */
export type DevicesService = ReturnType<typeof createDevicesService>

function toAlert(row: {
  id: string
  deviceId: string
  priority: string
  message: string | null
  status: string
  escalationLevel: number
  raisedAt: Date
  acknowledgedAt: Date | null
  acknowledgedBy: string | null
  resolvedAt: Date | null
  resolvedBy: string | null
  escalatedAt: Date | null
}): AlertRecord {
  return {
    id: row.id,
    deviceId: row.deviceId,
    priority: row.priority as AlertPriority,
    message: row.message,
    status: row.status as AlertStatus,
    escalationLevel: row.escalationLevel,
    raisedAt: row.raisedAt,
    acknowledgedAt: row.acknowledgedAt,
    acknowledgedBy: row.acknowledgedBy,
    resolvedAt: row.resolvedAt,
    resolvedBy: row.resolvedBy,
    escalatedAt: row.escalatedAt,
  }
}

// Events carry JSON, so their dates arrive as strings.
function reviveAlert(a: AlertRecord): AlertRecord {
  const date = (v: Date | string | null) => (v === null ? null : new Date(v))
  return {
    ...a,
    raisedAt: new Date(a.raisedAt),
    acknowledgedAt: date(a.acknowledgedAt),
    resolvedAt: date(a.resolvedAt),
    escalatedAt: date(a.escalatedAt),
  }
}

function toSignal(row: { id: string; deviceId: string; type: string; data: unknown; observedAt: Date; receivedAt: Date }): SignalRecord {
  return {
    id: row.id,
    deviceId: row.deviceId,
    type: row.type as SignalType,
    data: row.data as Record<string, unknown>,
    observedAt: row.observedAt,
    receivedAt: row.receivedAt,
  }
}

function toDwellEvent(row: Omit<DwellEventRecord, 'kind'> & { kind: string }): DwellEventRecord {
  return {
    id: row.id,
    deviceId: row.deviceId,
    kind: row.kind as DwellEventRecord['kind'],
    x: row.x,
    y: row.y,
    dwellMs: row.dwellMs,
    reason: row.reason,
    occurredAt: row.occurredAt,
  }
}

function toCircuit(row: {
  id: string
  qubits: number
  gates: string[]
  shots: number | null
  seed: bigint | null
  probabilities: unknown
  counts: unknown
  durationMs: number
  createdAt: Date
}): CircuitRecord {
  return {
    id: row.id,
    qubits: row.qubits,
    gates: row.gates,
    shots: row.shots,
    seed: row.seed === null ? null : Number(row.seed),
    probabilities: row.probabilities as Record<string, number>,
    counts: (row.counts as Record<string, number> | null) ?? null,
    durationMs: row.durationMs,
    createdAt: row.createdAt,
  }
}
