/** A small seeded generator (mulberry32): the same seed gives the same problems. */
export function createRandom(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    /** A whole number from `min` to `max`, both included. */
    int,
    /** A whole number from `min` to `max` other than zero. */
    nonZero(min: number, max: number) {
      for (let i = 0; i < 50; i++) {
        const n = int(min, max)
        if (n !== 0) return n
      }
      return max === 0 ? min : max
    },
    pick<T>(items: readonly T[]): T {
      return items[Math.floor(next() * items.length)]!
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = [...items]
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j]!, out[i]!]
      }
      return out
    },
  }
}

/** A seeded generator. */
export type Random = ReturnType<typeof createRandom>
