import { createServer, type Socket } from 'node:net'
import { inspect } from 'node:util'
import Ajv from 'ajv'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startRedisServer, type RedisServer } from '../../../test/support/redis-server.js'
import { ConnectionError, ConnectorConfigError, type Column, type ConnectorContext, type Row, type WriteTarget } from './connector.js'
import { redisStreamConnector as connector, type RedisStreamSettings } from './redis-stream-connector.js'
import { STRESS_COLUMNS, stressRows } from './stress-rows.js'

const context: ConnectorContext = { dataDir: '/nonexistent' }
const PASSWORD = 'hunter2-Very-Secret'

let server: RedisServer
let authServer: RedisServer
let admin: Redis

const settings = (over: Partial<RedisStreamSettings> = {}): RedisStreamSettings => ({ host: server.host, port: server.port, stream: 'events', ...over })

async function readAll(over: Partial<RedisStreamSettings> = {}, batchSize = 1000, cursor?: { column: string; after: unknown }): Promise<Row[][]> {
  const batches: Row[][] = []
  for await (const batch of connector.read!(settings(over), context, { batchSize, ...(cursor ? { cursor } : {}) })) batches.push(batch)
  return batches
}

/** Adds `count` entries `{ n: <i> }` in one round trip and returns their ids. */
async function seed(key: string, count: number, fields: (i: number) => string[] = (i) => ['n', String(i)]): Promise<string[]> {
  const pipeline = admin.pipeline()
  for (let i = 0; i < count; i++) pipeline.xadd(key, '*', ...fields(i))
  const results = (await pipeline.exec()) ?? []
  return results.map(([error, id]) => {
    if (error) throw error
    return id as string
  })
}

/** Connections this connector has open on the test server (it names them). */
async function connectorIds(): Promise<string[]> {
  const list = (await admin.client('LIST')) as string
  return list
    .split('\n')
    .filter((line) => line.includes(' name=tessera:redis_stream '))
    .map((line) => /^id=(\d+)/.exec(line)?.[1] ?? '')
}

const connectorClients = async () => (await connectorIds()).length

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 1))
    })
  })
}

const target = (mode: WriteTarget['mode'], columns: Column[]): WriteTarget => ({ mode, columns, primaryKey: ['_id'] })
const col = (name: string, type: Column['type'] = 'string'): Column => ({ name, type, nullable: true })

beforeAll(async () => {
  const started = await Promise.all([startRedisServer(), startRedisServer({ requirepass: PASSWORD })])
  server = started[0]
  authServer = started[1]
  admin = new Redis(server.port, server.host)
})

afterAll(async () => {
  await admin?.quit()
  await Promise.all([server?.stop(), authServer?.stop()])
})

beforeEach(async () => {
  await admin.flushall()
})

// Every operation must close what it opened, also when it fails or is stopped early.
afterEach(async () => {
  try {
    await expect.poll(connectorClients, { timeout: 2000 }).toBe(0)
  } finally {
    // So one leak (or a test that failed with a writer open) does not fail every later test.
    for (const id of await connectorIds()) await admin.client('KILL', 'ID', id)
  }
})

describe('the redis_stream connector definition', () => {
  it('describes itself and validates its settings', () => {
    expect(connector).toMatchObject({
      id: 'redis_stream',
      aliases: ['redis'],
      name: 'Redis Streams',
      role: 'both',
      category: 'streaming',
      supportedVersions: ['6', '7'],
      secretFields: ['password'],
    })
    // As the pipeline configuration compiles it: `type: 'object'` added, defaults filled in.
    const validate = new Ajv.default({ strict: true, useDefaults: true, allErrors: true }).compile({ ...connector.settingsSchema, type: 'object' })
    const minimal: Record<string, unknown> = { host: 'redis.internal', stream: 'orders' }
    expect(validate(minimal)).toBe(true)
    expect(minimal).toEqual({ host: 'redis.internal', stream: 'orders', port: 6379, db: 0, tls: false, connect_timeout_seconds: 10 })
    expect(validate({ host: 'h', stream: 's', password: 'p', username: 'u', db: 15, tls: true, connect_timeout_seconds: 2.5 })).toBe(true)
    expect(validate({ host: 'h' })).toBe(false)
    expect(validate({ host: 'h', stream: 's', db: 16 })).toBe(false)
    expect(validate({ host: 'h', stream: 's', table: 'x' })).toBe(false)
  })
})

