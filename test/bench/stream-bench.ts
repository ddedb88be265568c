// `npm run bench:stream`: whether one Tessera process keeps a thousand live chart subscribers
// on schedule. The visualization stream (WebSocket /v1/visualization/stream) promises a
// data_update every `interval` ms per subscription, ticks skipped rather than sent late.
//   server   a whole Tessera process (all mode, embedded database, fresh DATA_DIR) in a child
//            (stream-server.ts), reporting its RSS, CPU and event-loop delay every second
//   charts   BENCH_STREAM_CHARTS line charts of 50 points (default 10), created through REST
//   clients  BENCH_STREAM_CLIENTS subscribers (default 1000), spread round-robin over the
//            charts, held by BENCH_STREAM_CLIENT_PROCS worker processes (default 2,
//            stream-client-worker.ts) so the client side has more than one event loop; they
//            connect BENCH_STREAM_CONNECT_BATCH at a time in all (default 50), each one auth →
//            authenticated → subscribe (BENCH_STREAM_INTERVAL_MS, default 100) → subscribed
//   window   BENCH_STREAM_SECONDS (default 30) once every subscriber is live. Meanwhile this
//            process appends one point to every chart each second (POST …/charts/{id}/data),
//            and the subscribers check that the new points reach them.
// A tick counts as late or missed when the gap between a subscriber's consecutive frames
// exceeds 1.5 intervals; such a gap loses round(gap / interval) − 1 ticks. Target: under 1% of
// the expected ticks (window / interval per subscriber).
//
// Everything listens on 127.0.0.1. The exit code says whether the run worked (every subscriber
// live to the end, every push accepted and seen), not whether the target was met.
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { BenchError, createJanitor, jsonApi, positiveInt, type JsonCall } from './bench-support.js'
import { MsHistogram, summarize } from './bench-stats.js'
import type { ClientSpec, ConnectReport, WindowReport, WorkerControl, WorkerMessage } from './stream-client-worker.js'
import type { ServerSample, StreamServerMessage } from './stream-server.js'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const SERVER = path.join(HERE, 'stream-server.ts')
const WORKER = path.join(HERE, 'stream-client-worker.ts')
// Keep in step with the `start` script, so the server runs as it does in production.
const TESSERA_NODE_FLAGS = ['--max-semi-space-size=64']
const STARTUP_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 15_000
const REQUEST_TIMEOUT_MS = 10_000
/** Longest wait for each step of one subscriber: socket open, authenticated, subscribed. */
const STEP_TIMEOUT_MS = 10_000
/** Time a worker may take beyond its window to report. */
const REPORT_GRACE_MS = 30_000
const INITIAL_POINTS = 50
const PUSH_EVERY_MS = 1000
// The protocol's bounds for `interval`.
const MIN_INTERVAL_MS = 100
const MAX_INTERVAL_MS = 3_600_000
const TARGET_LATE_PERCENT = 1
// Past these, a worker's own timing is suspect: arrivals wait for a busy loop, not the server.
const CLIENT_CPU_WARNING = 80
const CLIENT_LOOP_DELAY_SHARE = 0.5
const MB = 1024 * 1024

const janitor = createJanitor({ startupTimeoutMs: STARTUP_TIMEOUT_MS, stopTimeoutMs: STOP_TIMEOUT_MS })
const { tempDirs, cleanup } = janitor

/** The run's shape, from the environment. */
interface Settings {
  clients: number
  charts: number
  interval: number
  seconds: number
  procs: number
  connectBatch: number
}

function readSettings(): Settings {
  const interval = positiveInt('BENCH_STREAM_INTERVAL_MS', 100)
  if (interval < MIN_INTERVAL_MS || interval > MAX_INTERVAL_MS) {
    throw new BenchError(`BENCH_STREAM_INTERVAL_MS must be ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS} (the protocol's bounds), got ${interval}`)
  }
  const clients = positiveInt('BENCH_STREAM_CLIENTS', 1000)
  return {
    clients,
    charts: positiveInt('BENCH_STREAM_CHARTS', 10),
    interval,
    seconds: positiveInt('BENCH_STREAM_SECONDS', 30),
    // A worker without subscribers would only add a process.
    procs: Math.min(clients, positiveInt('BENCH_STREAM_CLIENT_PROCS', 2)),
    connectBatch: positiveInt('BENCH_STREAM_CONNECT_BATCH', 50),
  }
}

// --- Child processes -------------------------------------------------------------------------

