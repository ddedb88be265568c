// `npm run bench:pipelines`: how fast, and in how much memory, a Tessera pipeline moves a
// PostgreSQL table into the embedded warehouse, next to the fastest way to read that table.
//   raw COPY      COPY (SELECT * FROM t) TO STDOUT into a sink that only counts rows, in this
//                 process: what the server and the socket deliver, with no parsing and no writing.
//   Tessera 250k  a whole Tessera process (all mode) in a child; a pipeline postgres → warehouse
//   Tessera 1M    (full refresh, replace, batch_size 10000) created and run through REST. Each
//                 size gets a fresh child, since a process's peak RSS only ever grows: comparing
//                 the two peaks shows whether memory stays flat in the row count.
// After each run the warehouse file is opened here and checked against PostgreSQL: same row
// count, same checksums.
//
// BENCH_ROWS (default 1,000,000) sets the large size; the small one is a quarter of it.
// BENCH_RUN_TIMEOUT (seconds, default 600) bounds each run.
// BENCH_CPU_PROF=<dir> writes a CPU profile of each Tessera child into <dir>/<run label>/ (that
// folder is replaced, the profiles kept) and prints where the run's time went; profiling slows
// the run, so read those figures as proportions.
// BENCH_CHILD_NODE_ARGS adds node flags to the Tessera children only (e.g. "--trace-gc", which
// NODE_OPTIONS refuses, or "--max-semi-space-size=64" to try a GC setting).
// The exit code says whether the run worked (and wrote the right rows), not whether the targets
// were met.
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js'
import { BenchError, createJanitor, jsonApi, positiveInt } from './bench-support.js'
import { summarizeCpuProfile, type ProfileSummary } from './pipelines-cpu-profile.js'
import type { PipelinesServerControl, PipelinesServerMessage } from './pipelines-server.js'

// Keep in step with the `start` script: a larger young generation lets each batch's rows die
// young instead of being promoted and collected late (measured: ~15% faster, a third of the growth).
const TESSERA_NODE_FLAGS = ['--max-semi-space-size=64']

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pipelines-server.ts')
const STARTUP_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 15_000
// Creating a pipeline connects to both sides first; generous, but a hung call must still end.
const REQUEST_TIMEOUT_MS = 30_000
const POLL_MS = 200
const SAMPLE_MS = 100
const BATCH_SIZE = 10_000
const TARGET_ROWS_PER_SECOND = 100_000
const FLAT_RATIO = 1.3
const OTHER_CPU_WARNING = 25
const MB = 1024 * 1024

/** Stops the run with a message and exit code 1 (after cleanup). */
let cluster: PostgresCluster | undefined

function stopCluster() {
  const running = cluster
  cluster = undefined
  try {
    running?.stop()
  } catch (error) {
    process.stderr.write(`could not stop the PostgreSQL cluster: ${String(error)}\n`)
  }
}

const janitor = createJanitor({ startupTimeoutMs: STARTUP_TIMEOUT_MS, stopTimeoutMs: STOP_TIMEOUT_MS, alsoCleanUp: stopCluster })
const { children, tempDirs, cleanup, removeDir } = janitor
const stopServer = janitor.stop

/** Forks pipelines-server.ts and resolves with the child and its URL once it listens. */
async function startServer(env: NodeJS.ProcessEnv, extraExecArgv: string[]): Promise<{ child: ChildProcess; url: string }> {
  const { child, ready } = await janitor.start<Extract<PipelinesServerMessage, { type: 'ready' }>>(SERVER, [], env, extraExecArgv)
  return { child, url: ready.url }
}

/** Sends a request to the server and resolves with its answer, or undefined after a timeout. */
function ask<T extends PipelinesServerMessage['type']>(
  child: ChildProcess,
  request: PipelinesServerControl,
  answer: T,
): Promise<Extract<PipelinesServerMessage, { type: T }> | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), REQUEST_TIMEOUT_MS)
    const done = (message: Extract<PipelinesServerMessage, { type: T }> | undefined) => {
      clearTimeout(timer)
      child.off('message', onMessage)
      resolve(message)
    }
    const onMessage = (message: PipelinesServerMessage) => {
      if (message.type === answer) done(message as Extract<PipelinesServerMessage, { type: T }>)
    }
    child.on('message', onMessage)
    child.send(request)
  })
}

