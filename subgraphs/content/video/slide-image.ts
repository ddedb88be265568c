import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Resvg } from '@resvg/resvg-js'

// The same shipped font everywhere: a container usually has no system fonts.
const fontDir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf')
const FONT = { family: 'DejaVu Sans', regular: path.join(fontDir, 'DejaVuSans.ttf'), bold: path.join(fontDir, 'DejaVuSans-Bold.ttf') }
for (const file of [FONT.regular, FONT.bold]) if (!existsSync(file)) throw new Error(`Slide font missing: ${file} (is dejavu-fonts-ttf installed?)`)

/** Frame size of rendered videos. */
export const VIDEO_SIZE = { width: 1280, height: 720 } as const

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** Greedy word wrap to at most `width` characters a line. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}

/** One slide: the topic as its header, the narrated text as its body, its number in the footer. */
export interface Slide {
  heading: string
  body: string
  index: number
  count: number
}

/**
 * Draws a slide as SVG and rasterises it with resvg: the text on screen is the text narrated,
 * sized to fit (fewer, larger lines for short passages). `outputWidth` scales the frame (thumbnails).
 */
export function renderSlide(slide: Slide, outputWidth: number = VIDEO_SIZE.width): Buffer {
  const { width, height } = VIDEO_SIZE
  const fontSize = slide.body.length < 120 ? 44 : slide.body.length < 240 ? 36 : 30
  // DejaVu Sans averages about 0.55 em a character.
  const lines = wrap(slide.body, Math.floor((width - 160) / (fontSize * 0.55))).slice(0, Math.floor((height - 260) / (fontSize * 1.35)))
  const top = 200 + Math.max(0, (height - 300 - lines.length * fontSize * 1.35) / 2)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
  <rect width="100%" height="100%" fill="#0f2a44"/>
  <rect x="0" y="0" width="${width}" height="120" fill="#16406a"/>
  <text x="80" y="78" font-family="${FONT.family}" font-weight="bold" font-size="40" fill="#ffffff">${escape(slide.heading.slice(0, 60))}</text>
  ${lines.map((l, i) => `<text x="80" y="${Math.round(top + i * fontSize * 1.35)}" font-family="${FONT.family}" font-size="${fontSize}" fill="#f4f7fb">${escape(l)}</text>`).join('\n  ')}
  <rect x="80" y="${height - 60}" width="${Math.round(((width - 160) * (slide.index + 1)) / slide.count)}" height="8" fill="#f2b53a"/>
  <text x="${width - 80}" y="${height - 24}" text-anchor="end" font-family="${FONT.family}" font-size="22" fill="#b8c7d9">${slide.index + 1} / ${slide.count}</text>
</svg>`
  return new Resvg(svg, {
    fitTo: { mode: 'width', value: outputWidth },
    font: { fontFiles: [FONT.regular, FONT.bold], loadSystemFonts: false, defaultFontFamily: FONT.family, sansSerifFamily: FONT.family },
    logLevel: 'off',
  })
    .render()
    .asPng()
}