/**
 * Resolves with the child's next message of `type`; rejects on a `failed` message, on the
 * child's exit, or after `timeoutMs`. Listen before sending the request it answers.
 */
function waitFor<M extends { type: string }, T extends M['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
  what: string,
): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new BenchError(`${what}: no answer within ${timeoutMs / 1000} s`)), timeoutMs)
    const finish = (error: Error | undefined, message?: Extract<M, { type: T }>) => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
      if (error) reject(error)
      else resolve(message!)
    }
    const onMessage = (message: M) => {
      if (message.type === type) finish(undefined, message as Extract<M, { type: T }>)
      else if (message.type === 'failed') finish(new BenchError(`${what}: ${(message as { message?: string }).message ?? 'failed'}`))
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      finish(new BenchError(`${what}: the process exited (code ${code}, signal ${signal})`))
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
}

type Phase = 'idle' | 'connect' | 'window' | 'after'

/** The server's one-second samples, each tagged with the bench's phase when it arrived. */
function watchServer(child: ChildProcess) {
  const samples: Array<ServerSample & { phase: Phase }> = []
  let phase: Phase = 'idle'
  child.on('message', (message: StreamServerMessage) => {
    if (message.type === 'sample') samples.push({ ...message, phase })
  })
  return {
    samples,
    enter(next: Phase) {
      phase = next
    },
  }
}

/** Starts the Tessera child on a fresh DATA_DIR with a known API key and an unthrottled rate limit. */
async function startServer(apiKey: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-stream-bench-'))
  tempDirs.push(dir)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: path.join(dir, 'data'),
    LOG_LEVEL: 'silent',
    TESSERA_API_KEY: apiKey,
    TESSERA_CLIENT_ID: 'stream-bench',
    TESSERA_CLIENT_SECRET: randomBytes(24).toString('hex'),
    TESSERA_SECRET_KEY: randomBytes(32).toString('hex'),
    // Chart creation and the pushes must never meet a 429.
    TESSERA_RATE_LIMIT_MAX: '1000000',
    TESSERA_SHUTDOWN_GRACE_MS: '5000',
    APOLLO_TELEMETRY_DISABLED: 'true',
  }
  // The child keeps its own embedded database: nothing may point it at a shared one.
  for (const name of ['DATABASE_URL', 'APOLLO_KEY', 'APOLLO_GRAPH_REF', 'APOLLO_GRAPH_ID']) delete env[name]
  const { child, ready } = await janitor.start<Extract<StreamServerMessage, { type: 'ready' }>>(SERVER, [], env, TESSERA_NODE_FLAGS)
  return { child, url: ready.url }
}

/** The soft limit of open files of a process, from /proc; NaN where it cannot be read. */
function openFilesLimit(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'))
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0]
    return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft)
  } catch {
    return Number.NaN
  }
}

// --- REST ------------------------------------------------------------------------------------

type Call = JsonCall

/** Creates `count` line charts of {@link INITIAL_POINTS} points `t0` … and returns their ids. */
async function createCharts(call: Call, count: number): Promise<string[]> {
  const data = Array.from({ length: INITIAL_POINTS }, (_, i) => ({ label: `t${i}`, value: i + 1 }))
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const created = await call('POST', '/v1/visualization/charts/render', { chart_type: 'line', data })
    const id = (created.json as { chart_id?: unknown } | undefined)?.chart_id
    if (created.status < 200 || created.status > 299 || typeof id !== 'string') {
      throw new BenchError(`creating chart ${i + 1} failed: HTTP ${created.status} ${created.text.slice(0, 500)}`)
    }
    ids.push(id)
  }
  return ids
}

/** What appending points during the window gave. */
interface PushReport {
  sent: number
  ok: number
  failures: Record<string, number>
  ms: number[]
}

/**
 * Appends point `t<n>` to every chart once a second, `rounds` times, on a fixed schedule from
 * `started` (a round that overruns delays the next, it does not double up).
 */
async function pushPoints(call: Call, chartIds: readonly string[], rounds: number, started: number): Promise<PushReport> {
  const report: PushReport = { sent: 0, ok: 0, failures: {}, ms: [] }
  for (let round = 0; round < rounds; round++) {
    await sleep(Math.max(0, started + round * PUSH_EVERY_MS - performance.now()))
    const index = INITIAL_POINTS + round
    await Promise.all(chartIds.map((id) => pushOne(call, id, index, report)))
  }
  return report
}

