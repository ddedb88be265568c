import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { guardedLookup, isBlockedAddress, type ResolveHost } from './address-guard.js'

/** The outcome of one HTTP attempt. */
export interface SendResult {
  /** 2xx only. */
  ok: boolean
  statusCode: number | null
  error: string | null
  /** The first bytes of the answer, for the delivery log. */
  responseBody: string | null
  durationMs: number
}

/** Options of one attempt. */
export interface SendOptions {
  url: string
  body: string
  headers: Record<string, string>
  /** The whole exchange — connect, send, first bytes of the answer — must end within this. */
  timeoutMs: number
  allowPrivate: boolean
  resolve?: ResolveHost
}

const RESPONSE_PREVIEW_BYTES = 1024

/**
 * POSTs a webhook once. Redirects are not followed (a 3xx is a failure: the receiver must
 * give its final URL); the connection goes only to an address that passed the SSRF check at
 * connect time; the exchange is bounded by `timeoutMs`.
 */
export function sendWebhook(options: SendOptions): Promise<SendResult> {
  const started = Date.now()
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Date.now() - started })
  return new Promise((resolve) => {
    let url: URL
    try {
      url = new URL(options.url)
    } catch {
      return resolve(done({ ok: false, statusCode: null, error: 'invalid URL', responseBody: null }))
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    // IP literals never reach `lookup`, so they are checked here.
    if (isIP(host) && !options.allowPrivate && isBlockedAddress(host)) {
      return resolve(done({ ok: false, statusCode: null, error: `${host} is not a public address`, responseBody: null }))
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null
    if (!client) return resolve(done({ ok: false, statusCode: null, error: 'not an http or https URL', responseBody: null }))
    let settled = false
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(done(r))
    }
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(options.body),
          'user-agent': 'Tessera-Webhooks/1.0',
          ...options.headers,
        },
        lookup: guardedLookup({ allowPrivate: options.allowPrivate, resolve: options.resolve }),
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0
        const chunks: Buffer[] = []
        let size = 0
        const close = () => {
          const preview = Buffer.concat(chunks).subarray(0, RESPONSE_PREVIEW_BYTES).toString('utf8')
          const ok = status >= 200 && status < 300
          const error = ok
            ? null
            : status >= 300 && status < 400
              ? `redirect not followed (${status}${response.headers.location ? ` to ${response.headers.location}` : ''})`
              : `HTTP ${status}`
          finish({ ok, statusCode: status, error, responseBody: preview || null })
          response.destroy()
        }
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_PREVIEW_BYTES) chunks.push(chunk)
          size += chunk.length
          if (size >= RESPONSE_PREVIEW_BYTES) close()
        })
        response.on('end', close)
        response.on('error', close)
      },
    )
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${options.timeoutMs} ms`))
    }, options.timeoutMs)
    request.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, statusCode: null, error: error.message, responseBody: null }))
    request.end(options.body)
  })
}
