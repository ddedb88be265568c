// The server side of the chart stream benchmark: one whole Tessera process (all mode, embedded
// database in the DATA_DIR the parent chose), forked by stream-bench.ts. It runs alone in its
// process so that its memory and CPU are Tessera's only, and reports them every second over
// IPC: the parent cannot tell from outside how busy this event loop was, and the load
// generators run in other processes. It serves until the parent says stop.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createTesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import { closeOnRequest, reportStartFailure } from './bench-support.js'

/** One second of the server's life, as the server saw it. */
export interface ServerSample {
  /** process.memoryUsage().rss, bytes. */
  rss: number
  heapUsed: number
  /** CPU time (user + system, all threads) spent since the previous sample, ms. */
  cpuMs: number
  /** Wall time since the previous sample, ms. */
  elapsedMs: number
  /** Event-loop delay over that time: 99th percentile and maximum, ms. */
  loopDelayP99Ms: number
  loopDelayMaxMs: number
}

/** What the server tells the benchmark. */
export type StreamServerMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string } | ({ type: 'sample' } & ServerSample)

/** What the benchmark tells the server. */
export type StreamServerControl = { type: 'stop' }

const SAMPLE_MS = 1000

function send(message: StreamServerMessage, then: () => void = () => {}) {
  if (!process.send) throw new Error('stream-server.ts is started by test/bench/stream-bench.ts, not directly')
  process.send(message, then)
}

/**
 * Reports memory, CPU and event-loop delay every second. Unref'd: the samples must never keep
 * the process alive on their own.
 */
function reportEverySecond() {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  let cpu = process.cpuUsage()
  let at = performance.now()
  setInterval(() => {
    const usedCpu = process.cpuUsage(cpu)
    const now = performance.now()
    const { rss, heapUsed } = process.memoryUsage()
    // The histogram counts nanoseconds.
    const sample: ServerSample = {
      rss,
      heapUsed,
      cpuMs: (usedCpu.user + usedCpu.system) / 1000,
      elapsedMs: now - at,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
      loopDelayMaxMs: delay.max / 1e6,
    }
    cpu = process.cpuUsage()
    at = now
    delay.reset()
    if (process.connected) send({ type: 'sample', ...sample })
  }, SAMPLE_MS).unref()
}

try {
  // The parent builds the environment (temp DATA_DIR, key, raised rate limit); use it as is.
  const env = process.env
  const tessera = await createTesseraProcess({ mode: { kind: 'all' }, config: loadPlatformConfig(env), env, announce: () => {}, logger: false })
  closeOnRequest('stream bench server', () => tessera.close())
  const url = await tessera.listen()
  reportEverySecond()
  send({ type: 'ready', url })
} catch (error) {
  reportStartFailure(error)
}
