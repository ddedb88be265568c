// A load generator of the chart stream benchmark, forked by stream-bench.ts: it owns a share of
// the WebSocket subscribers, opens them when told (auth, then subscribe), counts what each one
// receives during the measurement window, and reports totals and histograms over IPC. Several
// of these share the sockets so that no single client event loop, busy parsing ten thousand
// frames a second, delays the arrivals it is timing.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import WebSocket from 'ws'
import { MsHistogram, type HistogramPairs } from './bench-stats.js'

/** One subscriber to open: its number in the whole run and the chart it watches. */
export interface ClientSpec {
  id: number
  chartId: string
}

/** What the benchmark tells a worker. */
export type WorkerControl =
  | {
      type: 'connect'
      /** ws://host:port/v1/visualization/stream */
      url: string
      token: string
      interval: number
      clients: ClientSpec[]
      /** Connections this worker opens at once. */
      concurrency: number
      /** Longest wait for each step of one connection (open, authenticated, subscribed). */
      stepTimeoutMs: number
      /** Pushed points carry labels `t<n>` with n at least this. */
      firstPushedIndex: number
    }
  | { type: 'measure'; windowMs: number }
  | { type: 'stop' }

/** How opening the worker's subscribers went. */
export interface ConnectReport {
  subscribed: number
  /** Why the others failed: reason → count. */
  failures: Record<string, number>
  /** Time from opening the socket to `subscribed`, per client. */
  subscribeMs: HistogramPairs
  /** Subscribers whose socket negotiated permessage-deflate (compressed frames cost the server CPU and memory). */
  deflate: number
  elapsedMs: number
}

/** What a worker's subscribers saw during the measurement window. */
export interface WindowReport {
  /** Subscribers measured (those that subscribed). */
  clients: number
  /** The window as this worker timed it, ms. */
  windowMs: number
  /** `data_update` frames received in the window. */
  received: number
  /** Gaps between a subscriber's consecutive frames over 1.5 × interval. */
  lateGaps: number
  /** Ticks lost in those gaps: round(gap / interval) − 1 each. */
  missedTicks: number
  /** Gaps under 0.5 × interval: frames arriving in bursts. */
  burstGaps: number
  /** Subscribers that received no frame in the window. */
  silentClients: number
  /** Subscribers that saw at least one pushed point. */
  sawPushed: number
  /** Gaps between a subscriber's consecutive frames, both inside the window. */
  gaps: HistogramPairs
  /** Receipt time − the frame's `timestamp`. */
  delivery: HistogramPairs
  /** `error` frames and socket errors since subscribing, by code; sockets closed since, by close code. */
  errors: Record<string, number>
  closes: Record<string, number>
  /** Frames that were neither `data_update` nor parseable, or named another chart. */
  unexpectedFrames: number
  rssPeak: number
  rssFinal: number
  /** This process's CPU time over the window, ms, and its event-loop delay. */
  cpuMs: number
  loopDelayP99Ms: number
  loopDelayMaxMs: number
}

/** What a worker tells the benchmark. */
export type WorkerMessage =
  { type: 'ready' } | { type: 'failed'; message: string } | ({ type: 'connected' } & ConnectReport) | ({ type: 'window' } & WindowReport)

/** One open subscriber and what it has seen. */
interface Client {
  spec: ClientSpec
  socket: WebSocket
  /** performance.now() of the last `data_update`; -Infinity before the first. */
  last: number
  /** `data_update` frames in the current window. */
  received: number
  sawPushed: boolean
  /** Close code, once the socket closed after subscribing. */
  closeCode?: number
}

/** The measurement under way: its bounds and running totals. */
interface Measurement {
  start: number
  end: number
  interval: number
  received: number
  lateGaps: number
  missedTicks: number
  burstGaps: number
  gaps: MsHistogram
  delivery: MsHistogram
  unexpectedFrames: number
}

const RSS_SAMPLE_MS = 1000

const clients: Client[] = []
/** `error` frames and socket errors after subscribing, by code. */
const liveErrors: Record<string, number> = {}
let measurement: Measurement | undefined
let firstPushedIndex = Number.POSITIVE_INFINITY
let stopping = false
let rssPeak = process.memoryUsage().rss

function send(message: WorkerMessage, then: () => void = () => {}) {
  if (!process.send) throw new Error('stream-client-worker.ts is started by test/bench/stream-bench.ts, not directly')
  process.send(message, then)
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1
}

// --- Opening subscribers -----------------------------------------------------------------------

type ConnectOptions = Extract<WorkerControl, { type: 'connect' }>

/**
 * Opens one subscriber: connect, `auth`, wait for `authenticated`, `subscribe`, wait for
 * `subscribed`. Each step has `stepTimeoutMs`; on any failure the socket is dropped and the
 * promise rejects with a short reason (the protocol's error code where there is one).
 */
