import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { renderSlide, VIDEO_SIZE } from './slide-image.js'
import { pcmSeconds, speak, writeWav, type Pcm, type VoiceOptions } from './speech.js'

const run = promisify(execFile)
const require = createRequire(import.meta.url)
// The binaries ship inside npm packages (@ffmpeg-installer, @ffprobe-installer): nothing to install.
const FFMPEG: string = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path
const FFPROBE: string = (require('@ffprobe-installer/ffprobe') as { path: string }).path

/** Frames per second of rendered videos. */
export const FPS = 25
/** Silence between sentences, seconds. */
export const SENTENCE_PAUSE = 0.3
/** Words shown on one slide at most. */
export const WORDS_PER_SLIDE = 40

/** Video styles: `animated` fades each slide in and out; `slides` cuts between them. */
export const VIDEO_STYLES = ['animated', 'slides'] as const
/** A video style. */
export type VideoStyle = (typeof VIDEO_STYLES)[number]

/** What to render. */
export interface RenderRequest {
  topic: string
  script: string
  style: VideoStyle
  voice: VoiceOptions
  captions: boolean
}

/** One timed caption. */
export interface Cue {
  start: number
  end: number
  text: string
}

/** What ffprobe reads back from the rendered file. */
export interface ProbedVideo {
  duration: number
  size: number
  videoCodec: string
  audioCodec: string
  width: number
  height: number
}

/** A rendered video: its files, read back. */
export interface RenderedVideo {
  mp4: Buffer
  thumbnail: Buffer
  vtt: string | null
  /** Seconds of narration (speech and pauses), from the audio samples. */
  narrationSeconds: number
  slides: number
  probe: ProbedVideo
}