describe('check', () => {
  it('logs in and answers a PING', async () => {
    await expect(connector.check(settings(), context)).resolves.toBeUndefined()
    await expect(connector.check({ host: authServer.host, port: authServer.port, stream: 's', password: PASSWORD }, context)).resolves.toBeUndefined()
  })

  it('reports a wrong or missing password as ConnectionError without the password', async () => {
    const wrong = 'not-the-password-42'
    const error = await connector.check({ host: authServer.host, port: authServer.port, stream: 's', password: wrong }, context).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as Error).message).toMatch(/refused the login/)
    // Neither the message nor anything hanging off the error (a `cause` with the HELLO command).
    expect(inspect(error, { depth: 10 })).not.toContain(wrong)
    expect(inspect(error, { depth: 10 })).not.toContain(PASSWORD)

    const none = await connector.check({ host: authServer.host, port: authServer.port, stream: 's' }, context).catch((e: unknown) => e)
    expect(none).toBeInstanceOf(ConnectionError)
    expect((none as Error).message).toMatch(/requires a password/)
  })

  it('reports a closed port as ConnectionError without the password', async () => {
    const port = await closedPort()
    const error = await connector.check({ host: '127.0.0.1', port, stream: 's', password: PASSWORD }, context).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect((error as Error).message).toMatch(new RegExp(`cannot connect to Redis at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`))
    expect(inspect(error, { depth: 10 })).not.toContain(PASSWORD)
  })

  it('gives up on a server that accepts the connection but never answers', async () => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => {
      sockets.add(socket.on('error', () => {}))
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const address = silent.address()
    const port = typeof address === 'object' && address ? address.port : 1
    try {
      const started = Date.now()
      const error = await connector.check({ host: '127.0.0.1', port, stream: 's', connect_timeout_seconds: 0.5 }, context).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConnectionError)
      expect((error as Error).message).toMatch(/no answer within 0.5 s/)
      expect(Date.now() - started).toBeLessThan(3000)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })

  it('refuses a key that holds something else than a stream', async () => {
    await admin.set('events', 'a string')
    const error = await connector.check(settings(), context).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectorConfigError)
    expect(error).toMatchObject({ field: 'stream', message: 'Redis key "events" holds a string, not a stream' })
  })

  it('selects the configured database, and refuses one the server does not have', async () => {
    const small = await startRedisServer({ args: ['--databases', '2'] })
    try {
      const client = new Redis({ host: small.host, port: small.port, db: 1 })
      await client.xadd('events', '*', 'n', '1')
      await client.quit()
      const [batch] = await readAll({ port: small.port, db: 1 })
      expect(batch).toHaveLength(1)
      expect(await readAll({ port: small.port, db: 0 })).toEqual([])
      const error = await connector.check(settings({ port: small.port, db: 5 }), context).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConnectorConfigError)
      expect(error).toMatchObject({ field: 'db' })
    } finally {
      await small.stop()
    }
  })
})

