import { inflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { CHART_TYPE_IDS } from './chart-catalog.js'
import { validateRenderInput, type RenderInput } from './chart-input.js'
import { MAX_PNG_PIXELS, pngPixelSize, renderChart, renderSvg, svgToPdf, svgToPngAsync } from './render-chart.js'
import { SAMPLE_LABELS, SAMPLE_ROWS, sampleRenderRequest } from './sample-charts.js'
import { buildSpec } from './vega-lite-spec.js'

function input(body: Record<string, unknown>): RenderInput {
  const result = validateRenderInput(body)
  if (!result.ok) throw new Error(JSON.stringify(result.issues))
  return result.value
}

/** Text content of every <text> element of an SVG, entities decoded as Vega writes them. */
function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&').replace(/&lt;/g, '<'))
}

/** Decodes an 8-bit RGBA, non-interlaced PNG (what resvg writes) into rows of pixels. */
function decodePng(png: Buffer): { width: number; height: number; rgba: Buffer } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  const idat: Buffer[] = []
  let width = 0
  let height = 0
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    const data = png.subarray(at + 8, at + 8 + length)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      expect([data[8], data[9], data[12]]).toEqual([8, 6, 0])
    }
    if (type === 'IDAT') idat.push(data)
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * 4
  const rgba = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x] ?? 0
      const left = x >= 4 ? (rgba[y * stride + x - 4] ?? 0) : 0
      const up = y > 0 ? (rgba[(y - 1) * stride + x] ?? 0) : 0
      const upLeft = x >= 4 && y > 0 ? (rgba[(y - 1) * stride + x - 4] ?? 0) : 0
      let predicted = 0
      if (filter === 1) predicted = left
      else if (filter === 2) predicted = up
      else if (filter === 3) predicted = (left + up) >> 1
      else if (filter === 4) {
        const p = left + up - upLeft
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)]
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft
      }
      rgba[y * stride + x] = (value + predicted) & 0xff
    }
  }
  return { width, height, rgba }
}

/** Pixels darker than mid-grey within rows [top, bottom) of a decoded PNG. */
function darkPixels(image: { width: number; rgba: Buffer }, top: number, bottom: number): number {
  let dark = 0
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4
      const luma = 0.299 * (image.rgba[i] ?? 255) + 0.587 * (image.rgba[i + 1] ?? 255) + 0.114 * (image.rgba[i + 2] ?? 255)
      if (luma < 128) dark++
    }
  }
  return dark
}

/**
 * The text a PDF shows, one string per text object (BT…ET), glyph codes mapped back through
 * each font's ToUnicode CMap. Enough for pdfkit's output: Type0 fonts, hex-string Tj/TJ.
 */
