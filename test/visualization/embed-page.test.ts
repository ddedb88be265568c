import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { launchChromium } from '../support/chromium.js'

const BASE = '/v1/visualization'
const RED = { r: 0xd6, g: 0x27, b: 0x28 }
const WAIT_MS = 10_000
// The page subscribes at 1000 ms: an update shows within one tick plus a redraw.
const LIVE_WAIT_MS = 5_000

interface Rendered {
  chart_id: string
  embed_code: string
  version: number
}

interface EmbedState {
  version: number
  updates: number
}

/** The little of the DOM the in-page functions use (the project's types leave the DOM out on purpose). */
interface PageElement {
  textContent: string | null
  dataset: Record<string, string | undefined>
  style: { opacity: string }
  classList?: { contains(name: string): boolean }
  querySelector(selector: string): PageElement | null
}
interface PageCanvas {
  width: number
  height: number
  getContext(kind: '2d'): {
    drawImage(image: unknown, x: number, y: number): void
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray }
  }
}
/**
 * `globalThis` of the embed page as the functions run there see it: the page's own state
 * (`tesseraEmbed`), what the animation test records, and the DOM.
 */
interface PageGlobals {
  tesseraEmbed?: EmbedState
  addedFrames?: Array<{ opacity: string; version: string | undefined }>
  document: {
    getElementById(id: string): PageElement | null
    querySelectorAll(selector: string): ArrayLike<PageElement>
    createElement(tag: 'canvas'): PageCanvas
  }
  Image: new () => { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> }
  MutationObserver: new (callback: (records: Array<{ addedNodes: ArrayLike<unknown> }>) => void) => {
    observe(target: PageElement, options: { childList: boolean }): void
  }
  getComputedStyle(element: PageElement): { opacity: string }
}

/** Everything a page asked the network for, WebSockets included. */
function recordTraffic(page: Page): string[] {
  const urls: string[] = []
  page.on('request', (request) => urls.push(request.url()))
  page.on('websocket', (socket) => urls.push(socket.url()))
  return urls
}

/**
 * Serves `html` at `/` of another loopback origin — a site the embed code was pasted into.
 * Resolves to its URL and a function that stops it.
 */
