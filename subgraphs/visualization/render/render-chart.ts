/**
 * Chart rendering: Vega-Lite spec → SVG (Vega, headless) → PNG (resvg, encoded by sharp) or
 * PDF (pdfkit).
 *
 * Every step uses the DejaVu Sans files of `chart-font.ts` and no system font, so a chart
 * renders the same bytes of text on a laptop and in a font-less container.
 *
 * @module
 */

import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js'
import PDFDocument from 'pdfkit'
import sharp from 'sharp'
import SVGtoPDF from 'svg-to-pdfkit'
import { Error as VEGA_ERROR, logger, None as VEGA_NONE, parse, View } from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import { CHART_FONT } from './chart-font.js'
import type { RenderInput } from './chart-input.js'
import { installVegaTextMetrics } from './measure-text.js'
import { buildSpec } from './vega-lite-spec.js'

/** File formats a chart renders to, as `POST /charts/{id}/export` names them. */
export const CHART_FORMATS = ['png', 'svg', 'pdf', 'json'] as const
export type ChartFormat = (typeof CHART_FORMATS)[number]

/** Media type of each format; `json` is the Vega-Lite spec, data included. */
export const CHART_CONTENT_TYPES: Readonly<Record<ChartFormat, string>> = {
  png: 'image/png',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  json: 'application/json',
}

/** PNG quality when none is asked for: lossless truecolour. */
export const DEFAULT_PNG_QUALITY = 100
/** Highest pixel density of a PNG (`scale`): 4 device pixels per chart pixel and axis. */
export const MAX_PNG_SCALE = 4
/**
 * Most pixels one PNG may have (16 Mpx, 64 MB of RGBA while encoding). An export whose
 * `width × height × scale²` is larger is refused, not silently shrunk.
 */
export const MAX_PNG_PIXELS = 4096 * 4096

/** Size, quality and density of a PNG conversion. */
export interface PngOptions {
  /** The chart's size in pixels: the PNG's size at scale 1. */
  width: number
  height: number
  /**
   * 0–100 (default {@link DEFAULT_PNG_QUALITY}). PNG is lossless, so what quality can vary is
   * the colours: 100 keeps every colour (truecolour with alpha); below 100 the image is
   * quantized to a palette of at most 256 colours with libimagequant (through sharp), which
   * uses as few colours as reach that quality — smaller files, never fewer pixels.
   */
  quality?: number
  /**
   * Pixel density, 1 to {@link MAX_PNG_SCALE} (default 1): the PNG has `width × scale` by
   * `height × scale` pixels and says so in its pHYs density (72 × scale dpi), so it shows at
   * the chart's size on a high-density screen or in print.
   */
  scale?: number
}

/** The PNG's pixel size for a chart size and density. */
export function pngPixelSize({ width, height, scale = 1 }: Pick<PngOptions, 'width' | 'height' | 'scale'>): { width: number; height: number } {
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

/**
 * Renders a Vega-Lite spec to an SVG document. Vega runs headless (renderer `none`) with text
 * measured in the chart font, so titles and labels are laid out as they will be drawn and
 * come out as `<text>` elements holding their strings. Vega-Lite warnings are not printed.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  installVegaTextMetrics()
  const { spec: vegaSpec } = compile(spec, { logger: logger(VEGA_NONE) })
  const view = new View(parse(vegaSpec), { renderer: 'none', logLevel: VEGA_ERROR })
  try {
    return await view.toSVG()
  } finally {
    // Releases the dataflow and its timers; a view per render would otherwise pile up.
    view.finalize()
  }
}

/** resvg settings: the chart font only, never the system's, and the PNG's pixel width. */
function resvgOptions(pixelWidth: number): ResvgRenderOptions {
  return {
    fitTo: { mode: 'width', value: pixelWidth },
    font: {
      fontFiles: [CHART_FONT.regularFile, CHART_FONT.boldFile],
      loadSystemFonts: false,
      defaultFontFamily: CHART_FONT.family,
      sansSerifFamily: CHART_FONT.family,
    },
    background: 'white',
    logLevel: 'off',
  }
}

/**
 * Rasterises an SVG chart to PNG: resvg draws it on libuv's thread pool (the event loop stays
 * free) at exactly `width × scale` by `height × scale` pixels, and sharp encodes it —
 * truecolour at quality 100, a quantized palette below. Throws a RangeError for a quality
 * outside 0–100, a scale outside 1–{@link MAX_PNG_SCALE} or more than {@link MAX_PNG_PIXELS}.
 */
export async function svgToPngAsync(svg: string, options: PngOptions): Promise<Buffer> {
  const { quality = DEFAULT_PNG_QUALITY, scale = 1 } = options
  if (!Number.isFinite(quality) || quality < 0 || quality > 100) throw new RangeError(`PNG quality must be 0-100, got ${quality}`)
  if (!Number.isFinite(scale) || scale < 1 || scale > MAX_PNG_SCALE) throw new RangeError(`PNG scale must be 1-${MAX_PNG_SCALE}, got ${scale}`)
  const size = pngPixelSize(options)
  if (size.width * size.height > MAX_PNG_PIXELS) throw new RangeError(`PNG of ${size.width} x ${size.height} pixels is over ${MAX_PNG_PIXELS}`)
  const image = await renderAsync(svg, resvgOptions(size.width))
  // The SVG's own aspect may round to a pixel more or less: the file is the size asked for.
  let pipeline = sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: 4 } })
  if (image.width !== size.width || image.height !== size.height) pipeline = pipeline.resize(size.width, size.height, { fit: 'fill' })
  pipeline = pipeline.withMetadata({ density: 72 * scale })
  return quality >= 100
    ? pipeline.png({ compressionLevel: 6 }).toBuffer()
    : pipeline.png({ palette: true, quality: Math.round(quality), colours: 256, effort: 4, dither: 1 }).toBuffer()
}

