import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createDatabase, type Database } from '../../platform/db/database.js'
import { createFileStore, parseRange, type FileStore } from '../../platform/files/index.js'

// The platform file store: chunks in the database, streamed both ways, visible once registered.
describe('platform file store', () => {
  let db: Database
  let store: FileStore
  beforeAll(async () => {
    db = await createDatabase({ kind: 'embedded', dataDir: null, snapshot: new Blob([readFileSync(inject('pgliteSnapshot'))]) })
    store = createFileStore(db, { chunkSize: 64 * 1024 })
  })
  afterAll(() => db?.close())

  const register = (staged: Parameters<FileStore['register']>[1]) =>
    store.register(
      {
        $executeRawUnsafe: async (sql, ...values) => (
          await db.query(sql.replace(/RETURNING.*/s, ''), values),
          (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.files WHERE id = $1', [staged.id]))[0]!.n
        ),
      },
      staged,
      { service: 'test', contentType: 'application/octet-stream' },
    )

  it('writes chunk by chunk while the source is still streaming, and reads back the same bytes', async () => {
    const total = 8 * 1024 * 1024
    const slice = Buffer.alloc(100_000)
    const hash = createHash('sha256')
    const chunksSeen: number[] = []
    async function* source() {
      for (let sent = 0, i = 0; sent < total; i++) {
        const part = slice.subarray(0, Math.min(slice.length, total - sent)).fill(i % 251)
        hash.update(part)
        sent += part.length
        yield Buffer.from(part)
        if (i % 20 === 19) chunksSeen.push((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.file_chunks')).at(0)!.n)
      }
    }
    const staged = await store.write(source())
    expect(staged.size).toBe(total)
    expect(staged.sha256).toBe(hash.digest('hex'))
    // Chunks reached the database during the upload, not all at its end.
    expect(chunksSeen.length).toBeGreaterThan(3)
    expect(chunksSeen[0]).toBeGreaterThan(0)
    expect(chunksSeen.every((n, i) => i === 0 || n > chunksSeen[i - 1]!)).toBe(true)
    expect(await store.stat(staged.id)).toBeNull()
    await register(staged)
    const info = (await store.stat(staged.id))!
    expect(info).toMatchObject({ size: total, sha256: staged.sha256, chunkSize: 64 * 1024 })
    const back = createHash('sha256')
    let largest = 0
    for await (const part of store.open(info)) {
      back.update(part as Buffer)
      largest = Math.max(largest, (part as Buffer).length)
    }
    expect(back.digest('hex')).toBe(staged.sha256)
    expect(largest).toBeLessThanOrEqual(64 * 1024)
    await store.discard(staged.id)
    expect(await store.stat(staged.id)).toBeNull()
  })

  it('serves ranges across chunk boundaries', async () => {
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 256))
    const staged = await store.write([bytes])
    await register(staged)
    const info = (await store.stat(staged.id))!
    const read = async (range?: { start: number; end: number }) => Buffer.concat(await store.open(info, range).toArray())
    expect((await read({ start: 65_530, end: 65_545 })).equals(bytes.subarray(65_530, 65_546))).toBe(true)
    expect((await read({ start: 199_990, end: 199_999 })).equals(bytes.subarray(199_990))).toBe(true)
    expect((await read()).equals(bytes)).toBe(true)
    const r = store.respond(info, 'bytes=131072-131073')
    expect(r.status).toBe(206)
    expect(r.headers['content-range']).toBe('bytes 131072-131073/200000')
    expect(store.respond(info, 'bytes=200000-').status).toBe(416)
  })

  it('refuses an upload past its limit and leaves no chunks behind', async () => {
    const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.file_chunks'))[0]!.n
    const big = Buffer.alloc(50_000)
    async function* source() {
      for (let i = 0; i < 10; i++) yield big
    }
    await expect(store.write(source(), { maxBytes: 300_000, tooLarge: () => new Error('too big') })).rejects.toThrow('too big')
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform.file_chunks'))[0]!.n).toBe(before)
  })

  it('never registers an incomplete file, and sweeps chunks of uploads that never completed', async () => {
    const staged = await store.write([Buffer.alloc(150_000, 7)])
    await db.query('DELETE FROM platform.file_chunks WHERE file_id = $1 AND seq = 1', [staged.id])
    await expect(register(staged)).rejects.toThrow(/incomplete/)
    const orphan = await store.write([Buffer.alloc(10, 1)])
    expect(await store.sweepAbandoned(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(3)
    expect((await db.query('SELECT 1 FROM platform.file_chunks WHERE file_id = $1', [orphan.id])).length).toBe(0)
  })

  it('reads Range headers as RFC 9110 says', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'whole' })
    expect(parseRange('bytes=2-4', 10)).toEqual({ kind: 'partial', range: { start: 2, end: 4 } })
    expect(parseRange('bytes=5-', 10)).toEqual({ kind: 'partial', range: { start: 5, end: 9 } })
    expect(parseRange('bytes=-3', 10)).toEqual({ kind: 'partial', range: { start: 7, end: 9 } })
    expect(parseRange('bytes=2-400', 10)).toEqual({ kind: 'partial', range: { start: 2, end: 9 } })
    expect(parseRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' })
    expect(parseRange('bytes=0-1,4-5', 10)).toEqual({ kind: 'whole' })
    expect(parseRange('items=0-1', 10)).toEqual({ kind: 'whole' })
  })
})
