// `npm run bench`: the same read (one alert by id, same fields) measured three ways:
//   (a) Tessera's gateway, POST /graphql (Apollo Gateway calling the devices subgraph in-process)
//   (b) Tessera's REST adapter, GET /v1/medical/alert/<id>, on the same process
//   (c) a stock setup: @apollo/gateway + @apollo/server standalone, talking HTTP to the devices
//       subgraph served by a stock @apollo/server
//   (d) Tessera's gateway with its fast path off (TESSERA_GATEWAY_FAST_PATH=false), a second
//       Tessera process: Apollo's executor and result shaping for every operation
// and the chart type catalog (no database work) through Tessera's gateway with the fast path
// (e) on and (f) off, so the fast path's effect is measured before/after in the same run.
// Servers run in child processes (test/bench/servers.ts); autocannon runs here, so the load
// generator never competes with a server for its event loop. Everything listens on 127.0.0.1.
//
// BENCH_DURATION (seconds per target, default 10) and BENCH_CONNECTIONS (default 10) override
// the load. The exit code says whether the run worked, not whether the targets were met.
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { BenchError, benchBaseEnv, createBenchAlert, createJanitor, jsonApi, positiveInt, tesseraBenchEnv } from './bench-support.js'
import type { ServerMessage } from './servers.js'

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers.ts')
const WARMUP_SECONDS = 2
const STARTUP_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 10_000
const REQUEST_TIMEOUT_MS = 10_000
const FAILURE_SAMPLES = 5

const QUERY = 'query($id: ID!) { alert(id: $id) { id deviceId priority status raisedAt } }'
const CATALOG = '{ chartTypes { total items { id name category supportedFeatures dataFormat maxDataPoints } } }'
const TARGETS = { throughputAC: 3, latencyAB: 1.5 }

/** Stops the run with a message and exit code 1 (after cleanup). */
const janitor = createJanitor({ startupTimeoutMs: STARTUP_TIMEOUT_MS, stopTimeoutMs: STOP_TIMEOUT_MS })
const { children, tempDirs, cleanup } = janitor
type Ready = Extract<ServerMessage, { type: 'ready' }>
const startServer = (args: string[], env: NodeJS.ProcessEnv) => janitor.start<Ready>(SERVERS, args, env)

// --- Targets ---------------------------------------------------------------------------------

/** The fields of the read, as every target should report them. */
interface AlertView {
  id: string
  deviceId: string
  priority: string
  status: string
  raisedAt: number
}

type TargetKey = 'a' | 'b' | 'c' | 'd' | 'e' | 'f'

interface Target {
  key: TargetKey
  label: string
  origin: string
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
  /** The alert (or catalog) in the response, or why the response is wrong. */
  read(status: number, body: string): AlertView | CatalogView | string
}

/** What the catalog read must show: the same page everywhere. */
interface CatalogView {
  total: number
  ids: string
}

/** A POST of one GraphQL operation to `url`, as every GraphQL target sends it. */
function graphqlPost(key: TargetKey, label: string, url: string, auth: string, payload: object): Omit<Target, 'read'> {
  const { origin, pathname } = new URL(url)
  return {
    key,
    label,
    origin,
    method: 'POST',
    path: pathname,
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify(payload),
  }
}

function catalogTarget(key: 'e' | 'f', label: string, url: string, auth: string): Target {
  return {
    ...graphqlPost(key, label, url, auth, { query: CATALOG }),
    read(status, body) {
      if (status !== 200) return `HTTP ${status}`
      const parsed = parseJson(body) as { data?: { chartTypes?: { total?: unknown; items?: { id?: unknown }[] } }; errors?: unknown[] } | undefined
      if (!parsed) return 'body is not JSON'
      if (parsed.errors?.length) return 'GraphQL errors'
      const page = parsed.data?.chartTypes
      if (typeof page?.total !== 'number' || !page.items?.length) return 'no chart types in data'
      return { total: page.total, ids: page.items.map((i) => String(i.id)).join(',') }
    },
  }
}

