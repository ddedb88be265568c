// `npm run bench:render`: how long the visualization renderer takes to draw a chart, in this
// process (no HTTP, no database): request body → validateRenderInput → renderChart, the same
// calls POST /v1/visualization/charts/render makes.
//   line  1,000 and 10,000 points (the type's maximum), labels ISO dates (a temporal x axis)
//   bar   1,000 points (the type's maximum), labels "item-0001" … (one band per item)
// each as SVG and as PNG (default quality: lossless, 800 × 600 pixels). Values come from a seeded PRNG,
// so every run draws the same charts and the output sizes can be compared between runs.
//
// Each case renders BENCH_RENDER_WARMUP times untimed (default 3: lazy compilation, font
// loading and the first use of resvg's thread pool are not what a steady server pays), then
// BENCH_RENDER_RUNS times timed (default 30). The exit code says whether every render worked.
import os from 'node:os'
import type { ChartFormat } from '../../subgraphs/visualization/render/render-chart.js'
import { renderChart } from '../../subgraphs/visualization/render/render-chart.js'
import { validateRenderInput, type RenderInput } from '../../subgraphs/visualization/render/chart-input.js'
import { BenchError, positiveInt } from './bench-support.js'
import { summarize, type Summary } from './bench-stats.js'

const SEED = 0x7e55e1a
const DAY_MS = 86_400_000
const FIRST_DAY = Date.UTC(2000, 0, 1)

/** One chart to render: its type, its size in data points and the format. */
interface RenderCase {
  chartType: 'line' | 'bar'
  points: number
  format: Extract<ChartFormat, 'svg' | 'png'>
}

/** What one case measured. */
interface CaseResult extends RenderCase {
  ms: Summary
  bytes: number
  /** Pixels of the output (PNG) or of the SVG canvas. */
  width: number
  height: number
}

const CASES: readonly RenderCase[] = [
  { chartType: 'line', points: 1_000, format: 'svg' },
  { chartType: 'line', points: 1_000, format: 'png' },
  { chartType: 'line', points: 10_000, format: 'svg' },
  { chartType: 'line', points: 10_000, format: 'png' },
  { chartType: 'bar', points: 1_000, format: 'svg' },
  { chartType: 'bar', points: 1_000, format: 'png' },
]

/**
 * mulberry32: a small, fast 32-bit PRNG. Not for anything secret; here it only has to give the
 * same sequence for the same seed on every machine.
 */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A random walk around 100 with two decimals, like a daily metric. */
function walk(points: number, random: () => number): number[] {
  const values: number[] = []
  let value = 100
  for (let i = 0; i < points; i++) {
    value += (random() - 0.5) * 4
    values.push(Math.round(value * 100) / 100)
  }
  return values
}

/** The request body of a case, as a client would send it. */
function requestBody(chartType: RenderCase['chartType'], points: number): Record<string, unknown> {
  const values = walk(points, seededRandom(SEED + points))
  const label = (i: number) => (chartType === 'line' ? new Date(FIRST_DAY + i * DAY_MS).toISOString().slice(0, 10) : `item-${String(i + 1).padStart(4, '0')}`)
  return { chart_type: chartType, data: values.map((value, i) => ({ label: label(i), value })), config: { title: `${chartType} chart, ${points} points` } }
}

/** The validated input of a case; a rejected body is a broken bench, not a slow renderer. */
function renderInput(chartType: RenderCase['chartType'], points: number): RenderInput {
  const result = validateRenderInput(requestBody(chartType, points))
  if (!result.ok) throw new BenchError(`the ${chartType} chart of ${points} points was rejected: ${JSON.stringify(result.issues.slice(0, 5))}`)
  return result.value
}

/** Renders one case `warmup` times untimed, then `runs` times timed. */
async function measureCase(testCase: RenderCase, input: RenderInput, warmup: number, runs: number): Promise<CaseResult> {
  for (let i = 0; i < warmup; i++) await renderChart(input, testCase.format)
  const times: number[] = []
  let last: Awaited<ReturnType<typeof renderChart>> | undefined
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    last = await renderChart(input, testCase.format)
    times.push(performance.now() - started)
  }
  if (!last || last.bytes.length === 0) throw new BenchError(`${label(testCase)} produced no output`)
  return { ...testCase, ms: summarize(times), bytes: last.bytes.length, width: last.width, height: last.height }
}

// --- Report ------------------------------------------------------------------------------------

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
const thousands = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a')
const label = (c: RenderCase) => `${c.chartType} ${thousands(c.points)} ${c.format.toUpperCase()}`

function printMachine(warmup: number, runs: number) {
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
  console.log(`Runs: ${warmup} warm-up (BENCH_RENDER_WARMUP) + ${runs} timed (BENCH_RENDER_RUNS) per case; 800 × 600, PNG at default quality`)
}

function printTable(results: readonly CaseResult[]) {
  const head = ['chart', 'p50 ms', 'p95 ms', 'min ms', 'max ms', 'mean ms', 'bytes', 'size']
  const rows = results.map((r) => [
    label(r),
    fmt(r.ms.p50),
    fmt(r.ms.p95),
    fmt(r.ms.min),
    fmt(r.ms.max),
    fmt(r.ms.mean),
    thousands(r.bytes),
    `${r.width}×${r.height}`,
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
  console.log()
  console.log(line(head))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of rows) console.log(line(row))
  console.log('Wall time of renderChart per call (Vega-Lite compile, Vega layout, SVG; PNG adds the resvg raster).')
  console.log('bytes: the output file; size: SVG canvas or PNG pixels.')
}

// --- Main ------------------------------------------------------------------------------------

async function main() {
  const runs = positiveInt('BENCH_RENDER_RUNS', 30)
  const warmup = positiveInt('BENCH_RENDER_WARMUP', 3)
  printMachine(warmup, runs)
  const inputs = new Map<string, RenderInput>()
  const results: CaseResult[] = []
  for (const testCase of CASES) {
    const key = `${testCase.chartType}:${testCase.points}`
    let input = inputs.get(key)
    if (!input) {
      input = renderInput(testCase.chartType, testCase.points)
      inputs.set(key, input)
    }
    const started = performance.now()
    const result = await measureCase(testCase, input, warmup, runs)
    console.log(`  ${label(testCase).padEnd(18)} p50 ${fmt(result.ms.p50).padStart(8)} ms  (${fmt((performance.now() - started) / 1000)} s for the case)`)
    results.push(result)
  }
  printTable(results)
  const cores = os.cpus().length
  const load = os.loadavg()[0] ?? 0
  if (load > cores) console.log(`Note: the 1-minute load average is ${fmt(load, 2)} on ${cores} core(s): other work ran alongside; rerun on a quiet machine.`)
}

try {
  await main()
} catch (error) {
  console.error(
    `\nBenchmark run failed: ${error instanceof BenchError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  )
  process.exitCode = 1
}
