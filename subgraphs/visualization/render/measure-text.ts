/**
 * Text measurement with the chart font's real glyph advances, for Vega's layout.
 *
 * Server-side Vega has no canvas to measure text, so it guesses 0.8 em per character: titles
 * drift off centre, axes reserve the wrong room and labels truncate in the wrong place. Vega
 * lets a host replace `textMetrics.width`; this module does so with widths from the same TTF
 * files resvg and pdfkit draw with, measured by pdfkit's font engine (kerning included).
 *
 * @module
 */

import PDFDocument from 'pdfkit'
import * as vega from 'vega'
import { CHART_FONT, isBoldWeight } from './chart-font.js'

/** The text properties of a Vega scenegraph item that measurement depends on. */
interface TextItem {
  fontSize?: number | string
  fontWeight?: number | string
  limit?: number
}

/** Vega's text measurement hook; its typings leave it out, the runtime exports it. */
interface VegaTextMetrics {
  width: (item: TextItem, text: unknown) => number
}

// A document that never gets a page: it only hosts the fonts for measuring.
let measurer: PDFKit.PDFDocument | undefined
const cache = new Map<string, number>()
// Labels repeat across renders (axis ticks, legend entries); past this many entries the cache
// starts over rather than grow with every distinct label ever seen.
const CACHE_LIMIT = 20_000

/** Width in pixels of `text` set in the chart font at `size` pixels, regular or bold. */
export function measureText(text: string, size: number, bold = false): number {
  if (text.length === 0 || !(size > 0)) return 0
  const key = `${bold ? 'b' : 'r'}${size}|${text}`
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  if (measurer === undefined) {
    measurer = new PDFDocument({ autoFirstPage: false })
    measurer.registerFont('regular', CHART_FONT.regularFile)
    measurer.registerFont('bold', CHART_FONT.boldFile)
  }
  const width = measurer
    .font(bold ? 'bold' : 'regular')
    .fontSize(size)
    .widthOfString(text)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(key, width)
  return width
}

let installed = false

/**
 * Makes Vega measure text with {@link measureText}. Process-wide (Vega keeps one hook) and
 * idempotent; every chart uses the chart font, so other Vega users in the process gain too.
 *
 * Vega calls the hook two ways: for an item's bounds with the full text, and while truncating a
 * text to its `limit` with candidate prefixes. Capping the width at the limit serves both: a
 * truncating search still sees "too long" exactly when the prefix is, and the bounds of a text
 * Vega will cut down come out as the limit, about as wide as the cut text plus its ellipsis.
 */
export function installVegaTextMetrics(): void {
  if (installed) return
  const metrics = (vega as unknown as { textMetrics: VegaTextMetrics }).textMetrics
  metrics.width = (item, text) => {
    const size = item.fontSize == null ? 11 : Number(item.fontSize) || 0
    const value = text == null ? '' : String(text).trim()
    const width = measureText(value, size, isBoldWeight(item.fontWeight))
    const limit = Number(item.limit)
    return limit > 0 ? Math.min(width, limit) : width
  }
  installed = true
}