async function pushOne(call: Call, chartId: string, index: number, report: PushReport) {
  report.sent++
  const started = performance.now()
  try {
    const answer = await call('POST', `/v1/visualization/charts/${chartId}/data`, { data: [{ label: `t${index}`, value: index }] })
    if (answer.status >= 200 && answer.status <= 299) {
      report.ok++
      report.ms.push(performance.now() - started)
    } else {
      bump(report.failures, `HTTP ${answer.status}`)
    }
  } catch (error) {
    bump(report.failures, error instanceof Error ? error.name : String(error))
  }
}

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by
}

// --- Load generators -------------------------------------------------------------------------

/** Starts the worker processes; each says `ready` before it is given anything. */
async function startWorkers(count: number): Promise<ChildProcess[]> {
  const started = await Promise.all(Array.from({ length: count }, (_, i) => janitor.start(WORKER, [String(i)], { ...process.env })))
  return started.map((s) => s.child)
}

/**
 * Subscriber `i` watches chart `i mod charts`; each worker takes a contiguous block of
 * subscribers, so every worker holds subscribers of every chart.
 */
function assignClients(settings: Settings, chartIds: readonly string[]): ClientSpec[][] {
  const specs = Array.from({ length: settings.clients }, (_, id) => ({ id, chartId: chartIds[id % chartIds.length]! }))
  const share = Math.ceil(settings.clients / settings.procs)
  return Array.from({ length: settings.procs }, (_, w) => specs.slice(w * share, (w + 1) * share))
}

/** Has every worker open its subscribers; resolves with each worker's report. */
async function connectClients(workers: ChildProcess[], blocks: ClientSpec[][], settings: Settings, wsUrl: string, token: string): Promise<ConnectReport[]> {
  const concurrency = Math.max(1, Math.ceil(settings.connectBatch / workers.length))
  return Promise.all(
    workers.map((worker, w) => {
      const block = blocks[w] ?? []
      // Every connection step may take its whole timeout, a batch at a time.
      const timeoutMs = Math.ceil(block.length / concurrency) * 3 * STEP_TIMEOUT_MS + REPORT_GRACE_MS
      const answer = waitFor<WorkerMessage, 'connected'>(worker, 'connected', timeoutMs, `client worker ${w} connecting`)
      const control: WorkerControl = {
        type: 'connect',
        url: wsUrl,
        token,
        interval: settings.interval,
        clients: block,
        concurrency,
        stepTimeoutMs: STEP_TIMEOUT_MS,
        firstPushedIndex: INITIAL_POINTS,
      }
      worker.send(control)
      return answer
    }),
  )
}

/** Opens the window in every worker at once and resolves with their reports when it closes. */
function measureWindow(workers: ChildProcess[], windowMs: number): Promise<WindowReport[]> {
  return Promise.all(
    workers.map((worker, w) => {
      const answer = waitFor<WorkerMessage, 'window'>(worker, 'window', windowMs + REPORT_GRACE_MS, `client worker ${w} measuring`)
      worker.send({ type: 'measure', windowMs } satisfies WorkerControl)
      return answer
    }),
  )
}

// --- Figures ---------------------------------------------------------------------------------

/** The workers' window reports, added up. */
function combine(reports: readonly WindowReport[]) {
  const gaps = new MsHistogram()
  const delivery = new MsHistogram()
  const errors: Record<string, number> = {}
  const closes: Record<string, number> = {}
  const sum = (pick: (r: WindowReport) => number) => reports.reduce((total, r) => total + pick(r), 0)
  for (const r of reports) {
    gaps.merge(r.gaps)
    delivery.merge(r.delivery)
    for (const [code, n] of Object.entries(r.errors)) bump(errors, code, n)
    for (const [code, n] of Object.entries(r.closes)) bump(closes, code, n)
  }
  return {
    clients: sum((r) => r.clients),
    received: sum((r) => r.received),
    lateGaps: sum((r) => r.lateGaps),
    missedTicks: sum((r) => r.missedTicks),
    burstGaps: sum((r) => r.burstGaps),
    silentClients: sum((r) => r.silentClients),
    sawPushed: sum((r) => r.sawPushed),
    unexpectedFrames: sum((r) => r.unexpectedFrames),
    gaps,
    delivery,
    errors,
    closes,
  }
}

