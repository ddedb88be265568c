import { randomUUID } from 'node:crypto'
import type { Environment, Principal } from '../../../platform/auth/scopes.js'
import type { ValidationIssue } from '../../../platform/errors.js'
import { writeOutbox } from '../../../platform/events/event-bus.js'
import type { FileResponse, FileStore, StagedFile } from '../../../platform/files/index.js'
import { CONTENT_EVENTS, contentEvent } from '../events.js'
import type { JobRunner } from '../../../platform/jobs/job-runner.js'
import { isContentId } from '../content-library.js'
import { contentErrors as errors } from '../errors.js'
import type { ContentItem as Row, Prisma, PrismaClient } from '../generated/prisma/client.js'
import { ACCENTS, VIDEO_LANGUAGES, type VideoLanguage, type VoiceOptions } from './speech.js'
import { renderVideo, sentences, SENTENCE_PAUSE, VIDEO_STYLES, type RenderedVideo, type VideoStyle } from './video-renderer.js'

/** Limits of POST /generate/video. */
export const VIDEO_LIMITS = { scriptChars: 20_000, minDuration: 5, maxDuration: 1800, minSpeed: 0.5, maxSpeed: 2 } as const
/** espeak-ng's speaking rate at speed 1, words per minute. */
export const BASE_WPM = 175
/** The files of a rendered video. */
export const VIDEO_FILES = { 'video.mp4': 'video/mp4', 'thumbnail.png': 'image/png', 'captions.vtt': 'text/vtt; charset=utf-8' } as const
/** A file name of a rendered video. */
export type VideoFileName = keyof typeof VIDEO_FILES
/** The content item's column that holds each file's id in the platform file store. */
export const VIDEO_FILE_COLUMNS = {
  'video.mp4': 'videoFileId',
  'thumbnail.png': 'thumbnailFileId',
  'captions.vtt': 'captionsFileId',
} as const satisfies Record<VideoFileName, string>
/** The ids of a content item's files in the platform file store (none unless it is a ready video). */
export const videoFileIds = (row: Pick<Row, 'videoFileId' | 'thumbnailFileId' | 'captionsFileId'>) =>
  [row.videoFileId, row.thumbnailFileId, row.captionsFileId].filter((id): id is string => id !== null)
/** The queue that renders videos. */
export const RENDER_QUEUE = 'content-render-video'

/** Video states: rendering as a job, then `ready` (or `failed`, with the reason). */
export type VideoStatus = 'processing' | 'ready' | 'failed'

/** A video as the interface shows it. */
export interface VideoRecord {
  id: string
  topic: string
  status: VideoStatus
  videoUrl: string | null
  thumbnailUrl: string | null
  captionsUrl: string | null
  transcript: string
  /** Seconds, read back from the file. */
  duration: number | null
  metadata: {
    resolution: string
    size: number
    codec: string
    audioCodec: string
    narrationDuration: number
    slides: number
  } | null
  style: VideoStyle
  language: VideoLanguage
  voice: { gender: 'female' | 'male'; accent: string | null; wordsPerMinute: number }
  captions: boolean
  error?: string
  createdAt: string
}

/** The path under which a video's files are served. */
export const videoPath = (id: string) => `/v1/content-ai/videos/${id}`

