import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnTessera } from './support/spawn-tessera.js'

const dirs: string[] = []
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-cli-'))
  dirs.push(dir)
  return dir
}
// Asynchronous, so the tests of this file run side by side: each one spends most of its time
// waiting for a process to start.
const tessera = (args: string[], env: Record<string, string>) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/tessera.ts', ...args],
      { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 90_000 },
      (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    )
  })

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe.concurrent('the tessera command', { timeout: 240_000 }, () => {
  it('fails fast with a clear message on a bad setting', async () => {
    const res = await tessera(['start'], { PORT: 'eighty', DATA_DIR: dataDir() })
    expect(res.status).toBe(2)
    expect(res.stderr).toContain('PORT')
    const pair = await tessera(['start'], { TESSERA_CLIENT_ID: 'only-the-id', DATA_DIR: dataDir() })
    expect(pair.status).toBe(2)
    expect(pair.stderr).toContain('TESSERA_CLIENT_ID and TESSERA_CLIENT_SECRET must be set together')
    // Checked before the database is touched: nothing listens on port 1.
    const keyless = await tessera(['start'], { DATABASE_URL: 'postgres://tessera@127.0.0.1:1/tessera', DATA_DIR: dataDir() })
    expect(keyless.status).toBe(2)
    expect(keyless.stderr).toContain('TESSERA_SECRET_KEY: required with DATABASE_URL')
    const unreachable = await tessera(['start'], {
      DATABASE_URL: 'postgres://tessera:hunter2@127.0.0.1:1/tessera',
      TESSERA_SECRET_KEY: 'ab'.repeat(32),
      DATA_DIR: dataDir(),
    })
    expect(unreachable.status).toBe(2)
    expect(unreachable.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Cannot use the database at 127\.0\.0\.1:1\/tessera \(ECONNREFUSED.*check DATABASE_URL/),
    ])
    expect(unreachable.stderr).not.toContain('hunter2')
  })

  it('prints development credentials on the first start only, and they work', async () => {
    const dir = dataDir()
    const first = await spawnTessera(['start'], { DATA_DIR: dir, PORT: '0' })
    // Start-up says what it does, step by step.
    expect(first.output()).toMatch(/database: embedded PostgreSQL in .*\n\s+migrations: applied \d+ .*\n/)
    expect(first.output()).toMatch(/services: devices, visualization, pipelines, esports, content, heritage \(\d+ ms\)/)
    const key = /API key\s+(tsr_\S+)/.exec(first.output())?.[1]
    expect(key).toBeDefined()
    const res = await fetch(`${first.url}/v1/quantum/gates`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.status).toBe(200)
    expect(await first.stop()).toBe(0)
    const second = await spawnTessera(['start'], { DATA_DIR: dir, PORT: '0' })
    expect(second.output()).not.toContain('tsr_')
    expect((await fetch(`${second.url}/v1/quantum/gates`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    expect(await second.stop()).toBe(0)
  })

  it('registers exactly the credentials given in the environment', async () => {
    const dir = dataDir()
    const apiKey = 'my-own-development-key-123456'
    const running = await spawnTessera(['start'], {
      DATA_DIR: dir,
      PORT: '0',
      TESSERA_API_KEY: apiKey,
      TESSERA_CLIENT_ID: 'ci-client',
      TESSERA_CLIENT_SECRET: 'ci-secret-0123456789abcdef',
    })
    try {
      expect(running.output()).not.toContain(apiKey)
      expect((await fetch(`${running.url}/v1/quantum/gates`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200)
      const token = await fetch(`${running.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=ci-client&client_secret=ci-secret-0123456789abcdef',
      })
      expect(token.status).toBe(200)
    } finally {
      await running.stop()
    }
  })

  it('refuses to open a data folder another process is using', async () => {
    const dir = dataDir()
    const running = await spawnTessera(['start'], { DATA_DIR: dir, PORT: '0' })
    try {
      const second = await tessera(['start'], { DATA_DIR: dir, PORT: '0' })
      expect(second.status).toBe(2)
      expect(second.stderr).toMatch(/in use by process \d+/)
      // keys create beside a running embedded server would print a key that never works.
      const keys = await tessera(['keys', 'create', '--name', 'late', '--scopes', 'devices:read'], { DATA_DIR: dir })
      expect(keys.status).toBe(2)
      expect(keys.stdout).not.toContain('tsr_')
      expect(keys.stderr).toMatch(/in use by a running Tessera \(process \d+\)\. Stop the server first/)
    } finally {
      await running.stop()
    }
  })

  it('creates, lists and revokes API keys; a key is shown once and stored hashed', async () => {
    const dir = dataDir()
    const created = await tessera(['keys', 'create', '--name', 'kiosk', '--scopes', 'devices:read'], { DATA_DIR: dir })
    expect(created.status, created.stderr).toBe(0)
    const key = /\n {2}(tsr_\S+)/.exec(created.stdout)?.[1]
    const id = /API key ([0-9a-f-]{36})/.exec(created.stdout)?.[1]
    expect(key && id).toBeTruthy()
    expect((await tessera(['keys', 'revoke', id!], { DATA_DIR: dir })).stdout).toContain(`revoked ${id}`)
    const shaped = await tessera(
      ['keys', 'create', '--name', 'classroom', '--scopes', 'devices:read', '--environment', 'sandbox', '--tier', 'pro', '--rate-limit', '5000'],
      { DATA_DIR: dir },
    )
    expect(shaped.stdout).toContain('sandbox tier=pro limit=5000/h')
    const listed = await tessera(['keys', 'list'], { DATA_DIR: dir })
    expect(listed.stdout).toMatch(/kiosk.*revoked/)
    expect(listed.stdout).toMatch(/classroom.*sandbox tier=pro limit=5000\/h/)
    expect(listed.stdout).not.toContain(key!)
  })

  it('refuses bad credential arguments before opening the database', async () => {
    const dir = dataDir()
    const unknown = await tessera(['keys', 'create', '--name', 'x', '--scopes', 'nothing:read'], { DATA_DIR: dir })
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('Unknown scope "nothing:read"')
    const badEnvironment = await tessera(['clients', 'create', '--name', 'y', '--scopes', 'devices:read', '--environment', 'staging'], { DATA_DIR: dir })
    expect(badEnvironment.status).toBe(2)
    expect(badEnvironment.stderr).toContain('Unknown environment "staging"')
    expect(existsSync(path.join(dir, 'pgdata'))).toBe(false)
  })
})
