import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest'
import { createDatabase, type Database, type ListenHooks } from '../../platform/db/database.js'
import { createEventBus, outboxRow, type EventBus, type ListenerChange } from '../../platform/events/event-bus.js'

// The embedded database never loses its listener; this one can: while `down`, notifications
// are dropped as PostgreSQL drops them for a closed connection, and the test says when the
// connection is lost and restored.
function flakyListener(db: Database) {
  let hooks: ListenHooks = {}
  let down = false
  const wrapped: Database = {
    ...db,
    async listen(channel, onPayload, given) {
      hooks = given ?? {}
      return db.listen(channel, (payload) => !down && onPayload(payload))
    },
  }
  return {
    db: wrapped,
    lose: () => ((down = true), hooks.onLost?.(new Error('connection terminated'))),
    restore: () => ((down = false), hooks.onRestored?.(5000, 7)),
  }
}

const publish = (db: Database, aggregateId: string) => {
  const row = outboxRow('gap.test', aggregateId, { aggregateId })
  return db.query("INSERT INTO platform.outbox (id, service, type, aggregate_id, payload) VALUES ($1, 'devices', $2, $3, $4)", [
    row.id,
    row.type,
    row.aggregateId,
    JSON.stringify(row.payload),
  ])
}

describe('event bus across a lost LISTEN connection', () => {
  let raw: Database
  let bus: EventBus
  let flaky: ReturnType<typeof flakyListener>
  const changes: ListenerChange[] = []
  beforeAll(async () => {
    raw = await createDatabase({ kind: 'embedded', dataDir: null, snapshot: new Blob([readFileSync(inject('pgliteSnapshot'))]) })
    await publish(raw, 'before-start')
    flaky = flakyListener(raw)
    bus = await createEventBus(flaky.db, { onListenerChange: (c) => changes.push(c) })
  })
  afterAll(async () => {
    await bus.close()
    await raw.close()
  })

  it('replays from the outbox what was raised while it was down, once each and in order, then goes on live', async () => {
    const stream = bus.subscribe({ schema: 'devices', types: ['gap.test'] })
    await publish(raw, 'live-1')
    expect((await stream.next()).value?.aggregateId).toBe('live-1')
    flaky.lose()
    expect(bus.listener).toBe('reconnecting')
    await publish(raw, 'gap-1')
    await publish(raw, 'gap-2')
    flaky.restore()
    await publish(raw, 'after-1')
    const got: string[] = []
    for (let i = 0; i < 3; i++) got.push((await stream.next()).value!.aggregateId)
    expect(got).toEqual(['gap-1', 'gap-2', 'after-1'])
    expect(bus.listener).toBe('listening')
    expect(changes.map((c) => c.state)).toEqual(['lost', 'restored'])
    expect(changes[1]).toMatchObject({ downMs: 5000, attempts: 7, replayed: 2 })
    // Nothing twice: the next event is the next one raised.
    await publish(raw, 'after-2')
    expect((await stream.next()).value?.aggregateId).toBe('after-2')
    await stream.return?.()
  })
})
