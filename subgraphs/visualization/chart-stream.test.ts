import { afterEach, describe, expect, it } from 'vitest'
import type { DomainEvent, EventBus, EventFilter } from '../../platform/events/event-bus.js'
import { CHART_EVENTS, createChartStream, type ChartSnapshot, type ChartTick, type StreamEndReason, type StreamListener } from './chart-stream.js'

/** An event bus of which the stream only uses `subscribe`: events pushed here reach its feed. */
function fakeBus() {
  const queue: DomainEvent[] = []
  const waiting: Array<(r: IteratorResult<DomainEvent>) => void> = []
  let done = false
  const filters: EventFilter[] = []
  const iterator: AsyncIterableIterator<DomainEvent> = {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false })
      if (done) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve) => waiting.push(resolve))
    },
    return() {
      done = true
      for (const w of waiting.splice(0)) w({ value: undefined, done: true })
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return {
    bus: {
      subscribe(filter: EventFilter) {
        filters.push(filter)
        return iterator
      },
    } as unknown as EventBus,
    filters,
    get ended() {
      return done
    },
    push(type: string, aggregateId: string, payload: unknown) {
      const event: DomainEvent = { id: `${type}-${Math.random()}`, schema: 'visualization', type, aggregateId, occurredAt: new Date().toISOString(), payload }
      const next = waiting.shift()
      if (next) next({ value: event, done: false })
      else queue.push(event)
    },
  }
}

/** A listener that keeps what it receives. */
function recorder() {
  const ticks: ChartTick[] = []
  const ends: StreamEndReason[] = []
  const listener: StreamListener = { tick: (tick) => ticks.push(tick), end: (reason) => ends.push(reason) }
  return { listener, ticks, ends }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

async function until(check: () => boolean, timeoutMs = 2000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await sleep(5)
  }
}

const A = '00000000-0000-4000-8000-00000000000a'
const B = '00000000-0000-4000-8000-00000000000b'

