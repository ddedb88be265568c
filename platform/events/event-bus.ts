import { randomUUID } from 'node:crypto'
import type { Database, SqlExecutor } from '../db/database.js'

/** A domain event as it travels from a service's outbox to its subscribers. */
export interface DomainEvent<P = unknown> {
  id: string
  /** Position in the platform outbox (its `seq`), when known. */
  seq?: number
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
 * client (Prisma's, or a {@link Database} transaction's), and the events commit (and are
 * announced) with the change, or not at all.
 */
export async function writeOutbox(client: RawSqlClient | SqlExecutor, service: string, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length === 0) return
  const params = [service, JSON.stringify(rows)]
  if ('$executeRawUnsafe' in client) await client.$executeRawUnsafe(OUTBOX_INSERT, ...params)
  else await client.query(OUTBOX_INSERT, params)
}

const OUTBOX_INSERT = `INSERT INTO platform.outbox (id, service, type, aggregate_id, payload)
  SELECT (r->>'id')::uuid, $1, r->>'type', r->>'aggregateId', r->'payload' FROM jsonb_array_elements($2::jsonb) AS r`

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
  /** Told when the listening connection is lost and when it is back (the process logs both). */
  onListenerChange?: (change: ListenerChange) => void
}

/** A change of the bus's listening connection. */
export type ListenerChange = { state: 'lost'; error: unknown } | { state: 'restored'; downMs: number; attempts: number; replayed: number }

/** State of the bus's listening connection, as /ready reports it. */
export type ListenerState = 'listening' | 'reconnecting' | 'closed'

// Events replayed per query after a reconnect, and seqs remembered to drop duplicates.
const REPLAY_BATCH = 500
const REMEMBERED_SEQS = 10_000
const REPLAY_TRIES = 20

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

  // Every event delivered is remembered by its outbox seq, so a replay after a reconnect and
  // the live notifications that overlap it deliver each event once.
  let lastSeq = 0
  const seen = new Set<number>()
  const accept = (event: DomainEvent) => {
    if (event.seq !== undefined) {
      if (seen.has(event.seq)) return
      seen.add(event.seq)
      if (seen.size > REMEMBERED_SEQS) seen.delete(seen.values().next().value as number)
      lastSeq = Math.max(lastSeq, event.seq)
    }
    deliver(event)
  }
  // While a replay runs, live notifications wait behind it so events keep their outbox order.
  let replaying: DomainEvent[] | null = null
  const live = (event: DomainEvent) => (replaying ? replaying.push(event) : accept(event))

  const onPayload = (raw: string) => {
    let event: DomainEvent & { payload?: unknown }
    try {
      event = JSON.parse(raw) as DomainEvent
    } catch (error) {
      options.onError?.(error)
      return
    }
    if (event.payload !== undefined) return live(event)
    // Too large for a notification: read it back from the outbox.
    db.query<{ payload: unknown }>('SELECT payload FROM platform.outbox WHERE id = $1', [event.id])
      .then(([row]) => row && live({ ...event, payload: row.payload }))
      .catch((error: unknown) => options.onError?.(error))
  }

  // Reads back what the outbox holds past the last event delivered, in seq order.
  const replay = async (): Promise<number> => {
    replaying = []
    let replayed = 0
    try {
      for (;;) {
        const rows = await db.query<{
          seq: string | number
          id: string
          schema: string
          type: string
          aggregateId: string
          occurredAt: Date | string
          payload: unknown
        }>(
          `SELECT seq, id, service AS schema, type, aggregate_id AS "aggregateId", occurred_at AS "occurredAt", payload
           FROM platform.outbox WHERE seq > $1 ORDER BY seq LIMIT ${REPLAY_BATCH}`,
          [lastSeq],
        )
        for (const row of rows) {
          const occurredAt = row.occurredAt instanceof Date ? row.occurredAt.toISOString() : String(row.occurredAt)
          accept({ ...row, seq: Number(row.seq), occurredAt })
          replayed++
        }
        if (rows.length < REPLAY_BATCH) break
      }
    } finally {
      const waiting = replaying
      replaying = null
      for (const event of waiting.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))) accept(event)
    }
    return replayed
  }

  let listener: ListenerState = 'listening'
  // Replays start where the outbox stands now: a new process owes nobody older events.
  const [start] = await db.query<{ seq: string | number }>('SELECT COALESCE(MAX(seq), 0) AS seq FROM platform.outbox')
  lastSeq = Number(start?.seq ?? 0)
  const unlisten = await db.listen(EVENT_CHANNEL, onPayload, {
    onLost(error) {
      listener = 'reconnecting'
      options.onListenerChange?.({ state: 'lost', error })
    },
    onRestored(downMs, attempts) {
      listener = 'listening'
      // The database may still be settling: a failed replay is tried again, a few times.
      const catchUp = (tries: number) =>
        replay().then(
          (replayed) => options.onListenerChange?.({ state: 'restored', downMs, attempts, replayed }),
          (error: unknown) => {
            options.onError?.(error)
            if (tries < REPLAY_TRIES && listener === 'listening') setTimeout(() => catchUp(tries + 1), 500).unref()
          },
        )
      catchUp(1)
    },
  })

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

    /** Whether the bus is hearing new events now (`reconnecting` after a lost connection). */
    get listener(): ListenerState {
      return listener
    },

    /** Stops listening; every open subscription completes. */
    async close() {
      listener = 'closed'
      for (const s of [...subscribers]) s.finish()
      await unlisten()
    },
  }
}

/** The event bus of a process. */
export type EventBus = Awaited<ReturnType<typeof createEventBus>>
