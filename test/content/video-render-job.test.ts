import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { Principal } from '../../platform/auth/scopes.js'
import { createDatabase, type Database } from '../../platform/db/database.js'
import { createFileStore } from '../../platform/files/index.js'
import type { JobRunner, QueueDefinition } from '../../platform/jobs/job-runner.js'
import { PrismaClient } from '../../subgraphs/content/generated/prisma/client.js'
import type { RenderedVideo } from '../../subgraphs/content/video/video-renderer.js'
import { createVideoFeature, RENDER_QUEUE } from '../../subgraphs/content/video/video-service.js'

// The render job's bookkeeping, with a stand-in renderer: files are registered only by the run
// that marks the video ready; a run that loses (a retry racing the first) leaves no chunks.
describe('video render job and the file store', () => {
  let db: Database
  let prisma: PrismaClient
  beforeAll(async () => {
    db = await createDatabase({ kind: 'embedded', dataDir: null, snapshot: new Blob([readFileSync(inject('pgliteSnapshot'))]) })
    prisma = new PrismaClient(db.prismaOptions())
  })
  afterAll(async () => {
    await prisma?.$disconnect()
    await db?.close()
  })

  const actor: Principal = { id: 'key:tester', method: 'api_key', scopes: ['content:read', 'content:generate'], environment: 'production' } as Principal
  const rendered = (): RenderedVideo => ({
    mp4: Buffer.alloc(300_000, 1),
    thumbnail: Buffer.from('89504e470d0a1a0a', 'hex'),
    vtt: 'WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.000\nHalf of ten is five.\n',
    narrationSeconds: 1,
    slides: 1,
    probe: { duration: 1, size: 300_000, videoCodec: 'h264', audioCodec: 'aac', width: 1280, height: 720 },
  })

  it('lets one of two racing runs mark the video ready, and the other discards what it wrote', async () => {
    const queues: Array<QueueDefinition<{ videoId: string }>> = []
    const jobs = { define: (q: QueueDefinition<{ videoId: string }>) => queues.push(q), send: async () => null } as unknown as JobRunner
    const video = createVideoFeature({ prisma, jobs, files: createFileStore(db), authorize: (a) => a!, render: async () => rendered() })
    video.defineJobs(jobs)
    const render = queues.find((q) => q.name === RENDER_QUEUE)!
    expect(queues.map((q) => q.name)).toContain('content.sweep-abandoned-files')

    const { id } = await video.generateVideo(actor, { topic: 'Halves', script: 'Half of ten is five.' })
    await Promise.all([render.handle({ videoId: id }), render.handle({ videoId: id })])
    await render.handle({ videoId: id })

    expect((await video.getVideo(actor, id)).status).toBe('ready')
    const files = await db.query<{ content_type: string }>(`SELECT content_type FROM platform.files WHERE service = 'content' ORDER BY content_type`)
    expect(files.map((f) => f.content_type)).toEqual(['image/png', 'text/vtt; charset=utf-8', 'video/mp4'])
    const stray = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM platform.file_chunks c WHERE NOT EXISTS (SELECT 1 FROM platform.files f WHERE f.id = c.file_id)',
    )
    expect(stray[0]!.n).toBe(0)
    const events = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM platform.outbox WHERE service = 'content' AND aggregate_id = $1 AND payload->'data'->>'status' = 'ready'`,
      [id],
    )
    expect(events[0]!.n).toBe(1)

    const download = await video.downloadVideoFile(actor, id, 'video.mp4', 'bytes=-4')
    expect(download.status).toBe(206)
    expect(Buffer.concat(await download.body!.toArray()).equals(Buffer.alloc(4, 1))).toBe(true)
  })
})