describe('discover', () => {
  it('infers column types from the field values, with _id as the key', async () => {
    await seed('events', 3, (i) => [
      'user',
      `u${i}`,
      'count',
      String(i * 10),
      'price',
      i === 1 ? '2.5' : String(i),
      'active',
      i % 2 ? 'true' : 'false',
      'at',
      `2024-01-0${i + 1}T10:00:00.000Z`,
      'payload',
      JSON.stringify({ i }),
      'code',
      i === 2 ? 'x' : '1',
      ...(i === 0 ? ['note', 'only here'] : []),
    ])
    expect(await connector.discover(settings(), context)).toEqual({
      name: 'events',
      columns: [
        { name: '_id', type: 'string', nullable: false },
        { name: 'user', type: 'string', nullable: true },
        { name: 'count', type: 'integer', nullable: true },
        { name: 'price', type: 'number', nullable: true },
        { name: 'active', type: 'boolean', nullable: true },
        { name: 'at', type: 'timestamp', nullable: true },
        { name: 'payload', type: 'json', nullable: true },
        { name: 'code', type: 'string', nullable: true },
        { name: 'note', type: 'string', nullable: true },
      ],
      primaryKey: ['_id'],
    })
  })

  it('gives a missing or empty stream just _id', async () => {
    const justId = { name: 'events', columns: [{ name: '_id', type: 'string', nullable: false }], primaryKey: ['_id'] }
    expect(await connector.discover(settings(), context)).toEqual(justId)
    await admin.xgroup('CREATE', 'events', 'g', '$', 'MKSTREAM')
    expect(await connector.discover(settings(), context)).toEqual(justId)
  })

  it('samples the newest entries too, so a field added later is found', async () => {
    await seed('events', 300, (i) => (i < 250 ? ['n', String(i)] : ['n', String(i), 'region', 'eu']))
    const { columns } = await connector.discover(settings(), context)
    expect(columns.map((c) => `${c.name}:${c.type}`)).toEqual(['_id:string', 'n:integer', 'region:string'])
  })
})

describe('read', () => {
  it('reads in batches of batchSize, in id order', async () => {
    const ids = await seed('events', 2500)
    const batches = await readAll({}, 1000)
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 500])
    const rows = batches.flat()
    expect(rows.map((r) => r._id)).toEqual(ids)
    expect(rows.map((r) => r.n)).toEqual(ids.map((_, i) => i))
  })

  it('yields no empty batch when the stream divides evenly, and nothing for a missing stream', async () => {
    expect(await readAll()).toEqual([])
    await seed('events', 2000)
    expect((await readAll({}, 1000)).map((b) => b.length)).toEqual([1000, 1000])
  })

  it('reads incrementally after an entry id, exclusively', async () => {
    const ids = await seed('events', 2500)
    const after = ids[1499]
    const batches = await readAll({}, 1000, { column: '_id', after })
    expect(batches.map((b) => b.length)).toEqual([1000])
    expect(batches.flat().map((r) => r._id)).toEqual(ids.slice(1500))
    expect((await readAll({}, 1000, { column: '_id', after: null })).flat()).toHaveLength(2500)
    expect(await readAll({}, 1000, { column: '_id', after: ids[2499] })).toEqual([])
  })

  it('accepts only _id as the incremental cursor', async () => {
    await seed('events', 3)
    const error = await readAll({}, 10, { column: 'n', after: 1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectorConfigError)
    expect(error).toMatchObject({ field: 'cursor_column' })
  })

  it('stops at the newest entry of when it started', async () => {
    await seed('events', 2500)
    let total = 0
    let first = true
    for await (const batch of connector.read!(settings(), context, { batchSize: 1000 })) {
      total += batch.length
      // A producer keeps adding while the run reads: those entries are the next run's.
      if (first) await seed('events', 700)
      first = false
    }
    expect(total).toBe(2500)
  })

  it('closes its connection when the consumer stops early', async () => {
    await seed('events', 2500)
    const iterator = connector.read!(settings(), context, { batchSize: 1000 })[Symbol.asyncIterator]()
    const first = await iterator.next()
    expect(first.value).toHaveLength(1000)
    expect(await connectorClients()).toBe(1)
    await iterator.return!()
    await expect.poll(connectorClients, { timeout: 2000 }).toBe(0)

    for await (const batch of connector.read!(settings(), context, { batchSize: 10 })) {
      expect(batch).toHaveLength(10)
      break
    }
    await expect.poll(connectorClients, { timeout: 2000 }).toBe(0)
  })
})