async function hostSite(html: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((request, response) => {
    if (request.url !== '/') return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const hostPage = (embedCode: string) => `<!doctype html><html><head><title>Ward report</title></head><body><h1>Ward report</h1>${embedCode}</body></html>`

const chartText = (frame: Frame) => frame.locator('#chart svg').first().textContent({ timeout: WAIT_MS })

/** Waits until the page has drawn at least `version` and its drawing's text contains `text`. */
async function waitForDrawing(frame: Frame, version: number, text: string, timeout = LIVE_WAIT_MS) {
  await frame.waitForFunction(
    ([wanted, needle]) => {
      const { tesseraEmbed, document } = globalThis as unknown as PageGlobals
      const drawn = tesseraEmbed?.version ?? 0
      const frames = document.querySelectorAll('#chart > .frame')
      const newest = frames[frames.length - 1]
      return drawn >= wanted && Boolean(newest?.querySelector('svg')?.textContent?.includes(needle))
    },
    [version, text] as const,
    { timeout, polling: 50 },
  )
}

describe('the embed page in a browser', () => {
  let t: TestTessera
  let browser: Browser | undefined
  let origin: string
  let host: string

  beforeAll(async () => {
    t = await build({ services: ['visualization'], listen: true })
    origin = new URL(t.url!).origin
    host = new URL(t.url!).host
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close().catch(() => {})
    await t?.close()
  })

  // The Host header a browser would send, so the links in the response point at this server.
  const send = (method: 'POST' | 'PUT', url: string, payload: unknown) =>
    t.app.inject({ method, url, headers: { ...t.auth, host }, payload: payload as Record<string, unknown> })

  async function render(
    config: Record<string, unknown>,
    data = [
      { label: 'Alpha', value: 30 },
      { label: 'Beta', value: 55 },
      { label: 'Gamma', value: 42 },
      { label: 'Delta', value: 70 },
    ],
  ): Promise<Rendered> {
    const res = await send('POST', `${BASE}/charts/render`, { chart_type: 'bar', data, config, width: 480, height: 320 })
    expect(res.statusCode, res.body).toBe(201)
    return res.json()
  }

  const iframeSrc = (embedCode: string) => {
    const src = /<iframe src="([^"]+)"/.exec(embedCode)?.[1]
    expect(src).toBeDefined()
    return src!.replace(/&amp;/g, '&')
  }

  /** A fresh browser context per test: nothing cached or subscribed carries over. */
  async function withPage<T>(run: (page: Page, traffic: string[]) => Promise<T>): Promise<T> {
    const context: BrowserContext = await browser!.newContext({ viewport: { width: 800, height: 600 } })
    context.setDefaultTimeout(WAIT_MS)
    context.setDefaultNavigationTimeout(WAIT_MS)
    try {
      const page = await context.newPage()
      return await run(page, recordTraffic(page))
    } finally {
      await context.close().catch(() => {})
    }
  }

  /** The embed page inside the host page's iframe, once it has loaded (or failed to). */
  async function embeddedFrame(page: Page, chartId: string): Promise<Frame> {
    const element = await page.locator('iframe').elementHandle({ timeout: WAIT_MS })
    const frame = await element!.contentFrame()
    expect(frame).not.toBeNull()
    await frame!.waitForURL((url) => url.href !== 'about:blank', { waitUntil: 'load', timeout: WAIT_MS })
    // A refused frame shows Chromium's error page instead: say so rather than time out later.
    const url = frame!.url()
    expect(url, 'the iframe shows the embed page').toMatch(new RegExp(`^${origin}${BASE}/charts/${chartId}/embed\\?token=`))
    return frame!
  }

  const expectOnlyThisServer = (traffic: string[]) => {
    expect(traffic.length).toBeGreaterThan(0)
    const elsewhere = traffic.filter((url) => {
      const u = new URL(url)
      return u.host !== host || !['http:', 'ws:'].includes(u.protocol)
    })
    expect(elsewhere).toEqual([])
  }

  it('draws the chart from the pasted embed code, live, loading nothing from elsewhere', async () => {
    const chart = await render({ title: 'Ward occupancy', colors: ['#d62728'] })
    expect(chart.version).toBe(1)
    const src = iframeSrc(chart.embed_code)
    expect(src.startsWith(`${origin}${BASE}/charts/${chart.chart_id}/embed?token=`)).toBe(true)

    const site = await hostSite(hostPage(chart.embed_code))
    try {
      await withPage(async (page, traffic) => {
        await page.goto(site.url, { waitUntil: 'load', timeout: WAIT_MS })
        const embed = await embeddedFrame(page, chart.chart_id)
        await embed.waitForSelector('#chart svg', { timeout: WAIT_MS })
        await waitForDrawing(embed, 1, 'Delta', WAIT_MS)

        const text = await chartText(embed)
        for (const expected of ['Ward occupancy', 'Alpha', 'Beta', 'Gamma', 'Delta']) expect(text).toContain(expected)
        expect(await embed.evaluate(() => (globalThis as unknown as PageGlobals).tesseraEmbed?.version)).toBe(1)
        await embed.waitForFunction(() => (globalThis as unknown as PageGlobals).document.getElementById('status')?.dataset.state === 'live', undefined, {
          timeout: WAIT_MS,
        })
        expect(await embed.locator('#status').textContent()).toBe('live')

        // Pixels, not markup: the bars must really be painted, in the chart's colour.
        const png = await embed.locator('#chart').screenshot({ timeout: WAIT_MS })
        const pixels = await page.evaluate(
          async ({ base64, red }) => {
            const { document, Image } = globalThis as unknown as PageGlobals
            const image = new Image()
            image.src = `data:image/png;base64,${base64}`
            await image.decode()
            const canvas = document.createElement('canvas')
            canvas.width = image.naturalWidth
            canvas.height = image.naturalHeight
            const context = canvas.getContext('2d')
            context.drawImage(image, 0, 0)
            const { data } = context.getImageData(0, 0, canvas.width, canvas.height)
            let barColoured = 0
            const colours = new Set<number>()
            for (let i = 0; i < data.length; i += 4) {
              const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!]
              if (Math.abs(r - red.r) <= 12 && Math.abs(g - red.g) <= 12 && Math.abs(b - red.b) <= 12) barColoured++
              colours.add((r << 16) | (g << 8) | b)
            }
            return { width: canvas.width, height: canvas.height, barColoured, distinctColours: colours.size }
          },
          { base64: png.toString('base64'), red: RED },
        )
        expect(pixels.width).toBeGreaterThan(100)
        expect(pixels.height).toBeGreaterThan(100)
        expect(pixels.barColoured).toBeGreaterThan(2_000)
        expect(pixels.distinctColours).toBeGreaterThan(2)

        // A bar pushed to the chart reaches the open page through the stream.
        const pushed = await send('POST', `${BASE}/charts/${chart.chart_id}/data`, { data: [{ label: 'Zeta', value: 64 }], mode: 'append' })
        expect(pushed.statusCode, pushed.body).toBe(200)
        expect(pushed.json()).toMatchObject({ data_points: 5, version: 2 })
        await waitForDrawing(embed, 2, 'Zeta')
        expect(await embed.evaluate(() => (globalThis as unknown as PageGlobals).tesseraEmbed?.version)).toBe(2)
        const updated = await chartText(embed)
        for (const expected of ['Alpha', 'Delta', 'Zeta']) expect(updated).toContain(expected)

        // So does a new title.
        const retitled = await send('PUT', `${BASE}/charts/${chart.chart_id}`, { config: { title: 'Ward occupancy, east wing' } })
        expect(retitled.statusCode, retitled.body).toBe(200)
        expect(retitled.json().version).toBe(3)
        await waitForDrawing(embed, 3, 'Ward occupancy, east wing')
        expect(await embed.evaluate(() => (globalThis as unknown as PageGlobals).tesseraEmbed?.version)).toBe(3)
        expect(await embed.locator('#chart > .frame').count()).toBe(1)
        expect(await embed.locator('#status').textContent()).toBe('live')

        expect(traffic.some((url) => url.startsWith(`${origin}${BASE}/assets/vega.min.js`))).toBe(true)
        expect(traffic.some((url) => url.startsWith(`ws://${host}${BASE}/stream`))).toBe(true)
        expectOnlyThisServer(traffic.filter((url) => url !== site.url))
      })
    } finally {
      await site.stop()
    }
  })

  // A page without an http origin: embed code saved into a local HTML file, or written into a
  // fresh document (about:blank). Browsers match `frame-ancestors *` only against http(s)
  // ancestors, so a policy that names `*` alone refuses exactly these hosts.
  it('draws the chart from embed code in a local HTML file and in an about:blank document', async () => {
    const chart = await render({ title: 'Offline report', colors: ['#d62728'] })
    const folder = mkdtempSync(path.join(tmpdir(), 'tessera-embed-host-'))
    try {
      const file = path.join(folder, 'report.html')
      writeFileSync(file, hostPage(chart.embed_code))
      await withPage(async (page) => {
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: WAIT_MS })
        const embed = await embeddedFrame(page, chart.chart_id)
        await waitForDrawing(embed, 1, 'Offline report', WAIT_MS)
      })
      await withPage(async (page) => {
        await page.setContent(`<html><body>${chart.embed_code}</body></html>`, { timeout: WAIT_MS })
        const embed = await embeddedFrame(page, chart.chart_id)
        await waitForDrawing(embed, 1, 'Offline report', WAIT_MS)
      })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('serves the same live page when opened directly', async () => {
    const chart = await render({ title: 'Beds free', colors: ['#d62728'] })
    await withPage(async (page, traffic) => {
      const response = await page.goto(iframeSrc(chart.embed_code), { waitUntil: 'load', timeout: WAIT_MS })
      expect(response?.status()).toBe(200)
      expect(response?.headers()['content-type']).toMatch(/^text\/html/)
      expect(await page.title()).toBe('Beds free')
      const frame = page.mainFrame()
      await waitForDrawing(frame, 1, 'Beds free', WAIT_MS)
      const text = await chartText(frame)
      for (const expected of ['Alpha', 'Beta', 'Gamma', 'Delta']) expect(text).toContain(expected)
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).tesseraEmbed?.version)).toBe(1)
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.getElementById('status')?.dataset.state === 'live', undefined, {
        timeout: WAIT_MS,
      })
      expectOnlyThisServer(traffic)
    })
  })

  it('cross-fades an update of an animated chart and ends showing only the new drawing', async () => {
    const chart = await render({ title: 'Admissions', colors: ['#d62728'], animate: true })
    await withPage(async (page) => {
      await page.goto(iframeSrc(chart.embed_code), { waitUntil: 'load', timeout: WAIT_MS })
      const frame = page.mainFrame()
      await waitForDrawing(frame, 1, 'Delta', WAIT_MS)
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.getElementById('status')?.dataset.state === 'live', undefined, {
        timeout: WAIT_MS,
      })
      // How each new drawing enters: an animated one starts transparent, then fades in.
      await page.evaluate(() => {
        const page = globalThis as unknown as PageGlobals
        const added: NonNullable<PageGlobals['addedFrames']> = (page.addedFrames = [])
        new page.MutationObserver((mutations) => {
          for (const mutation of mutations) {
            for (const node of Array.from(mutation.addedNodes) as PageElement[]) {
              if (node.classList?.contains('frame')) added.push({ opacity: node.style.opacity, version: node.dataset.version })
            }
          }
        }).observe(page.document.getElementById('chart')!, { childList: true })
      })

      const pushed = await send('POST', `${BASE}/charts/${chart.chart_id}/data`, { data: [{ label: 'Zeta', value: 12 }], mode: 'append' })
      expect(pushed.statusCode, pushed.body).toBe(200)
      await waitForDrawing(frame, 2, 'Zeta')
      // The fade lasts 300 ms; the old drawing is removed when it ends.
      await page.waitForFunction(
        () => {
          const { document, getComputedStyle } = globalThis as unknown as PageGlobals
          const frames = document.querySelectorAll('#chart > .frame')
          return frames.length === 1 && frames[0]!.dataset.version === '2' && getComputedStyle(frames[0]!).opacity === '1'
        },
        undefined,
        { timeout: 2_000, polling: 50 },
      )

      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).addedFrames)).toEqual([{ opacity: '0', version: undefined }])
      const text = await chartText(frame)
      for (const expected of ['Admissions', 'Alpha', 'Zeta']) expect(text).toContain(expected)
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).tesseraEmbed?.version)).toBe(2)
    })
  })

  it('refuses a bad token with 401 in the standard error body, without serving the page', async () => {
    const chart = await render({ title: 'Secret' })
    const good = new URL(iframeSrc(chart.embed_code))
    const token = good.searchParams.get('token')!
    const other = await render({ title: 'Other' })
    const forged = [
      `${token.slice(0, -4)}AAAA`, // the right chart, a wrong signature
      `emb_${other.chart_id}.${token.split('.')[1]}`, // another chart's id with this chart's signature
      'not-a-token',
    ]
    await withPage(async (page) => {
      for (const bad of forged) {
        const url = `${origin}${BASE}/charts/${chart.chart_id}/embed?token=${encodeURIComponent(bad)}`
        const response = await page.goto(url, { timeout: WAIT_MS })
        expect(response?.status(), bad).toBe(401)
        expect(response?.headers()['content-type']).toMatch(/^application\/json/)
        const { error } = await response!.json()
        expect(error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.any(String), timestamp: expect.any(String), requestId: expect.any(String) })
        expect(await page.locator('#chart').count()).toBe(0)
        expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).tesseraEmbed)).toBeUndefined()
      }
    })
  })
})