function graphqlTarget(key: 'a' | 'c' | 'd', label: string, url: string, alertId: string, auth: string): Target {
  return {
    ...graphqlPost(key, label, url, auth, { query: QUERY, variables: { id: alertId } }),
    read(status, body) {
      if (status !== 200) return `HTTP ${status}`
      const parsed = parseJson(body) as { data?: { alert?: Record<string, unknown> | null }; errors?: unknown[] } | undefined
      if (!parsed) return 'body is not JSON'
      if (parsed.errors?.length) return 'GraphQL errors'
      const alert = parsed.data?.alert
      if (!alert || alert.id !== alertId) return 'no alert with the expected id in data'
      return view(alert.id, alert.deviceId, alert.priority, alert.status, alert.raisedAt)
    },
  }
}

function restTarget(origin: string, alertId: string, auth: string): Target {
  return {
    key: 'b',
    label: 'Tessera REST adapter',
    origin,
    method: 'GET',
    path: `/v1/medical/alert/${alertId}`,
    headers: { authorization: auth },
    read(status, body) {
      if (status !== 200) return `HTTP ${status}`
      const alert = parseJson(body) as Record<string, unknown> | undefined
      if (!alert) return 'body is not JSON'
      if (alert.alert_id !== alertId) return 'not the expected alert_id'
      return view(alert.alert_id, alert.device_id, alert.priority, alert.status, alert.raised_at)
    },
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// REST speaks lower-case enums and GraphQL upper-case; both give ISO timestamps.
function view(id: unknown, deviceId: unknown, priority: unknown, status: unknown, raisedAt: unknown): AlertView | string {
  if (typeof deviceId !== 'string' || typeof priority !== 'string' || typeof status !== 'string' || typeof raisedAt !== 'string') {
    return 'missing or mistyped fields'
  }
  return { id: String(id), deviceId, priority: priority.toLowerCase(), status: status.toLowerCase(), raisedAt: Date.parse(raisedAt) }
}

/** One request outside the load, checked in full, so a broken target stops the run early. */
async function probe(target: Target): Promise<AlertView | CatalogView> {
  const response = await fetch(target.origin + target.path, {
    method: target.method,
    headers: target.headers,
    body: target.body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  })
  const body = await response.text()
  const result = target.read(response.status, body)
  if (typeof result === 'string') throw new BenchError(`(${target.key}) ${target.label}: ${result}\n  ${body.slice(0, 500)}`)
  return result
}

// --- Load ------------------------------------------------------------------------------------

interface Measurement {
  requestsPerSecond: number
  p50: number
  p99: number
  responses: number
  failures: number
  failureSamples: string[]
  /** CPU time over wall time (seconds), in % of one core: the target's server processes, autocannon, and
   *  every other process on the machine (NaN where /proc is missing). */
  cpu: { servers: number[]; generator: number; other: number; wall: number }
  /** Server CPU milliseconds per response, all of the target's processes together: what a read
   *  costs, and less sensitive to a busy neighbour than req/s. */
  cpuPerRequest: number
}

// USER_HZ: /proc counts CPU time in ticks of 1/100 s on Linux.
const TICKS = 100

// utime + stime of a process in seconds, from /proc/<pid>/stat; NaN where there is no /proc.
function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields 14 and 15 of proc(5), counted from after the parenthesised command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS
  } catch {
    return Number.NaN
  }
}

// Busy CPU seconds of the whole machine (all cores), from /proc/stat; NaN where it is missing.
function machineBusySeconds(): number {
  try {
    const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) / TICKS
  } catch {
    return Number.NaN
  }
}

interface CpuSnapshot {
  at: bigint
  machine: number
  generator: NodeJS.CpuUsage
  children: Map<ChildProcess, number>
}

function cpuSnapshot(): CpuSnapshot {
  return {
    at: process.hrtime.bigint(),
    machine: machineBusySeconds(),
    generator: process.cpuUsage(),
    children: new Map([...children].map((c) => [c, processCpuSeconds(c.pid)])),
  }
}

