import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest'
import { createDatabase, type Database } from '../platform/db/database.js'
import { createEventBus, outboxRow, type EventBus } from '../platform/events/event-bus.js'

// What writeOutbox does inside a service's transaction: a row in the platform outbox.
const publish = (db: Database, type: string, aggregateId: string, payload: object) => {
  const row = outboxRow(type, aggregateId, payload)
  return db.query("INSERT INTO platform.outbox (id, service, type, aggregate_id, payload) VALUES ($1, 'devices', $2, $3, $4)", [
    row.id,
    row.type,
    row.aggregateId,
    JSON.stringify(row.payload),
  ])
}

describe('event bus', () => {
  let db: Database
  let bus: EventBus
  beforeAll(async () => {
    db = await createDatabase({ kind: 'embedded', dataDir: null, snapshot: new Blob([readFileSync(inject('pgliteSnapshot'))]) })
    bus = await createEventBus(db)
  })
  afterAll(async () => {
    await bus.close()
    await db.close()
  })

  it('delivers committed events that match the filter, in order', async () => {
    const stream = bus.subscribe({ schema: 'devices', types: ['thing.happened'], where: (e) => e.aggregateId !== 'skip' })
    await publish(db, 'other.type', 'a', { n: 0 })
    await publish(db, 'thing.happened', 'skip', { n: 1 })
    await publish(db, 'thing.happened', 'a', { n: 2 })
    await publish(db, 'thing.happened', 'b', { n: 3 })
    const first = await stream.next()
    const second = await stream.next()
    expect([first.value?.payload, second.value?.payload]).toEqual([{ n: 2 }, { n: 3 }])
    expect(first.value).toMatchObject({ schema: 'devices', type: 'thing.happened', aggregateId: 'a' })
    await stream.return?.()
  })

  it('delivers nothing from a transaction that rolls back', async () => {
    const stream = bus.subscribe({ schema: 'devices', types: ['tx.test'] })
    await db
      .transaction(async (tx) => {
        await tx.query(
          "INSERT INTO platform.outbox (id, service, type, aggregate_id, payload) VALUES (gen_random_uuid(), 'devices', 'tx.test', 'x', '{\"n\":1}')",
        )
        throw new Error('roll back')
      })
      .catch(() => {})
    await publish(db, 'tx.test', 'y', { n: 2 })
    expect((await stream.next()).value?.payload).toEqual({ n: 2 })
    await stream.return?.()
  })

  it('reads back events too large for a notification from the outbox', async () => {
    const stream = bus.subscribe({ schema: 'devices', types: ['big.event'] })
    const payload = { text: 'x'.repeat(20_000) }
    await publish(db, 'big.event', 'big', payload)
    expect((await stream.next()).value?.payload).toEqual(payload)
    await stream.return?.()
  })

  it('ends open subscriptions when the bus closes', async () => {
    const own = await createEventBus(db)
    const stream = own.subscribe({ schema: 'devices', types: ['never'] })
    const pending = stream.next()
    expect(own.subscriberCount).toBe(1)
    await own.close()
    expect(await pending).toEqual({ value: undefined, done: true })
    expect(own.subscriberCount).toBe(0)
  })
})