function pdfTexts(pdf: Buffer): string[] {
  const source = pdf.toString('latin1')
  const objects = new Map<string, { dict: string; stream?: string }>()
  // latin1 keeps one character per byte, so string offsets are byte offsets.
  for (const m of source.matchAll(/(\d+) 0 obj\s*([\s\S]*?)endobj/g)) {
    const id = m[1] ?? ''
    const streamStart = /stream\r?\n/.exec(m[0])
    if (streamStart === null) {
      objects.set(id, { dict: m[2] ?? '' })
      continue
    }
    const dict = m[0].slice(0, streamStart.index)
    const offset = (m.index ?? 0) + streamStart.index + streamStart[0].length
    const bytes = pdf.subarray(offset, offset + Number(/\/Length (\d+)/.exec(dict)?.[1]))
    objects.set(id, { dict, stream: (dict.includes('/FlateDecode') ? inflateSync(bytes) : bytes).toString('latin1') })
  }
  const cmaps = new Map<string, Map<number, string>>()
  for (const { dict } of objects.values()) {
    for (const font of dict.matchAll(/\/(F\d+) (\d+) 0 R/g)) {
      const toUnicode = /\/ToUnicode (\d+) 0 R/.exec(objects.get(font[2] ?? '')?.dict ?? '')?.[1]
      const cmapSource = objects.get(toUnicode ?? '')?.stream ?? ''
      const map = new Map<number, string>()
      for (const range of cmapSource.matchAll(/<([0-9a-f]+)> <[0-9a-f]+> \[([^\]]*)\]/gi)) {
        let code = parseInt(range[1] ?? '0', 16)
        for (const unicode of (range[2] ?? '').matchAll(/<([0-9a-f]+)>/gi)) map.set(code++, String.fromCodePoint(parseInt(unicode[1] ?? '0', 16)))
      }
      cmaps.set(font[1] ?? '', map)
    }
  }
  const texts: string[] = []
  for (const { dict, stream } of objects.values()) {
    if (stream === undefined || dict.includes('/Length1') || !stream.includes('BT')) continue
    for (const block of stream.matchAll(/BT([\s\S]*?)ET/g)) {
      let map = new Map<number, string>()
      let text = ''
      for (const token of (block[1] ?? '').matchAll(/\/(F\d+) [\d.]+ Tf|<([0-9a-f]+)>/gi)) {
        if (token[1] !== undefined) map = cmaps.get(token[1]) ?? new Map()
        else for (let i = 0; i < (token[2]?.length ?? 0); i += 4) text += map.get(parseInt(token[2]?.slice(i, i + 4) ?? '0', 16)) ?? '?'
      }
      texts.push(text)
    }
  }
  return texts
}

const dataLabelOf: Record<string, string> = {
  bar: SAMPLE_LABELS[0],
  line: SAMPLE_LABELS[0],
  area: 'February',
  pie: SAMPLE_LABELS[0],
  donut: SAMPLE_LABELS[0],
  scatter: SAMPLE_LABELS[0],
  histogram: '50',
  heatmap: SAMPLE_ROWS[0],
}

describe('renderSvg', () => {
  it.each(CHART_TYPE_IDS)('draws %s with its title and a data label as text', async (type) => {
    const title = `Quarterly ${type} & more`
    const svg = await renderSvg(buildSpec(input(sampleRenderRequest(type, title))))
    expect(svg.startsWith('<svg')).toBe(true)
    expect(svg).toContain('width="800" height="600"')
    const texts = svgTexts(svg)
    expect(texts).toContain(title)
    expect(texts).toContain(dataLabelOf[type])
    expect(svg).toContain('font-family="DejaVu Sans"')
  })

  it('shows slice labels on a pie without a legend', async () => {
    const svg = await renderSvg(buildSpec(input({ ...sampleRenderRequest('pie'), config: { showLegend: false } })))
    expect(svgTexts(svg)).toEqual(expect.arrayContaining([...SAMPLE_LABELS]))
    expect(svg).not.toContain('role-legend')
  })

  it('centres the title with the measured font, not the 0.8 em estimate', async () => {
    const title = 'iiiiiiiiiiiiiiiiiiii'
    const svg = await renderSvg(buildSpec(input({ ...sampleRenderRequest('bar', title), width: 400, height: 300 })))
    // Vega's estimate would make this title 20 × 0.8 × 16 = 256 px wide, past a 400 px image's
    // limit; measured it is about 71 px and drawn whole.
    expect(svgTexts(svg)).toContain(title)
  })
})

