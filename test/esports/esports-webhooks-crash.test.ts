import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { spawnTessera, type SpawnedTessera } from '../support/spawn-tessera.js'
import { TEST_CREDENTIALS, testEnv } from '../support/test-credentials.js'
import { startReceiver } from './webhook-receiver.js'

const auth = { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}`, 'content-type': 'application/json' }

// At-least-once across a crash: the process is killed (SIGKILL, no shutdown) while a receiver
// holds its delivery open; the next process finds the abandoned attempt and sends it again —
// once, with the same webhook-id.
describe('esports webhook delivery survives a killed process', () => {
  const name = `tessera_webhook_crash_${process.pid}`
  let databaseUrl: string
  let first: SpawnedTessera | undefined
  let second: SpawnedTessera | undefined
  const env = () =>
    testEnv({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      LOG_LEVEL: 'warn',
      TESSERA_WEBHOOKS_ALLOW_PRIVATE: 'true',
      TESSERA_WEBHOOKS_TIMEOUT_MS: '1000',
      TESSERA_WEBHOOKS_POLL_MS: '200',
    })

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: inject('postgresUrl') })
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS ${name}`)
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    databaseUrl = `${inject('postgresBase')}${name}`
  })
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()])
    const admin = new pg.Client({ connectionString: inject('postgresUrl') })
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })

  it('delivers exactly once more after a kill -9 mid-delivery', async () => {
    // The first request is held open until the sender dies; later ones are answered.
    const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200))
    try {
      first = await spawnTessera(['start', '--service', 'esports'], env())
      const post = (base: string, path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })
      const hook = await post(first.url, '/v1/webhooks', { url: receiver.url, events: ['program.created'], secret: 'whsec-crash-0123456789abcdef' })
      expect(hook.status).toBe(201)
      const { id: webhookId } = (await hook.json()) as { id: string }
      const program = await post(first.url, '/v1/programs', { institution: { id: 'crash', name: 'Crash High' }, program: { name: 'Crash Esports' } })
      expect(program.status).toBe(201)
      await receiver.waitFor(1, 15_000)

      first.child.kill('SIGKILL')
      await new Promise((resolve) => first!.child.once('exit', resolve))
      second = await spawnTessera(['start', '--service', 'esports'], env())
      await receiver.waitFor(2, 15_000)
      // Anything else would have arrived by now: the sweep runs every 200 ms.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(receiver.received).toHaveLength(2)
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id'])
      expect(receiver.received[1]!.body.replace(/"signature":"[^"]+"/, '')).toBe(receiver.received[0]!.body.replace(/"signature":"[^"]+"/, ''))
      const log = (await (await fetch(`${second.url}/v1/webhooks/${webhookId}/deliveries`, { headers: auth })).json()) as {
        data: Array<{ status: string; log: Array<{ statusCode: number | null; error: string | null }> }>
      }
      expect(log.data).toHaveLength(1)
      expect(log.data[0]!.status).toBe('delivered')
      expect(log.data[0]!.log.map((a) => a.statusCode ?? a.error)).toEqual(['interrupted: the process sending it stopped', 200])
    } finally {
      await receiver.close()
    }
  })
})