// --- /proc: memory and CPU of a process ------------------------------------------------------

/** VmRSS and VmHWM (peak RSS) in bytes; NaN where /proc is missing. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const bytes = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)
      return match ? Number(match[1]) * 1024 : Number.NaN
    }
    return { rss: bytes('VmRSS'), hwm: bytes('VmHWM') }
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN }
  }
}

/**
 * Resets a process's VmHWM to its current RSS (clear_refs "5", Linux ≥ 4.0), so that the next
 * VmHWM is the peak of what follows, exact rather than sampled. False where that is refused.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

// USER_HZ: /proc counts CPU time in ticks of 1/100 s on Linux.
const TICKS = 100

/** utime + stime of a process in seconds (all its threads), from /proc/<pid>/stat; NaN where missing. */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields 14 and 15 of proc(5), counted from after the parenthesised command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS
  } catch {
    return Number.NaN
  }
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat; NaN where it is missing. */
function machineBusySeconds(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS
  } catch {
    return Number.NaN
  }
}

/**
 * CPU seconds over one measurement: the measured process, the PostgreSQL backends serving it,
 * and everything else on the machine, so that a busy neighbour (another test run on the same
 * two cores) shows up next to the figures it distorts.
 */
interface Cpu {
  self: number
  postgres: number
  other: number
}

/** Starts counting CPU; `end` takes the measured process's and the backends' seconds. */
function watchCpu() {
  const machine = machineBusySeconds()
  const bench = process.cpuUsage()
  return {
    end(self: number, postgres: number, benchIsSelf: boolean): Cpu {
      const used = process.cpuUsage(bench)
      const benchSeconds = benchIsSelf ? 0 : (used.user + used.system) / 1e6
      return { self, postgres, other: Math.max(0, machineBusySeconds() - machine - self - postgres - benchSeconds) }
    },
  }
}

/** Memory of a process across one measurement. */
interface Memory {
  /** RSS right before the measured work started. */
  before: number
  /** Peak RSS during the work (VmHWM after a reset, or the highest 100 ms sample). */
  runPeak: number
  /** Peak RSS over the process's whole life (what VmHWM says without a reset). */
  lifePeak: number
  /** Whether runPeak is VmHWM (exact) rather than sampled. */
  exact: boolean
}

/**
 * Starts watching a process's memory: VmHWM reset where the kernel allows, VmRSS sampled every
 * 100 ms besides (the fallback, and a check on the reset). Call `end` when the work is done.
 */
function watchMemory(pid: number) {
  const start = memoryOf(pid)
  const exact = resetPeak(pid)
  let sampled = start.rss
  const take = () => {
    const { rss } = memoryOf(pid)
    if (rss > sampled) sampled = rss
  }
  // Unref'd: a measurement abandoned by an error must not keep the bench alive.
  const timer = setInterval(take, SAMPLE_MS).unref()
  return {
    end(): Memory {
      clearInterval(timer)
      take()
      const { hwm } = memoryOf(pid)
      const runPeak = exact && Number.isFinite(hwm) ? Math.max(hwm, sampled) : sampled
      return { before: start.rss, runPeak, lifePeak: Math.max(start.hwm, runPeak), exact }
    },
  }
}

// --- Source data -----------------------------------------------------------------------------

/**
 * An orders table of `rows` rows: bigint key, text, numeric(12,2), a status, a timestamptz and
 * a small jsonb (NULL in every 50th row). Loaded without the key, which is added afterwards
 * (faster than maintaining the index row by row), then frozen and analysed so that no reader
 * pays for setting hint bits and the planner knows the table's size.
 */
