import type { Database } from '../db/database.js'

/** Counts hits per key and fixed window. */
export interface RateLimitStore {
  /** Adds one hit to `key` in the window starting at `windowStart` (epoch s); returns the new count. */
  hit(key: string, windowStart: number, windowSeconds: number): Promise<number>
}

/** The state a response reports in its X-RateLimit-* headers. */
export interface RateLimitState {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window resets. */
  reset: number
}

/** Options of a rate limiter. */
export interface RateLimiterOptions {
  store: RateLimitStore
  /** Requests allowed per key per window. */
  max: number
  windowSeconds: number
  /** Clock in ms, replaceable in tests. */
  now?: () => number
  /**
   * What request limiting does when its store fails (a database blip): `open` (the default)
   * counts in this process's memory until the store answers again, so a blip neither stops
   * traffic nor lifts every limit; `closed` refuses with {@link RateLimitUnavailableError}.
   * Failed authentications are always counted fail-closed: guesses are never let through
   * uncounted.
   */
  whenStoreFails?: 'open' | 'closed'
  /** Told of each store failure (the process logs it). */
  onStoreError?: (error: unknown) => void
}

/** A fail-closed limiter could not count: the edge answers 503 with `Retry-After`. */
export class RateLimitUnavailableError extends Error {
  override name = 'RateLimitUnavailableError'
  /** Seconds a client should wait before trying again. */
  readonly retryAfterSeconds = 5
  constructor(cause: unknown) {
    super('Rate limits cannot be checked right now', { cause })
  }
}

/** A limit of its own for one bucket, e.g. a credential's tier (requests per window). */
export interface RateLimitPolicy {
  max: number
  windowSeconds: number
}

/** A fixed-window limiter: simple, and every replica agrees on the window boundaries. */
export function createRateLimiter(options: RateLimiterOptions) {
  const now = options.now ?? Date.now
  const fallback = createMemoryRateLimitStore()
  const hit = async (key: string, windowStart: number, windowSeconds: number, failOpen: boolean) => {
    try {
      return await options.store.hit(key, windowStart, windowSeconds)
    } catch (error) {
      options.onStoreError?.(error)
      if (!failOpen) throw new RateLimitUnavailableError(error)
      return fallback.hit(key, windowStart, windowSeconds)
    }
  }
  /** Counts a hit on `key`; `policy` replaces the limiter's own max and window for this bucket. */
  const count = async (key: string, failOpen: boolean, policy?: RateLimitPolicy): Promise<RateLimitState> => {
    const max = policy?.max ?? options.max
    const windowSeconds = policy?.windowSeconds ?? options.windowSeconds
    // A bucket with its own policy is counted apart from the same key under the default one.
    const bucket = policy ? `${key}|${max}/${windowSeconds}` : key
    const seconds = Math.floor(now() / 1000)
    const windowStart = seconds - (seconds % windowSeconds)
    const count = await hit(bucket, windowStart, windowSeconds, failOpen)
    return {
      allowed: count <= max,
      limit: max,
      remaining: Math.max(0, max - count),
      reset: windowStart + windowSeconds - seconds,
    }
  }
  const consume = (key: string, policy?: RateLimitPolicy) => count(key, options.whenStoreFails !== 'closed', policy)
  return {
    max: options.max,
    windowSeconds: options.windowSeconds,
    consume,
    /**
     * Counts a failed authentication against the client address. Every guessed key is a new
     * credential (a new bucket), so guessing is throttled by address, on every interface and
     * the chart stream alike.
     */
    failedAuthentication: (address: string) => count(`authfail:${address}`, false),
  }
}

/** A rate limiter. */
export type RateLimiter = ReturnType<typeof createRateLimiter>

/** Counters in this process: right for the embedded mode, where one process serves everything. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const counters = new Map<string, { windowStart: number; count: number }>()
  return {
    async hit(key, windowStart) {
      const current = counters.get(key)
      if (!current || current.windowStart !== windowStart) {
        // Old windows are dropped as keys come back; a sweep bounds keys that never do.
        if (counters.size > 100_000) for (const [k, v] of counters) if (v.windowStart < windowStart) counters.delete(k)
        counters.set(key, { windowStart, count: 1 })
        return 1
      }
      current.count += 1
      return current.count
    },
  }
}

/** Counters in PostgreSQL, shared by every replica. */
export function createPostgresRateLimitStore(db: Database): RateLimitStore {
  let hits = 0
  return {
    async hit(key, windowStart, windowSeconds) {
      const [row] = await db.query<{ count: number }>(
        `INSERT INTO platform.rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
         RETURNING count`,
        [key, windowStart],
      )
      if (++hits % 1000 === 0) {
        // A bucket with its own policy names its window at the end of its key (`|max/seconds`):
        // each row is dropped only once its own window has passed.
        await db.query(
          `DELETE FROM platform.rate_limit_counters
           WHERE window_start + COALESCE(substring(key from '[|][0-9]+/([0-9]+)$')::int, $2) < $1`,
          [windowStart - windowSeconds, windowSeconds],
        )
      }
      return row?.count ?? 1
    },
  }
}

/** Sets the X-RateLimit-* headers (and Retry-After when over the limit). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.reset),
  }
  if (!state.allowed) headers['retry-after'] = String(state.reset)
  return headers
}
