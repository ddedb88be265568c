/**
 * The live chart stream: every subscriber of a chart gets the chart's current data at its
 * interval. Subscribers of one chart at one interval share a timer and a tick object, so a
 * thousand viewers of a dashboard cost one timer and (for a socket adapter that caches its
 * serialisation per tick) one JSON encoding per tick.
 *
 * Changes reach the stream as domain events, so a subscriber on any replica sees data pushed
 * through any other.
 *
 * @module
 */

import type { DomainEvent, EventBus } from '../../platform/events/event-bus.js'

/** The shortest interval a subscriber may ask for, ms. */
export const MIN_INTERVAL_MS = 100
/** The longest interval, ms (one hour). */
export const MAX_INTERVAL_MS = 3_600_000
/** The interval when a subscriber names none, ms. */
export const DEFAULT_INTERVAL_MS = 1000

/** Events the visualization service writes to its outbox. */
export const CHART_EVENTS = { changed: 'chart.changed', deleted: 'chart.deleted' } as const

/** Payload of a `chart.changed` event: the chart's data as of `version`. */
export interface ChartChangedPayload {
  chartId: string
  version: number
  data: unknown[]
}

/** A chart's data at a version. */
export interface ChartSnapshot {
  chartId: string
  version: number
  data: readonly unknown[]
}

/** One tick: the same object reaches every subscriber of a chart at one interval. */
export interface ChartTick {
  chartId: string
  version: number
  /** ISO 8601 UTC. */
  timestamp: string
  data: readonly unknown[]
}

/** Why a subscription ended without its subscriber asking. */
export type StreamEndReason = 'deleted' | 'closed'

/** Receives a subscription's ticks and its end. */
export interface StreamListener {
  tick(tick: ChartTick): void
  end(reason: StreamEndReason): void
}

/** Counters of a stream, for metrics and benchmarks. */
export interface ChartStreamStats {
  charts: number
  timers: number
  subscribers: number
  ticks: number
  /** Ticks skipped because the process fell more than an interval behind. */
  skippedTicks: number
}

/** What the stream needs. */
export interface ChartStreamOptions {
  /** Reads a chart's current data; null when there is no such chart. */
  load(chartId: string): Promise<ChartSnapshot | null>
  events: EventBus
  /** The schema (= service) whose outbox carries chart events. */
  schema: string
  onError?: (error: unknown) => void
}

interface Group {
  interval: number
  listeners: Set<StreamListener>
  timer: NodeJS.Timeout | undefined
  /** `performance.now()` of slot 0; slot k is due at start + k × interval. */
  start: number
  slot: number
}

interface TrackedChart {
  snapshot: ChartSnapshot
  groups: Map<number, Group>
}