/** The server's samples reduced to what the report prints. */
function serverFigures(samples: ReadonlyArray<ServerSample & { phase: Phase }>) {
  const inPhase = (phase: Phase) => samples.filter((s) => s.phase === phase)
  const window = inPhase('window')
  const maxOf = (list: readonly ServerSample[], pick: (s: ServerSample) => number) => (list.length ? Math.max(...list.map(pick)) : Number.NaN)
  const cpuMs = window.reduce((total, s) => total + s.cpuMs, 0)
  const elapsedMs = window.reduce((total, s) => total + s.elapsedMs, 0)
  const idle = inPhase('idle')
  return {
    idleRss: idle[idle.length - 1]?.rss ?? Number.NaN,
    peakRss: maxOf(samples, (s) => s.rss),
    windowPeakRss: maxOf(window, (s) => s.rss),
    finalRss: (window[window.length - 1] ?? samples[samples.length - 1])?.rss ?? Number.NaN,
    windowCpuPercent: elapsedMs > 0 ? (cpuMs / elapsedMs) * 100 : Number.NaN,
    windowLoopDelayP99Ms: maxOf(window, (s) => s.loopDelayP99Ms),
    windowLoopDelayMaxMs: maxOf(window, (s) => s.loopDelayMaxMs),
    windowSamples: window.length,
  }
}

// --- Report ----------------------------------------------------------------------------------

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
const mb = (bytes: number) => fmt(bytes / MB, 0)
const thousands = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a')
const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, n]) => `${k} × ${n}`)
    .join(', ') || 'none'
const row = (name: string, value: string) => console.log(`  ${name.padEnd(40)}${value}`)

function printMachine(settings: Settings) {
  const cpus = os.cpus()
  console.log('Machine')
  console.log(`  node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()})`)
  console.log(`  ${cpus.length} CPU(s): ${cpus[0]?.model.trim() ?? 'unknown'}; ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM`)
  console.log(
    `  load average at start: ${os
      .loadavg()
      .map((l) => fmt(l, 2))
      .join(' ')}`,
  )
  console.log(
    `Run: ${thousands(settings.clients)} subscribers (BENCH_STREAM_CLIENTS) over ${settings.charts} charts (BENCH_STREAM_CHARTS), ` +
      `interval ${settings.interval} ms (BENCH_STREAM_INTERVAL_MS), ${settings.seconds} s window (BENCH_STREAM_SECONDS), ` +
      `${settings.procs} client process(es) (BENCH_STREAM_CLIENT_PROCS), ${settings.connectBatch} connections at a time (BENCH_STREAM_CONNECT_BATCH)`,
  )
}

function printConnect(reports: readonly ConnectReport[], settings: Settings, ms: number) {
  const subscribeMs = new MsHistogram()
  const failures: Record<string, number> = {}
  for (const r of reports) {
    subscribeMs.merge(r.subscribeMs)
    for (const [why, n] of Object.entries(r.failures)) bump(failures, why, n)
  }
  const subscribed = reports.reduce((total, r) => total + r.subscribed, 0)
  const deflate = reports.reduce((total, r) => total + r.deflate, 0)
  console.log(
    `  ${thousands(subscribed)} of ${thousands(settings.clients)} subscribed in ${fmt(ms / 1000)} s; ` +
      `open → subscribed p50 ${fmt(subscribeMs.percentile(50), 0)} ms, p99 ${fmt(subscribeMs.percentile(99), 0)} ms, max ${fmt(subscribeMs.max(), 0)} ms`,
  )
  console.log(`  permessage-deflate negotiated on ${thousands(deflate)} of ${thousands(subscribed)} sockets (ws offers it, as browsers do)`)
  if (subscribed < settings.clients) console.log(`  failed: ${counts(failures)}`)
}

interface Outcome {
  settings: Settings
  windowMs: number
  chartIds: string[]
  connect: ConnectReport[]
  window: WindowReport[]
  pushes: PushReport
  server: ReturnType<typeof serverFigures>
  serverOpenFiles: number
}