/** Validates POST /generate/video. Defaults: animated, female voice, speed 1, captions on, English. */
export function parseVideoRequest(input: Record<string, unknown>) {
  const issues: ValidationIssue[] = []
  const str = (field: string, max: number) => {
    const v = input[field]
    if (typeof v !== 'string' || !v.trim() || v.length > max) {
      issues.push({ field, message: `is required: a non-empty string of at most ${max} characters` })
      return ''
    }
    return v.trim()
  }
  const topic = str('topic', 200)
  const script = str('script', VIDEO_LIMITS.scriptChars)
  if (script && !sentences(script).length) issues.push({ field: 'script', message: 'must contain at least one sentence with words' })
  const duration = input.duration
  if (
    duration !== undefined &&
    duration !== null &&
    (typeof duration !== 'number' || !(duration >= VIDEO_LIMITS.minDuration && duration <= VIDEO_LIMITS.maxDuration))
  ) {
    issues.push({ field: 'duration', message: `must be a number of seconds from ${VIDEO_LIMITS.minDuration} to ${VIDEO_LIMITS.maxDuration}` })
  }
  const style = (input.style ?? 'animated') as VideoStyle
  if (!VIDEO_STYLES.includes(style)) issues.push({ field: 'style', message: `must be one of: ${VIDEO_STYLES.join(', ')}` })
  const language = (input.language ?? 'en') as VideoLanguage
  if (!VIDEO_LANGUAGES.includes(language)) issues.push({ field: 'language', message: `must be one of: ${VIDEO_LANGUAGES.join(', ')}` })
  const captions = input.captions ?? true
  if (typeof captions !== 'boolean') issues.push({ field: 'captions', message: 'must be a boolean' })
  const voice = (input.voiceConfig ?? {}) as Record<string, unknown>
  if (typeof voice !== 'object' || Array.isArray(voice)) issues.push({ field: 'voiceConfig', message: 'must be an object' })
  const gender = voice.gender ?? 'female'
  if (gender !== 'female' && gender !== 'male') issues.push({ field: 'voiceConfig.gender', message: 'must be one of: female, male' })
  const accent = voice.accent ?? null
  if (accent !== null && (typeof accent !== 'string' || language !== 'en' || !ACCENTS[accent.toLowerCase()])) {
    issues.push({ field: 'voiceConfig.accent', message: `must be one of: ${Object.keys(ACCENTS).join(', ')} (English narration only)` })
  }
  const speed = voice.speed
  if (speed !== undefined && speed !== null && (typeof speed !== 'number' || !(speed >= VIDEO_LIMITS.minSpeed && speed <= VIDEO_LIMITS.maxSpeed))) {
    issues.push({ field: 'voiceConfig.speed', message: `must be a number from ${VIDEO_LIMITS.minSpeed} to ${VIDEO_LIMITS.maxSpeed}` })
  }
  if (issues.length) throw errors.invalid(issues)
  // A target duration without a speed sets the rate: the words over the time left after pauses.
  const words = script.split(/\s+/).length
  const speaking = typeof duration === 'number' ? duration - sentences(script).length * SENTENCE_PAUSE : 0
  const wordsPerMinute = typeof speed === 'number' ? BASE_WPM * speed : speaking > 0 ? Math.min(300, Math.max(80, (words / speaking) * 60)) : BASE_WPM
  return {
    topic,
    script,
    style,
    language,
    captions: captions as boolean,
    gender: gender as 'female' | 'male',
    accent: accent ? (accent as string).toLowerCase() : null,
    wordsPerMinute: Math.round(wordsPerMinute),
  }
}

/** What the video feature needs from the content domain. */
export interface VideoFeatureDeps {
  prisma: PrismaClient
  jobs: JobRunner
  /** The platform file store the rendered files are written to and served from. */
  files: FileStore
  authorize(actor: Principal | null, scope: 'content:read' | 'content:generate'): Principal
  /** Replaces the renderer (tests of the job's bookkeeping). */
  render?: typeof renderVideo
}