async function createSourceTable(client: pg.Client, table: string, rows: number) {
  const name = pg.escapeIdentifier(table)
  await client.query(`CREATE TABLE ${name} (
    id bigint NOT NULL, customer text NOT NULL, amount numeric(12,2) NOT NULL, status text NOT NULL,
    created_at timestamptz NOT NULL, payload jsonb)`)
  await client.query(
    `INSERT INTO ${name}
     SELECT g, 'customer-' || lpad((g % 50000)::text, 5, '0'), round(((g * 7919) % 1000000) / 100.0, 2),
            (ARRAY['pending', 'paid', 'shipped', 'refunded'])[1 + g % 4],
            timestamptz '2024-01-01 00:00:00+00' + g * interval '17 seconds',
            CASE WHEN g % 50 = 0 THEN NULL ELSE jsonb_build_object('sku', 'SKU-' || (g % 997), 'qty', 1 + g % 9, 'gift', g % 10 = 0) END
       FROM generate_series(1, $1::bigint) g`,
    [rows],
  )
  await client.query(`ALTER TABLE ${name} ADD PRIMARY KEY (id)`)
  await client.query(`VACUUM (FREEZE, ANALYZE) ${name}`)
}

/** Order-independent checksums of a table, every one as exact decimal text. */
type Checksums = Record<'rows' | 'ids' | 'cents' | 'createdMs' | 'textLength' | 'qty' | 'payloads', string>

async function postgresChecksums(client: pg.Client, table: string): Promise<Checksums> {
  const { rows } = await client.query<Checksums>(
    `SELECT count(*)::text AS "rows", sum(id)::text AS ids, sum(amount * 100)::bigint::text AS cents,
            sum((extract(epoch FROM created_at) * 1000)::bigint)::text AS "createdMs",
            sum(length(customer) + length(status))::text AS "textLength",
            sum((payload ->> 'qty')::int)::text AS qty, count(payload)::text AS payloads
       FROM ${pg.escapeIdentifier(table)}`,
  )
  return rows[0]!
}

/**
 * The same checksums from the warehouse file, opened read-only after the Tessera child exited.
 * amount arrives as DOUBLE (numeric → number), so cents are rounded back before summing.
 */
async function warehouseChecksums(file: string): Promise<Checksums> {
  // Loaded only here: the native module would otherwise sit in this process's RSS during the raw COPY.
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' })
  try {
    const connection = await instance.connect()
    try {
      const reader = await connection.runAndReadAll(
        `SELECT CAST(count(*) AS VARCHAR) AS "rows", CAST(sum(id) AS VARCHAR) AS ids,
                CAST(sum(CAST(round(amount * 100) AS BIGINT)) AS VARCHAR) AS cents,
                CAST(sum(epoch_ms(created_at)) AS VARCHAR) AS "createdMs",
                CAST(sum(length(customer) + length(status)) AS VARCHAR) AS "textLength",
                CAST(sum(CAST(payload ->> 'qty' AS BIGINT)) AS VARCHAR) AS qty, CAST(count(payload) AS VARCHAR) AS payloads
           FROM main.orders`,
      )
      return reader.getRowObjectsJS()[0] as unknown as Checksums
    } finally {
      connection.closeSync()
    }
  } finally {
    instance.closeSync()
  }
}

function compareChecksums(expected: Checksums, actual: Checksums): string[] {
  return (Object.keys(expected) as (keyof Checksums)[])
    .filter((key) => expected[key] !== actual[key])
    .map((key) => `${key}: PostgreSQL ${expected[key]}, warehouse ${actual[key]}`)
}

// --- Raw COPY baseline -------------------------------------------------------------------------

interface Measurement {
  label: string
  rows: number
  seconds: number
  memory: Memory
  cpu: Cpu
}

/** COPY … TO STDOUT into a sink that counts rows: the ceiling any reader of this table can reach. */
async function rawCopy(url: string, table: string): Promise<Measurement> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    let rows = 0
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        // COPY's text format escapes line breaks inside values (\n), so each raw one ends a row.
        // Each step moves past a newline, so the loop ends within the chunk.
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++
        done()
      },
    })
    const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
    const backendBefore = cpuSecondsOf(backend)
    const self = process.cpuUsage()
    const cpu = watchCpu()
    const memory = watchMemory(process.pid)
    const started = performance.now()
    await pipeline(client.query(copyTo(`COPY (SELECT * FROM ${pg.escapeIdentifier(table)}) TO STDOUT`)), sink)
    const seconds = (performance.now() - started) / 1000
    const used = process.cpuUsage(self)
    return {
      label: 'raw COPY (bench process)',
      rows,
      seconds,
      memory: memory.end(),
      cpu: cpu.end((used.user + used.system) / 1e6, cpuSecondsOf(backend) - backendBefore, true),
    }
  } finally {
    await client.end()
  }
}

