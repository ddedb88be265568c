// `npm run bench:gateway-profile`: where a GraphQL read's CPU time goes inside Tessera's gateway.
// Starts a whole Tessera process (embedded subgraphs, PGlite in a temp dir) under
// `node --cpu-prof`, loads it on loopback with autocannon for a bounded time with two cheap
// reads (the chart type catalog, one alert by id), stops it, and prints the busy time of the
// loaded window grouped by package and by function.
//
// PROFILE_SECONDS (default 8 per query) and BENCH_CONNECTIONS (default 10) override the load.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { BenchError, benchBaseEnv, createBenchAlert, createJanitor, jsonApi, positiveInt, tesseraBenchEnv } from './bench-support.js'
import { summarizeCpuProfile, type ProfileSummary } from './pipelines-cpu-profile.js'
import type { ServerMessage } from './servers.js'

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers.ts')
const janitor = createJanitor({ startupTimeoutMs: 120_000, stopTimeoutMs: 15_000 })
type Ready = Extract<ServerMessage, { type: 'ready'; role: 'tessera' }>

const CATALOG = '{ chartTypes { total items { id name category supportedFeatures dataFormat maxDataPoints } } }'
const ALERT = 'query($id: ID!) { alert(id: $id) { id deviceId priority status raisedAt } }'

/** Loads one POST /graphql body for a bounded time; resolves with the responses counted. */
function hammer(url: string, auth: string, body: string, seconds: number, connections: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let responses = 0
    const run = autocannon(
      {
        url,
        connections,
        duration: seconds,
        timeout: 10,
        requests: [{ method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body }],
      },
      (error) => (error ? reject(error) : resolve(responses)),
    )
    run.on('response', () => responses++)
  })
}

// The steps of a request worth naming in a summary, wherever they rank.
const STAGES =
  /^(handler gateway|processGraphQLRequest|executeHTTPGraphQLRequest|prettyJSONStringify|parseWithinLimits|inspectInput|consume |executeQueryPlan |computeResponse|executeFetch|buildOperationContext|operationFromDocument|getVariableValues|execute platform|execute graphql|Reply\.send|writev|fastPathExecutor|runFastPath|\(garbage collector\))/

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')

function print(summary: ProfileSummary, responses: number) {
  const busy = summary.sampledMs - summary.idleMs
  const share = (ms: number) => `${fmt((ms / busy) * 100, 1).padStart(5)}%  ${fmt((ms / responses) * 1000, 0).padStart(5)} µs/req`
  console.log(
    `sampled ${fmt(summary.sampledMs)} ms, idle ${fmt(summary.idleMs)} ms, busy ${fmt(busy)} ms over ${responses} responses = ${fmt((busy / responses) * 1000)} µs CPU per request`,
  )
  console.log('\nself time by place:')
  for (const [place, ms] of summary.byPlace.slice(0, 16)) console.log(`  ${share(ms)}  ${place}`)
  console.log('\nstages (inclusive: the function and what it calls):')
  for (const [key, ms] of summary.inclusive.filter(([key]) => STAGES.test(key))) console.log(`  ${share(ms)}  ${key}`)
  console.log('\ninclusive time (function and what it calls):')
  for (const [key, ms] of summary.inclusive.slice(0, 45)) console.log(`  ${share(ms)}  ${key}`)
  console.log('\nself time by function:')
  for (const [key, ms] of summary.self.slice(0, 25)) console.log(`  ${share(ms)}  ${key}`)
}

async function main() {
  const seconds = positiveInt('PROFILE_SECONDS', 8)
  const connections = positiveInt('BENCH_CONNECTIONS', 10)
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-gateway-profile-'))
  janitor.tempDirs.push(dir)
  const profileDir = path.join(dir, 'profile')
  const apiKey = `tsr_bench_${randomBytes(24).toString('hex')}`
  const auth = `Bearer ${apiKey}`
  const { child, ready } = await janitor.start<Ready>(SERVERS, ['tessera'], tesseraBenchEnv(benchBaseEnv(), path.join(dir, 'data'), apiKey), [
    '--cpu-prof',
    `--cpu-prof-dir=${profileDir}`,
  ])
  const alertId = await createBenchAlert(jsonApi(ready.tesseraUrl, auth, 10_000))
  const url = `${ready.tesseraUrl}/graphql`
  const reads = [
    ['chart type catalog', JSON.stringify({ query: CATALOG })],
    ['alert by id', JSON.stringify({ query: ALERT, variables: { id: alertId } })],
  ] as const
  const windows: { label: string; fromUs: number; toUs: number; responses: number }[] = []
  for (const [label, body] of reads) {
    await hammer(url, auth, body, 2, connections)
    const fromUs = Number(process.hrtime.bigint() / 1000n)
    const responses = await hammer(url, auth, body, seconds, connections)
    windows.push({ label, fromUs, toUs: Number(process.hrtime.bigint() / 1000n), responses })
  }
  await janitor.stop(child)
  const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))
  for (const w of windows) {
    let best: ProfileSummary | undefined
    for (const name of files) {
      const summary = summarizeCpuProfile(path.join(profileDir, name), w)
      if (!best || summary.sampledMs - summary.idleMs > best.sampledMs - best.idleMs) best = summary
    }
    if (!best) throw new BenchError(`no CPU profile in ${profileDir}`)
    console.log(
      `\n=== ${w.label}: ${w.responses} responses in ${seconds} s, ${connections} connections (load average ${os
        .loadavg()
        .map((l) => fmt(l, 1))
        .join(' ')})`,
    )
    print(best, w.responses)
  }
}

try {
  await main()
  await janitor.cleanup()
} catch (error) {
  console.error(`\nProfile run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  await janitor.cleanup()
  process.exitCode = 1
}
