import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const BASE = '/v1/content-ai'

// A rendered video's files live in the platform file store: registered with the ready video,
// served with ranges and HEAD, and deleted with the content item.
describe('video files in the platform file store', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'] })
  })
  afterAll(() => t?.close())

  const call = (method: 'GET' | 'HEAD' | 'DELETE', url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { ...t.auth, ...headers } })
  const fileIds = async (id: string) =>
    (
      await t.db!.query<{ ids: string[] }>(
        'SELECT ARRAY_REMOVE(ARRAY[video_file_id, thumbnail_file_id, captions_file_id], NULL)::text[] AS ids FROM content.content_items WHERE id = $1',
        [id],
      )
    )[0]?.ids ?? []
  const count = async (table: 'files' | 'file_chunks', ids: string[]) =>
    (
      await t.db!.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM platform.${table} WHERE ${table === 'files' ? 'id' : 'file_id'}::text = ANY($1::text[])`,
        [ids],
      )
    )[0]!.n

  it('registers the files with the ready video, answers HEAD and ranges, and deletes them with the item', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/generate/video`,
      headers: t.auth,
      payload: { topic: 'Halves', script: 'Half of ten is five.', captions: true },
    })
    expect(res.statusCode, res.body).toBe(202)
    let video = res.json()
    expect(await fileIds(video.id)).toEqual([])
    for (const deadline = Date.now() + 60_000; video.status === 'processing' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      video = (await call('GET', `${BASE}/videos/${video.id}`)).json()
    }
    expect(video.status, JSON.stringify(video)).toBe('ready')

    const ids = await fileIds(video.id)
    expect(ids).toHaveLength(3)
    const stored = await t.db!.query<{ service: string; content_type: string; size: string }>(
      'SELECT service, content_type, size::text FROM platform.files WHERE id::text = ANY($1::text[]) ORDER BY content_type',
      [ids],
    )
    expect(stored.map((f) => [f.service, f.content_type])).toEqual([
      ['content', 'image/png'],
      ['content', 'text/vtt; charset=utf-8'],
      ['content', 'video/mp4'],
    ])
    expect(stored.find((f) => f.content_type === 'video/mp4')!.size).toBe(String(video.metadata.size))

    const head = await call('HEAD', video.videoUrl)
    expect(head.statusCode).toBe(200)
    expect(head.headers).toMatchObject({ 'content-type': 'video/mp4', 'accept-ranges': 'bytes', 'content-length': String(video.metadata.size) })
    expect(head.rawPayload.length).toBe(0)
    const headRange = await call('HEAD', video.videoUrl, { range: 'bytes=10-19' })
    expect(headRange.statusCode).toBe(206)
    expect(headRange.headers).toMatchObject({ 'content-length': '10', 'content-range': `bytes 10-19/${video.metadata.size}` })
    const whole = await call('GET', video.videoUrl)
    const part = await call('GET', video.videoUrl, { range: 'bytes=10-19' })
    expect(part.rawPayload.equals(whole.rawPayload.subarray(10, 20))).toBe(true)
    const past = await call('GET', video.videoUrl, { range: `bytes=${video.metadata.size}-` })
    expect(past.statusCode).toBe(416)
    expect(past.headers).toMatchObject({ 'content-range': `bytes */${video.metadata.size}`, 'content-length': '0' })
    // A range the RFC says to ignore (end before start) gets the whole file.
    expect((await call('GET', video.captionsUrl, { range: 'bytes=5-2' })).statusCode).toBe(200)

    expect((await call('DELETE', `${BASE}/content/${video.id}`)).statusCode).toBe(204)
    expect(await count('files', ids)).toBe(0)
    expect(await count('file_chunks', ids)).toBe(0)
    expectError(await call('GET', video.videoUrl), 404, 'NOT_FOUND')
  })

  it('answers 404 for the files of an item that is not a video, and deletes it', async () => {
    const lesson = (
      await t.app.inject({ method: 'POST', url: `${BASE}/content`, headers: t.auth, payload: { type: 'article', title: 'Notes', content: { text: 'x' } } })
    ).json()
    expectError(await call('GET', `${BASE}/videos/${lesson.id}/video.mp4`), 404, 'NOT_FOUND')
    expect((await call('DELETE', `${BASE}/content/${lesson.id}`)).statusCode).toBe(204)
  })
})