describe('openWriter', () => {
  const columns = [col('name'), col('n', 'integer')]

  it('replace stages the new entries and swaps them in on commit, atomically', async () => {
    await seed('events', 3, (i) => ['name', `old${i}`])
    const writer = await connector.openWriter!(settings(), context, target('replace', columns))
    await writer.write([
      { name: 'new0', n: 0 },
      { name: 'new1', n: 1 },
    ])
    await writer.write([{ name: 'new2', n: 2 }])
    // Not visible before commit: readers still see the whole old stream.
    expect((await readAll()).flat().map((r) => r.name)).toEqual(['old0', 'old1', 'old2'])
    const [staging] = await admin.keys('events:tessera-tmp-*')
    expect(await admin.xlen(staging!)).toBe(3)
    expect(await admin.pttl(staging!)).toBeGreaterThan(0)
    await writer.commit()
    expect((await readAll()).flat().map((r) => [r.name, r.n])).toEqual([
      ['new0', 0],
      ['new1', 1],
      ['new2', 2],
    ])
    expect(await admin.keys('*')).toEqual(['events'])
    // The staging expiry does not carry over to the stream.
    expect(await admin.pttl('events')).toBe(-1)
  })

  it('replace then abort leaves the old stream intact and no staging key behind', async () => {
    const ids = await seed('events', 3, (i) => ['name', `old${i}`])
    const writer = await connector.openWriter!(settings(), context, target('replace', columns))
    await writer.write([{ name: 'new0', n: 0 }])
    await writer.abort()
    expect((await readAll()).flat().map((r) => [r._id, r.name])).toEqual(ids.map((id, i) => [id, `old${i}`]))
    expect(await admin.keys('*')).toEqual(['events'])
    await expect(writer.write([{ name: 'late' }])).rejects.toThrow(/aborted/)
  })

  it('replace with no rows leaves an existing, empty stream', async () => {
    await seed('events', 3)
    const writer = await connector.openWriter!(settings(), context, target('replace', columns))
    await writer.commit()
    expect(await admin.type('events')).toBe('stream')
    expect(await admin.xlen('events')).toBe(0)
    expect(await admin.xinfo('GROUPS', 'events')).toEqual([])
  })

  it('append adds after the existing entries, each batch as soon as it is written', async () => {
    await seed('events', 2, (i) => ['name', `old${i}`])
    const writer = await connector.openWriter!(settings(), context, target('append', columns))
    await writer.write([
      { name: 'a', n: 1 },
      { name: 'b', n: 2 },
    ])
    // At-least-once, not staged: the batch is already there before commit, and stays after abort.
    expect(await admin.xlen('events')).toBe(4)
    await writer.commit()
    expect((await readAll()).flat().map((r) => r.name)).toEqual(['old0', 'old1', 'a', 'b'])

    const aborted = await connector.openWriter!(settings(), context, target('append', columns))
    await aborted.write([{ name: 'c', n: 3 }])
    await aborted.abort()
    expect(await admin.xlen('events')).toBe(5)
  })

  it('append with no rows creates a missing stream', async () => {
    const writer = await connector.openWriter!(settings(), context, target('append', columns))
    await writer.commit()
    expect(await admin.type('events')).toBe('stream')
    expect(await admin.xlen('events')).toBe(0)
  })

  it('refuses merge without connecting', async () => {
    const connections = async () => /total_connections_received:(\d+)/.exec(await admin.info('stats'))?.[1]
    const before = await connections()
    const error = await connector.openWriter!(settings(), context, target('merge', columns)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectorConfigError)
    expect(error).toMatchObject({ field: 'mode', message: 'streams are append-only: merge is not supported' })
    expect(await connections()).toBe(before)
  })

  it('refuses a key of another type before writing', async () => {
    await admin.rpush('events', 'x')
    const error = await connector.openWriter!(settings(), context, target('append', columns)).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ConnectorConfigError', field: 'stream' })
  })

  it('rejects a batch with a row that has no value at all, writing none of it', async () => {
    const writer = await connector.openWriter!(settings(), context, target('append', columns))
    await expect(writer.write([{ name: 'ok' }, { name: null, n: null }])).rejects.toThrow(/row 1 of the batch has no non-null value/)
    await writer.abort()
    expect(await admin.exists('events')).toBe(0)
  })

  it('round-trips values through a stream', async () => {
    const types: Column[] = [
      col('s'),
      col('i', 'integer'),
      col('big', 'integer'),
      col('f', 'number'),
      col('b', 'boolean'),
      col('t', 'timestamp'),
      col('j', 'json'),
      col('u'),
      col('e'),
      col('maybe'),
    ]
    const rows: Row[] = [
      {
        _id: 'not-written',
        s: 'hello',
        i: 42,
        big: '9007199254740993',
        f: 3.25,
        b: true,
        t: new Date('2024-05-06T07:08:09.123Z'),
        j: { a: [1, 'x'], b: null },
        u: 'Grüße 🎉 日本語',
        e: '',
        maybe: null,
      },
      {
        s: '007',
        i: -7,
        big: '12',
        f: 1e-7,
        b: false,
        t: new Date('1999-12-31T23:59:59.000Z'),
        j: [1, 2],
        u: '\u00e9\u0301 \t"quoted"\n',
        e: '',
        maybe: 'here',
      },
    ]
    const writer = await connector.openWriter!(settings(), context, target('replace', [col('_id'), ...types]))
    await writer.write(rows)
    await writer.commit()

    const raw = await admin.xrange('events', '-', '+')
    // `_id` is the entry id, not a field; null is a missing field.
    expect(raw[0]![1]).toEqual([
      's',
      'hello',
      'i',
      '42',
      'big',
      '9007199254740993',
      'f',
      '3.25',
      'b',
      'true',
      't',
      '2024-05-06T07:08:09.123Z',
      'j',
      '{"a":[1,"x"],"b":null}',
      'u',
      'Grüße 🎉 日本語',
      'e',
      '',
    ])

    const schema = await connector.discover(settings(), context)
    expect(schema.columns.slice(1).map((c) => [c.name, c.type])).toEqual(types.map((c) => [c.name, c.type]))
    const read = (await readAll()).flat()
    expect(read.map((r) => r._id)).toEqual(raw.map(([id]) => id))
    const { _id: ignored, ...first } = rows[0]!
    expect(ignored).toBe('not-written')
    // Integers beyond 2^53 stay strings; the rest come back as they went in.
    expect(read.map(({ _id, ...rest }) => rest)).toEqual([first, { ...rows[1], big: 12 }])
  })

  it('round-trips the shared stress rows; JSON scalars among objects come back as text', async () => {
    const write = async (rows: Row[]) => {
      const writer = await connector.openWriter!(settings(), context, target('replace', [...STRESS_COLUMNS]))
      await writer.write(rows.slice(0, 5))
      await writer.write(rows.slice(5))
      await writer.commit()
      return (await readAll({}, 4)).flat().map(({ _id, ...rest }) => rest)
    }
    // Objects and arrays only: every value comes back as it went in.
    const objects = stressRows().map((row) => (typeof row.doc === 'object' ? row : { ...row, doc: { was: row.doc } }))
    expect(await write(objects)).toEqual(objects)
    // A stream keeps only text: the string `just a string` and `42` next to JSON objects make
    // `doc` a string column, so every doc comes back as the text that was stored.
    const mixed = stressRows()
    const stored = (doc: unknown) => (doc === null || typeof doc === 'string' ? doc : JSON.stringify(doc))
    expect(await write(mixed)).toEqual(mixed.map((row) => ({ ...row, doc: stored(row.doc) })))
  })
})
