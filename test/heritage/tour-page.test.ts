import type { Browser } from 'playwright-core'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { chromiumPath } from '../support/chromium.js'
import { triangleGlb } from './gltf-fixtures.js'
import { multipart } from './multipart.js'

const BASE = '/v1/heritage'
const WAIT_MS = 20_000

/** The little of <model-viewer> and the DOM the in-page function uses. */
interface PageGlobals {
  document: {
    querySelector(selector: string): { loaded: boolean; modelIsVisible: boolean; toDataURL(type?: string): string } | null
    createElement(tag: 'canvas'): {
      width: number
      height: number
      getContext(kind: '2d'): {
        drawImage(image: unknown, x: number, y: number): void
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray }
      }
    }
  }
  Image: new () => { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> }
}

describe('tour page in headless Chromium', () => {
  let t: TestTessera
  let browser: Browser
  beforeAll(async () => {
    t = await build({ services: ['heritage'], listen: true })
    // WebGL without a GPU: Chromium's software renderer, which it only enables when asked.
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--enable-unsafe-swiftshader',
        '--use-angle=swiftshader',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      timeout: 30_000,
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  it("draws the tour's model with <model-viewer>, loading nothing from elsewhere", async () => {
    const artifact = (
      await t.app.inject({ method: 'POST', url: `${BASE}/artifacts`, headers: t.auth, payload: { title: 'Terracotta shard', culture: 'Test' } })
    ).json()
    const up = await t.app.inject({
      method: 'POST',
      url: `${BASE}/artifacts/${artifact.id}/models`,
      ...multipart([{ name: 'file', filename: 'shard.glb', bytes: triangleGlb() }], t.auth),
    })
    expect(up.statusCode, up.body).toBe(201)
    const tour = (
      await t.app.inject({
        method: 'POST',
        url: `${BASE}/tours`,
        headers: t.auth,
        payload: {
          name: 'Shard',
          type: 'web',
          artifacts: [artifact.id],
          scenes: [{ artifactId: artifact.id, narration: 'A fragment.', hotspots: [{ label: 'Edge', position: { x: 0.25, y: 0, z: 0 } }] }],
        },
      })
    ).json()

    const context = await browser.newContext({ extraHTTPHeaders: t.auth, viewport: { width: 800, height: 700 } })
    try {
      const page = await context.newPage()
      const requests: string[] = []
      page.on('request', (request) => requests.push(request.url()))
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))
      const res = await page.goto(`${t.url}${tour.url}`)
      expect(res?.status()).toBe(200)
      await page.waitForFunction(
        () => {
          const viewer = (globalThis as unknown as PageGlobals).document.querySelector('model-viewer')
          return viewer?.loaded === true && viewer.modelIsVisible === true
        },
        undefined,
        { timeout: WAIT_MS },
      )
      // A snapshot of what the viewer drew: count pixels that are not the white background.
      const drawn = await page.evaluate(async () => {
        const g = globalThis as unknown as PageGlobals
        const viewer = g.document.querySelector('model-viewer')!
        const image = new g.Image()
        image.src = viewer.toDataURL('image/png')
        await image.decode()
        const canvas = g.document.createElement('canvas')
        canvas.width = image.naturalWidth
        canvas.height = image.naturalHeight
        const ctx = canvas.getContext('2d')
        ctx.drawImage(image, 0, 0)
        const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height)
        let coloured = 0
        let reddish = 0
        for (let i = 0; i < data.length; i += 4) {
          const [r, gr, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!]
          if (a > 0 && (r < 235 || gr < 235 || b < 235)) coloured++
          if (a > 0 && r > gr + 30 && gr > b) reddish++
        }
        return { coloured, reddish, total: data.length / 4 }
      })
      await page.screenshot({ path: process.env.TESSERA_TOUR_SCREENSHOT ?? `${t.dataDir}/tour.png` })
      expect(errors).toEqual([])
      // The terracotta triangle covers a good part of the view, in its material's hue.
      expect(drawn.reddish / drawn.total).toBeGreaterThan(0.02)
      const origin = new URL(t.url!).origin
      expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([])
      expect(requests).toContain(`${origin}${up.json().url}`)
    } finally {
      await context.close()
    }
  }, 60_000)
})