// --- Tessera runs ------------------------------------------------------------------------------

interface RunBody {
  run_id: string
  status: string
  started_at: string
  completed_at: string | null
  records_read: number
  records_processed: number
  error: { code: string; message: string } | null
}

interface LogLine {
  timestamp: string
  level: string
  message: string
}

interface Phase {
  name: string
  seconds: number
  detail?: string
}

interface TesseraRun extends Measurement {
  /** From the bench's POST …/run to the poll that saw the run finished. */
  wallSeconds: number
  /** What the child's memory held at its highest sampled RSS during the run, by its own account. */
  breakdown: { before: NodeJS.MemoryUsage; atPeak: NodeJS.MemoryUsage; afterCollect: NodeJS.MemoryUsage } | undefined
  phases: Phase[]
  checks: string[]
  profile?: { file: string; summary: ProfileSummary }
}

/**
 * Where the run's time went, from the timestamps of its own log lines: queue pick-up, connector
 * checks and discovery, the steady stream between progress lines (every 100,000 rows), the tail
 * with the commit, and the bookkeeping after the success line.
 */
function phasesOf(run: RunBody, logs: LogLine[]): Phase[] {
  const at = (line: LogLine | undefined) => (line ? Date.parse(line.timestamp) : Number.NaN)
  const queued = Date.parse(run.started_at)
  const started = at(logs.find((l) => l.message.startsWith('Run started')))
  const source = at(logs.find((l) => l.message.startsWith('Source ')))
  const progress = logs.map((l) => ({ at: at(l), rows: Number(/^Read (\d+) rows/.exec(l.message)?.[1] ?? Number.NaN) })).filter((p) => Number.isFinite(p.rows))
  const succeeded = at(logs.find((l) => l.level === 'SUCCESS'))
  const completed = run.completed_at ? Date.parse(run.completed_at) : Number.NaN
  const first = progress[0]
  const last = progress[progress.length - 1]
  const s = (ms: number) => ms / 1000
  const rate = (rows: number, ms: number) => `${fmt(rows / s(ms), 0)} rows/s`
  const phases: Phase[] = [
    { name: 'queue pick-up (queued → started)', seconds: s(started - queued) },
    { name: 'check + discover source', seconds: s(source - started) },
  ]
  if (first && last) {
    phases.push({ name: `open writer + first ${first.rows} rows`, seconds: s(first.at - source), detail: rate(first.rows, first.at - source) })
    if (last !== first)
      phases.push({
        name: `steady stream ${first.rows} → ${last.rows}`,
        seconds: s(last.at - first.at),
        detail: rate(last.rows - first.rows, last.at - first.at),
      })
    phases.push({ name: `last ${run.records_read - last.rows} rows + commit`, seconds: s(succeeded - last.at) })
  } else {
    phases.push({ name: 'open writer + all rows + commit', seconds: s(succeeded - source) })
  }
  phases.push({ name: 'record the outcome', seconds: s(completed - succeeded) })
  return phases
}