function openClient(spec: ClientSpec, options: ConnectOptions): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(options.url, { handshakeTimeout: options.stepTimeoutMs })
    const client: Client = { spec, socket, last: Number.NEGATIVE_INFINITY, received: 0, sawPushed: false }
    let phase: 'open' | 'auth' | 'subscribe' | 'live' | 'failed' = 'open'
    let timer = setTimeout(() => fail('timeout waiting for the socket to open'), options.stepTimeoutMs)
    const step = (next: 'auth' | 'subscribe' | 'live') => {
      phase = next
      clearTimeout(timer)
      if (next !== 'live') timer = setTimeout(() => fail(`timeout waiting for ${next === 'auth' ? 'authenticated' : 'subscribed'}`), options.stepTimeoutMs)
    }
    const fail = (reason: string) => {
      if (phase === 'live' || phase === 'failed') return
      phase = 'failed'
      clearTimeout(timer)
      socket.terminate()
      reject(new Error(reason))
    }
    socket.on('error', (error) => {
      if (phase === 'live') bump(liveErrors, 'socket error')
      else fail(`socket error: ${error.message.slice(0, 80)}`)
    })
    socket.on('close', (code) => {
      if (phase === 'live') client.closeCode = code
      else fail(`closed with ${code} before subscribed`)
    })
    socket.on('open', () => {
      if (phase !== 'open') return
      step('auth')
      socket.send(JSON.stringify({ type: 'auth', token: options.token }))
    })
    socket.on('message', (raw: WebSocket.RawData) => {
      const now = performance.now()
      if (phase === 'failed') return
      const frame = parseFrame(raw)
      if (phase === 'live') return onLiveFrame(client, frame, now)
      if (frame?.type === 'error') return fail(`error ${String(frame.code)} while waiting in step ${phase}`)
      if (phase === 'auth' && frame?.type === 'authenticated') {
        step('subscribe')
        socket.send(JSON.stringify({ type: 'subscribe', chart_id: spec.chartId, interval: options.interval }))
      } else if (phase === 'subscribe' && frame?.type === 'subscribed' && frame.chart_id === spec.chartId) {
        step('live')
        resolve(client)
      }
    })
  })
}

/**
 * Opens every subscriber, at most `concurrency` at a time: each runner takes the next spec
 * until none is left, so the loop ends after exactly one attempt per spec.
 */
async function connectAll(options: ConnectOptions): Promise<ConnectReport> {
  const started = performance.now()
  const failures: Record<string, number> = {}
  const subscribeMs = new MsHistogram()
  let next = 0
  const runner = async () => {
    while (next < options.clients.length && !stopping) {
      const spec = options.clients[next++]!
      const opened = performance.now()
      try {
        clients.push(await openClient(spec, options))
        subscribeMs.add(performance.now() - opened)
      } catch (error) {
        bump(failures, error instanceof Error ? error.message : String(error))
      }
    }
  }
  const runners = Math.max(1, Math.min(options.concurrency, options.clients.length))
  await Promise.all(Array.from({ length: runners }, runner))
  const deflate = clients.filter((c) => c.socket.extensions.includes('permessage-deflate')).length
  return { subscribed: clients.length, failures, subscribeMs: subscribeMs.pairs(), deflate, elapsedMs: performance.now() - started }
}

// --- Counting frames ---------------------------------------------------------------------------

type Frame = Record<string, unknown> & { type?: unknown }

