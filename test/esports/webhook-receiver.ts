import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request a test receiver got. */
export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders
  body: string
  json: { id: string; event: string; timestamp: string; data: Record<string, unknown>; signature: string }
}

/**
 * A local webhook receiver on a loopback port. `answer` decides each response: a status, or
 * 'hang' to keep the request open (until close).
 */
export async function startReceiver(answer: (n: number, hook: ReceivedWebhook) => number | 'hang' = () => 200) {
  const received: ReceivedWebhook[] = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const hook = { headers: req.headers, body, json: JSON.parse(body) as ReceivedWebhook['json'] }
      received.push(hook)
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve()
      const status = answer(received.length, hook)
      if (status === 'hang') return
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
    waitFor(count: number, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${received.length}/${count} webhooks after ${timeoutMs} ms`)), timeoutMs)
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) })
      })
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * Verifies a delivery the way the README tells receivers to: the payload's `signature`
 * (HMAC of "timestamp.data"), X-Tessera-Signature (HMAC of the raw body) and the Standard
 * Webhooks signature (HMAC of "id.timestamp.body", base64, key = the secret's bytes).
 */
export function verifyDelivery(hook: ReceivedWebhook, secret: string): boolean {
  const hex = (content: string) => createHmac('sha256', secret).update(content).digest('hex')
  const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
  const payloadOk = same(hook.json.signature, `sha256=${hex(`${hook.json.timestamp}.${JSON.stringify(hook.json.data)}`)}`)
  const rawOk = same(String(hook.headers['x-tessera-signature']), `sha256=${hex(hook.body)}`)
  const id = String(hook.headers['webhook-id'])
  const ts = String(hook.headers['webhook-timestamp'])
  const expected = createHmac('sha256', Buffer.from(secret)).update(`${id}.${ts}.${hook.body}`).digest('base64')
  const standardOk = String(hook.headers['webhook-signature'])
    .split(' ')
    .some((s) => same(s, `v1,${expected}`))
  const fresh = Math.abs(Date.now() / 1000 - Number(ts)) < 300
  return payloadOk && rawOk && standardOk && fresh && id === hook.json.id
}