async function runTessera(options: {
  label: string
  table: string
  rows: number
  cluster: { host: string; port: number; database: string; user: string }
  expected: Checksums
  profileDir: string | undefined
  childArgs: string[]
  runTimeoutMs: number
}): Promise<TesseraRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-pipelines-bench-'))
  tempDirs.push(dir)
  const dataDir = path.join(dir, 'data')
  const apiKey = `tsr_bench_${randomBytes(24).toString('hex')}`
  const auth = `Bearer ${apiKey}`
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TESSERA_API_KEY: apiKey,
    TESSERA_SECRET_KEY: randomBytes(32).toString('hex'),
    // Polling must never meet a 429.
    TESSERA_RATE_LIMIT_MAX: '100000000',
    TESSERA_SHUTDOWN_GRACE_MS: '5000',
    APOLLO_TELEMETRY_DISABLED: 'true',
  }
  // The child keeps its own embedded database: nothing may point it at a shared one.
  for (const name of ['DATABASE_URL', 'APOLLO_KEY', 'APOLLO_GRAPH_REF', 'APOLLO_GRAPH_ID']) delete env[name]
  // A folder per run and Node's default file names: tsx's loader hooks run on a thread of their
  // own, which writes a profile too (with one fixed name, the last thread to exit would win).
  const profileDir = options.profileDir ? path.join(options.profileDir, options.label.replace(/\W+/g, '-')) : undefined
  if (profileDir) {
    rmSync(profileDir, { recursive: true, force: true })
    mkdirSync(profileDir, { recursive: true })
  }
  const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []

  const boot = performance.now()
  const { child, url } = await startServer(env, ['--expose-gc', ...options.childArgs, ...profileArgs])
  const pid = child.pid!
  console.log(`  ${options.label}: Tessera pid ${pid} listening at ${url} after ${fmt((performance.now() - boot) / 1000, 1)} s`)
  const call = jsonApi(url, auth, REQUEST_TIMEOUT_MS)

  const created = await call('POST', '/v1/pipelines', {
    name: `bench ${options.label}`,
    source: { type: 'postgres', ...options.cluster, schema: 'public', table: options.table },
    destination: { type: 'warehouse', account: 'local', warehouse: 'bench', database: 'sales', schema: 'main', table: 'orders' },
    sync: { mode: 'full_refresh', write_mode: 'replace', batch_size: BATCH_SIZE },
  })
  const pipelineId = (created.json as { pipeline_id?: string } | undefined)?.pipeline_id
  if (created.status !== 201 || !pipelineId) throw new BenchError(`creating the pipeline failed: HTTP ${created.status} ${created.text.slice(0, 500)}`)

  // Settle for a moment, then collect: start-up work (the job runner's first polls, lazy
  // compilation, garbage of migrations) should not count as the run's memory.
  await sleep(1000)
  const collected = await ask(child, { type: 'collect' }, 'collected')
  if (!collected?.ran) process.stderr.write('the Tessera child could not collect garbage before the run\n')
  const monitor = new pg.Client({ ...options.cluster, application_name: 'pipelines-bench-monitor' })
  // A connection the cluster drops (a failed run's cleanup) must not end the bench with an unheard 'error'.
  monitor.on('error', () => {})
  await monitor.connect()
  let run: RunBody | undefined
  let fromUs = 0
  let toUs = 0
  let wallSeconds = 0
  let measured: Memory
  let cpuUsed: Cpu
  try {
    // CPU of the backends that serve the run, by pid: the latest cumulative value each time one
    // is seen (they connect after the run starts, so that is all theirs; up to one poll of a
    // backend's last moments can be missed).
    const backends = new Map<number, number>()
    const sampleBackends = async () => {
      const { rows } = await monitor.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'tessera-pipelines'`)
      for (const { pid: backend } of rows) {
        const seconds = cpuSecondsOf(backend)
        if (Number.isFinite(seconds)) backends.set(backend, seconds)
      }
    }
    const cpuBefore = cpuSecondsOf(pid)
    const cpu = watchCpu()
    const memory = watchMemory(pid)
    fromUs = Number(process.hrtime.bigint() / 1000n)
    const started = performance.now()
    const triggered = await call('POST', `/v1/pipelines/${pipelineId}/run`)
    const runId = (triggered.json as { run_id?: string } | undefined)?.run_id
    if (triggered.status !== 202 || !runId) throw new BenchError(`starting the run failed: HTTP ${triggered.status} ${triggered.text.slice(0, 500)}`)

    const deadline = Date.now() + options.runTimeoutMs
    while (Date.now() < deadline) {
      await sleep(POLL_MS)
      await sampleBackends()
      const runs = await call('GET', `/v1/pipelines/${pipelineId}/runs?limit=5`)
      if (runs.status !== 200) throw new BenchError(`listing runs failed: HTTP ${runs.status} ${runs.text.slice(0, 500)}`)
      const found = (runs.json as { runs: RunBody[] }).runs.find((r) => r.run_id === runId)
      if (found && found.status !== 'running') {
        run = found
        break
      }
    }
    wallSeconds = (performance.now() - started) / 1000
    toUs = Number(process.hrtime.bigint() / 1000n)
    measured = memory.end()
    const postgresSeconds = [...backends.values()].reduce((sum, s) => sum + s, 0)
    cpuUsed = cpu.end(cpuSecondsOf(pid) - cpuBefore, postgresSeconds, false)
  } finally {
    await monitor.end().catch(() => {})
  }
  if (!run) throw new BenchError(`${options.label}: the run did not finish within ${options.runTimeoutMs / 1000} s (BENCH_RUN_TIMEOUT)`)

  const logsResponse = await call('GET', `/v1/runs/${run.run_id}/logs`)
  const logs = (logsResponse.json as { logs?: LogLine[] } | undefined)?.logs ?? []
  if (run.status !== 'success') {
    const lines = logs.map((l) => `    ${l.timestamp} ${l.level} ${l.message}`).join('\n')
    throw new BenchError(`${options.label}: the run ended ${run.status}: ${JSON.stringify(run.error)}\n${lines}`)
  }
  const report = await ask(child, { type: 'memory' }, 'memory')
  const breakdown = collected && report ? { before: collected.usage, atPeak: report.atPeak, afterCollect: report.afterCollect } : undefined
  await stopServer(child)

  const seconds = (Date.parse(run.completed_at!) - Date.parse(run.started_at)) / 1000
  const checks: string[] = []
  if (run.records_processed !== options.rows) checks.push(`records_processed ${run.records_processed}, expected ${options.rows}`)
  const file = path.join(dataDir, 'pipelines', 'warehouse', 'bench', 'sales.duckdb')
  if (!existsSync(file)) checks.push(`no warehouse file at ${file}`)
  else checks.push(...compareChecksums(options.expected, await warehouseChecksums(file)))

  let profile: TesseraRun['profile']
  if (profileDir) {
    // The thread that did the run's work is the one busiest in its window: the main thread.
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))
    for (const name of files) {
      const file = path.join(profileDir, name)
      const summary = summarizeCpuProfile(file, { fromUs, toUs })
      const busy = (p: ProfileSummary) => p.sampledMs - p.idleMs
      if (!profile || busy(summary) > busy(profile.summary)) profile = { file, summary }
    }
    if (!profile) process.stderr.write(`no CPU profile in ${profileDir}\n`)
  }

  removeDir(dir)
  tempDirs.splice(tempDirs.indexOf(dir), 1)
  return {
    label: options.label,
    rows: run.records_processed,
    seconds,
    wallSeconds,
    memory: measured,
    breakdown,
    cpu: cpuUsed,
    phases: phasesOf(run, logs),
    checks,
    ...(profile ? { profile } : {}),
  }
}

// --- Report ------------------------------------------------------------------------------------

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
const mb = (bytes: number) => fmt(bytes / MB, 0)
const pad = (s: string, n: number) => s.padEnd(n)
const lpad = (s: string, n: number) => s.padStart(n)
const thousands = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a')

function printMachine(rows: number, small: number) {
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
  console.log(`Sizes: ${thousands(rows)} rows (BENCH_ROWS) and ${thousands(small)}; batch_size ${BATCH_SIZE}; PostgreSQL and Tessera on loopback`)
}

function printTable(baseline: Measurement, runs: TesseraRun[]) {
  console.log()
  console.log(
    `${pad('', 28)}${lpad('rows', 11)}${lpad('seconds', 9)}${lpad('rows/s', 10)}${lpad('RSS before', 12)}${lpad('peak RSS', 10)}${lpad('run peak', 10)}` +
      `${lpad('CPU %', 7)}${lpad('PG %', 6)}${lpad('other %', 9)}`,
  )
  for (const m of [baseline, ...runs]) {
    const percent = (seconds: number) => lpad(fmt((seconds / m.seconds) * 100, 0), 6)
    console.log(
      `${pad(m.label, 28)}${lpad(thousands(m.rows), 11)}${lpad(fmt(m.seconds), 9)}${lpad(thousands(m.rows / m.seconds), 10)}` +
        `${lpad(mb(m.memory.before), 12)}${lpad(mb(m.memory.lifePeak), 10)}${lpad(mb(m.memory.runPeak), 10)}` +
        ` ${percent(m.cpu.self)}${percent(m.cpu.postgres)}   ${percent(m.cpu.other)}`,
    )
  }
  console.log('MB = MiB. peak RSS: the process over its whole life (VmHWM); run peak: during the measurement only')
  console.log(`(VmHWM reset before it${[baseline, ...runs].every((m) => m.memory.exact) ? '' : ', or sampled every 100 ms where the reset was refused'}).`)
  console.log("Tessera seconds: the run's started_at → completed_at (queued to recorded). CPU % of one core: the measured process (all its")
  console.log("threads), its PostgreSQL backends, and every other process on the machine (the bench's own polling excluded).")
  const busy = [baseline, ...runs].filter((m) => (m.cpu.other / m.seconds) * 100 > OTHER_CPU_WARNING)
  if (busy.length) {
    console.log(
      `Warning: other processes used more than ${OTHER_CPU_WARNING}% of a core during ${busy.map((m) => m.label).join(', ')}; ` +
        `with ${os.cpus().length} cores, those figures are disturbed. Rerun on a quiet machine.`,
    )
  }
}

function printPhases(run: TesseraRun) {
  console.log(`\n${run.label}: where the ${fmt(run.seconds)} s went (from the run's log timestamps; bench wall time ${fmt(run.wallSeconds)} s)`)
  for (const p of run.phases) console.log(`  ${pad(p.name, 44)}${lpad(fmt(p.seconds), 8)} s${p.detail ? `   ${p.detail}` : ''}`)
  if (run.breakdown) {
    // external counts array buffers and WebAssembly memory (PGlite); the rest of RSS is native
    // memory V8 does not see (DuckDB's buffers, libuv, code).
    const line = (name: string, b: NodeJS.MemoryUsage) =>
      `  ${pad(name, 10)}RSS ${lpad(mb(b.rss), 5)} MB = V8 heap ${lpad(mb(b.heapTotal), 4)} (used ${lpad(mb(b.heapUsed), 4)})` +
      ` + external ${lpad(mb(b.external), 4)} (array buffers ${lpad(mb(b.arrayBuffers), 4)}) + native/other ${lpad(mb(b.rss - b.heapTotal - b.external), 4)}`
    console.log("  memory by the child's own account (process.memoryUsage, every 100 ms):")
    console.log(line('before', run.breakdown.before))
    console.log(line('at peak', run.breakdown.atPeak))
    console.log(line('after GC', run.breakdown.afterCollect))
  }
}

function printProfile(run: TesseraRun) {
  if (!run.profile) return
  const { file, summary } = run.profile
  const busy = summary.sampledMs - summary.idleMs
  const share = (ms: number) => `${lpad(fmt(ms, 0), 7)} ms ${lpad(fmt((ms / busy) * 100, 1), 5)} %`
  console.log(`\n${run.label}: CPU profile of the run's window, main thread (${file})`)
  console.log(`  sampled ${fmt(summary.sampledMs, 0)} ms, of which idle ${fmt(summary.idleMs, 0)} ms; shares below are of the busy ${fmt(busy, 0)} ms`)
  console.log('  self time by place:')
  for (const [place, ms] of summary.byPlace.slice(0, 12)) console.log(`    ${share(ms)}  ${place}`)
  console.log('  self time by function:')
  for (const [key, ms] of summary.self.slice(0, 20)) console.log(`    ${share(ms)}  ${key}`)
  console.log('  inclusive time, project code:')
  const project = summary.inclusive.filter(([key]) => /(subgraphs|platform|rest-adapters)\//.test(key))
  for (const [key, ms] of project.slice(0, 15)) console.log(`    ${share(ms)}  ${key}`)
}

// --- Main ------------------------------------------------------------------------------------

async function main(): Promise<boolean> {
  const rows = positiveInt('BENCH_ROWS', 1_000_000)
  const small = Math.max(1, Math.round(rows / 4))
  const runTimeoutMs = positiveInt('BENCH_RUN_TIMEOUT', 600) * 1000
  const profileDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined
  // The children run with the flags `npm start` uses (package.json), then any extra ones.
  const childArgs = [...TESSERA_NODE_FLAGS, ...(process.env.BENCH_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)]
  if (profileDir) mkdirSync(profileDir, { recursive: true })
  const label = (n: number) => (n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n % 1000 === 0 ? `${n / 1000}k` : String(n))
  printMachine(rows, small)
  const benchStarted = performance.now()

  console.log('\nStarting a throwaway PostgreSQL cluster…')
  cluster = await startPostgresCluster()
  const url = cluster.createDatabase('pipelines_bench')
  const parsed = new URL(url)
  const settings = { host: parsed.hostname, port: Number(parsed.port), database: 'pipelines_bench', user: decodeURIComponent(parsed.username) }

  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  const sizes = [
    { label: `Tessera ${label(small)}`, table: `orders_${small}`, rows: small },
    { label: `Tessera ${label(rows)}`, table: `orders_${rows}`, rows },
  ]
  const expected = new Map<string, Checksums>()
  try {
    for (const size of sizes) {
      const loading = performance.now()
      await createSourceTable(admin, size.table, size.rows)
      expected.set(size.table, await postgresChecksums(admin, size.table))
      console.log(`  ${size.table}: ${thousands(size.rows)} rows loaded in ${fmt((performance.now() - loading) / 1000, 1)} s`)
    }
  } finally {
    await admin.end()
  }

  console.log('Raw COPY baseline…')
  const large = sizes[1]!
  const baseline = await rawCopy(url, large.table)
  console.log(`  ${thousands(baseline.rows)} rows in ${fmt(baseline.seconds)} s`)
  if (baseline.rows !== rows) throw new BenchError(`raw COPY counted ${baseline.rows} rows, expected ${rows}`)

  console.log('Tessera runs, each in a fresh child process…')
  const runs: TesseraRun[] = []
  for (const size of sizes) {
    const run = await runTessera({ ...size, cluster: settings, expected: expected.get(size.table)!, profileDir, childArgs, runTimeoutMs })
    console.log(`  ${size.label}: ${thousands(run.rows)} rows in ${fmt(run.seconds)} s${run.checks.length ? ', WRONG RESULT' : ', warehouse verified'}`)
    runs.push(run)
  }
  stopCluster()

  printTable(baseline, runs)
  for (const run of runs) printPhases(run)
  for (const run of runs) printProfile(run)

  const [smallRun, largeRun] = runs as [TesseraRun, TesseraRun]
  const throughput = largeRun.rows / largeRun.seconds
  const ratio = largeRun.memory.lifePeak / smallRun.memory.lifePeak
  const growth = (m: Memory) => m.runPeak - m.before
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET')
  console.log()
  console.log(`Tessera / raw COPY throughput (${largeRun.label}): ${fmt(throughput / (baseline.rows / baseline.seconds))}×`)
  console.log(`target ≥ ${thousands(TARGET_ROWS_PER_SECOND)} rows/s: ${verdict(throughput >= TARGET_ROWS_PER_SECOND)} (${thousands(throughput)} rows/s)`)
  const runRatio = largeRun.memory.runPeak / smallRun.memory.runPeak
  const flat = (r: number) => (r <= FLAT_RATIO ? 'flat' : 'NOT flat')
  console.log(`peak RSS ${label(rows)} / ${label(small)}: ${fmt(ratio)} (${flat(ratio)}; flat if ≤ ${FLAT_RATIO})`)
  console.log(
    `  run peak ${label(rows)} / ${label(small)}: ${fmt(runRatio)} (${flat(runRatio)}); the lifetime peak includes start-up, the run peak only the run`,
  )
  console.log(
    `  the runs' own growth (run peak − RSS before): ${mb(growth(smallRun.memory))} MB for ${label(small)}, ${mb(growth(largeRun.memory))} MB for ${label(rows)}`,
  )

  let correct = true
  for (const run of runs) {
    if (run.checks.length === 0) {
      console.log(
        `${run.label}: warehouse has exactly ${thousands(run.rows)} rows; count, sum(id), sum(amount), sum(created_at), text lengths and payload match PostgreSQL`,
      )
    } else {
      correct = false
      console.log(`${run.label}: WRONG RESULT\n  ${run.checks.join('\n  ')}`)
    }
  }
  console.log(`\nWhole bench: ${fmt((performance.now() - benchStarted) / 1000, 1)} s`)
  return correct
}

try {
  const correct = await main()
  await cleanup()
  if (!correct) process.exitCode = 1
} catch (error) {
  console.error(
    `\nBenchmark run failed: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  )
  await cleanup()
  process.exitCode = 1
}