/** POST /generate/video as a job, the video's state, and its files served in ranges. */
export function createVideoFeature(deps: VideoFeatureDeps) {
  const { prisma, jobs, files } = deps
  const render = deps.render ?? renderVideo

  const load = async (id: string) => {
    const row = isContentId(id) ? await prisma.contentItem.findUnique({ where: { id } }) : null
    if (!row || row.type !== 'video') throw errors.create('NOT_FOUND', `No video with id ${id}`, { field: 'videoId', videoId: id })
    return row
  }

  /** Renders one video and records the outcome with its event; safe to run twice. */
  const renderJob = async ({ videoId, environment = 'production' }: { videoId: string; environment?: Environment }) => {
    const row = await prisma.contentItem.findUnique({ where: { id: videoId } })
    if (!row) return
    const video = row.body as unknown as VideoRecord
    if (video.status !== 'processing') return
    let rendered: RenderedVideo
    try {
      const voice: VoiceOptions = {
        language: video.language,
        accent: video.voice.accent ?? undefined,
        gender: video.voice.gender,
        wordsPerMinute: video.voice.wordsPerMinute,
      }
      rendered = await render({ topic: video.topic, script: video.transcript, style: video.style, voice, captions: video.captions })
    } catch (error) {
      const failed: VideoRecord = { ...video, status: 'failed', error: `Rendering failed: ${(error as Error).message}` }
      await prisma.$transaction(async (tx) => {
        await tx.contentItem.update({ where: { id: videoId }, data: { body: failed as unknown as Prisma.InputJsonValue, updatedAt: new Date() } })
        await writeOutbox(tx, 'content', [
          contentEvent(CONTENT_EVENTS.generated, environment, { contentId: videoId, status: 'failed', type: 'video', title: row.title }),
        ])
      })
      return
    }
    const base = videoPath(videoId)
    const ready: VideoRecord = {
      ...video,
      status: 'ready',
      videoUrl: `${base}/video.mp4`,
      thumbnailUrl: `${base}/thumbnail.png`,
      captionsUrl: rendered.vtt === null ? null : `${base}/captions.vtt`,
      duration: Math.round(rendered.probe.duration * 1000) / 1000,
      metadata: {
        resolution: `${rendered.probe.width}x${rendered.probe.height}`,
        size: rendered.probe.size,
        codec: rendered.probe.videoCodec,
        audioCodec: rendered.probe.audioCodec,
        narrationDuration: Math.round(rendered.narrationSeconds * 1000) / 1000,
        slides: rendered.slides,
      },
    }
    const outputs: Array<[VideoFileName, Buffer]> = [
      ['video.mp4', rendered.mp4],
      ['thumbnail.png', rendered.thumbnail],
    ]
    if (rendered.vtt !== null) outputs.push(['captions.vtt', Buffer.from(rendered.vtt)])
    // The bytes go in before the transaction (the store writes chunk by chunk, never inside one);
    // they become files only when the transaction that marks the video ready registers them.
    const staged: Array<[VideoFileName, StagedFile]> = []
    try {
      for (const [name, data] of outputs) staged.push([name, await files.write([data])])
      await prisma.$transaction(async (tx) => {
        for (const [name, file] of staged) await files.register(tx, file, { service: 'content', contentType: VIDEO_FILES[name] })
        const ids = Object.fromEntries(staged.map(([name, file]) => [VIDEO_FILE_COLUMNS[name], file.id]))
        // Only a video still without files turns ready: a second run after a crash, or an item
        // deleted meanwhile, changes nothing and its bytes are discarded below.
        const { count } = await tx.contentItem.updateMany({
          where: { id: videoId, videoFileId: null },
          data: { ...ids, body: ready as unknown as Prisma.InputJsonValue, updatedAt: new Date() },
        })
        if (count !== 1) throw new VideoAlreadySettled()
        await writeOutbox(tx, 'content', [
          contentEvent(CONTENT_EVENTS.generated, environment, { contentId: videoId, status: 'ready', type: 'video', title: row.title }),
        ])
      })
    } catch (error) {
      await Promise.all(staged.map(([, file]) => files.discard(file.id).catch(() => undefined)))
      if (!(error instanceof VideoAlreadySettled)) throw error
    }
  }

  return {
    /** Registers the render queue (one render at a time per worker, retried once after a crash) and the hourly sweep of abandoned file chunks. */
    defineJobs(runner: JobRunner) {
      runner.define<{ videoId: string; environment?: Environment }>({
        name: RENDER_QUEUE,
        handle: renderJob,
        retryLimit: 1,
        pollingIntervalSeconds: 0.5,
        expireInSeconds: 30 * 60,
      })
      runner.define(files.sweepJob('content.sweep-abandoned-files', 47))
    },

    /** POST /generate/video: the video in state `processing`, its render enqueued with it. */
    async generateVideo(actor: Principal | null, input: Record<string, unknown>): Promise<VideoRecord> {
      const caller = deps.authorize(actor, 'content:generate')
      const request = parseVideoRequest(input)
      const video: VideoRecord = {
        id: randomUUID(),
        topic: request.topic,
        status: 'processing',
        videoUrl: null,
        thumbnailUrl: null,
        captionsUrl: null,
        transcript: request.script,
        duration: null,
        metadata: null,
        style: request.style,
        language: request.language,
        voice: { gender: request.gender, accent: request.accent, wordsPerMinute: request.wordsPerMinute },
        captions: request.captions,
        createdAt: new Date().toISOString(),
      }
      await prisma.$transaction(async (tx) => {
        await tx.contentItem.create({
          data: {
            id: video.id,
            type: 'video',
            title: request.topic,
            standards: [],
            body: video as unknown as Prisma.InputJsonValue,
            metadata: {},
            origin: 'generated',
            engine: 'offline',
            createdBy: caller.id,
          },
        })
        // The event it ends with goes to the webhooks of the caller's environment.
        await jobs.send(RENDER_QUEUE, { videoId: video.id, environment: caller.environment }, { tx })
      })
      return video
    },

    /** GET /videos/{id}. */
    async getVideo(actor: Principal | null, id: string): Promise<VideoRecord> {
      deps.authorize(actor, 'content:read')
      return (await load(id)).body as unknown as VideoRecord
    },

    /**
     * One file of a ready video for download through the platform file store: the whole file,
     * the one byte range a `Range` header asks for (206), or 416 past its end; with
     * `headersOnly` (HEAD) the headers alone. 404 before the video is ready.
     */
    async downloadVideoFile(
      actor: Principal | null,
      id: string,
      name: VideoFileName,
      range: string | undefined,
      options: { headersOnly?: boolean } = {},
    ): Promise<FileResponse> {
      deps.authorize(actor, 'content:read')
      const row = await load(id)
      const video = row.body as unknown as VideoRecord
      const fileId = row[VIDEO_FILE_COLUMNS[name]]
      const info = video.status === 'ready' && fileId ? await files.stat(fileId) : null
      if (!info)
        throw errors.create(
          'NOT_FOUND',
          video.status === 'ready' ? `Video ${id} has no ${name}` : `Video ${id} is ${video.status}; its files exist once it is ready`,
          { field: 'videoId', status: video.status },
        )
      return files.respond(info, range, {}, options)
    },
  }
}

/** Thrown inside the ready transaction when another run already settled the video. */
class VideoAlreadySettled extends Error {}
