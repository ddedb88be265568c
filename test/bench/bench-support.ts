import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'

/** A failure of the benchmark run itself (not a missed target). */
export class BenchError extends Error {
  override name = 'BenchError'
}

/** A positive integer from the environment, or `fallback` when unset. */
export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new BenchError(`${name} must be a positive integer, got "${raw}"`)
  return value
}

/** What a server child reports over IPC while it starts. */
export type StartMessage = { type: 'ready' } | { type: 'failed'; message: string } | { type: string }

/** Options of the janitor that owns a benchmark's child processes and temp dirs. */
export interface JanitorOptions {
  startupTimeoutMs: number
  stopTimeoutMs: number
  /** Extra synchronous clean-up (e.g. stopping a database cluster), run last. */
  alsoCleanUp?: () => void
}

/**
 * Starts server children and keeps every child and temp dir it hands out, so they are always
 * cleaned up by their own pids and paths: on a normal finish, on Ctrl-C, and (synchronously,
 * kill and delete only) when the process exits without the async clean-up having run.
 */
export function createJanitor(options: JanitorOptions) {
  const children = new Set<ChildProcess>()
  const tempDirs: string[] = []
  const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null
  // A child may die between the check and the kill; that is the outcome we wanted anyway.
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name)
    } catch {}
  }
  const removeDir = (dir: string) => {
    try {
      // Retries ride out a child that is still letting go of its files as it dies.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
    } catch (error) {
      process.stderr.write(`could not remove ${dir}: ${String(error)}\n`)
    }
  }

  // Asked over IPC first (the server closes gracefully, which also lets --cpu-prof write its
  // profile), SIGTERM if the channel is gone, SIGKILL when neither works in time.
  async function stop(child: ChildProcess) {
    if (!alive(child) || child.pid === undefined) return
    const pid = child.pid
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    if (child.connected) child.send({ type: 'stop' })
    else signal(pid, 'SIGTERM')
    const timer = setTimeout(() => {
      if (alive(child)) signal(pid, 'SIGKILL')
    }, options.stopTimeoutMs)
    await exited
    clearTimeout(timer)
  }

  async function cleanup() {
    await Promise.all([...children].map((child) => stop(child).catch(() => {})))
    for (const dir of tempDirs.splice(0)) removeDir(dir)
    options.alsoCleanUp?.()
  }

  process.on('exit', () => {
    for (const child of children) if (alive(child) && child.pid !== undefined) signal(child.pid, 'SIGKILL')
    for (const dir of tempDirs) removeDir(dir)
    options.alsoCleanUp?.()
  })
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    process.once(name, () => {
      process.stderr.write(`\n${name}: stopping the servers\n`)
      void cleanup().finally(() => process.exit(name === 'SIGINT' ? 130 : 143))
    })
  }

  return {
    children,
    tempDirs,
    removeDir,
    stop,
    cleanup,
    /** Forks a server script and resolves with the child and its `ready` message. */
    start<Ready extends { type: 'ready' }>(file: string, args: string[], env: NodeJS.ProcessEnv, extraExecArgv: string[] = []) {
      // process.execArgv carries tsx's loader (--require/--import), so the child runs TypeScript too.
      const child = fork(file, args, { execArgv: [...process.execArgv, ...extraExecArgv], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      children.add(child)
      child.once('exit', () => children.delete(child))
      return new Promise<{ child: ChildProcess; ready: Ready }>((resolve, reject) => {
        const timer = setTimeout(() => fail(`did not start within ${options.startupTimeoutMs / 1000} s`), options.startupTimeoutMs)
        const fail = (why: string) => {
          clearTimeout(timer)
          child.off('message', onMessage)
          child.off('exit', onExit)
          reject(new BenchError(`server ${[file.split('/').pop(), ...args].join(' ')} (pid ${child.pid ?? '?'}) ${why}`))
        }
        const onMessage = (message: StartMessage) => {
          if (message.type === 'failed') return fail(`failed to start:\n${(message as { message: string }).message}`)
          if (message.type !== 'ready') return
          clearTimeout(timer)
          child.off('exit', onExit)
          child.off('message', onMessage)
          resolve({ child, ready: message as Ready })
        }
        const onExit = (code: number | null, sig: NodeJS.Signals | null) => fail(`exited during start-up (code ${code}, signal ${sig})`)
        child.on('message', onMessage)
        child.once('exit', onExit)
      })
    },
  }
}

/** A JSON call to a benchmarked server: status, parsed body (when JSON) and raw text. */
export type JsonCall = (method: 'GET' | 'POST', route: string, body?: unknown) => Promise<{ status: number; json: unknown; text: string }>

/** JSON calls to `base` with an Authorization header, each bounded by `timeoutMs`. */
export function jsonApi(base: string, auth: string, timeoutMs: number): JsonCall {
  return async (method, route, body) => {
    const response = await fetch(base + route, {
      method,
      headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: response.status, json, text }
  }
}

/**
 * In a server child: shuts down once, when the parent asks over IPC (`{ type: 'stop' }`),
 * sends SIGTERM (its fallback), or dies (the IPC channel closes). SIGINT — Ctrl-C reaches the
 * whole process group — is left to the parent, which then sends 'stop'. Signal handlers that
 * libraries installed are removed first: an ApolloServer stops itself on SIGINT/SIGTERM, and in
 * @apollo/server 5.5.1 a second stop() while the first runs never resolves. Other IPC
 * messages go to `onMessage`.
 */
export function closeOnRequest(label: string, close: () => Promise<void>, onMessage?: (message: { type: string }) => void) {
  process.removeAllListeners('SIGINT')
  process.removeAllListeners('SIGTERM')
  let closing = false
  const stop = () => {
    if (closing) return
    closing = true
    close()
      .catch((error: unknown) => process.stderr.write(`${label}: close failed: ${String(error)}\n`))
      // exit() rather than waiting for the loop to drain: --cpu-prof writes its profile on exit
      // either way, and a stray timer or socket must not keep the parent waiting.
      .finally(() => process.exit(0))
  }
  process.on('message', (message: { type: string }) => {
    if (message.type === 'stop') stop()
    else onMessage?.(message)
  })
  process.on('disconnect', stop)
  process.on('SIGTERM', stop)
  process.on('SIGINT', () => {})
}

/**
 * In a server child whose start failed: reports the failure to the parent (exiting only once
 * the message is out, since IPC writes are asynchronous), or prints it when run on its own.
 */
export function reportStartFailure(error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
  if (process.send) process.send({ type: 'failed', message }, () => process.exit(1))
  else {
    process.stderr.write(`${message}\n`)
    process.exit(1)
  }
}

/** Creates the high-priority alert the gateway benchmarks read, over REST; resolves with its id. */
export async function createBenchAlert(call: JsonCall): Promise<string> {
  const created = await call('POST', '/v1/medical/alert', { device_id: 'pump-1', priority: 'high' })
  const id = (created.json as { alert_id?: unknown } | undefined)?.alert_id
  if (created.status !== 201 || typeof id !== 'string') throw new BenchError(`creating the alert failed: HTTP ${created.status} ${created.text}`)
  return id
}

/**
 * The environment of a benchmarked server: loopback only, no shared database, no Apollo usage
 * reporting, and no @apollo/gateway telemetry (it exports metrics and probes cloud metadata
 * endpoints; Tessera's gateway turns it off too, so every gateway runs without it).
 */
export function benchBaseEnv(): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, APOLLO_TELEMETRY_DISABLED: 'true' }
  for (const name of ['DATABASE_URL', 'APOLLO_KEY', 'APOLLO_GRAPH_REF', 'APOLLO_GRAPH_ID']) delete base[name]
  return base
}

/** A whole Tessera process for a gateway benchmark: its own PGlite in `dataDir`, `apiKey` registered. */
export function tesseraBenchEnv(base: NodeJS.ProcessEnv, dataDir: string, apiKey: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...base,
    ...extra,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TESSERA_API_KEY: apiKey,
    TESSERA_SECRET_KEY: randomBytes(32).toString('hex'),
    // The limiter must never answer 429 during a measurement.
    TESSERA_RATE_LIMIT_MAX: '100000000',
    // No escalation job may rewrite the alert mid-run (high priority escalates after 60 s).
    TESSERA_ALERT_ESCALATE_HIGH_SECONDS: String(7 * 24 * 3600),
    TESSERA_SHUTDOWN_GRACE_MS: '1000',
  }
}