/** Sentences of a script, in order (a line break also ends one). */
export function sentences(script: string): string[] {
  return script
    .split(/\n+/)
    .flatMap((line) => line.match(/[^.!?]+[.!?]+["')\]]*|[^.!?]+$/g) ?? [])
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s))
}

/** Sentences grouped onto slides of at most {@link WORDS_PER_SLIDE} words (a long sentence gets one alone). */
export function groupSlides(list: readonly string[]): number[][] {
  const groups: number[][] = []
  let words = 0
  list.forEach((s, i) => {
    const n = s.split(/\s+/).length
    const last = groups.at(-1)
    if (last && words + n <= WORDS_PER_SLIDE) {
      last.push(i)
      words += n
    } else {
      groups.push([i])
      words = n
    }
  })
  return groups
}

const stamp = (seconds: number) => {
  const ms = Math.round(seconds * 1000)
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = Math.floor((ms % 60_000) / 1000)
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`
}

/** Two lines of a caption, broken at the space nearest the middle. */
function splitInTwo(text: string): [string, string] {
  const middle = text.length / 2
  let at = -1
  for (let i = text.indexOf(' '); i !== -1; i = text.indexOf(' ', i + 1)) if (at === -1 || Math.abs(i - middle) < Math.abs(at - middle)) at = i
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)]
}

/** WebVTT of the cues, long ones split so each shows at most two lines of 42 characters. */
export function toWebVtt(cues: readonly Cue[]): string {
  const out = ['WEBVTT', '']
  let n = 0
  for (const cue of cues) {
    const words = cue.text.split(/\s+/)
    const chunks: string[] = []
    let chunk = ''
    for (const w of words) {
      if (chunk && (chunk + ' ' + w).length > 84) {
        chunks.push(chunk)
        chunk = w
      } else chunk = chunk ? `${chunk} ${w}` : w
    }
    if (chunk) chunks.push(chunk)
    const total = chunks.reduce((s, c) => s + c.length, 0)
    let at = cue.start
    for (const c of chunks) {
      // Time shared by characters, as speech takes roughly that long per character.
      const end = c === chunks.at(-1) ? cue.end : at + ((cue.end - cue.start) * c.length) / total
      const lines = c.length > 42 ? splitInTwo(c).filter(Boolean) : [c]
      out.push(String(++n), `${stamp(at)} --> ${stamp(end)}`, ...lines, '')
      at = end
    }
  }
  return out.join('\n')
}

/** Reads duration, size, codecs and frame size back from a file with ffprobe. */
export async function probe(file: string): Promise<ProbedVideo> {
  const { stdout } = await run(FFPROBE, ['-v', 'error', '-show_entries', 'format=duration,size:stream=codec_type,codec_name,width,height', '-of', 'json', file])
  const info = JSON.parse(stdout) as {
    format: { duration: string; size: string }
    streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number }>
  }
  const video = info.streams.find((s) => s.codec_type === 'video')
  const audio = info.streams.find((s) => s.codec_type === 'audio')
  return {
    duration: Number(info.format.duration),
    size: Number(info.format.size),
    videoCodec: video?.codec_name ?? '',
    audioCodec: audio?.codec_name ?? '',
    width: video?.width ?? 0,
    height: video?.height ?? 0,
  }
}

/**
 * Renders a narrated slide video: each sentence spoken by espeak-ng, slides drawn from the
 * sentences they show and held exactly as long as their narration, captions timed to each
 * sentence's audio, H.264 + AAC in an MP4 (faststart, so players can seek over ranges).
 */
export async function renderVideo(request: RenderRequest): Promise<RenderedVideo> {
  const list = sentences(request.script)
  if (!list.length) throw new Error('The script has no sentence to narrate')
  const dir = await mkdtemp(path.join(tmpdir(), 'tessera-video-'))
  try {
    // Narration: sentences in order with a pause after each; cue times from the samples.
    const parts: Pcm[] = []
    for (const s of list) parts.push(await speak(s, request.voice))
    const { sampleRate, channels } = parts[0]!
    const pause = Buffer.alloc(Math.round(SENTENCE_PAUSE * sampleRate) * 2 * channels)
    const cues: Cue[] = []
    const buffers: Buffer[] = []
    let t = 0
    for (const [i, pcm] of parts.entries()) {
      if (pcm.sampleRate !== sampleRate || pcm.channels !== channels) throw new Error('espeak-ng changed its audio format mid-narration')
      const seconds = pcmSeconds(pcm)
      cues.push({ start: t, end: t + seconds, text: list[i]! })
      buffers.push(pcm.data, pause)
      t += seconds + SENTENCE_PAUSE
    }
    const narration: Pcm = { sampleRate, channels, data: Buffer.concat(buffers) }
    const narrationSeconds = pcmSeconds(narration)
    await writeFile(path.join(dir, 'narration.wav'), writeWav(narration))

    // Slides: each held from its first sentence's start to the next slide's start, in whole frames.
    const groups = groupSlides(list)
    const segments: string[] = []
    let frame = 0
    for (const [i, group] of groups.entries()) {
      const end = i + 1 < groups.length ? cues[groups[i + 1]![0]!]!.start : narrationSeconds
      const frames = Math.max(1, Math.round(end * FPS) - frame)
      frame += frames
      const png = path.join(dir, `slide-${i}.png`)
      await writeFile(png, renderSlide({ heading: request.topic, body: group.map((k) => list[k]).join(' '), index: i, count: groups.length }))
      const seconds = frames / FPS
      const fade = request.style === 'animated' && seconds > 1 ? ['-vf', `fade=t=in:st=0:d=0.4,fade=t=out:st=${(seconds - 0.4).toFixed(2)}:d=0.4`] : []
      const segment = path.join(dir, `segment-${i}.mp4`)
      await run(FFMPEG, [
        '-y',
        '-loglevel',
        'error',
        '-loop',
        '1',
        '-framerate',
        String(FPS),
        '-i',
        png,
        '-frames:v',
        String(frames),
        ...fade,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-tune',
        'stillimage',
        '-pix_fmt',
        'yuv420p',
        '-r',
        String(FPS),
        segment,
      ])
      segments.push(segment)
    }
    await writeFile(path.join(dir, 'segments.txt'), segments.map((s) => `file '${s}'`).join('\n'))
    const out = path.join(dir, 'video.mp4')
    await run(FFMPEG, [
      '-y',
      '-loglevel',
      'error',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      path.join(dir, 'segments.txt'),
      '-i',
      path.join(dir, 'narration.wav'),
      '-map',
      '0:v',
      '-map',
      '1:a',
      '-c:v',
      'copy',
      '-c:a',
      'aac',
      '-b:a',
      '96k',
      '-ar',
      '44100',
      '-movflags',
      '+faststart',
      out,
    ])
    const thumbnail = renderSlide({ heading: request.topic, body: list[0]!, index: 0, count: groups.length }, VIDEO_SIZE.width / 2)
    return {
      mp4: await readFile(out),
      thumbnail,
      vtt: request.captions ? toWebVtt(cues) : null,
      narrationSeconds,
      slides: groups.length,
      probe: await probe(out),
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
