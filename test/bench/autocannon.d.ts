// autocannon ships no types and @types/autocannon is not installed; this covers only what the
// gateway benchmark uses, so strict mode keeps checking our side of the calls.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string
      /** Called with every response to this request (the body is always collected). */
      onResponse?(status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>): void
    }

    interface Options {
      url: string
      connections?: number
      /** Seconds. */
      duration?: number
      /** Seconds before a request counts as timed out. */
      timeout?: number
      requests?: Request[]
    }

    interface Result {
      /** Seconds the run actually lasted. */
      duration: number
      /** Socket errors and timeouts. */
      errors: number
      timeouts: number
      non2xx: number
      totalCompletedRequests: number
    }

    /** The run's event emitter; 'response' carries (client, status, bytes, responseTime in ms). */
    interface Instance extends EventEmitter {
      stop(): void
    }
  }

  function autocannon(options: autocannon.Options, callback: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance

  export = autocannon
}
