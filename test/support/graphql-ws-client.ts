import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'

/** A graphql-ws client for tests, with a helper that collects events with a deadline. */
export function wsClient(url: string, connectionParams: Record<string, unknown> = {}): Client {
  return createClient({ url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true })
}

/** Subscribes and returns the first `count` results (or throws after `timeoutMs`). */
export function collect(
  client: Client,
  request: { query: string; variables?: Record<string, unknown> },
  count: number,
  timeoutMs = 10_000,
): {
  results: Promise<Array<{ data?: Record<string, unknown> | null; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> }>>
  ready: Promise<void>
} {
  const seen: Array<{ data?: Record<string, unknown> | null; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> }> = []
  let markReady: () => void = () => {}
  const ready = new Promise<void>((resolve) => (markReady = resolve))
  const results = new Promise<typeof seen>((resolve, reject) => {
    let dispose: () => void = () => {}
    const timer = setTimeout(() => {
      dispose()
      reject(new Error(`timed out after ${timeoutMs} ms with ${seen.length}/${count} results: ${JSON.stringify(seen)}`))
    }, timeoutMs)
    const finish = () => {
      clearTimeout(timer)
      dispose()
      resolve(seen)
    }
    dispose = client.subscribe(request, {
      next(value) {
        seen.push(value as (typeof seen)[number])
        if (seen.length >= count) finish()
      },
      error(error) {
        seen.push({
          errors: Array.isArray(error) ? error : [{ message: error instanceof Error ? error.message : String((error as { reason?: string }).reason ?? error) }],
        })
        finish()
      },
      complete: finish,
    })
  })
  // The subscription is registered downstream once the server has acknowledged the
  // connection and processed `subscribe`; a short pause after `connected` covers that.
  client.on('connected', () => setTimeout(markReady, 150))
  return { results, ready }
}
