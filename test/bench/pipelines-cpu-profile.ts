// Reads a V8 .cpuprofile (what `node --cpu-prof` writes) and says where the time went, for the
// pipelines benchmark's BENCH_CPU_PROF mode. Only the samples inside a time window count, so a
// profile of a whole server process can be narrowed to one pipeline run rather than being
// dominated by start-up (migrations, schema composition).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}

interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Milliseconds per key, largest first. */
export type Ranking = [key: string, ms: number][]

export interface ProfileSummary {
  /** Milliseconds of samples in the window (idle included). */
  sampledMs: number
  idleMs: number
  /** Time spent in the function itself. */
  self: Ranking
  /** Time spent in the function and everything it called (each function once per sample). */
  inclusive: Ranking
  /** Self time by where the code lives: a package, a project file, node internals, GC, native. */
  byPlace: Ranking
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** A short place for a script URL: `pg`, `subgraphs/pipelines/run-engine.ts`, `node:internal`. */
function placeOf(url: string): string {
  if (!url) return '(native / VM)'
  if (url.startsWith('node:')) return 'node internals'
  const file = url.startsWith('file://') ? fileURLToPath(url) : url
  const modules = file.lastIndexOf(`${path.sep}node_modules${path.sep}`)
  if (modules >= 0) {
    const rest = file.slice(modules + '/node_modules/'.length).split(path.sep)
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? file)
  }
  return file.startsWith(root) ? path.relative(root, file) : file
}

/**
 * A function as `name file:line`. Package files keep their path inside the package and their
 * line (0-based in profiles); project files lose the line, since tsx runs them transpiled and
 * the profile's positions are those of the transpiled text, not of the source.
 */
function keyOf(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)'
  if (!frame.url) return name
  if (frame.url.startsWith('node:')) return `${name} ${frame.url}`
  const file = frame.url.startsWith('file://') ? fileURLToPath(frame.url) : frame.url
  const modules = file.lastIndexOf(`${path.sep}node_modules${path.sep}`)
  if (modules >= 0) return `${name} ${file.slice(modules + '/node_modules/'.length)}:${frame.lineNumber + 1}`
  return `${name} ${placeOf(frame.url)}`
}

function rank(totals: Map<string, number>): Ranking {
  return [...totals].sort((a, b) => b[1] - a[1])
}

/**
 * Summarizes the samples taken between `fromUs` and `toUs` (microseconds on the monotonic
 * clock, the one process.hrtime uses: V8 stamps samples with it too, so a window measured in
 * another process lines up). Without a window, or when no sample falls inside it, the whole
 * profile counts.
 */
export function summarizeCpuProfile(file: string, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)

  // Each sample stands for the time until the next one.
  const stamps: number[] = []
  let t = profile.startTime
  for (const delta of profile.timeDeltas) stamps.push((t += delta))
  const inWindow = (i: number) => !window || (stamps[i]! >= window.fromUs && stamps[i]! <= window.toUs)
  const useWindow = window !== undefined && stamps.some((_, i) => inWindow(i))

  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const byPlace = new Map<string, number>()
  let sampledMs = 0
  let idleMs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    if (useWindow && !inWindow(i)) continue
    const next = i + 1 < stamps.length ? stamps[i + 1]! : profile.endTime
    const ms = Math.max(0, next - stamps[i]!) / 1000
    const node = byId.get(profile.samples[i]!)
    if (!node) continue
    sampledMs += ms
    const frame = node.callFrame
    if (frame.functionName === '(idle)') {
      idleMs += ms
      continue
    }
    const key = keyOf(frame)
    self.set(key, (self.get(key) ?? 0) + ms)
    const place = frame.functionName.startsWith('(') ? frame.functionName : placeOf(frame.url)
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms)
    // Walk to the root; a recursive function counts once per sample.
    const seen = new Set<string>()
    // Bounded by the tree's depth, which is at most the number of nodes.
    for (let id: number | undefined = node.id, steps = 0; id !== undefined && steps < profile.nodes.length; id = parentOf.get(id), steps++) {
      const k = keyOf(byId.get(id)!.callFrame)
      if (seen.has(k)) continue
      seen.add(k)
      inclusive.set(k, (inclusive.get(k) ?? 0) + ms)
    }
  }
  return { sampledMs, idleMs, self: rank(self), inclusive: rank(inclusive), byPlace: rank(byPlace) }
}