describe('svgToPng', () => {
  const svgPromise = renderSvg(buildSpec(input(sampleRenderRequest('bar', 'Quality'))))

  // IHDR: width, height, bit depth and colour type (3 = palette, 6 = RGBA).
  const header = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20), colourType: png[25] })

  it('writes exactly width × height pixels whatever the quality; quality only sets the colours', async () => {
    const svg = await svgPromise
    const sizes = await Promise.all(
      [0, 40, 80, 99, 100].map(async (quality) => {
        const png = await svgToPngAsync(svg, { width: 640, height: 480, quality })
        expect(png.subarray(0, 4).toString('latin1')).toBe('\x89PNG')
        return { bytes: png.length, ...header(png) }
      }),
    )
    expect(sizes.map((s) => [s.width, s.height])).toEqual(Array(5).fill([640, 480]))
    // Below 100: a quantized palette; 100: lossless truecolour with alpha.
    expect(sizes.map((s) => s.colourType)).toEqual([3, 3, 3, 3, 6])
    expect(sizes[0]!.bytes).toBeLessThanOrEqual(sizes[2]!.bytes)
    expect(sizes[3]!.bytes).toBeLessThan(sizes[4]!.bytes)
    const defaulted = header(await svgToPngAsync(svg, { width: 640, height: 480 }))
    expect(defaulted).toEqual({ width: 640, height: 480, colourType: 6 })
  })

  it('multiplies the pixels by scale and records the density', async () => {
    const svg = await svgPromise
    const png = await svgToPngAsync(svg, { width: 640, height: 480, scale: 2 })
    expect(header(png)).toMatchObject({ width: 1280, height: 960 })
    const phys = png.indexOf('pHYs')
    // pixels per metre: 144 dpi ≈ 5669
    expect(png.readUInt32BE(phys + 4)).toBe(Math.round((144 / 2.54) * 100))
    expect(pngPixelSize({ width: 801, height: 601, scale: 1.5 })).toEqual({ width: 1202, height: 902 })
  })

  it('refuses a quality, scale or pixel count out of range instead of changing the size', async () => {
    const svg = await svgPromise
    await expect(svgToPngAsync(svg, { width: 800, height: 600, quality: 101 })).rejects.toThrow(RangeError)
    await expect(svgToPngAsync(svg, { width: 800, height: 600, scale: 5 })).rejects.toThrow(RangeError)
    await expect(svgToPngAsync(svg, { width: 4000, height: 4000, scale: 2 })).rejects.toThrow(/over 16777216/)
    expect(MAX_PNG_PIXELS).toBe(4096 * 4096)
  })

  it('draws text glyphs with the bundled font (title band differs from a render with the title blanked)', async () => {
    const title = 'WIDE BOLD TITLE WWW'
    const svg = await renderSvg(buildSpec(input({ ...sampleRenderRequest('bar', title), width: 600, height: 400 })))
    expect(svg).toContain(`>${title}</text>`)
    const blanked = svg.replace(`>${title}</text>`, '></text>')
    const withTitle = decodePng(await svgToPngAsync(svg, { width: 600, height: 400 }))
    const without = decodePng(await svgToPngAsync(blanked, { width: 600, height: 400 }))
    expect([withTitle.width, withTitle.height]).toEqual([600, 400])
    // The title sits in the top 30 rows (8 px padding, 16 px font); the plot starts below it.
    const band = darkPixels(withTitle, 0, 30)
    console.log(`title band: ${band} dark pixels with the title, ${darkPixels(without, 0, 30)} without`)
    expect(darkPixels(without, 0, 30)).toBe(0)
    // Bold 16 px capitals over ~230 px: well over a thousand dark pixels when glyphs are drawn.
    expect(band).toBeGreaterThan(1000)
    // Only the title band changed.
    expect(darkPixels(withTitle, 30, 400)).toBe(darkPixels(without, 30, 400))
  })
})

describe('svgToPdf', () => {
  it('writes one page of the chart size with the text embedded in DejaVu Sans', async () => {
    const title = 'Fruit sales'
    const svg = await renderSvg(buildSpec(input(sampleRenderRequest('bar', title))))
    const pdf = await svgToPdf(svg, { width: 800, height: 600, title })
    const source = pdf.toString('latin1')
    expect(source.startsWith('%PDF-')).toBe(true)
    expect(source.trimEnd().endsWith('%%EOF')).toBe(true)
    expect(pdf.length).toBeGreaterThan(5000)
    expect(source.match(/\/Type \/Page\b(?!s)/g)).toHaveLength(1)
    expect(source).toContain('/MediaBox [0 0 800 600]')
    expect(source).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans\n/)
    expect(source).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans-Bold\n/)
    expect(source).toContain(`(${title})`)
    // The text is real text (glyphs with a ToUnicode map), so it extracts and searches.
    const texts = pdfTexts(pdf)
    expect(texts).toContain(title)
    expect(texts).toEqual(expect.arrayContaining([...SAMPLE_LABELS]))
  })
})

