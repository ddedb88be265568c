import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { freePort } from './free-port.js'
import { tmpdir } from 'node:os'
import path from 'node:path'

const REDIS_SERVER = '/usr/bin/redis-server'

/** A throwaway Redis server for tests. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, with `:<password>@` when started with `requirepass`. */
  url: string
  host: string
  port: number
  /** Kills this server (by its own pid) and removes its data folder. */
  stop(): Promise<void>
}

export interface RedisServerOptions {
  /** Starts the server with `requirepass`, for tests of logins. */
  requirepass?: string
  /** Further server options, e.g. `['--databases', '2']`. */
  args?: string[]
  /** How long to wait for the server to accept connections (ms). */
  timeoutMs?: number
}

/**
 * Sends one inline PING and resolves true when any RESP reply comes back: `+PONG`, or `-NOAUTH`
 * when the server wants a password — either way it is up and serving commands.
 */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(500, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (chunk) => done(/^[+-]/.test(chunk.toString())))
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts Debian's `redis-server` on 127.0.0.1 and a free port, with nothing persisted (no RDB
 * snapshots, no append-only file) and its working folder in a temporary directory that `stop`
 * removes. Resolves once the server answers a PING, or rejects after `timeoutMs` with the
 * server's output.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(`${REDIS_SERVER} not found: install the Redis server for these tests (apt-get install redis-server)`)
  }
  // The free port is only free until someone else binds it (parallel test files start servers
  // too), so a server that loses that race is started again on another one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(await freePort(), options)
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTaken)) throw error
    }
  }
}

class PortTaken extends Error {}

async function launch(port: number, options: RedisServerOptions): Promise<RedisServer> {
  const timeoutMs = options.timeoutMs ?? 10_000
  const host = '127.0.0.1'
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-redis-'))
  const args = ['--bind', host, '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning']
  if (options.requirepass !== undefined) args.push('--requirepass', options.requirepass)
  args.push(...(options.args ?? []))
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // A test process that dies without running afterAll must not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)

  const stop = async () => {
    process.removeListener('exit', killOnExit)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(killer)
    }
    rmSync(dir, { recursive: true, force: true })
  }

  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop()
      const message = `redis-server exited before accepting connections (port ${port}):\n${output}`
      throw /address already in use/i.test(output) ? new PortTaken(message) : new Error(message)
    }
    if (await answersPing(port)) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`redis-server did not accept connections on port ${port} within ${timeoutMs} ms:\n${output}`)
    }
    await sleep(50)
  }
  const auth = options.requirepass !== undefined ? `:${encodeURIComponent(options.requirepass)}@` : ''
  return { url: `redis://${auth}${host}:${port}`, host, port, stop }
}
