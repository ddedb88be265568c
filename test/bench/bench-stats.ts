// Order statistics for the benchmarks: exact ones over a handful of timings, and a histogram
// of whole milliseconds for the hundreds of thousands of gaps a stream run records, which
// travels over IPC as a short list of pairs instead of one number per message.

/** Smallest, largest and a few percentiles of a sample, in its unit. */
export interface Summary {
  count: number
  min: number
  p50: number
  p95: number
  p99: number
  max: number
  mean: number
}

/**
 * The `p`-th percentile (0–100) of ascending `sorted` values, nearest-rank: always one of the
 * values, never an interpolation between two. NaN for an empty sample.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

/** The {@link Summary} of `values` (any order). */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b)
  const sum = sorted.reduce((total, v) => total + v, 0)
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  }
}

/** Counts per whole millisecond, as `[ms, count]` pairs (the form a histogram crosses IPC in). */
export type HistogramPairs = [ms: number, count: number][]

/** Values rounded to whole milliseconds and counted; negative values count as 0. */
export class MsHistogram {
  private readonly counts = new Map<number, number>()
  private total = 0

  /** Counts one value. */
  add(ms: number): void {
    const bucket = Math.max(0, Math.round(ms))
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1)
    this.total++
  }

  /** Adds the counts of another histogram, e.g. one a worker reported. */
  merge(pairs: HistogramPairs): void {
    for (const [ms, count] of pairs) {
      this.counts.set(ms, (this.counts.get(ms) ?? 0) + count)
      this.total += count
    }
  }

  /** Values counted. */
  get count(): number {
    return this.total
  }

  /** The counts, ascending by millisecond. */
  pairs(): HistogramPairs {
    return [...this.counts.entries()].sort((a, b) => a[0] - b[0])
  }

  /** The `p`-th percentile (0–100), nearest-rank, in whole ms; NaN when empty. */
  percentile(p: number): number {
    if (this.total === 0) return Number.NaN
    const rank = Math.min(this.total, Math.max(1, Math.ceil((p / 100) * this.total)))
    let seen = 0
    for (const [ms, count] of this.pairs()) {
      seen += count
      if (seen >= rank) return ms
    }
    return Number.NaN
  }

  /** The largest value counted, in whole ms; NaN when empty. */
  max(): number {
    return this.total === 0 ? Number.NaN : Math.max(...this.counts.keys())
  }
}
