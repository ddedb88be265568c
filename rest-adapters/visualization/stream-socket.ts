import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Principal } from '../../platform/auth/scopes.js'
import { isTesseraError } from '../../platform/errors.js'
import type { RateLimiter } from '../../platform/rate-limit/rate-limiter.js'
import type { ChartTick, Viewer, VisualizationService } from '../../subgraphs/visualization/index.js'

/** Most chart subscriptions one socket may hold. */
export const MAX_SUBSCRIPTIONS = 100
/** Largest frame a client may send, bytes. */
export const MAX_FRAME_BYTES = 64 * 1024
/** Time a new socket has to authenticate, ms. */
export const AUTH_TIMEOUT_MS = 10_000
/** Bytes a client may leave unread before it misses ticks. */
export const MAX_BUFFERED_BYTES = 1024 * 1024
const HEARTBEAT_MS = 30_000

/** Close codes (4000–4999 are the application's). */
const CLOSE = { unauthorized: 4401, authTimeout: 4408, goingAway: 1001 } as const

/** What the stream socket needs. */
export interface StreamSocketOptions {
  domain: VisualizationService
  verify(credential: string): Promise<Principal | null>
  limiter: RateLimiter
  onError?: (error: unknown) => void
}

type ClientMessage = Record<string, unknown> & { type?: unknown }

// Every subscriber of one chart at one interval receives the same tick object: encode it
// once, to UTF-8 bytes too, rather than once per socket.
const encoded = new WeakMap<ChartTick, Buffer>()
const dataUpdate = (tick: ChartTick) => {
  let bytes = encoded.get(tick)
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify({ type: 'data_update', chart_id: tick.chartId, timestamp: tick.timestamp, data: tick.data, version: tick.version }))
    encoded.set(tick, bytes)
  }
  return bytes
}
const TEXT_FRAME = { binary: false } as const

/**
 * The chart stream's WebSocket protocol (rest-adapters/visualization/README.md): `auth`, then
 * `subscribe` / `unsubscribe` per chart, `data_update` at each subscription's interval. The
 * stream itself (timers, current data, events from other replicas) is the domain's.
 */