describe('chart stream', () => {
  let stream: ReturnType<typeof createChartStream> | undefined
  let feed: ReturnType<typeof fakeBus>
  let charts: Map<string, ChartSnapshot>
  let loads: string[]

  function start() {
    feed = fakeBus()
    charts = new Map([
      [A, { chartId: A, version: 1, data: [{ label: 'a', value: 1 }] }],
      [B, { chartId: B, version: 1, data: [{ label: 'b', value: 2 }] }],
    ])
    loads = []
    stream = createChartStream({
      events: feed.bus,
      schema: 'visualization',
      load: async (id) => {
        loads.push(id)
        return charts.get(id) ?? null
      },
    })
    return stream
  }

  afterEach(async () => {
    await stream?.close()
    stream = undefined
  })

  it('listens to the chart events of its schema', () => {
    start()
    expect(feed.filters).toEqual([{ schema: 'visualization', types: expect.arrayContaining([CHART_EVENTS.changed, CHART_EVENTS.deleted]) }])
  })

  it('sends the first tick right after subscribe resolves, with the current data', async () => {
    const s = start()
    const r = recorder()
    const stop = await s.subscribe(A, 60_000, r.listener)
    expect(stop).toBeTypeOf('function')
    // The caller gets to acknowledge the subscription before the first tick.
    expect(r.ticks).toHaveLength(0)
    await nextTurn()
    expect(r.ticks).toHaveLength(1)
    expect(r.ticks[0]).toMatchObject({ chartId: A, version: 1, data: [{ label: 'a', value: 1 }] })
    expect(new Date(r.ticks[0]!.timestamp).toISOString()).toBe(r.ticks[0]!.timestamp)
  })

  it('ticks at the interval', async () => {
    const s = start()
    const r = recorder()
    await s.subscribe(A, 100, r.listener)
    await sleep(550)
    // The first tick at once, then one per 100 ms: about 6.
    expect(r.ticks.length).toBeGreaterThanOrEqual(5)
    expect(r.ticks.length).toBeLessThanOrEqual(7)
  })

  it('gives subscribers of one chart at one interval one timer and the same tick object', async () => {
    const s = start()
    const one = recorder()
    const two = recorder()
    await s.subscribe(A, 100, one.listener)
    await s.subscribe(A, 100, two.listener)
    expect(s.stats()).toMatchObject({ charts: 1, timers: 1, subscribers: 2 })
    await until(() => one.ticks.length >= 3 && two.ticks.length >= 3)
    // The first tick of each is its own; after that both get what the shared timer emits.
    const shared = one.ticks.slice(1).filter((tick) => two.ticks.includes(tick))
    expect(shared.length).toBeGreaterThanOrEqual(1)
    expect(loads).toEqual([A])
  })

  it('loads a chart once even when two subscribe at the same moment', async () => {
    const s = start()
    await Promise.all([s.subscribe(A, 100, recorder().listener), s.subscribe(A, 200, recorder().listener)])
    expect(loads).toEqual([A])
  })

  it('runs a timer per interval', async () => {
    const s = start()
    const fast = recorder()
    const slow = recorder()
    await s.subscribe(A, 100, fast.listener)
    await s.subscribe(A, 300, slow.listener)
    expect(s.stats()).toMatchObject({ charts: 1, timers: 2, subscribers: 2 })
    await sleep(650)
    // About 7 and 3 (the first tick at once, then one per interval).
    expect(fast.ticks.length).toBeGreaterThanOrEqual(5)
    expect(fast.ticks.length).toBeLessThanOrEqual(8)
    expect(slow.ticks.length).toBeGreaterThanOrEqual(2)
    expect(slow.ticks.length).toBeLessThanOrEqual(4)
    expect(fast.ticks.length).toBeGreaterThan(slow.ticks.length)
  })

  it('takes the data of a chart.changed event with a higher version and ignores an older one', async () => {
    const s = start()
    const r = recorder()
    await s.subscribe(A, 100, r.listener)
    await nextTurn()
    feed.push(CHART_EVENTS.changed, A, { chartId: A, version: 3, data: [{ label: 'v3', value: 3 }] })
    await until(() => r.ticks.at(-1)?.version === 3)
    expect(r.ticks.at(-1)!.data).toEqual([{ label: 'v3', value: 3 }])

    // Out of order across replicas: version 2 arrives after version 3.
    feed.push(CHART_EVENTS.changed, A, { chartId: A, version: 2, data: [{ label: 'v2', value: 2 }] })
    const seen = r.ticks.length
    await until(() => r.ticks.length >= seen + 2)
    expect(r.ticks.slice(seen).every((tick) => tick.version === 3 && (tick.data[0] as { label: string }).label === 'v3')).toBe(true)
  })

  it('leaves other charts alone when one changes', async () => {
    const s = start()
    const a = recorder()
    const b = recorder()
    await s.subscribe(A, 100, a.listener)
    await s.subscribe(B, 100, b.listener)
    feed.push(CHART_EVENTS.changed, A, { chartId: A, version: 2, data: [{ label: 'new', value: 9 }] })
    await until(() => a.ticks.at(-1)?.version === 2)
    const seen = b.ticks.length
    await until(() => b.ticks.length > seen)
    expect(b.ticks.at(-1)).toMatchObject({ chartId: B, version: 1, data: [{ label: 'b', value: 2 }] })
  })

  it('ends the listeners of a deleted chart with reason deleted and stops its timers', async () => {
    const s = start()
    const one = recorder()
    const two = recorder()
    const other = recorder()
    await s.subscribe(A, 100, one.listener)
    await s.subscribe(A, 250, two.listener)
    await s.subscribe(B, 100, other.listener)
    await nextTurn()
    feed.push(CHART_EVENTS.deleted, A, { chartId: A })
    await until(() => one.ends.length > 0 && two.ends.length > 0)
    expect(one.ends).toEqual(['deleted'])
    expect(two.ends).toEqual(['deleted'])
    expect(other.ends).toEqual([])
    expect(s.stats()).toMatchObject({ charts: 1, timers: 1, subscribers: 1 })
    const ticks = one.ticks.length
    await sleep(250)
    expect(one.ticks.length).toBe(ticks)
  })

  it('stops ticking after unsubscribe and forgets idle charts', async () => {
    const s = start()
    const one = recorder()
    const two = recorder()
    const stopOne = (await s.subscribe(A, 100, one.listener))!
    const stopTwo = (await s.subscribe(A, 100, two.listener))!
    await nextTurn()

    stopOne()
    // The other subscriber keeps the timer.
    expect(s.stats()).toMatchObject({ charts: 1, timers: 1, subscribers: 1 })
    const oneAtStop = one.ticks.length
    const twoAtStop = two.ticks.length
    await sleep(250)
    expect(one.ticks.length).toBe(oneAtStop)
    expect(two.ticks.length).toBeGreaterThan(twoAtStop)

    stopTwo()
    expect(s.stats()).toMatchObject({ charts: 0, timers: 0, subscribers: 0 })
    const twoAtEnd = two.ticks.length
    await sleep(250)
    expect(two.ticks.length).toBe(twoAtEnd)
    expect(one.ends).toEqual([])
    // Stopping twice changes nothing.
    stopTwo()
    expect(s.stats().charts).toBe(0)
  })

  it('does not tick a listener that unsubscribed before its first tick', async () => {
    const s = start()
    const r = recorder()
    const stop = (await s.subscribe(A, 100, r.listener))!
    stop()
    await sleep(150)
    expect(r.ticks).toHaveLength(0)
  })

  it('reads a chart again once it was untracked, with its new data', async () => {
    const s = start()
    const stop = (await s.subscribe(A, 100, recorder().listener))!
    stop()
    charts.set(A, { chartId: A, version: 5, data: [{ label: 'later', value: 5 }] })
    const r = recorder()
    await s.subscribe(A, 100, r.listener)
    await nextTurn()
    expect(loads).toEqual([A, A])
    expect(r.ticks[0]).toMatchObject({ version: 5, data: [{ label: 'later', value: 5 }] })
  })

  it('resolves null for a chart that does not exist', async () => {
    const s = start()
    const r = recorder()
    expect(await s.subscribe('00000000-0000-4000-8000-000000000404', 100, r.listener)).toBeNull()
    await sleep(150)
    expect(r.ticks).toHaveLength(0)
    expect(s.stats()).toMatchObject({ charts: 0, timers: 0 })
  })

  it('close() ends every subscription with reason closed and stops listening to events', async () => {
    const s = start()
    const a = recorder()
    const b = recorder()
    await s.subscribe(A, 100, a.listener)
    await s.subscribe(B, 200, b.listener)
    await s.close()
    expect(a.ends).toEqual(['closed'])
    expect(b.ends).toEqual(['closed'])
    expect(s.stats()).toMatchObject({ charts: 0, timers: 0, subscribers: 0 })
    expect(feed.ended).toBe(true)
    const ticks = a.ticks.length + b.ticks.length
    await sleep(250)
    expect(a.ticks.length + b.ticks.length).toBe(ticks)
    expect(await s.subscribe(A, 100, recorder().listener)).toBeNull()
  })
})