/** Prints the figures and returns the checks that failed (the run did not work as it should). */
function printReport(outcome: Outcome): string[] {
  const { settings, windowMs, window, pushes, server } = outcome
  const all = combine(window)
  const ticksPerClient = Math.floor(windowMs / settings.interval)
  const expected = all.clients * ticksPerClient
  const latePercent = expected > 0 ? (all.missedTicks / expected) * 100 : Number.NaN
  const pushMs = summarize(pushes.ms)
  console.log('\nResults')
  row('subscribers measured', `${thousands(all.clients)} of ${thousands(settings.clients)}`)
  row('charts', String(outcome.chartIds.length))
  row('interval', `${settings.interval} ms`)
  row('window', `${settings.seconds} s`)
  row('data_update frames received', thousands(all.received))
  row('expected', `${thousands(expected)} (${ticksPerClient} per subscriber)`)
  row('shortfall (expected − received)', thousands(expected - all.received))
  row('late or missed ticks', `${thousands(all.missedTicks)} in ${thousands(all.lateGaps)} late gaps = ${fmt(latePercent, 3)} %`)
  row('bursts (gap < 0.5 × interval)', thousands(all.burstGaps))
  row('subscribers with no frame in the window', thousands(all.silentClients))
  row('inter-arrival gap', `p50 ${fmt(all.gaps.percentile(50), 0)} ms, p99 ${fmt(all.gaps.percentile(99), 0)} ms, max ${fmt(all.gaps.max(), 0)} ms`)
  row(
    'receipt − frame timestamp',
    `p50 ${fmt(all.delivery.percentile(50), 0)} ms, p99 ${fmt(all.delivery.percentile(99), 0)} ms, max ${fmt(all.delivery.max(), 0)} ms`,
  )
  row('subscribers that saw a pushed point', `${thousands(all.sawPushed)} of ${thousands(all.clients)}`)
  row('pushes accepted', `${thousands(pushes.ok)} of ${thousands(pushes.sent)}; p50 ${fmt(pushMs.p50, 0)} ms, p99 ${fmt(pushMs.p99, 0)} ms`)
  row('error frames / socket errors', counts(all.errors))
  row('sockets closed after subscribing', counts(all.closes))
  row(
    'server RSS idle → peak → final',
    `${mb(server.idleRss)} → ${mb(server.peakRss)} → ${mb(server.finalRss)} MB (peak in window ${mb(server.windowPeakRss)} MB)`,
  )
  row('server CPU in window', `${fmt(server.windowCpuPercent, 0)} % of one core`)
  row('server event-loop delay in window', `worst second p99 ${fmt(server.windowLoopDelayP99Ms)} ms, max ${fmt(server.windowLoopDelayMaxMs)} ms`)
  window.forEach((r, w) => {
    row(
      `client process ${w} (${thousands(r.clients)} sockets)`,
      `RSS ${mb(r.rssFinal)} MB (peak ${mb(r.rssPeak)}), CPU ${fmt((r.cpuMs / r.windowMs) * 100, 0)} %, loop delay p99 ${fmt(r.loopDelayP99Ms)} ms, max ${fmt(r.loopDelayMaxMs)} ms`,
    )
  })
  row('bench process RSS', `${mb(process.memoryUsage().rss)} MB`)
  console.log('MB = MiB. Server figures are its own one-second samples (RSS = process.memoryUsage().rss); "late or missed" counts,')
  console.log("for every gap over 1.5 intervals between a subscriber's frames (the window's end counting as one), round(gap / interval) − 1.")
  console.log(`\ntarget late or missed < ${TARGET_LATE_PERCENT} %: ${latePercent < TARGET_LATE_PERCENT ? 'met' : 'NOT MET'} (${fmt(latePercent, 3)} %)`)
  printNotes(outcome)
  return checksOf(outcome, all)
}

/** Circumstances that make the figures say less than they seem to. */
function printNotes(outcome: Outcome) {
  const { settings, window } = outcome
  const notes: string[] = []
  window.forEach((r, w) => {
    const cpu = (r.cpuMs / r.windowMs) * 100
    if (cpu > CLIENT_CPU_WARNING || r.loopDelayP99Ms > CLIENT_LOOP_DELAY_SHARE * settings.interval) {
      notes.push(
        `client process ${w} was busy (CPU ${fmt(cpu, 0)} %, loop delay p99 ${fmt(r.loopDelayP99Ms)} ms): its own event loop may have delayed ` +
          "arrivals, so some lateness may be the client side's; raise BENCH_STREAM_CLIENT_PROCS if there are cores to spare.",
      )
    }
  })
  const cores = os.cpus().length
  if (settings.procs + 1 > cores) {
    notes.push(
      `the server and ${settings.procs} client process(es) share ${cores} core(s): they compete for CPU, so the server had less than a machine of its own.`,
    )
  }
  const load = os.loadavg()[0] ?? 0
  if (load > cores) notes.push(`the 1-minute load average is ${fmt(load, 2)} on ${cores} core(s): other work ran alongside; rerun on a quiet machine.`)
  if (outcome.serverOpenFiles < settings.clients + 256) {
    notes.push(`the server may open only ${outcome.serverOpenFiles} files (soft limit), close to the ${settings.clients} sockets it must hold.`)
  }
  if (outcome.server.windowSamples < settings.seconds - 2) {
    notes.push(
      `only ${outcome.server.windowSamples} server samples arrived in a ${settings.seconds} s window: the server's loop was too busy to report each second.`,
    )
  }
  if (notes.length === 0) return
  console.log('\nNotes')
  for (const note of notes) console.log(`  - ${note}`)
}

