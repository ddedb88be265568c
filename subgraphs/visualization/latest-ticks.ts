import type { ChartTick, StreamListener } from './chart-stream.js'

/**
 * A subscription to a chart's ticks as an async iterator (what GraphQL subscriptions consume).
 * A consumer that falls behind gets the newest tick, never a backlog; ending the iteration
 * ends the subscription.
 */
export async function latestTicks(subscribe: (listener: StreamListener) => Promise<{ stop: () => void }>): Promise<AsyncIterableIterator<ChartTick>> {
  let latest: ChartTick | undefined
  let ended = false
  let wake: (() => void) | undefined
  const { stop } = await subscribe({
    tick(tick) {
      latest = tick
      wake?.()
    },
    end() {
      ended = true
      wake?.()
    },
  })
  const iterator: AsyncIterableIterator<ChartTick> = {
    async next() {
      while (latest === undefined && !ended) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      if (latest !== undefined) {
        const value = latest
        latest = undefined
        return { value, done: false }
      }
      stop()
      return { value: undefined, done: true }
    },
    async return() {
      ended = true
      stop()
      wake?.()
      return { value: undefined, done: true }
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}
