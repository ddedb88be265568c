import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createDatabase, type Database, type SqlExecutor } from '../db/database.js'
import type { RawSqlClient } from '../events/event-bus.js'
import { createFileStore, type FileStore } from './index.js'

// Removing files in the caller's transaction, and answering HEAD, in the platform file store.
describe('platform file store: removal and headers only', () => {
  let db: Database
  let store: FileStore
  beforeAll(async () => {
    db = await createDatabase({ kind: 'embedded', dataDir: null, snapshot: new Blob([readFileSync(inject('pgliteSnapshot'))]) })
    store = createFileStore(db, { chunkSize: 1024 })
  })
  afterAll(() => db?.close())

  /** A transaction seen as Prisma's raw client: each statement answers how many rows it touched. */
  const raw = (tx: SqlExecutor): RawSqlClient => ({ $executeRawUnsafe: async (sql, ...values) => (await tx.query(`${sql} RETURNING 1`, values)).length })
  const chunksOf = async (id: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.file_chunks WHERE file_id = $1', [id]))[0]!.n
  const stored = async (bytes: Buffer) => {
    const staged = await store.write([bytes])
    await db.transaction((tx) => store.register(raw(tx), staged, { service: 'test', contentType: 'text/plain' }))
    return staged.id
  }

  it("removes files with their chunks in the caller's transaction, and keeps them if it rolls back", async () => {
    const [a, b, kept] = [await stored(Buffer.alloc(3000, 1)), await stored(Buffer.alloc(10, 2)), await stored(Buffer.alloc(2048, 3))]
    expect(await chunksOf(a)).toBe(3)

    await expect(
      db.transaction(async (tx) => {
        expect(await store.remove(raw(tx), [a])).toBe(1)
        throw new Error('the record could not be deleted')
      }),
    ).rejects.toThrow('could not be deleted')
    expect(await store.stat(a)).not.toBeNull()
    expect(await chunksOf(a)).toBe(3)

    // Duplicates and unknown ids are ignored; the count is of files that existed.
    expect(await db.transaction((tx) => store.remove(raw(tx), [a, b, a, '00000000-0000-4000-8000-000000000000']))).toBe(2)
    for (const id of [a, b]) {
      expect(await store.stat(id)).toBeNull()
      expect(await chunksOf(id)).toBe(0)
    }
    expect(await store.stat(kept)).not.toBeNull()
    expect(await chunksOf(kept)).toBe(2)
    expect(await db.transaction((tx) => store.remove(raw(tx), []))).toBe(0)
  })

  it('answers headers only without opening the file, and 416 with an empty body', async () => {
    const info = (await store.stat(await stored(Buffer.from('0123456789'))))!
    const full = store.respond(info, 'bytes=2-5')
    const head = store.respond(info, 'bytes=2-5', {}, { headersOnly: true })
    expect(head).toEqual({ status: 206, headers: full.headers, body: null })
    expect(head.headers).toMatchObject({ 'content-length': '4', 'content-range': 'bytes 2-5/10' })
    expect(Buffer.concat(await full.body!.toArray()).toString()).toBe('2345')
    expect(store.respond(info, undefined, {}, { headersOnly: true })).toMatchObject({ status: 200, headers: { 'content-length': '10' }, body: null })
    expect(store.respond(info, 'bytes=10-')).toMatchObject({ status: 416, headers: { 'content-length': '0', 'content-range': 'bytes */10' }, body: null })
  })
  it('defines an hourly sweep that removes only unregistered chunks older than a day', async () => {
    let clock = new Date('2026-01-01T00:00:00Z')
    const timed = createFileStore(db, { chunkSize: 1024, now: () => clock })
    const job = timed.sweepJob('test.sweep', 13)
    expect(job).toMatchObject({ name: 'test.sweep', cron: '13 * * * *' })
    const abandoned = await timed.write([Buffer.alloc(1500, 4)])
    const registered = await timed.write([Buffer.alloc(1500, 5)])
    await db.transaction((tx) => timed.register(raw(tx), registered, { service: 'test', contentType: 'text/plain' }))
    const kept = registered.id
    clock = new Date(clock.getTime() + 23 * 3600_000)
    await job.handle(undefined)
    expect(await chunksOf(abandoned.id)).toBe(2)
    clock = new Date(clock.getTime() + 2 * 3600_000)
    await job.handle(undefined)
    expect(await chunksOf(abandoned.id)).toBe(0)
    expect(await chunksOf(kept)).toBe(2)
  })
})
