import { randomUUID } from 'node:crypto'
import type { Database } from '../db/database.js'

/** A domain event as it travels from a service's outbox to its subscribers. */
export interface DomainEvent<P = unknown> {
  id: string
  /** The Postgres schema (= service) whose outbox holds the event. */
  schema: string
  /** Dotted name, e.g. `alert.raised`. */
  type: string
  /** Id of the record the event is about. */
  aggregateId: string
  occurredAt: string
  payload: P
}

/** The row a service writes to its outbox, in the same transaction as the change. */
export interface OutboxRow {
  id: string
  type: string
  aggregateId: string
  payload: object
}

/** Builds an outbox row; `payload` must be plain JSON. */
export function outboxRow(type: string, aggregateId: string, payload: object): OutboxRow {
  return { id: randomUUID(), type, aggregateId, payload: JSON.parse(JSON.stringify(payload)) as object }
}

/** Anything that runs raw SQL: a service's Prisma client or its interactive transaction. */
export interface RawSqlClient {
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>
}

/**
 * Writes events to the platform outbox on the caller's connection: pass the transaction
 * client, and the events commit (and are announced) with the change, or not at all.
 */
export async function writeOutbox(client: RawSqlClient, service: string, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length === 0) return
  await client.$executeRawUnsafe(
    `INSERT INTO platform.outbox (id, service, type, aggregate_id, payload)
     SELECT (r->>'id')::uuid, $1, r->>'type', r->>'aggregateId', r->'payload' FROM jsonb_array_elements($2::jsonb) AS r`,
    service,
    JSON.stringify(rows),
  )
}

/** What a subscriber wants to hear. */
export interface EventFilter {
  schema: string
  types: readonly string[]
  where?: (event: DomainEvent) => boolean
}

/** Options of the bus. */
export interface EventBusOptions {
  /** Events a slow subscriber may have waiting before the oldest are dropped. */
  maxBuffered?: number
  onError?: (error: unknown) => void
}

export const EVENT_CHANNEL = 'tessera_events'

/**
 * Delivers committed outbox events to in-process subscribers. Every outbox insert fires
 * `pg_notify` (see the platform migration), so on PostgreSQL every replica hears every event,
 * and on PGlite the same mechanism works inside the one process.
 */
export async function createEventBus(db: Database, options: EventBusOptions = {}) {
  const maxBuffered = options.maxBuffered ?? 1000
  const subscribers = new Set<{ filter: EventFilter; push: (e: DomainEvent) => void; finish: () => void }>()

  const deliver = (event: DomainEvent) => {
    for (const s of subscribers) {
      if (s.filter.schema === event.schema && s.filter.types.includes(event.type) && (!s.filter.where || s.filter.where(event))) {
        s.push(event)
      }
    }
  }

  const onPayload = (raw: string) => {
    let event: DomainEvent & { payload?: unknown }
    try {
      event = JSON.parse(raw) as DomainEvent
    } catch (error) {
      options.onError?.(error)
      return
    }
    if (event.payload !== undefined) return deliver(event)
    // Too large for a notification: read it back from the outbox.
    db.query<{ payload: unknown }>('SELECT payload FROM platform.outbox WHERE id = $1', [event.id])
      .then(([row]) => row && deliver({ ...event, payload: row.payload }))
      .catch((error: unknown) => options.onError?.(error))
  }

  const unlisten = await db.listen(EVENT_CHANNEL, onPayload)

  return {
    /**
     * Events matching `filter`, from now on, as an async iterator — the shape GraphQL
     * subscriptions consume. Ending the iteration (or `signal`) unsubscribes.
     */
    subscribe<P = unknown>(filter: EventFilter, signal?: AbortSignal): AsyncIterableIterator<DomainEvent<P>> {
      const queue: DomainEvent[] = []
      const waiting: Array<(r: IteratorResult<DomainEvent<P>>) => void> = []
      let done = false
      const finish = () => {
        if (done) return
        done = true
        subscribers.delete(entry)
        for (const w of waiting.splice(0)) w({ value: undefined, done: true })
        queue.length = 0
      }
      const entry = {
        filter,
        finish,
        push(e: DomainEvent) {
          const next = waiting.shift()
          if (next) return next({ value: e as DomainEvent<P>, done: false })
          queue.push(e)
          if (queue.length > maxBuffered) queue.shift()
        },
      }
      subscribers.add(entry)
      signal?.addEventListener('abort', finish, { once: true })
      const iterator: AsyncIterableIterator<DomainEvent<P>> = {
        next() {
          if (queue.length) return Promise.resolve({ value: queue.shift() as DomainEvent<P>, done: false })
          if (done) return Promise.resolve({ value: undefined, done: true })
          return new Promise((resolve) => waiting.push(resolve))
        },
        return() {
          finish()
          return Promise.resolve({ value: undefined, done: true })
        },
        throw(error?: unknown) {
          finish()
          return Promise.reject(error)
        },
        [Symbol.asyncIterator]() {
          return iterator
        },
      }
      return iterator
    },

    /** Number of live subscriptions in this process (for metrics). */
    get subscriberCount() {
      return subscribers.size
    },

    /** Stops listening; every open subscription completes. */
    async close() {
      for (const s of [...subscribers]) s.finish()
      await unlisten()
    },
  }
}

/** The event bus of a process. */
export type EventBus = Awaited<ReturnType<typeof createEventBus>>
