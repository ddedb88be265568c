/** Maps each value of an async iterator; ending the mapped iterator ends the source. */
export function mapAsyncIterator<T, U>(source: AsyncIterator<T>, map: (value: T) => U): AsyncIterableIterator<U> {
  const iterator: AsyncIterableIterator<U> = {
    async next() {
      const r = await source.next()
      return r.done ? { value: undefined, done: true } : { value: map(r.value), done: false }
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
