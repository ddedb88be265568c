import { randomUUID } from 'node:crypto'
import type { Environment } from '../auth/scopes.js'
import type { SecretBox } from '../auth/secrets.js'
import type { Database } from '../db/database.js'
import type { ValidationIssue } from '../errors.js'
import type { EventBus } from '../events/event-bus.js'
import { PrismaClient } from '../generated/prisma/client.js'
import type { JobRunner, PrismaTransaction } from '../jobs/job-runner.js'
import { isUuid } from '../validation/json-shapes.js'
import { checkWebhookUrl, type ResolveHost } from './address-guard.js'
import { retryDelayMs } from './retry-schedule.js'
import { sendWebhook, type SendResult } from './send-webhook.js'
import { payloadSignature, signatureHeaders } from './webhook-signature.js'
import type { WebhooksConfig } from './webhooks-config.js'

/** A subscription as its owner sees it: never the secret. */
export interface WebhookSubscriptionInfo {
  id: string
  environment: Environment
  url: string
  events: string[]
  description: string | null
  /** active, or disabled after sustained failure. */
  status: 'active' | 'disabled'
  disabledReason: string | null
  disabledAt: Date | null
  createdAt: Date
  updatedAt: Date
}

/** One HTTP attempt of a delivery. */
export interface WebhookAttemptInfo {
  attempt: number
  startedAt: Date
  durationMs: number
  statusCode: number | null
  error: string | null
  responseBody: string | null
}

/** One event for one subscription, with its log. */
export interface WebhookDeliveryInfo {
  id: string
  /** The event id: `webhook-id`, the same on every attempt and redelivery. */
  eventId: string
  event: string
  status: 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled'
  attempts: number
  nextAttemptAt: Date | null
  lastStatusCode: number | null
  lastError: string | null
  deliveredAt: Date | null
  createdAt: Date
  log: WebhookAttemptInfo[]
}

/** Bad subscription input, field by field; the service renders it in its own error body. */
export class WebhookInputError extends Error {
  override name = 'WebhookInputError'
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '))
  }
}

/** What webhook delivery for one service needs. */
export interface WebhooksOptions {
  /** The service whose outbox events are delivered (and whose subscriptions these are). */
  service: string
  /** Event types subscribers may ask for. */
  eventTypes: readonly string[]
  db: Database
  events: EventBus
  secrets: SecretBox
  config: WebhooksConfig
  onError?: (error: unknown) => void
  /** Host resolution (tests replace it to simulate DNS answers). */
  resolve?: ResolveHost
  now?: () => Date
}

/** Most subscriptions one environment of a service may hold. */
export const MAX_SUBSCRIPTIONS = 50
/**
 * On PostgreSQL a transaction may hold an outbox number this long before a gap in `seq` is
 * taken for a rollback. The embedded database runs one transaction at a time, so a gap there
 * is always a rollback.
 */
const GAP_GRACE_MS = 60_000
const FAN_OUT_BATCH = 500

type OutboxRow = { seq: bigint; id: string; service: string; type: string; payload: unknown; occurred_at: Date }
type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0]

/**
 * Webhook delivery for one service, shared by every service that offers webhooks: subscriptions
 * per environment; every committed outbox event of the service becomes one delivery per
 * matching subscription, sent by a job on the queue — at least once, with the event id as
 * `webhook-id` for receivers' idempotency, retried with exponential backoff and jitter over
 * about a day, logged attempt by attempt, and the subscription disabled when a delivery
 * exhausts its retries. Events carry `{ environment, data }` as their outbox payload.
 */