function parseFrame(raw: WebSocket.RawData): Frame | undefined {
  try {
    const bytes = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw)
    const value: unknown = JSON.parse(bytes.toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Frame) : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a `data_update`'s items hold a point the benchmark pushed. The whole list is looked
 * at, not only its end: the protocol does not say appended points come last. A subscriber
 * stops looking once it has seen one.
 */
function holdsPushedPoint(data: unknown): boolean {
  if (!Array.isArray(data)) return false
  return data.some((item: unknown) => {
    const label = (item as { label?: unknown } | null)?.label
    if (typeof label !== 'string' || !label.startsWith('t')) return false
    const index = Number(label.slice(1))
    return Number.isInteger(index) && index >= firstPushedIndex
  })
}

const inWindow = (m: Measurement | undefined, now: number): m is Measurement => m !== undefined && now >= m.start && now <= m.end

function onLiveFrame(client: Client, frame: Frame | undefined, now: number) {
  if (frame?.type === 'data_update' && frame.chart_id === client.spec.chartId) return onDataUpdate(client, frame, now)
  if (frame?.type === 'error') bump(liveErrors, String(frame.code))
  else if (inWindow(measurement, now)) measurement.unexpectedFrames++
}

/**
 * Counts one `data_update`. The gap to the subscriber's previous frame decides lateness; a
 * previous frame from before the window counts from one interval before the window opened at
 * most, so a stall that began earlier is charged only for the ticks due inside the window.
 */
function onDataUpdate(client: Client, frame: Frame, now: number) {
  if (!client.sawPushed && holdsPushedPoint(frame.data)) client.sawPushed = true
  const m = measurement
  if (inWindow(m, now)) {
    chargeGap(m, now - Math.max(client.last, m.start - m.interval))
    if (client.last >= m.start) m.gaps.add(now - client.last)
    const sent = typeof frame.timestamp === 'string' ? Date.parse(frame.timestamp) : Number.NaN
    if (Number.isFinite(sent)) m.delivery.add(Date.now() - sent)
    m.received++
    client.received++
  }
  client.last = now
}

/** Adds a gap's late or missed ticks (over 1.5 intervals) or its burst (under half of one). */
function chargeGap(m: Measurement, gap: number) {
  if (gap > 1.5 * m.interval) {
    m.lateGaps++
    m.missedTicks += Math.round(gap / m.interval) - 1
  } else if (gap < 0.5 * m.interval) {
    m.burstGaps++
  }
}

// --- Measuring -----------------------------------------------------------------------------------

/**
 * Opens the window now and closes it after `windowMs` with the worker's own timer, then sends
 * the report. At the close, each subscriber's silence since its last frame counts like a gap
 * ending there, so one that stopped receiving is charged for the ticks it never got.
 */
function measure(windowMs: number, interval: number) {
  const start = performance.now()
  const cpu = process.cpuUsage()
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  for (const client of clients) client.received = 0
  const m: Measurement = {
    start,
    end: start + windowMs,
    interval,
    received: 0,
    lateGaps: 0,
    missedTicks: 0,
    burstGaps: 0,
    gaps: new MsHistogram(),
    delivery: new MsHistogram(),
    unexpectedFrames: 0,
  }
  measurement = m
  setTimeout(() => {
    delay.disable()
    for (const client of clients) {
      const silence = m.end - Math.max(client.last, m.start - m.interval)
      if (silence > 1.5 * m.interval) chargeGap(m, silence)
    }
    const usedCpu = process.cpuUsage(cpu)
    // The delay histogram counts nanoseconds.
    send({
      type: 'window',
      ...windowReport(m, performance.now() - start),
      cpuMs: (usedCpu.user + usedCpu.system) / 1000,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
      loopDelayMaxMs: delay.max / 1e6,
    })
  }, windowMs)
}

/** The report of a closed window, all but this process's CPU and event-loop figures. */
function windowReport(m: Measurement, windowMs: number): Omit<WindowReport, 'cpuMs' | 'loopDelayP99Ms' | 'loopDelayMaxMs'> {
  const closes: Record<string, number> = {}
  for (const client of clients) if (client.closeCode !== undefined) bump(closes, String(client.closeCode))
  const rssFinal = sampleRss()
  return {
    clients: clients.length,
    windowMs,
    received: m.received,
    lateGaps: m.lateGaps,
    missedTicks: m.missedTicks,
    burstGaps: m.burstGaps,
    silentClients: clients.filter((c) => c.received === 0).length,
    sawPushed: clients.filter((c) => c.sawPushed).length,
    gaps: m.gaps.pairs(),
    delivery: m.delivery.pairs(),
    errors: { ...liveErrors },
    closes,
    unexpectedFrames: m.unexpectedFrames,
    rssPeak,
    rssFinal,
  }
}

function sampleRss(): number {
  const { rss } = process.memoryUsage()
  if (rss > rssPeak) rssPeak = rss
  return rss
}

// --- Lifecycle -----------------------------------------------------------------------------------

// The parent owns the lifecycle: 'stop' over IPC, SIGTERM as its fallback, a closed channel
// when it died without cleaning up. SIGINT (Ctrl-C reaches the whole process group) is left to
// the parent. Sockets are dropped rather than closed politely: the server is about to go too.
function stop() {
  if (stopping) return
  stopping = true
  for (const client of clients) client.socket.terminate()
  process.exit(0)
}

let interval = 0
process.on('message', (message: WorkerControl) => {
  if (message.type === 'stop') return stop()
  if (message.type === 'measure') return measure(message.windowMs, interval)
  if (message.type === 'connect') {
    interval = message.interval
    firstPushedIndex = message.firstPushedIndex
    connectAll(message)
      .then((report) => send({ type: 'connected', ...report }))
      .catch((error: unknown) => send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }))
  }
})
process.on('disconnect', stop)
process.on('SIGTERM', stop)
process.on('SIGINT', () => {})
setInterval(sampleRss, RSS_SAMPLE_MS).unref()
send({ type: 'ready' })