/** Page and metadata of a PDF conversion. */
export interface PdfOptions {
  /** The chart's size in SVG pixels; the page is as many points (1 px = 1 pt, no margin). */
  width: number
  height: number
  /** Document title in the PDF's metadata, e.g. the chart title. */
  title?: string
  /** Receives svg-to-pdfkit's complaints about SVG it cannot translate; default: ignored. */
  onWarning?: (message: string) => void
}

const PDF_REGULAR = CHART_FONT.family
const PDF_BOLD = `${CHART_FONT.family} Bold`

/**
 * Draws an SVG chart on a single PDF page of the chart's size, as vectors, with the chart
 * font embedded (subset) for both weights; italic text is slanted synthetically.
 */
export function svgToPdf(svg: string, options: PdfOptions): Promise<Buffer> {
  const { width, height, title, onWarning = () => {} } = options
  const info: PDFKit.DocumentInfo = { Creator: 'Tessera', Producer: 'Tessera' }
  if (title !== undefined) info.Title = title
  const doc = new PDFDocument({ size: [width, height], margin: 0, info, displayTitle: title !== undefined })
  doc.registerFont(PDF_REGULAR, CHART_FONT.regularFile)
  doc.registerFont(PDF_BOLD, CHART_FONT.boldFile)
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    doc.on('data', (chunk: Buffer) => chunks.push(chunk))
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
    try {
      SVGtoPDF(doc, svg, 0, 0, {
        width,
        height,
        assumePt: true,
        fontCallback: (_family, bold, italic, fontOptions) => {
          // Every chart text is DejaVu Sans; only the weight picks a file.
          fontOptions.fauxItalic = italic
          return bold ? PDF_BOLD : PDF_REGULAR
        },
        warningCallback: onWarning,
      })
      doc.end()
    } catch (error) {
      reject(error)
    }
  })
}

/** A rendered chart file and what rendering it took. */
export interface RenderedChart {
  format: ChartFormat
  contentType: string
  /** The file. */
  bytes: Buffer
  /** The file as text, for the text formats (svg, json). */
  text?: string
  /** Size of the output: PNG pixels, PDF points, SVG pixels (json: the chart's size). */
  width: number
  height: number
  /** Data items drawn (the input's items; a histogram draws them as bins). */
  dataPoints: number
  /** Wall time from spec building to finished file, whole milliseconds. */
  renderTimeMs: number
}

/** Options of {@link renderChart}. */
export interface RenderChartOptions {
  /** PNG quality 0–100 (see {@link PngOptions}); ignored by other formats. */
  quality?: number
  /** PNG pixel density 1–4 (see {@link PngOptions}); ignored by other formats. */
  scale?: number
}

/**
 * Renders a validated input to `format`: the Vega-Lite spec as JSON, or SVG, PNG (rasterised
 * off the event loop) or PDF drawn from the same SVG.
 */
export async function renderChart(input: RenderInput, format: ChartFormat, options: RenderChartOptions = {}): Promise<RenderedChart> {
  const started = performance.now()
  const spec = buildSpec(input)
  const { width, height } = input
  let bytes: Buffer
  let text: string | undefined
  let outWidth = width
  let outHeight = height
  switch (format) {
    case 'json':
      text = JSON.stringify(spec)
      bytes = Buffer.from(text, 'utf8')
      break
    case 'svg':
      text = await renderSvg(spec)
      bytes = Buffer.from(text, 'utf8')
      break
    case 'png': {
      const svg = await renderSvg(spec)
      bytes = await svgToPngAsync(svg, { width, height, quality: options.quality ?? DEFAULT_PNG_QUALITY, scale: options.scale ?? 1 })
      // IHDR: width and height are the big-endian words at bytes 16 and 20.
      outWidth = bytes.readUInt32BE(16)
      outHeight = bytes.readUInt32BE(20)
      break
    }
    case 'pdf': {
      const svg = await renderSvg(spec)
      const pdfOptions: PdfOptions = { width, height }
      if (input.config.title !== undefined) pdfOptions.title = input.config.title
      bytes = await svgToPdf(svg, pdfOptions)
      break
    }
  }
  const rendered: RenderedChart = {
    format,
    contentType: CHART_CONTENT_TYPES[format],
    bytes,
    width: outWidth,
    height: outHeight,
    dataPoints: input.data.length,
    renderTimeMs: Math.round(performance.now() - started),
  }
  if (text !== undefined) rendered.text = text
  return rendered
}
