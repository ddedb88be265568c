import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { build, type TestTessera } from '../helper.js'

type Message = Record<string, unknown> & { type: string }
type Received = { at: number; message: Message }

/** A chart stream client that keeps every message and can wait for one matching a predicate. */
class StreamClient {
  /** Every message, in arrival order, with its arrival time (ms, performance.now()). */
  readonly log: Received[] = []
  private unread: Message[] = []
  private waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = []
  readonly closed: Promise<{ code: number; reason: string }>

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as Message
      this.log.push({ at: performance.now(), message })
      const waiter = this.waiters.find((w) => w.match(message))
      if (waiter) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        waiter.resolve(message)
      } else {
        this.unread.push(message)
      }
    })
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })))
  }

  static async open(url: string): Promise<StreamClient> {
    const socket = new WebSocket(url)
    const client = new StreamClient(socket)
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('error', reject)
    })
    return client
  }

  send(message: unknown) {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  /** The next message (unread first) matching `match`; messages that do not match stay unread. */
  next(match: (m: Message) => boolean = () => true, timeoutMs = 3000): Promise<Message> {
    const index = this.unread.findIndex(match)
    if (index >= 0) return Promise.resolve(this.unread.splice(index, 1)[0]!)
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (m: Message) => {
          clearTimeout(timer)
          resolve(m)
        },
      }
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        reject(new Error(`no matching message within ${timeoutMs} ms; received: ${JSON.stringify(this.log.slice(-10).map((r) => r.message))}`))
      }, timeoutMs)
      this.waiters.push(waiter)
    })
  }

  /** Sends `message` and waits for the next message matching `match`. */
  async request(message: unknown, match: (m: Message) => boolean, timeoutMs?: number) {
    this.send(message)
    return this.next(match, timeoutMs)
  }

  async authenticate(token: string) {
    const answer = await this.request({ type: 'auth', token }, (m) => m.type === 'authenticated' || m.type === 'error')
    expect(answer).toEqual({ type: 'authenticated' })
  }

  async subscribe(chartId: string, interval?: number) {
    const answer = await this.request(
      { type: 'subscribe', chart_id: chartId, ...(interval === undefined ? {} : { interval }) },
      (m) => (m.type === 'subscribed' || m.type === 'error') && m.chart_id === chartId,
    )
    expect(answer).toMatchObject({ type: 'subscribed', chart_id: chartId })
    return answer
  }

  /** data_update messages of a chart received after `since` (performance.now()). */
  updates(chartId: string, since = 0): Received[] {
    return this.log.filter((r) => r.at >= since && r.message.type === 'data_update' && r.message.chart_id === chartId)
  }

  close() {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate()
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const isUpdate = (chartId: string, label?: string) => (m: Message) =>
  m.type === 'data_update' && m.chart_id === chartId && (label === undefined || (m.data as Array<{ label: string }>).some((item) => item.label === label))
const isError = (code: string) => (m: Message) => m.type === 'error' && m.code === code

describe('chart stream over a real WebSocket', () => {
  let t: TestTessera
  let streamUrl: string
  const clients: StreamClient[] = []

  const open = async () => {
    const client = await StreamClient.open(streamUrl)
    clients.push(client)
    return client
  }
  const ready = async () => {
    const client = await open()
    await client.authenticate(t.apiKey)
    return client
  }
  const rest = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/v1/visualization${url}`, headers: t.auth, ...(payload ? { payload } : {}) })
  async function createChart(labels = ['a', 'b', 'c']) {
    const res = await rest('POST', '/charts/render', { chart_type: 'bar', data: labels.map((label, i) => ({ label, value: i + 1 })) })
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json() as { chart_id: string; render_url: string }
    return { id: body.chart_id, embedToken: new URL(body.render_url, 'http://x').searchParams.get('token')! }
  }

  beforeAll(async () => {
    t = await build({ services: ['visualization'], listen: true })
    streamUrl = `${t.url!.replace(/^http/, 'ws')}/v1/visualization/stream`
  })
  afterEach(() => {
    for (const client of clients.splice(0)) client.close()
  })
  afterAll(() => t?.close())

  describe('authentication', () => {
    it('refuses an unknown token with AUTH_FAILED, then closes with 4401', async () => {
      const client = await open()
      client.send({ type: 'auth', token: 'tsr_not_a_real_key' })
      expect(await client.next()).toMatchObject({ type: 'error', code: 'AUTH_FAILED' })
      expect((await client.closed).code).toBe(4401)
    })

    it('refuses an embed token with a forged signature', async () => {
      const chart = await createChart()
      const client = await open()
      client.send({ type: 'auth', token: `${chart.embedToken.split('.')[0]}.forged` })
      expect(await client.next()).toMatchObject({ type: 'error', code: 'AUTH_FAILED' })
      expect((await client.closed).code).toBe(4401)
    })

    it('answers any message before auth with AUTH_REQUIRED and closes with 4401', async () => {
      const chart = await createChart()
      const client = await open()
      client.send({ type: 'subscribe', chart_id: chart.id })
      expect(await client.next()).toMatchObject({ type: 'error', code: 'AUTH_REQUIRED' })
      expect((await client.closed).code).toBe(4401)
      expect(client.log.some((r) => r.message.type === 'data_update')).toBe(false)
    })

    it('accepts the API key', async () => {
      const client = await open()
      expect(await client.request({ type: 'auth', token: t.apiKey }, () => true)).toEqual({ type: 'authenticated' })
    })

    it('accepts a chart’s embed token for that chart only', async () => {
      const mine = await createChart()
      const other = await createChart()
      const client = await open()
      await client.authenticate(mine.embedToken)
      await client.subscribe(mine.id, 100)
      expect(await client.next(isUpdate(mine.id))).toMatchObject({ chart_id: mine.id })
      const refused = await client.request({ type: 'subscribe', chart_id: other.id, interval: 100 }, (m) => m.type !== 'data_update')
      expect(refused).toMatchObject({ type: 'error', code: 'FORBIDDEN', chart_id: other.id })
      await sleep(250)
      expect(client.updates(other.id)).toHaveLength(0)
      // The refusal does not end the embed token's own subscription.
      const seen = client.updates(mine.id).length
      await sleep(250)
      expect(client.updates(mine.id).length).toBeGreaterThan(seen)
    })
  })

  describe('subscriptions', () => {
    it('confirms a subscription and sends the chart’s data with a timestamp and version', async () => {
      const chart = await createChart(['north', 'south'])
      const client = await ready()
      expect(await client.subscribe(chart.id, 500)).toEqual({ type: 'subscribed', chart_id: chart.id, interval: 500 })
      const started = performance.now()
      const update = await client.next(isUpdate(chart.id), 1000)
      // The first update follows the confirmation at once, not after the interval.
      expect(performance.now() - started).toBeLessThan(400)
      expect(update).toEqual({
        type: 'data_update',
        chart_id: chart.id,
        timestamp: expect.any(String),
        data: [
          { label: 'north', value: 1 },
          { label: 'south', value: 2 },
        ],
        version: 1,
      })
      const timestamp = update.timestamp as string
      expect(new Date(timestamp).toISOString()).toBe(timestamp)
      expect(Math.abs(Date.now() - Date.parse(timestamp))).toBeLessThan(5000)
    })

    it('defaults the interval to 1000 ms', async () => {
      const chart = await createChart()
      const client = await ready()
      const answer = await client.request({ type: 'subscribe', chart_id: chart.id }, (m) => m.type === 'subscribed')
      expect(answer).toEqual({ type: 'subscribed', chart_id: chart.id, interval: 1000 })
    })

    it('sends each subscriber updates at its own interval', async () => {
      const chart = await createChart()
      const fast = await ready()
      const slow = await ready()
      await Promise.all([fast.subscribe(chart.id, 100), slow.subscribe(chart.id, 300)])
      const since = performance.now()
      await sleep(1200)
      const fastCount = fast.updates(chart.id, since - 50).length
      const slowCount = slow.updates(chart.id, since - 50).length
      // About 12 and 4 (plus the first at once).
      expect(fastCount).toBeGreaterThanOrEqual(8)
      expect(fastCount).toBeLessThanOrEqual(14)
      expect(slowCount).toBeGreaterThanOrEqual(3)
      expect(slowCount).toBeLessThanOrEqual(6)
    })

    it('brings a PUT and a data push to every subscriber within one interval', async () => {
      const chart = await createChart()
      const fast = await ready()
      const slow = await ready()
      await Promise.all([fast.subscribe(chart.id, 100), slow.subscribe(chart.id, 300)])
      await Promise.all([fast.next(isUpdate(chart.id)), slow.next(isUpdate(chart.id))])
      // Slack for the event's trip through the outbox on a busy test machine.
      const slack = 700

      const put = await rest('PUT', `/charts/${chart.id}`, {
        data: [
          { label: 'put-1', value: 10 },
          { label: 'put-2', value: 20 },
        ],
      })
      expect(put.statusCode, put.body).toBe(200)
      const putAt = performance.now()
      const [fastPut, slowPut] = await Promise.all([fast.next(isUpdate(chart.id, 'put-1'), 100 + slack), slow.next(isUpdate(chart.id, 'put-1'), 300 + slack)])
      expect(performance.now() - putAt).toBeLessThan(300 + slack)
      expect(fastPut.data).toEqual([
        { label: 'put-1', value: 10 },
        { label: 'put-2', value: 20 },
      ])
      expect(slowPut.version).toBe(put.json().version)
      expect(fastPut.version).toBe(2)

      const push = await rest('POST', `/charts/${chart.id}/data`, { data: [{ label: 'pushed', value: 7 }] })
      expect(push.statusCode, push.body).toBe(200)
      const pushAt = performance.now()
      const [fastPush, slowPush] = await Promise.all([
        fast.next(isUpdate(chart.id, 'pushed'), 100 + slack),
        slow.next(isUpdate(chart.id, 'pushed'), 300 + slack),
      ])
      expect(performance.now() - pushAt).toBeLessThan(300 + slack)
      expect(slowPush.data).toEqual([
        { label: 'put-1', value: 10 },
        { label: 'put-2', value: 20 },
        { label: 'pushed', value: 7 },
      ])
      expect(fastPush.version).toBe(push.json().version)
      expect(fastPush.version).toBe(3)
    })

    it('stops updates after unsubscribe', async () => {
      const chart = await createChart()
      const other = await createChart()
      const client = await ready()
      await client.subscribe(chart.id, 100)
      await client.subscribe(other.id, 100)
      await client.next(isUpdate(chart.id))
      expect(await client.request({ type: 'unsubscribe', chart_id: chart.id }, (m) => m.type === 'unsubscribed' || m.type === 'error')).toEqual({
        type: 'unsubscribed',
        chart_id: chart.id,
      })
      const at = client.log.findIndex((r) => r.message.type === 'unsubscribed')
      await sleep(400)
      expect(client.log.slice(at).filter((r) => isUpdate(chart.id)(r.message))).toHaveLength(0)
      // The other subscription on the socket goes on.
      expect(client.log.slice(at).filter((r) => isUpdate(other.id)(r.message)).length).toBeGreaterThanOrEqual(2)
    })

    it('refuses to unsubscribe from a chart it is not subscribed to', async () => {
      const chart = await createChart()
      const client = await ready()
      expect(await client.request({ type: 'unsubscribe', chart_id: chart.id }, () => true)).toMatchObject({
        type: 'error',
        code: 'INVALID_MESSAGE',
        field: 'chart_id',
      })
    })

    it('changes the rate when a chart is subscribed again with another interval', async () => {
      const chart = await createChart()
      const client = await ready()
      await client.subscribe(chart.id, 100)
      await sleep(300)
      expect(await client.subscribe(chart.id, 400)).toEqual({ type: 'subscribed', chart_id: chart.id, interval: 400 })
      const since = performance.now()
      await sleep(1200)
      const count = client.updates(chart.id, since).length
      // About 3 (plus the first at once); 100 ms would give about 12, both together about 15.
      expect(count).toBeGreaterThanOrEqual(2)
      expect(count).toBeLessThanOrEqual(5)
    })

    it('ends a subscription with CHART_DELETED when the chart is deleted', async () => {
      const chart = await createChart()
      const client = await ready()
      await client.subscribe(chart.id, 100)
      await client.next(isUpdate(chart.id))
      const deleted = await rest('DELETE', `/charts/${chart.id}`)
      expect(deleted.statusCode).toBe(200)
      expect(await client.next(isError('CHART_DELETED'), 2000)).toMatchObject({ type: 'error', code: 'CHART_DELETED', chart_id: chart.id })
      const at = client.log.findIndex((r) => r.message.code === 'CHART_DELETED')
      await sleep(300)
      expect(client.log.slice(at).filter((r) => isUpdate(chart.id)(r.message))).toHaveLength(0)
      expect(client.socket.readyState).toBe(WebSocket.OPEN)
    })
  })

  describe('bad messages', () => {
    it('refuses intervals outside 100 ms to one hour, and non-numbers, naming interval; the socket stays open', async () => {
      const chart = await createChart()
      const client = await ready()
      for (const interval of [99, 3_600_001, 'abc', 150.5]) {
        const answer = await client.request({ type: 'subscribe', chart_id: chart.id, interval }, (m) => m.type === 'error' || m.type === 'subscribed')
        expect(answer, `interval ${JSON.stringify(interval)}`).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE', field: 'interval' })
      }
      await sleep(150)
      expect(client.updates(chart.id)).toHaveLength(0)
      expect(await client.request({ type: 'ping' }, () => true)).toEqual({ type: 'pong' })
      // The bounds themselves are allowed.
      expect(await client.subscribe(chart.id, 100)).toMatchObject({ interval: 100 })
      expect(await client.subscribe(chart.id, 3_600_000)).toMatchObject({ interval: 3_600_000 })
    })

    it('answers an unknown chart with NOT_FOUND', async () => {
      const client = await ready()
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-chart']) {
        const answer = await client.request({ type: 'subscribe', chart_id: id, interval: 100 }, () => true)
        expect(answer).toMatchObject({ type: 'error', code: 'NOT_FOUND', chart_id: id })
      }
    })

    it('answers bad JSON, a non-object and an unknown type with INVALID_MESSAGE, and stays open', async () => {
      const client = await ready()
      for (const raw of ['{not json', '[1,2]', '"subscribe"', JSON.stringify({ type: 'dance' })]) {
        expect(await client.request(raw, () => true)).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE', field: 'type' })
      }
      expect(await client.request({ type: 'subscribe', interval: 100 }, () => true)).toMatchObject({
        type: 'error',
        code: 'INVALID_MESSAGE',
        field: 'chart_id',
      })
      expect(await client.request({ type: 'ping' }, () => true)).toEqual({ type: 'pong' })
    })

    it('answers ping with pong', async () => {
      const client = await ready()
      expect(await client.request({ type: 'ping' }, () => true)).toEqual({ type: 'pong' })
    })
  })

  it('refuses an upgrade to a path that is not the stream', async () => {
    const socket = new WebSocket(`${t.url!.replace(/^http/, 'ws')}/v1/visualization/nope`)
    const status = await new Promise<number | string>((resolve) => {
      socket.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 'no status')
        socket.terminate()
      })
      socket.on('open', () => resolve('opened'))
      socket.on('error', (error) => resolve(error.message))
    })
    expect(status).toBe(404)
  })
})