/** What went wrong with the run itself: subscribers lost, pushes refused or never seen. */
function checksOf(outcome: Outcome, all: ReturnType<typeof combine>): string[] {
  const checks: string[] = []
  if (all.clients < outcome.settings.clients) checks.push(`${outcome.settings.clients - all.clients} subscriber(s) never subscribed`)
  const closed = Object.values(all.closes).reduce((a, b) => a + b, 0)
  if (closed > 0) checks.push(`${closed} socket(s) closed during the run: ${counts(all.closes)}`)
  if (Object.keys(all.errors).length > 0) checks.push(`error frames or socket errors: ${counts(all.errors)}`)
  if (outcome.pushes.ok < outcome.pushes.sent) checks.push(`${outcome.pushes.sent - outcome.pushes.ok} push(es) refused: ${counts(outcome.pushes.failures)}`)
  if (all.sawPushed < all.clients) checks.push(`${all.clients - all.sawPushed} subscriber(s) never saw a pushed point`)
  if (all.unexpectedFrames > 0) checks.push(`${all.unexpectedFrames} frame(s) that were not data_update for the subscribed chart`)
  return checks
}

// --- Main ------------------------------------------------------------------------------------

async function main(): Promise<boolean> {
  const settings = readSettings()
  const windowMs = settings.seconds * 1000
  printMachine(settings)
  const benchStarted = performance.now()

  const apiKey = `tsr_bench_${randomBytes(24).toString('hex')}`
  console.log('\nStarting Tessera…')
  const { child: server, url } = await startServer(apiKey)
  const watch = watchServer(server)
  const serverOpenFiles = openFilesLimit(server.pid!)
  console.log(`  pid ${server.pid} listening at ${url}; open files limit ${serverOpenFiles}`)
  const call = jsonApi(url, `Bearer ${apiKey}`, REQUEST_TIMEOUT_MS)

  const creating = performance.now()
  const chartIds = await createCharts(call, settings.charts)
  console.log(`  ${chartIds.length} charts of ${INITIAL_POINTS} points created in ${fmt((performance.now() - creating) / 1000, 2)} s`)

  console.log(`Starting ${settings.procs} client process(es) and opening ${thousands(settings.clients)} subscribers…`)
  const workers = await startWorkers(settings.procs)
  watch.enter('connect')
  const connecting = performance.now()
  const wsUrl = `${url.replace(/^http/, 'ws')}/v1/visualization/stream`
  const connect = await connectClients(workers, assignClients(settings, chartIds), settings, wsUrl, apiKey)
  printConnect(connect, settings, performance.now() - connecting)
  if (connect.every((r) => r.subscribed === 0)) throw new BenchError('no subscriber could subscribe; nothing to measure')

  console.log(`Measuring for ${settings.seconds} s, one point pushed to every chart each second…`)
  watch.enter('window')
  const windowStarted = performance.now()
  const [window, pushes] = await Promise.all([measureWindow(workers, windowMs), pushPoints(call, chartIds, settings.seconds, windowStarted)])
  watch.enter('after')
  const outcome: Outcome = { settings, windowMs, chartIds, connect, window, pushes, server: serverFigures(watch.samples), serverOpenFiles }

  // Subscribers first, so the server's close does not also have to hang up on them.
  await Promise.all(workers.map((worker) => janitor.stop(worker)))
  const checks = printReport(outcome)
  if (checks.length) console.log(`\nThe run did not work as it should:\n  ${checks.join('\n  ')}`)
  console.log(`\nWhole bench: ${fmt((performance.now() - benchStarted) / 1000)} s`)
  return checks.length === 0
}

try {
  const worked = await main()
  await cleanup()
  if (!worked) process.exitCode = 1
} catch (error) {
  console.error(
    `\nBenchmark run failed: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  )
  await cleanup()
  process.exitCode = 1
}
