import ESpeakNg from 'espeak-ng'

/** Narration languages (espeak-ng voices shipped in the npm build). */
export const VIDEO_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] as const
/** A narration language. */
export type VideoLanguage = (typeof VIDEO_LANGUAGES)[number]
/** English accents; other languages have one voice each. */
export const ACCENTS: Record<string, string> = {
  us: 'en-us',
  american: 'en-us',
  gb: 'en-gb',
  uk: 'en-gb',
  british: 'en-gb',
  scottish: 'en-gb-scotland',
  caribbean: 'en-029',
}

/** 16-bit PCM audio: what espeak-ng writes, and what the renderer joins. */
export interface Pcm {
  sampleRate: number
  channels: number
  /** Little-endian 16-bit samples. */
  data: Buffer
}

/** Seconds of audio in PCM data. */
export const pcmSeconds = (pcm: Pcm) => pcm.data.length / (2 * pcm.channels * pcm.sampleRate)

/** Reads a RIFF/WAVE file's format and samples (the size fields of a streamed WAV may be wrong). */
export function readWav(file: Uint8Array): Pcm {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength)
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file')
  let offset = 12
  let sampleRate = 0
  let channels = 0
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4)
    const size = buf.readUInt32LE(offset + 4)
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(offset + 10)
      sampleRate = buf.readUInt32LE(offset + 12)
      if (buf.readUInt16LE(offset + 22) !== 16) throw new Error('only 16-bit PCM is supported')
    } else if (id === 'data') {
      const end = Math.min(buf.length, offset + 8 + size)
      return { sampleRate, channels, data: Buffer.from(buf.subarray(offset + 8, end - ((end - offset - 8) % 2))) }
    }
    offset += 8 + size + (size % 2)
  }
  throw new Error('WAV file has no data chunk')
}

/** A WAV file of PCM audio. */
export function writeWav(pcm: Pcm): Buffer {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + pcm.data.length, 4)
  header.write('WAVEfmt ', 8, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(pcm.channels, 22)
  header.writeUInt32LE(pcm.sampleRate, 24)
  header.writeUInt32LE(pcm.sampleRate * pcm.channels * 2, 28)
  header.writeUInt16LE(pcm.channels * 2, 32)
  header.writeUInt16LE(16, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(pcm.data.length, 40)
  return Buffer.concat([header, pcm.data])
}

/** How a narration should sound. */
export interface VoiceOptions {
  language: VideoLanguage
  /** English accent key of {@link ACCENTS}. */
  accent?: string
  gender: 'female' | 'male'
  /** Words per minute (espeak-ng's default is 175). */
  wordsPerMinute: number
}

/** The espeak-ng voice name for the options, e.g. `en-gb+f3`. */
export function voiceName(options: VoiceOptions): string {
  const base = options.language === 'en' ? (ACCENTS[options.accent ?? 'us'] ?? 'en-us') : options.language
  return `${base}+${options.gender === 'female' ? 'f3' : 'm3'}`
}

/**
 * Speaks one text with espeak-ng (its WebAssembly build: offline, no system package) and
 * returns the audio. Each call runs a fresh instance, so calls never share state.
 */
export async function speak(text: string, options: VoiceOptions): Promise<Pcm> {
  const espeak = await ESpeakNg({
    arguments: ['-w', 'speech.wav', '-v', voiceName(options), '-s', String(Math.round(options.wordsPerMinute)), '--', text],
    print: () => {},
    printErr: () => {},
  })
  return readWav(espeak.FS.readFile('speech.wav'))
}