export function createWebhooks(options: WebhooksOptions) {
  const { service, db, events, secrets, config } = options
  const now = options.now ?? (() => new Date())
  const prisma = new PrismaClient(db.prismaOptions())
  const queue = `webhooks.${service}`
  let jobs: JobRunner | undefined
  let closed = false
  let running: Promise<void> | null = null
  let again = false
  // An attempt ends within its timeout; the margin covers recording it. Past the lease, the
  // replica that claimed it is presumed dead.
  const gapGraceMs = db.handle.kind === 'embedded' ? 0 : GAP_GRACE_MS
  const leaseMs = config.timeoutMs + Math.min(5_000, config.timeoutMs)
  const report = (error: unknown) => options.onError?.(error)

  // --- Fan-out: outbox → deliveries ---------------------------------------------------------
  // The cursor is per service and moves over the shared outbox in `seq` order. A transaction
  // that has taken a number but not yet committed leaves a gap: the cursor waits at a fresh
  // gap (it may still fill) and passes it once it is older than any transaction lasts.
  async function fanOutOnce(): Promise<boolean> {
    const runner = jobs
    if (!runner?.isRunning) return false
    return prisma.$transaction(async (tx) => {
      await tx.$executeRaw`INSERT INTO platform.webhook_cursors (service, last_seq)
        SELECT ${service}, COALESCE((SELECT min(seq) - 1 FROM platform.outbox), 0) ON CONFLICT DO NOTHING`
      const [cursor] = await tx.$queryRaw<{ last_seq: bigint }[]>`SELECT last_seq FROM platform.webhook_cursors WHERE service = ${service} FOR UPDATE`
      let last = cursor!.last_seq
      const rows = await tx.$queryRaw<OutboxRow[]>`SELECT seq, id::text AS id, service, type, payload, occurred_at FROM platform.outbox
        WHERE seq > ${last} ORDER BY seq LIMIT ${FAN_OUT_BATCH}`
      if (!rows.length) return false
      const subscriptions = await tx.webhookSubscription.findMany({ where: { service, status: 'active' } })
      const fresh = now().getTime() - gapGraceMs
      for (const row of rows) {
        if (row.seq !== last + 1n && row.occurred_at.getTime() > fresh) break
        if (row.service === service && subscriptions.length) await fanOutEvent(tx, runner, row, subscriptions)
        last = row.seq
      }
      await tx.$executeRaw`UPDATE platform.webhook_cursors SET last_seq = ${last} WHERE service = ${service}`
      return rows.length === FAN_OUT_BATCH && last === rows[rows.length - 1]!.seq
    })
  }

  async function fanOutEvent(
    tx: Tx,
    runner: JobRunner,
    row: OutboxRow,
    subscriptions: Array<{ id: string; environment: string; events: string[]; createdAt: Date }>,
  ) {
    const payload = (row.payload ?? {}) as { environment?: string; data?: unknown }
    const environment = payload.environment ?? 'production'
    const body = { id: row.id, event: row.type, timestamp: row.occurred_at.toISOString(), data: payload.data ?? {} }
    for (const sub of subscriptions) {
      if (sub.environment !== environment || !sub.events.includes(row.type) || sub.createdAt > row.occurred_at) continue
      const inserted = await tx.$queryRaw<
        { id: string }[]
      >`INSERT INTO platform.webhook_deliveries (id, subscription_id, event_id, event_type, body, status, next_attempt_at)
        VALUES (${randomUUID()}::uuid, ${sub.id}::uuid, ${row.id}::uuid, ${row.type}, ${JSON.stringify(body)}::jsonb, 'pending', ${now()})
        ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING id::text AS id`
      for (const { id } of inserted) await runner.send(queue, { deliveryId: id }, { tx: tx as unknown as PrismaTransaction })
    }
  }

  /** Runs fan-out now (coalescing calls that arrive while it runs). */
  function kick(): Promise<void> {
    if (closed) return Promise.resolve()
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      try {
        for (let round = 0; round < 20; round++) {
          again = false
          const more = await fanOutOnce()
          if (!more && !again) break
        }
      } catch (error) {
        if (!closed) report(error)
      } finally {
        running = null
      }
    })()
    return running
  }

  // Attempts whose replica died mid-send (its lease ran out) go back to pending, once.
  async function sweep() {
    const runner = jobs
    if (!runner?.isRunning || closed) return
    await prisma.$transaction(async (tx) => {
      const at = now()
      const stalled = await tx.$queryRaw<{ id: string; attempts: number; status: string }[]>`
        UPDATE platform.webhook_deliveries d
        SET status = CASE WHEN d.attempts >= ${config.retry.maxAttempts} THEN 'failed' ELSE 'pending' END,
          lease_until = NULL, next_attempt_at = ${at}, updated_at = ${at}, last_error = 'interrupted: the process sending it stopped'
        FROM platform.webhook_subscriptions s
        WHERE d.subscription_id = s.id AND s.service = ${service} AND d.status = 'sending' AND d.lease_until < ${at}
        RETURNING d.id::text AS id, d.attempts, d.status`
      for (const d of stalled) {
        await tx.webhookAttempt.create({
          data: {
            deliveryId: d.id,
            attempt: d.attempts,
            startedAt: new Date(at.getTime() - leaseMs),
            durationMs: 0,
            error: 'interrupted: the process sending it stopped',
          },
        })
        if (d.status === 'pending') await runner.send(queue, { deliveryId: d.id }, { tx: tx as unknown as PrismaTransaction })
      }
    })
  }

  // --- Delivery: one attempt per job --------------------------------------------------------
  async function deliver(deliveryId: string) {
    const runner = jobs
    if (!runner || !isUuid(deliveryId)) return
    const at = now()
    // Claiming is one statement, so of two jobs for the same delivery (a sweep's and a
    // restarted one's) only one sends.
    const [claimed] = await prisma.$queryRaw<{ id: string; attempts: number }[]>`
      UPDATE platform.webhook_deliveries SET status = 'sending', attempts = attempts + 1, lease_until = ${new Date(at.getTime() + leaseMs)}, updated_at = ${at}
      WHERE id = ${deliveryId}::uuid AND ((status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= ${new Date(at.getTime() + 2000)}))
        OR (status = 'sending' AND lease_until < ${at}))
      RETURNING id::text AS id, attempts`
    if (!claimed) return
    const delivery = await prisma.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { subscription: true } })
    if (!delivery) return
    const sub = delivery.subscription
    if (sub.status !== 'active') {
      await prisma.webhookDelivery.update({
        where: { id: deliveryId },
        data: { status: 'cancelled', leaseUntil: null, lastError: 'the subscription is disabled', updatedAt: now() },
      })
      return
    }
    const startedAt = now()
    let result: SendResult
    try {
      const secret = secrets.open(sub.secretSealed)
      const stored = delivery.body as { id: string; event: string; timestamp: string; data: unknown }
      const dataJson = JSON.stringify(stored.data)
      const body = `{"id":${JSON.stringify(stored.id)},"event":${JSON.stringify(stored.event)},"timestamp":${JSON.stringify(stored.timestamp)},"data":${dataJson},"signature":${JSON.stringify(payloadSignature(secret, stored.timestamp, dataJson))}}`
      result = await sendWebhook({
        url: sub.url,
        body,
        headers: signatureHeaders({ id: delivery.eventId, timestamp: Math.floor(startedAt.getTime() / 1000), body, secret }),
        timeoutMs: config.timeoutMs,
        allowPrivate: config.allowPrivate,
        resolve: options.resolve,
      })
    } catch (error) {
      // A secret that no longer opens (a changed TESSERA_SECRET_KEY) is this side's fault; it
      // is logged and counts as a failed attempt, so the schedule still ends.
      report(error)
      result = {
        ok: false,
        statusCode: null,
        error: `not sent: ${error instanceof Error ? error.message : String(error)}`,
        responseBody: null,
        durationMs: now().getTime() - startedAt.getTime(),
      }
    }
    await prisma.$transaction(async (tx) => {
      const done = now()
      await tx.webhookAttempt.create({
        data: {
          deliveryId,
          attempt: claimed.attempts,
          startedAt,
          durationMs: result.durationMs,
          statusCode: result.statusCode,
          error: result.error,
          responseBody: result.responseBody,
        },
      })
      if (result.ok) {
        await tx.webhookDelivery.update({
          where: { id: deliveryId },
          data: {
            status: 'delivered',
            deliveredAt: done,
            leaseUntil: null,
            nextAttemptAt: null,
            lastStatusCode: result.statusCode,
            lastError: null,
            updatedAt: done,
          },
        })
        return
      }
      if (claimed.attempts >= config.retry.maxAttempts) {
        await tx.webhookDelivery.update({
          where: { id: deliveryId },
          data: { status: 'failed', leaseUntil: null, nextAttemptAt: null, lastStatusCode: result.statusCode, lastError: result.error, updatedAt: done },
        })
        await tx.webhookSubscription.updateMany({
          where: { id: sub.id, status: 'active' },
          data: {
            status: 'disabled',
            disabledAt: done,
            disabledReason: `Disabled after ${claimed.attempts} failed attempts to deliver event ${delivery.eventId} (last: ${result.error ?? 'no answer'}); fix the receiver, enable the subscription and redeliver`,
            updatedAt: done,
          },
        })
        // Nothing more goes to a disabled subscription; what waits is cancelled, and can be redelivered.
        await tx.webhookDelivery.updateMany({
          where: { subscriptionId: sub.id, status: 'pending' },
          data: { status: 'cancelled', lastError: 'the subscription was disabled', updatedAt: done },
        })
        return
      }
      const next = new Date(done.getTime() + retryDelayMs(config.retry, claimed.attempts))
      await tx.webhookDelivery.update({
        where: { id: deliveryId },
        data: { status: 'pending', leaseUntil: null, nextAttemptAt: next, lastStatusCode: result.statusCode, lastError: result.error, updatedAt: done },
      })
      await runner.send(queue, { deliveryId }, { startAfter: next, tx: tx as unknown as PrismaTransaction })
    })
  }

  // --- Subscriptions --------------------------------------------------------------------------
  async function checkInput(input: {
    url?: unknown
    events?: unknown
    secret?: unknown
    description?: unknown
  }): Promise<{ url: string; events: string[]; secret: string; description: string | null }> {
    const issues: ValidationIssue[] = []
    const url = typeof input.url === 'string' ? input.url.trim() : ''
    if (input.url === undefined || input.url === null) issues.push({ field: 'url', message: 'is required' })
    else if (typeof input.url !== 'string') issues.push({ field: 'url', message: 'must be a string' })
    else {
      const reason = await checkWebhookUrl(url, { allowPrivate: config.allowPrivate, resolve: options.resolve })
      if (reason) issues.push({ field: 'url', message: reason })
    }
    const eventsIn = input.events
    if (!Array.isArray(eventsIn) || eventsIn.length === 0)
      issues.push({ field: 'events', message: `must be a non-empty array of: ${options.eventTypes.join(', ')}` })
    else {
      eventsIn.forEach((e, i) => {
        if (typeof e !== 'string' || !options.eventTypes.includes(e))
          issues.push({ field: `events[${i}]`, message: `must be one of: ${options.eventTypes.join(', ')}` })
      })
    }
    const secret = input.secret
    if (secret === undefined || secret === null) issues.push({ field: 'secret', message: 'is required' })
    else if (typeof secret !== 'string' || secret.length < 16 || secret.length > 256)
      issues.push({ field: 'secret', message: 'must be a string of 16 to 256 characters' })
    const description = input.description
    if (description !== undefined && description !== null && (typeof description !== 'string' || description.length > 500))
      issues.push({ field: 'description', message: 'must be a string of at most 500 characters' })
    if (issues.length) throw new WebhookInputError(issues)
    return { url, events: [...new Set(eventsIn as string[])], secret: secret as string, description: (description as string | undefined) ?? null }
  }

  const findSubscription = (environment: Environment, id: string) =>
    isUuid(id) ? prisma.webhookSubscription.findFirst({ where: { id, service, environment } }) : Promise.resolve(null)

  const webhooks = {
    /** Creates a subscription; the URL must pass the SSRF check now (and again at every attempt). */
    async create(
      environment: Environment,
      createdBy: string,
      input: { url?: unknown; events?: unknown; secret?: unknown; description?: unknown },
    ): Promise<WebhookSubscriptionInfo> {
      const checked = await checkInput(input)
      if ((await prisma.webhookSubscription.count({ where: { service, environment } })) >= MAX_SUBSCRIPTIONS) {
        throw new WebhookInputError([{ field: 'url', message: `at most ${MAX_SUBSCRIPTIONS} subscriptions per environment; delete one first` }])
      }
      const at = now()
      const row = await prisma.webhookSubscription.create({
        data: {
          id: randomUUID(),
          service,
          environment,
          url: checked.url,
          events: checked.events,
          secretSealed: secrets.seal(checked.secret),
          description: checked.description,
          status: 'active',
          createdBy,
          createdAt: at,
          updatedAt: at,
        },
      })
      return toSubscription(row)
    },

    async list(environment: Environment): Promise<WebhookSubscriptionInfo[]> {
      return (await prisma.webhookSubscription.findMany({ where: { service, environment }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(
        toSubscription,
      )
    },

    async get(environment: Environment, id: string): Promise<WebhookSubscriptionInfo | null> {
      const row = await findSubscription(environment, id)
      return row ? toSubscription(row) : null
    },

    /** Deletes a subscription with its deliveries and log; false when it does not exist. */
    async remove(environment: Environment, id: string): Promise<boolean> {
      if (!isUuid(id)) return false
      const { count } = await prisma.webhookSubscription.deleteMany({ where: { id, service, environment } })
      return count === 1
    },

    /** Re-enables a disabled subscription: new events are delivered again. */
    async enable(environment: Environment, id: string): Promise<WebhookSubscriptionInfo | null> {
      const row = await findSubscription(environment, id)
      if (!row) return null
      const updated = await prisma.webhookSubscription.update({
        where: { id },
        data: { status: 'active', disabledAt: null, disabledReason: null, updatedAt: now() },
      })
      return toSubscription(updated)
    },

    /** The latest deliveries of a subscription with their attempts; null when it does not exist. */
    async deliveries(environment: Environment, id: string, limit = 20): Promise<WebhookDeliveryInfo[] | null> {
      if (!(await findSubscription(environment, id))) return null
      const rows = await prisma.webhookDelivery.findMany({
        where: { subscriptionId: id },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: limit,
        include: { log: { orderBy: { id: 'asc' } } },
      })
      return rows.map(toDelivery)
    },

    /**
     * Sends a delivery again — same event id and payload, a new series of attempts — whatever
     * its state; null when the subscription or delivery does not exist.
     */
    async redeliver(environment: Environment, id: string, deliveryId: string): Promise<WebhookDeliveryInfo | null | 'disabled'> {
      const sub = await findSubscription(environment, id)
      if (!sub || !isUuid(deliveryId)) return null
      if (sub.status !== 'active') return 'disabled'
      const runner = jobs
      if (!runner) throw new Error('webhook delivery is not started')
      return prisma.$transaction(async (tx) => {
        const { count } = await tx.webhookDelivery.updateMany({
          where: { id: deliveryId, subscriptionId: id, status: { not: 'sending' } },
          data: { status: 'pending', attempts: 0, nextAttemptAt: now(), leaseUntil: null, updatedAt: now() },
        })
        const row = await tx.webhookDelivery.findFirst({ where: { id: deliveryId, subscriptionId: id }, include: { log: { orderBy: { id: 'asc' } } } })
        if (!row) return null
        if (count === 1) await runner.send(queue, { deliveryId }, { tx: tx as unknown as PrismaTransaction })
        return toDelivery(row)
      })
    },

    /** Defines the delivery queue and starts following the outbox once the job runner runs. */
    defineJobs(runner: JobRunner) {
      jobs = runner
      runner.define<{ deliveryId: string }>({
        name: queue,
        handle: (data) => deliver(data.deliveryId),
        pollingIntervalSeconds: 0.5,
        concurrency: 4,
        retryLimit: 5,
        // A job outlives its attempt by far; the lease sweep recovers attempts of dead replicas sooner.
        expireInSeconds: Math.ceil(leaseMs / 1000) + 60,
      })
    },

    /** Runs fan-out and the stalled-attempt sweep now (also done on every event and poll). */
    async poll() {
      await kick()
      await sweep().catch((error: unknown) => report(error))
    },

    async close() {
      closed = true
      clearInterval(timer)
      await stream.return?.()
      await running
      await prisma.$disconnect()
    },
  }

  // Events wake fan-out at once; the poll catches anything a notification missed.
  const stream = events.subscribe({ schema: service, types: options.eventTypes })
  void (async () => {
    for await (const _event of stream) void kick()
  })().catch(report)
  const timer = setInterval(() => void webhooks.poll(), config.pollMs)
  timer.unref()

  return webhooks
}

/** Webhook delivery of one service. */
export type Webhooks = ReturnType<typeof createWebhooks>

function toSubscription(row: {
  id: string
  environment: string
  url: string
  events: string[]
  description: string | null
  status: string
  disabledReason: string | null
  disabledAt: Date | null
  createdAt: Date
  updatedAt: Date
}): WebhookSubscriptionInfo {
  return {
    id: row.id,
    environment: row.environment as Environment,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status as WebhookSubscriptionInfo['status'],
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

function toDelivery(row: {
  id: string
  eventId: string
  eventType: string
  status: string
  attempts: number
  nextAttemptAt: Date | null
  lastStatusCode: number | null
  lastError: string | null
  deliveredAt: Date | null
  createdAt: Date
  log: Array<{ attempt: number; startedAt: Date; durationMs: number; statusCode: number | null; error: string | null; responseBody: string | null }>
}): WebhookDeliveryInfo {
  return {
    id: row.id,
    eventId: row.eventId,
    event: row.eventType,
    status: row.status as WebhookDeliveryInfo['status'],
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    deliveredAt: row.deliveredAt,
    createdAt: row.createdAt,
    log: row.log.map((l) => ({
      attempt: l.attempt,
      startedAt: l.startedAt,
      durationMs: l.durationMs,
      statusCode: l.statusCode,
      error: l.error,
      responseBody: l.responseBody,
    })),
  }
}
