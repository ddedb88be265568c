import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { launchChromium } from '../support/chromium.js'
import { build, type TestTessera } from '../helper.js'

// GraphiQL at /graphql, in a real browser: it loads nothing from elsewhere, reads the schema,
// and runs an operation with the credential typed into its headers editor.
describe('the GraphiQL explorer at /graphql', () => {
  let t: TestTessera
  let browser: Browser
  beforeAll(async () => {
    t = await build({ listen: true, services: ['devices'] })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await t.close()
  })

  /** Replaces the text of a visible editor (0: the operation, 1: the open tool, headers here) by typing. */
  const typeInto = async (page: Page, index: number, text: string) => {
    await page.locator('.graphiql-editor:not(.hidden) .monaco-editor').nth(index).click()
    await page.keyboard.press('Control+A')
    await page.keyboard.press('Delete')
    // insertText types without the editor's auto-closing of brackets and quotes.
    await page.keyboard.insertText(text)
  }

  it('loads offline, reads the schema and runs a query with the credential from its headers editor', async () => {
    const page = await browser.newPage()
    const foreign: string[] = []
    page.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith(t.url!) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url)
    })
    const introspected = page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('__schema'),
    )
    await page.goto(`${t.url}/graphql`)
    expect((await introspected).status()).toBe(200)
    expect(await page.title()).toBe('Tessera explorer')
    await page.waitForSelector('.graphiql-editor .monaco-editor', { timeout: 30_000 })

    await typeInto(page, 1, JSON.stringify({ Authorization: `Bearer ${t.apiKey}` }))
    await typeInto(page, 0, '{ circuitLimits { maxQubits } }')

    const answered = page.waitForResponse((r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('circuitLimits'))
    await page.getByRole('button', { name: /Execute query/ }).click()
    const response = await answered
    expect(response.request().headers().authorization).toBe(`Bearer ${t.apiKey}`)
    expect(await response.json()).toEqual({ data: { circuitLimits: { maxQubits: 16 } } })

    // A subscription runs over graphql-ws on the same path, with the same headers.
    await typeInto(page, 0, 'subscription { alertRaised(deviceId: "explorer-pump") { deviceId priority } }')
    await page.getByRole('button', { name: /Execute query/ }).click()
    const result = page.locator('.result-window')
    const raise = async () =>
      t.app.inject({ method: 'POST', url: '/v1/medical/alert', headers: t.auth, payload: { device_id: 'explorer-pump', priority: 'high' } })
    // The subscription starts asynchronously: raise until an event shows, a bounded number of times.
    for (let i = 0; i < 20 && !(await result.textContent())?.includes('explorer-pump'); i++) {
      await raise()
      await page.waitForTimeout(250)
    }
    const shown = (await result.textContent()) ?? ''
    expect(shown.replace(/\s+/g, ' ')).toMatch(/"alertRaised": \{ "deviceId": "explorer-pump", "priority": "HIGH" \}/)
    expect(foreign).toEqual([])
    await page.close()
  })
})
