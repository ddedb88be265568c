/** Maps each value of an async iterator (the map may be async); ending the mapped iterator ends the source. */
export function mapAsyncIterator<T, U>(source: AsyncIterator<T>, map: (value: T) => U | Promise<U>): AsyncIterableIterator<U> {
  const iterator: AsyncIterableIterator<U> = {
    async next() {
      const r = await source.next()
      return r.done ? { value: undefined, done: true } : { value: await map(r.value), done: false }
    },
    async return() {
      await source.return?.()
      return { value: undefined, done: true }
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }
  return iterator
}