export function createStreamSocket(options: StreamSocketOptions) {
  const { domain } = options
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false })

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const address = request.socket.remoteAddress ?? 'unknown'
    let viewer: Viewer | null = null
    const subscriptions = new Map<string, () => void>()
    let alive = true
    // Messages are handled one at a time, so `subscribe` then `unsubscribe` end unsubscribed.
    let queue: Promise<void> = Promise.resolve()

    const send = (message: object) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message))
    }
    const fail = (code: string, message: string, extra: Record<string, unknown> = {}) => send({ type: 'error', code, message, ...extra })
    const refuse = (code: string, message: string, closeCode: number) => {
      fail(code, message)
      socket.close(closeCode, code)
    }
    const stopAll = () => {
      for (const stop of subscriptions.values()) stop()
      subscriptions.clear()
    }

    const authTimer = setTimeout(() => {
      if (!viewer) refuse('AUTH_TIMEOUT', `Send {"type":"auth","token":…} within ${AUTH_TIMEOUT_MS / 1000} s of connecting`, CLOSE.authTimeout)
    }, AUTH_TIMEOUT_MS)
    const heartbeat = setInterval(() => {
      if (!alive) return socket.terminate()
      alive = false
      socket.ping()
    }, HEARTBEAT_MS)
    socket.on('pong', () => (alive = true))
    socket.on('close', () => {
      clearTimeout(authTimer)
      clearInterval(heartbeat)
      stopAll()
    })
    socket.on('error', (error) => options.onError?.(error))

    async function authenticate(message: ClientMessage) {
      if (viewer) return fail('INVALID_MESSAGE', 'Already authenticated', { field: 'type' })
      const found = await domain.authenticate(message.token, options.verify)
      if (!found) {
        // Failed attempts count against the address, as on the REST interface.
        const failures = await options.limiter.failedAuthentication(address)
        const why = failures.allowed ? 'Invalid, expired or revoked token' : 'Too many failed authentications from this address'
        return refuse('AUTH_FAILED', why, CLOSE.unauthorized)
      }
      viewer = found
      clearTimeout(authTimer)
      send({ type: 'authenticated' })
    }

    async function subscribe(message: ClientMessage) {
      const chartId = message.chart_id
      const existing = typeof chartId === 'string' ? subscriptions.get(chartId) : undefined
      if (!existing && subscriptions.size >= MAX_SUBSCRIPTIONS) {
        return fail('TOO_MANY_SUBSCRIPTIONS', `At most ${MAX_SUBSCRIPTIONS} charts per connection`, { chart_id: chartId })
      }
      const id = chartId as string
      const { stop, intervalMs: interval } = await domain.watchChart(viewer, chartId, message.interval, {
        tick(tick) {
          // A client that does not read misses ticks instead of growing the server's memory.
          if (socket.readyState === socket.OPEN && socket.bufferedAmount < MAX_BUFFERED_BYTES) socket.send(dataUpdate(tick), TEXT_FRAME)
        },
        end(reason) {
          subscriptions.delete(id)
          if (reason === 'deleted') fail('CHART_DELETED', `Chart ${id} was deleted`, { chart_id: id })
        },
      })
      // Replacing a subscription (a new interval) ends the old one only once the new one runs.
      existing?.()
      subscriptions.set(id, stop)
      send({ type: 'subscribed', chart_id: id, interval })
    }

    async function handle(message: ClientMessage) {
      if (message.type !== 'auth' && !viewer) return refuse('AUTH_REQUIRED', 'Authenticate first: {"type":"auth","token":…}', CLOSE.unauthorized)
      switch (message.type) {
        case 'auth':
          return authenticate(message)
        case 'subscribe':
          return subscribe(message)
        case 'unsubscribe': {
          const chartId = message.chart_id
          if (typeof chartId !== 'string' || !subscriptions.has(chartId)) {
            return fail('INVALID_MESSAGE', 'Not subscribed to this chart', { field: 'chart_id', chart_id: chartId })
          }
          subscriptions.get(chartId)!()
          subscriptions.delete(chartId)
          return send({ type: 'unsubscribed', chart_id: chartId })
        }
        case 'ping':
          return send({ type: 'pong' })
        default:
          return fail('INVALID_MESSAGE', 'Unknown message type; use auth, subscribe, unsubscribe or ping', { field: 'type' })
      }
    }

    socket.on('message', (raw, isBinary) => {
      let message: ClientMessage
      try {
        const parsed: unknown = JSON.parse(isBinary ? '' : String(raw))
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TypeError('not an object')
        message = parsed as ClientMessage
      } catch {
        return fail('INVALID_MESSAGE', 'Each message must be a JSON object with a type', { field: 'type' })
      }
      queue = queue
        .then(() => handle(message))
        .catch((error: unknown) => {
          if (!isTesseraError(error)) {
            options.onError?.(error)
            return fail('SERVER_ERROR', 'Internal error')
          }
          const details = (error.details ?? {}) as { field?: string; issues?: Array<{ field: string }> }
          const field = details.field ?? details.issues?.[0]?.field
          const code = error.code === 'INVALID_REQUEST' ? 'INVALID_MESSAGE' : error.code
          fail(code, error.message, { ...(field ? { field } : {}), ...(typeof message.chart_id === 'string' ? { chart_id: message.chart_id } : {}) })
        })
    })
  })

  return {
    /** Takes over an HTTP upgrade to the stream path. */
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request))
    },
    /** Closes every socket (1001, going away). */
    close() {
      for (const client of wss.clients) client.close(CLOSE.goingAway, 'server shutting down')
      wss.close()
    },
  }
}