/** Creates the stream of one process. */
export function createChartStream(options: ChartStreamOptions) {
  const charts = new Map<string, TrackedChart>()
  const loading = new Map<string, Promise<TrackedChart | null>>()
  const stats = { ticks: 0, skippedTicks: 0 }
  let closed = false

  const emit = (chart: TrackedChart, group: Group, to: Iterable<StreamListener> = group.listeners) => {
    const { snapshot } = chart
    const tick: ChartTick = { chartId: snapshot.chartId, version: snapshot.version, timestamp: new Date().toISOString(), data: snapshot.data }
    for (const listener of to) {
      try {
        listener.tick(tick)
      } catch (error) {
        options.onError?.(error)
      }
    }
    stats.ticks++
  }

  // Keeps to the fixed schedule start + k × interval: a timer that fires late sends the
  // current slot and, when whole slots went by, skips them rather than sending a burst.
  const schedule = (chart: TrackedChart, group: Group) => {
    const due = group.start + (group.slot + 1) * group.interval
    group.timer = setTimeout(
      () => {
        const now = performance.now()
        const current = Math.floor((now - group.start) / group.interval)
        if (current > group.slot + 1) stats.skippedTicks += current - group.slot - 1
        group.slot = Math.max(current, group.slot + 1)
        emit(chart, group)
        schedule(chart, group)
      },
      Math.max(0, due - performance.now()),
    )
  }

  const untrackIfIdle = (chartId: string) => {
    const chart = charts.get(chartId)
    if (chart && chart.groups.size === 0) charts.delete(chartId)
  }

  const endChart = (chartId: string, reason: StreamEndReason) => {
    const chart = charts.get(chartId)
    if (!chart) return
    charts.delete(chartId)
    for (const group of chart.groups.values()) {
      clearTimeout(group.timer)
      for (const listener of group.listeners) listener.end(reason)
      group.listeners.clear()
    }
    chart.groups.clear()
  }

  const onEvent = (event: DomainEvent) => {
    if (event.type === CHART_EVENTS.deleted) return endChart(event.aggregateId, 'deleted')
    const chart = charts.get(event.aggregateId)
    const payload = event.payload as ChartChangedPayload
    // Events may arrive out of order across replicas; an older version never replaces a newer one.
    if (chart && payload.version > chart.snapshot.version) chart.snapshot = { chartId: payload.chartId, version: payload.version, data: payload.data }
  }

  const feed = options.events.subscribe({ schema: options.schema, types: Object.values(CHART_EVENTS) })
  void (async () => {
    for await (const event of feed) onEvent(event)
  })().catch((error: unknown) => options.onError?.(error))

  async function track(chartId: string): Promise<TrackedChart | null> {
    const known = charts.get(chartId)
    if (known) return known
    let pending = loading.get(chartId)
    if (!pending) {
      // The bus listens before the load, so a change committed meanwhile is not lost: its
      // event either finds the chart tracked or is older than what the load read.
      pending = options.load(chartId).then((snapshot) => {
        if (!snapshot) return null
        const existing = charts.get(chartId)
        if (existing) return existing
        const chart: TrackedChart = { snapshot, groups: new Map() }
        charts.set(chartId, chart)
        return chart
      })
      loading.set(chartId, pending)
      void pending.finally(() => loading.delete(chartId)).catch(() => {})
    }
    return pending
  }

  return {
    /**
     * Subscribes `listener` to a chart's data every `intervalMs` (already validated to lie
     * between {@link MIN_INTERVAL_MS} and {@link MAX_INTERVAL_MS}). The first tick follows at
     * once (after the caller's own continuation). Resolves to the function that ends the subscription, or null when the chart does
     * not exist.
     */
    async subscribe(chartId: string, intervalMs: number, listener: StreamListener): Promise<(() => void) | null> {
      if (closed) return null
      const chart = await track(chartId)
      if (!chart || closed) return null
      // A chart deleted while it was loading has left the map; its listener would never tick.
      if (charts.get(chartId) !== chart) return null
      let group = chart.groups.get(intervalMs)
      if (!group) {
        group = { interval: intervalMs, listeners: new Set(), timer: undefined, start: performance.now(), slot: 0 }
        chart.groups.set(intervalMs, group)
        schedule(chart, group)
      }
      group.listeners.add(listener)
      const joined = group
      // The first tick goes out once the caller has acknowledged the subscription.
      setImmediate(() => {
        if (joined.listeners.has(listener)) emit(chart, joined, [listener])
      })
      return () => {
        if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return
        clearTimeout(joined.timer)
        chart.groups.delete(joined.interval)
        untrackIfIdle(chartId)
      }
    },

    stats(): ChartStreamStats {
      let timers = 0
      let subscribers = 0
      for (const chart of charts.values()) {
        timers += chart.groups.size
        for (const group of chart.groups.values()) subscribers += group.listeners.size
      }
      return { charts: charts.size, timers, subscribers, ...stats }
    },

    /** Ends every subscription (reason `closed`) and stops listening for events. */
    async close() {
      closed = true
      for (const chartId of [...charts.keys()]) endChart(chartId, 'closed')
      await feed.return?.()
    },
  }
}

/** The chart stream of a process. */
export type ChartStream = ReturnType<typeof createChartStream>
