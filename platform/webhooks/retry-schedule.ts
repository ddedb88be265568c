/** How deliveries are retried. */
export interface RetrySchedule {
  /** Attempts in all, the first included. */
  maxAttempts: number
  /** Delay after the first failure, ms; each further failure doubles it. */
  baseDelayMs: number
  /** Longest delay between two attempts, ms. */
  maxDelayMs: number
}

/**
 * Tessera's default: 12 attempts, 1 min doubling to at most 8 h — 1, 2, 4 … 256 min, 8 h, 8 h —
 * about 24.5 hours from the first attempt to the last, each delay ±20 % jitter so receivers
 * coming back from an outage are not hit by every sender at once.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { maxAttempts: 12, baseDelayMs: 60_000, maxDelayMs: 8 * 3600_000 }

/** The delay before attempt `failed + 1`, after `failed` failed attempts (1-based). */
export function retryDelayMs(schedule: RetrySchedule, failed: number, random: () => number = Math.random): number {
  const plain = Math.min(schedule.baseDelayMs * 2 ** Math.max(0, failed - 1), schedule.maxDelayMs)
  return Math.round(plain * (0.8 + 0.4 * random()))
}

/** The whole schedule's span without jitter, ms: the time from the first attempt to the last. */
export function retrySpanMs(schedule: RetrySchedule): number {
  let total = 0
  for (let failed = 1; failed < schedule.maxAttempts; failed++) total += Math.min(schedule.baseDelayMs * 2 ** (failed - 1), schedule.maxDelayMs)
  return total
}