describe('renderChart', () => {
  it('renders every format with metadata', async () => {
    const chart = input(sampleRenderRequest('line', 'Formats'))
    const svg = await renderChart(chart, 'svg')
    expect(svg).toMatchObject({ format: 'svg', contentType: 'image/svg+xml', dataPoints: 5, width: 800, height: 600 })
    expect(svg.text).toContain('>Formats</text>')
    expect(svg.bytes.toString('utf8')).toBe(svg.text)
    expect(Number.isInteger(svg.renderTimeMs) && svg.renderTimeMs >= 0).toBe(true)

    const png = await renderChart(chart, 'png', { quality: 80 })
    expect(png).toMatchObject({ format: 'png', contentType: 'image/png', width: 800, height: 600 })
    expect(await renderChart(chart, 'png', { scale: 2 })).toMatchObject({ width: 1600, height: 1200 })
    expect(png.text).toBeUndefined()
    expect(png.bytes.subarray(0, 4).toString('latin1')).toBe('\x89PNG')

    const pdf = await renderChart(chart, 'pdf')
    expect(pdf).toMatchObject({ format: 'pdf', contentType: 'application/pdf' })
    expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-')
    expect(pdf.bytes.toString('latin1')).toContain('(Formats)')

    const json = await renderChart(chart, 'json')
    expect(json.contentType).toBe('application/json')
    expect(JSON.parse(json.text ?? '')).toEqual(JSON.parse(JSON.stringify(buildSpec(chart))))
  })

  const day = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString()
  const large: [string, Record<string, unknown>][] = [
    ['bar 1k', { chart_type: 'bar', data: Array.from({ length: 1000 }, (_, i) => ({ label: `item ${i}`, value: (i * 37) % 101 })) }],
    ['line 1k', { chart_type: 'line', data: Array.from({ length: 1000 }, (_, i) => ({ label: day(i), value: Math.sin(i / 50) })) }],
    ['scatter 1k', { chart_type: 'scatter', data: Array.from({ length: 1000 }, (_, i) => ({ x: Math.sin(i) * i, y: Math.cos(i) * i })) }],
    ['line 10k', { chart_type: 'line', data: Array.from({ length: 10_000 }, (_, i) => ({ label: day(i), value: Math.sin(i / 500) })) }],
    ['area 10k', { chart_type: 'area', data: Array.from({ length: 10_000 }, (_, i) => ({ label: `p${i}`, value: Math.abs(Math.sin(i / 500)) })) }],
    ['scatter 10k', { chart_type: 'scatter', data: Array.from({ length: 10_000 }, (_, i) => ({ x: Math.sin(i) * i, y: Math.cos(i) * i })) }],
    ['heatmap 10k', { chart_type: 'heatmap', data: Array.from({ length: 10_000 }, (_, i) => ({ x: i % 100, y: Math.floor(i / 100), value: Math.sin(i) })) }],
    ['histogram 100k', { chart_type: 'histogram', data: Array.from({ length: 100_000 }, (_, i) => ({ value: Math.sin(i) * Math.cos(i / 3) })) }],
  ]

  it.each(large)('renders %s points as SVG and PNG', async (name, body) => {
    const chart = input({ ...body, config: { title: name } })
    const svg = await renderChart(chart, 'svg')
    const png = await renderChart(chart, 'png')
    expect(svgTexts(svg.text ?? '')).toContain(name)
    expect(svg.dataPoints).toBe(chart.data.length)
    expect(png.bytes.subarray(0, 4).toString('latin1')).toBe('\x89PNG')
    console.log(
      `${name}: svg ${svg.renderTimeMs} ms (${Math.round(svg.bytes.length / 1024)} KiB), png ${png.renderTimeMs} ms (${Math.round(png.bytes.length / 1024)} KiB)`,
    )
  })
})
