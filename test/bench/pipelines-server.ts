// The server side of the pipelines benchmark: one whole Tessera process (all mode, embedded
// PGlite in the DATA_DIR the parent chose), forked by pipelines-bench.ts. It runs alone in its
// process so that /proc/<pid> shows the memory and CPU of Tessera and nothing else (no load
// generator, no verification, no PostgreSQL client of the bench). It reports its URL over IPC,
// then serves until the parent says stop.
import { setTimeout as sleep } from 'node:timers/promises'
import { createTesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import { closeOnRequest, reportStartFailure } from './bench-support.js'

/** What the server tells the benchmark. */
export type PipelinesServerMessage =
  | { type: 'ready'; url: string }
  | { type: 'failed'; message: string }
  | { type: 'collected'; ran: boolean; usage: NodeJS.MemoryUsage }
  | { type: 'memory'; atPeak: NodeJS.MemoryUsage; afterCollect: NodeJS.MemoryUsage; samples: number }

/**
 * What the benchmark tells the server: stop; collect garbage now and start watching memory
 * (answered with 'collected'); report what memory held at the highest RSS seen since, and after
 * another collection ('memory').
 */
export type PipelinesServerControl = { type: 'stop' } | { type: 'collect' } | { type: 'memory' }

function send(message: PipelinesServerMessage, then: () => void = () => {}) {
  if (!process.send) throw new Error('pipelines-server.ts is started by test/bench/pipelines-bench.ts, not directly')
  process.send(message, then)
}

// The parent sees RSS from /proc; only this process can say which part of it is V8's heap,
// external memory (array buffers, WebAssembly) or neither (native allocations of addons such
// as DuckDB), so it samples that itself, every 100 ms like the parent, and keeps the sample
// with the highest RSS.
let memoryAtPeak = process.memoryUsage()
let memorySamples = 0
let memoryTimer: NodeJS.Timeout | undefined
function watchMemory() {
  clearInterval(memoryTimer)
  memoryAtPeak = process.memoryUsage()
  memorySamples = 1
  memoryTimer = setInterval(() => {
    const now = process.memoryUsage()
    memorySamples++
    if (now.rss > memoryAtPeak.rss) memoryAtPeak = now
  }, 100).unref()
}

/**
 * Start-up leaves garbage whose collection time varies; collected before the run, the RSS the
 * parent reads next is the live process, and the run's growth is the run's own. Twice, with a
 * pause: the backing stores of dead array buffers (hundreds of MB after start-up) are freed
 * after the collection, on another thread, and stay in RSS until then. gc exists only when the
 * parent started this process with --expose-gc.
 */
async function collect() {
  globalThis.gc?.()
  await sleep(500)
  globalThis.gc?.()
  await sleep(200)
  watchMemory()
  send({ type: 'collected', ran: typeof globalThis.gc === 'function', usage: memoryAtPeak })
}

try {
  // The parent builds the environment (temp DATA_DIR, key, raised rate limit); use it as is.
  const env = process.env
  const tessera = await createTesseraProcess({ mode: { kind: 'all' }, config: loadPlatformConfig(env), env, announce: () => {}, logger: false })
  closeOnRequest(
    'pipelines bench server',
    () => tessera.close(),
    (message) => {
      const control = message as PipelinesServerControl
      if (control.type === 'collect') void collect()
      else if (control.type === 'memory') {
        // A collection after the run tells garbage (gone now) from memory the run left behind.
        clearInterval(memoryTimer)
        globalThis.gc?.()
        send({ type: 'memory', atPeak: memoryAtPeak, afterCollect: process.memoryUsage(), samples: memorySamples })
      }
    },
  )
  send({ type: 'ready', url: await tessera.listen() })
} catch (error) {
  reportStartFailure(error)
}
