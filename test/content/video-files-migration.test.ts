import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allMigrations } from '../../bin/create-process.js'
import { createDatabase, type Database } from '../../platform/db/database.js'
import { applyMigrations, type MigrationSet } from '../../platform/db/migrate.js'
import { createFileStore } from '../../platform/files/index.js'

const MOVE = '20261124600000_platform_video_files'

// Videos rendered before their files moved to the platform file store keep them: the
// migration carries every chunk over and records the new file ids on the item.
describe('moving rendered video files into the platform file store', () => {
  let db: Database
  let before: string
  beforeAll(async () => {
    db = await createDatabase({ kind: 'embedded', dataDir: null })
    const sets = allMigrations(['content'])
    const content = sets.find((s) => s.schema === 'content')!
    // The content migrations as they were before the move.
    before = mkdtempSync(path.join(tmpdir(), 'tessera-content-migrations-'))
    cpSync(content.dir, before, { recursive: true, filter: (src) => !src.includes(MOVE) })
    await applyMigrations(
      db,
      sets.map((s): MigrationSet => (s === content ? { ...s, dir: before } : s)),
    )
  })
  afterAll(async () => {
    await db?.close()
    if (before) rmSync(before, { recursive: true, force: true })
  })

  it('carries every chunk over, byte for byte, and records the ids on the item', async () => {
    const id = '6f1c1b1e-8a0e-4f51-9d6c-3c1f0c7a0001'
    const other = '6f1c1b1e-8a0e-4f51-9d6c-3c1f0c7a0002'
    const mp4 = Buffer.from(Array.from({ length: 600_000 }, (_, i) => (i * 7) % 256))
    const png = Buffer.from('89504e470d0a1a0a0000', 'hex')
    for (const item of [id, other]) {
      await db.query(
        `INSERT INTO content.content_items (id, type, title, standards, body, metadata, origin, created_by) VALUES ($1, 'video', 'Ratios', '{}', '{}', '{}', 'generated', 'tester')`,
        [item],
      )
    }
    const put = async (video: string, name: string, data: Buffer) => {
      for (let i = 0, chunk = 0; i < data.length || chunk === 0; i += 256 * 1024, chunk++) {
        await db.query(`INSERT INTO content.video_files (video_id, name, chunk, data) VALUES ($1, $2, $3, decode($4, 'base64'))`, [
          video,
          name,
          chunk,
          data.subarray(i, i + 256 * 1024).toString('base64'),
        ])
      }
    }
    await put(id, 'video.mp4', mp4)
    await put(id, 'thumbnail.png', png)

    const [report] = (await applyMigrations(db, allMigrations(['content']))).filter((r) => r.schema === 'content')
    expect(report!.applied).toEqual([MOVE])

    const [row] = await db.query<{ video_file_id: string | null; thumbnail_file_id: string | null; captions_file_id: string | null }>(
      'SELECT video_file_id, thumbnail_file_id, captions_file_id FROM content.content_items WHERE id = $1',
      [id],
    )
    expect(row!.captions_file_id).toBeNull()
    const store = createFileStore(db)
    for (const [fileId, bytes, type] of [
      [row!.video_file_id, mp4, 'video/mp4'],
      [row!.thumbnail_file_id, png, 'image/png'],
    ] as const) {
      const info = (await store.stat(fileId!))!
      expect(info).toMatchObject({ service: 'content', contentType: type, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') })
      expect((await store.readAll(info)).equals(bytes)).toBe(true)
    }
    const [untouched] = await db.query<{ video_file_id: string | null }>('SELECT video_file_id FROM content.content_items WHERE id = $1', [other])
    expect(untouched!.video_file_id).toBeNull()
    expect(await db.query(`SELECT 1 FROM pg_tables WHERE schemaname = 'content' AND tablename = 'video_files'`)).toEqual([])
  })
})
