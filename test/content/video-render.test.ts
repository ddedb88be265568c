import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const BASE = '/v1/content-ai'
const FFPROBE: string = (createRequire(import.meta.url)('@ffprobe-installer/ffprobe') as { path: string }).path
const SCRIPT = 'A ratio compares two amounts. If a class has twelve girls and eight boys, the ratio of girls to boys is twelve to eight, or three to two.'

/** Parses WebVTT strictly enough to catch a broken file: header, numbered cues, ordered times. */
function parseWebVtt(text: string) {
  const blocks = text.replace(/\r\n/g, '\n').split(/\n\n+/)
  expect(blocks[0]).toBe('WEBVTT')
  const seconds = (t: string) => {
    const m = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3})$/.exec(t)
    if (!m) throw new Error(`bad timestamp ${t}`)
    return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000
  }
  return blocks
    .slice(1)
    .filter((b) => b.trim())
    .map((block) => {
      const [, timing, ...lines] = block.trim().split('\n')
      const [start, end] = timing!.split(' --> ').map(seconds)
      expect(end!).toBeGreaterThan(start!)
      expect(lines.length).toBeGreaterThan(0)
      return { start: start!, end: end!, text: lines.join(' ') }
    })
}

describe('video rendering', () => {
  let t: TestTessera
  let dir: string
  beforeAll(async () => {
    t = await build({ services: ['content'] })
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-video-test-'))
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { ...t.auth, ...headers } })

  it('answers 202 processing, renders H.264 + AAC timed to the narration with WebVTT captions, and serves ranges', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/generate/video`,
      headers: t.auth,
      payload: {
        topic: 'Ratios',
        script: SCRIPT,
        style: 'animated',
        voiceConfig: { gender: 'female', accent: 'gb', speed: 1.1 },
        captions: true,
        language: 'en',
      },
    })
    expect(res.statusCode, res.body).toBe(202)
    const accepted = res.json()
    expect(accepted).toMatchObject({ status: 'processing', videoUrl: null, transcript: SCRIPT, duration: null })
    expect(res.headers.location).toBe(`${BASE}/videos/${accepted.id}`)
    expectError(await get(`${BASE}/videos/${accepted.id}/video.mp4`), 404, 'NOT_FOUND')

    // Rendering is real work (speech, slides, encoding): poll, bounded, until it is done.
    let video = accepted
    for (const deadline = Date.now() + 90_000; video.status === 'processing' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      video = (await get(`${BASE}/videos/${accepted.id}`)).json()
    }
    expect(video.status, JSON.stringify(video)).toBe('ready')
    expect(video).toMatchObject({
      videoUrl: `${BASE}/videos/${video.id}/video.mp4`,
      thumbnailUrl: `${BASE}/videos/${video.id}/thumbnail.png`,
      captionsUrl: `${BASE}/videos/${video.id}/captions.vtt`,
    })
    expect(video.metadata).toMatchObject({ resolution: '1280x720', codec: 'h264', audioCodec: 'aac' })

    // Probed here, independently of the service's own probe.
    const mp4 = await get(video.videoUrl)
    expect(mp4.statusCode).toBe(200)
    expect(mp4.headers['content-type']).toBe('video/mp4')
    expect(mp4.rawPayload.length).toBe(video.metadata.size)
    const file = path.join(dir, 'video.mp4')
    writeFileSync(file, mp4.rawPayload)
    const { stdout } = await promisify(execFile)(FFPROBE, ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name,codec_type', '-of', 'json', file])
    const probe = JSON.parse(stdout) as { format: { duration: string }; streams: Array<{ codec_type: string; codec_name: string }> }
    expect(probe.streams.find((s) => s.codec_type === 'video')?.codec_name).toBe('h264')
    expect(probe.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('aac')
    const narration = video.metadata.narrationDuration
    expect(narration).toBeGreaterThan(3)
    expect(Math.abs(Number(probe.format.duration) - narration) / narration).toBeLessThan(0.05)
    expect(Math.abs(video.duration - narration) / narration).toBeLessThan(0.05)

    const vtt = await get(video.captionsUrl)
    expect(vtt.headers['content-type']).toMatch(/^text\/vtt/)
    const cues = parseWebVtt(vtt.body)
    expect(cues.map((c) => c.text).join(' ')).toBe(SCRIPT)
    cues.forEach((c, i) => i && expect(c.start).toBeGreaterThanOrEqual(cues[i - 1]!.end))
    expect(Math.abs(cues.at(-1)!.end - narration) / narration).toBeLessThan(0.05)

    const thumb = await get(video.thumbnailUrl)
    expect(thumb.rawPayload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')

    const head = await get(video.videoUrl, { range: 'bytes=0-99' })
    expect(head.statusCode).toBe(206)
    expect(head.headers['content-range']).toBe(`bytes 0-99/${video.metadata.size}`)
    expect(head.rawPayload.equals(mp4.rawPayload.subarray(0, 100))).toBe(true)
    const tail = await get(video.videoUrl, { range: 'bytes=-10' })
    expect(tail.rawPayload.equals(mp4.rawPayload.subarray(-10))).toBe(true)
    const across = await get(video.videoUrl, { range: `bytes=262000-262300` })
    expect(across.rawPayload.equals(mp4.rawPayload.subarray(262000, 262301))).toBe(true)
    expect((await get(video.videoUrl, { range: `bytes=${video.metadata.size}-` })).statusCode).toBe(416)

    const item = (await get(`${BASE}/content/${video.id}`)).json()
    expect(item).toMatchObject({ type: 'video', origin: 'generated', content: { status: 'ready' } })
    const graph = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: t.auth,
        payload: { query: `{ contentVideo(id: "${video.id}") { status duration metadata { codec resolution } } }` },
      })
    ).json()
    expect(graph.data.contentVideo).toMatchObject({ status: 'ready', metadata: { codec: 'h264', resolution: '1280x720' } })
  })

  it('refuses bad video requests naming the field', async () => {
    const post = (payload: object) => t.app.inject({ method: 'POST', url: `${BASE}/generate/video`, headers: t.auth, payload })
    expectError(await post({ topic: 'Ratios' }), 400, 'INVALID_REQUEST', 'script')
    expectError(await post({ topic: 'Ratios', script: '...' }), 400, 'INVALID_REQUEST', 'script')
    expectError(await post({ topic: 'Ratios', script: SCRIPT, language: 'xx' }), 400, 'INVALID_REQUEST', 'language')
    expectError(await post({ topic: 'Ratios', script: SCRIPT, voiceConfig: { speed: 5 } }), 400, 'INVALID_REQUEST', 'voiceConfig.speed')
    expectError(await post({ topic: 'Ratios', script: SCRIPT, language: 'es', voiceConfig: { accent: 'gb' } }), 400, 'INVALID_REQUEST', 'voiceConfig.accent')
    expectError(await post({ topic: 'Ratios', script: SCRIPT, duration: 99999 }), 400, 'INVALID_REQUEST', 'duration')
    expectError(await get(`${BASE}/videos/00000000-0000-4000-8000-000000000000`), 404, 'NOT_FOUND')
    const graph = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: t.auth,
        payload: { query: 'mutation { generateVideo(input: { topic: "x", script: "Hello there.", style: "cartoon" }) { id } }' },
      })
    ).json()
    expect(graph.errors[0].extensions.details.field).toBe('style')
  })
})
