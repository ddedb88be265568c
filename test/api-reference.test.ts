import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from './support/chromium.js'
import { build, type TestTessera } from './helper.js'

// The REST reference at /docs, in a real browser: every running interface is listed, its
// operations are shown from its OpenAPI document, and nothing is loaded from elsewhere.
describe('the REST reference at /docs', () => {
  let t: TestTessera
  let browser: Browser
  beforeAll(async () => {
    t = await build({ listen: true, services: ['devices', 'pipelines'] })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await t.close()
  })

  it('lists each interface’s operations with their request examples, offline', async () => {
    const page = await browser.newPage()
    const foreign: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(t.url!) && !request.url().startsWith('data:')) foreign.push(request.url())
    })
    await page.goto(`${t.url}/docs?interface=devices`)
    await page.waitForSelector('.opblock', { timeout: 30_000 })
    const paths = await page.locator('.opblock-summary-path').allTextContents()
    expect(paths.map((p) => p.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/v1/aac/signal', '/v1/medical/alert', '/v1/quantum/circuit']))

    // An operation opens with an example body made from its schema.
    await page.locator('.opblock-post .opblock-summary', { hasText: '/v1/quantum/circuit' }).first().click()
    const example = await page.locator('.opblock-post .body-param__example, .opblock-post .microlight').first().textContent()
    expect(example).toContain('"qubits"')

    // The selector switches to the other interface.
    const options = await page.locator('.download-url-wrapper select option').allTextContents()
    expect(options).toEqual(['Tessera device gateway', 'Tessera data integration pipelines'])
    await page.selectOption('.download-url-wrapper select', { label: 'Tessera data integration pipelines' })
    await page.locator('.opblock-summary-path', { hasText: 'connectors' }).first().waitFor({ timeout: 30_000 })
    expect(foreign).toEqual([])
    await page.close()
  })

  it('serves only the reference’s own assets', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/docs/assets/swagger-ui.css' })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/docs/assets/package.json' })).statusCode).toBe(404)
    expect((await t.app.inject({ method: 'GET', url: '/docs/assets/..%2Fpackage.json' })).statusCode).toBe(404)
  })
})