// What each party used between two snapshots, so a busy neighbour (another test run on the
// same cores) shows up next to the figures it distorts.
function cpuSince(before: CpuSnapshot, servers: ChildProcess[]): Measurement['cpu'] {
  const after = cpuSnapshot()
  const wall = Number(after.at - before.at) / 1e9
  const percent = (seconds: number) => (seconds / wall) * 100
  const used = (c: ChildProcess) => (after.children.get(c) ?? Number.NaN) - (before.children.get(c) ?? Number.NaN)
  const delta = process.cpuUsage(before.generator)
  const generator = (delta.user + delta.system) / 1e6
  const ours = [...before.children.keys()].reduce((sum, c) => sum + used(c), generator)
  return {
    servers: servers.map((c) => percent(used(c))),
    generator: percent(generator),
    other: Math.max(0, percent(after.machine - before.machine - ours)),
    wall,
  }
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

function load(target: Target, seconds: number, connections: number, servers: ChildProcess[]): Promise<Measurement> {
  const latencies: number[] = []
  const failureSamples: string[] = []
  let failures = 0
  const sample = (text: string) => {
    if (failureSamples.length < FAILURE_SAMPLES) failureSamples.push(text)
  }
  const before = cpuSnapshot()

  return new Promise((resolve, reject) => {
    const run = autocannon(
      {
        url: target.origin,
        connections,
        duration: seconds,
        timeout: REQUEST_TIMEOUT_MS / 1000,
        requests: [
          {
            method: target.method,
            path: target.path,
            headers: target.headers,
            body: target.body,
            onResponse(status, body) {
              const result = target.read(status, body)
              if (typeof result !== 'string') return
              failures++
              sample(`${result}: ${body.slice(0, 300)}`)
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error)
        const cpu = cpuSince(before, servers)
        const serverSeconds = (cpu.servers.reduce((sum, c) => sum + c, 0) / 100) * cpu.wall
        // Socket errors and timeouts never reach onResponse; they are failures too.
        failures += result.errors
        const sorted = Float64Array.from(latencies).sort()
        resolve({
          requestsPerSecond: latencies.length / result.duration,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          responses: latencies.length,
          failures,
          failureSamples,
          cpu,
          cpuPerRequest: (serverSeconds / latencies.length) * 1000,
        })
      },
    )
    // Our own latency record (float ms per response) rather than autocannon's histogram, which
    // keeps whole milliseconds: too coarse for a p50 ratio when a read takes a few ms.
    run.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime))
    run.on('reqError', (error: Error) => sample(`socket: ${error.message}`))
  })
}

// --- Report ----------------------------------------------------------------------------------

const OTHER_CPU_WARNING = 25

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
const pad = (s: string, n: number) => s.padEnd(n)
const lpad = (s: string, n: number) => s.padStart(n)

function printMachine(duration: number, connections: number) {
  const cpus = os.cpus()
  console.log('Machine')
  console.log(`  node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()})`)
  console.log(`  ${cpus.length} CPU(s): ${cpus[0]?.model.trim() ?? 'unknown'}; ${fmt(os.totalmem() / 2 ** 30, 1)} GiB RAM`)
  console.log(
    `  load average at start: ${os
      .loadavg()
      .map((l) => fmt(l))
      .join(' ')}`,
  )
  console.log(`Load: autocannon, ${connections} connections, ${WARMUP_SECONDS} s warm-up + ${duration} s per target, loopback`)
  console.log()
}

function printTable(targets: Target[], results: Map<string, Measurement>) {
  console.log()
  console.log(
    `${pad('target', 38)}${lpad('req/s', 8)}${lpad('p50 ms', 9)}${lpad('p99 ms', 9)}${lpad('errors', 8)}${lpad('CPU ms/req', 12)}   CPU %: servers | autocannon | other`,
  )
  for (const t of targets) {
    const m = results.get(t.key)!
    const cpu = `${m.cpu.servers.map((c) => fmt(c, 0)).join(' + ')} | ${fmt(m.cpu.generator, 0)} | ${fmt(m.cpu.other, 0)}`
    console.log(
      `${pad(`(${t.key}) ${t.label}`, 38)}${lpad(fmt(m.requestsPerSecond, 0), 8)}${lpad(fmt(m.p50), 9)}${lpad(fmt(m.p99), 9)}${lpad(String(m.failures), 8)}${lpad(fmt(m.cpuPerRequest), 12)}   ${cpu}`,
    )
  }
  console.log(
    `CPU ms/req: server CPU time per response. CPU %: of one core over the measurement; (c) lists the stock gateway, then the subgraph's process; (d) and (f) are a second Tessera process.`,
  )

  for (const t of targets) {
    const m = results.get(t.key)!
    if (m.failureSamples.length === 0) continue
    console.log(`\n(${t.key}) ${m.failures} failed of ${m.responses} responses; first ones:`)
    for (const sample of m.failureSamples) console.log(`  ${sample}`)
  }

  const a = results.get('a')!
  const b = results.get('b')!
  const c = results.get('c')!
  const d = results.get('d')!
  const e = results.get('e')!
  const f = results.get('f')!
  const throughput = a.requestsPerSecond / c.requestsPerSecond
  const latency = a.p50 / b.p50
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET')
  console.log()
  console.log(
    `${pad('(a)/(c) throughput', 22)}${lpad(`${fmt(throughput)}×`, 8)}   target ≥ ${TARGETS.throughputAC}×     ${verdict(throughput >= TARGETS.throughputAC)}`,
  )
  console.log(`${pad('(a)/(b) p50 latency', 22)}${lpad(`${fmt(latency)}×`, 8)}   target ≤ ${TARGETS.latencyAB}×   ${verdict(latency <= TARGETS.latencyAB)}`)
  // The fast path's effect: the same read, same run, with it on and off.
  console.log('\nFast path on vs off (same run):')
  const versus = (label: string, on: Measurement, off: Measurement) =>
    console.log(
      `  ${pad(label, 14)} req/s ${fmt(off.requestsPerSecond, 0)} → ${fmt(on.requestsPerSecond, 0)} (${fmt(on.requestsPerSecond / off.requestsPerSecond)}×)   ` +
        `p50 ${fmt(off.p50)} → ${fmt(on.p50)} ms   CPU ms/req ${fmt(off.cpuPerRequest)} → ${fmt(on.cpuPerRequest)}`,
    )
  versus('alert (d→a)', a, d)
  versus('catalog (f→e)', e, f)

  const disturbed = targets.filter((t) => results.get(t.key)!.cpu.other > OTHER_CPU_WARNING)
  if (disturbed.length) {
    console.log(
      `\nWarning: other processes used more than ${OTHER_CPU_WARNING}% of a core while measuring ${disturbed.map((t) => `(${t.key})`).join(' ')}; ` +
        'those figures (and ratios built on them) are disturbed. Rerun on a quiet machine.',
    )
  }
}

// --- Main ------------------------------------------------------------------------------------

async function main() {
  const duration = positiveInt('BENCH_DURATION', 10)
  const connections = positiveInt('BENCH_CONNECTIONS', 10)
  printMachine(duration, connections)

  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'))
  tempDirs.push(dir)
  const apiKey = `tsr_bench_${randomBytes(24).toString('hex')}`
  const auth = `Bearer ${apiKey}`

  // Children stay on loopback and their own fresh PGlite: no shared database, no Apollo usage
  // reporting, and no @apollo/gateway telemetry (it exports metrics and probes cloud metadata
  // endpoints; Tessera's gateway turns it off too, so both gateways run without it).
  const base = benchBaseEnv()

  console.log('Starting Tessera (PGlite in a temp dir) and the stock subgraph…')
  const tesseraEnv = (dataDir: string, extra: NodeJS.ProcessEnv = {}) => tesseraBenchEnv(base, path.join(dir, dataDir), apiKey, extra)
  const { child: tesseraChild, ready: tesseraReady } = await startServer(['tessera'], tesseraEnv('data'))
  if (tesseraReady.role !== 'tessera') throw new BenchError('unexpected ready message from the tessera server')
  console.log('Starting Tessera with the gateway fast path off…')
  const { child: slowChild, ready: slowReady } = await startServer(['tessera'], tesseraEnv('data-slow', { TESSERA_GATEWAY_FAST_PATH: 'false' }))
  if (slowReady.role !== 'tessera') throw new BenchError('unexpected ready message from the second tessera server')

  console.log('Starting the stock gateway…')
  const { child: stockChild, ready: stockReady } = await startServer(['stock-gateway', tesseraReady.stockSubgraphUrl], base)
  if (stockReady.role !== 'stock-gateway') throw new BenchError('unexpected ready message from the stock gateway')

  // The one alert (a), (b) and (c) read, created through REST; (d) reads its twin in its own process.
  const alertId = await createBenchAlert(jsonApi(tesseraReady.tesseraUrl, auth, REQUEST_TIMEOUT_MS))
  const slowAlertId = await createBenchAlert(jsonApi(slowReady.tesseraUrl, auth, REQUEST_TIMEOUT_MS))
  console.log(`Alert ${alertId} created; every target reads it (the fast-path-off process its twin ${slowAlertId}).`)

  const targets = [
    graphqlTarget('a', 'Tessera gateway', `${tesseraReady.tesseraUrl}/graphql`, alertId, auth),
    restTarget(tesseraReady.tesseraUrl, alertId, auth),
    graphqlTarget('c', 'stock gateway + subgraph (HTTP)', stockReady.url, alertId, auth),
    graphqlTarget('d', 'Tessera gateway, fast path off', `${slowReady.tesseraUrl}/graphql`, slowAlertId, auth),
    catalogTarget('e', 'catalog: Tessera gateway', `${tesseraReady.tesseraUrl}/graphql`, auth),
    catalogTarget('f', 'catalog: Tessera, fast path off', `${slowReady.tesseraUrl}/graphql`, auth),
  ]
  // Which processes do the work for each target, for the CPU column.
  const serversOf: Record<TargetKey, ChildProcess[]> = {
    a: [tesseraChild],
    b: [tesseraChild],
    c: [stockChild, tesseraChild],
    d: [slowChild],
    e: [tesseraChild],
    f: [slowChild],
  }

  // Same read everywhere: a target answering something else would make the comparison moot.
  // The twin alert differs only in its id and creation time.
  const views = await Promise.all(targets.map(probe))
  const same = (i: number, j: number, strip: (v: AlertView | CatalogView) => unknown = (v) => v) => {
    if (JSON.stringify(strip(views[i]!)) !== JSON.stringify(strip(views[j]!))) {
      throw new BenchError(`(${targets[i]!.key}) reads ${JSON.stringify(views[i])}, (${targets[j]!.key}) reads ${JSON.stringify(views[j])}`)
    }
  }
  same(1, 0)
  same(2, 0)
  same(3, 0, (v) => ({ ...v, id: undefined, raisedAt: undefined }))
  same(5, 4)

  const results = new Map<string, Measurement>()
  for (const target of targets) {
    process.stdout.write(`(${target.key}) ${target.label}: warm-up ${WARMUP_SECONDS} s, `)
    await load(target, WARMUP_SECONDS, connections, serversOf[target.key])
    process.stdout.write(`measure ${duration} s… `)
    const m = await load(target, duration, connections, serversOf[target.key])
    if (m.responses === 0) throw new BenchError(`(${target.key}) ${target.label}: no responses at all`)
    results.set(target.key, m)
    console.log(`${fmt(m.requestsPerSecond, 0)} req/s`)
  }
  printTable(targets, results)
}

try {
  await main()
  await cleanup()
} catch (error) {
  console.error(
    `\nBenchmark run failed: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  )
  await cleanup()
  process.exitCode = 1
}
