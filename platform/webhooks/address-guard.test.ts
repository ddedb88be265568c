import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkWebhookUrl, isBlockedAddress, type ResolveHost } from './address-guard.js'
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs, retrySpanMs } from './retry-schedule.js'
import { sendWebhook } from './send-webhook.js'

describe('webhook address guard', () => {
  it('blocks private, loopback, link-local, metadata and reserved addresses, and lets public ones pass', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true)
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isBlockedAddress(ip), ip).toBe(false)
  })

  it('refuses URLs that resolve to blocked addresses unless the operator allows them', async () => {
    const resolve: ResolveHost = async (host) =>
      host === 'public.example'
        ? [{ address: '93.184.216.34', family: 4 }]
        : host === 'metadata.internal'
          ? [{ address: '169.254.169.254', family: 4 }]
          : Promise.reject(new Error('ENOTFOUND'))
    expect(await checkWebhookUrl('https://public.example/hook', { allowPrivate: false, resolve })).toBeNull()
    expect(await checkWebhookUrl('http://metadata.internal/latest', { allowPrivate: false, resolve })).toMatch(/169\.254\.169\.254/)
    expect(await checkWebhookUrl('http://nowhere.example/', { allowPrivate: false, resolve })).toMatch(/does not resolve/)
    expect(await checkWebhookUrl('http://[::1]:8080/', { allowPrivate: false, resolve })).toMatch(/::1/)
    expect(await checkWebhookUrl('http://127.0.0.1/', { allowPrivate: true, resolve })).toBeNull()
    expect(await checkWebhookUrl('file:///etc/passwd', { allowPrivate: true, resolve })).toMatch(/http or https/)
    expect(await checkWebhookUrl('http://u:p@public.example/', { allowPrivate: false, resolve })).toMatch(/credentials/)
  })

  describe('at delivery time', () => {
    let server: http.Server
    let port: number
    let hits = 0
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        hits++
        if (req.url === '/redirect') return res.writeHead(302, { location: 'http://127.0.0.1/elsewhere' }).end()
        if (req.url === '/slow') return
        res.writeHead(200).end('ok')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      port = (server.address() as AddressInfo).port
    })
    afterAll(async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    })

    it('re-checks the address it connects to: a host that now resolves to loopback is refused', async () => {
      // Public when the subscription was made, loopback now (DNS rebinding).
      const rebinding: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }]
      const before = hits
      const refused = await sendWebhook({
        url: `http://rebind.example:${port}/`,
        body: '{}',
        headers: {},
        timeoutMs: 1000,
        allowPrivate: false,
        resolve: rebinding,
      })
      expect(refused).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/not a public address/) })
      const literal = await sendWebhook({ url: `http://127.0.0.1:${port}/`, body: '{}', headers: {}, timeoutMs: 1000, allowPrivate: false })
      expect(literal.error).toMatch(/not a public address/)
      expect(hits).toBe(before)
      const allowed = await sendWebhook({
        url: `http://rebind.example:${port}/`,
        body: '{}',
        headers: {},
        timeoutMs: 1000,
        allowPrivate: true,
        resolve: rebinding,
      })
      expect(allowed).toMatchObject({ ok: true, statusCode: 200 })
    })

    it('does not follow redirects and bounds the exchange by its timeout', async () => {
      const redirect = await sendWebhook({ url: `http://127.0.0.1:${port}/redirect`, body: '{}', headers: {}, timeoutMs: 1000, allowPrivate: true })
      expect(redirect).toMatchObject({ ok: false, statusCode: 302, error: expect.stringMatching(/redirect not followed/) })
      const slow = await sendWebhook({ url: `http://127.0.0.1:${port}/slow`, body: '{}', headers: {}, timeoutMs: 200, allowPrivate: true })
      expect(slow).toMatchObject({ ok: false, error: 'timed out after 200 ms' })
      expect(slow.durationMs).toBeLessThan(1000)
    })
  })

  it('retries over about a day with jittered exponential delays', () => {
    const span = retrySpanMs(DEFAULT_RETRY_SCHEDULE)
    expect(span / 3600_000).toBeGreaterThan(20)
    expect(span / 3600_000).toBeLessThan(30)
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, () => 0.5)).toBe(60_000)
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 3, () => 0.5)).toBe(240_000)
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 3, () => 0)).toBe(192_000)
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 3, () => 1)).toBe(288_000)
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 20, () => 0.5)).toBe(DEFAULT_RETRY_SCHEDULE.maxDelayMs)
  })
})
