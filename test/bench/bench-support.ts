import { fork, type ChildProcess } from 'node:child_process'
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
