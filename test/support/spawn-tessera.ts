import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** A Tessera process started from the command line, as an operator would. */
export interface SpawnedTessera {
  url: string
  child: ChildProcess
  output: () => string
  /** SIGTERM and wait for a graceful exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>
}

/**
 * Runs `tessera <args>` in a child process and resolves once it prints its listening line.
 * Loopback only; the child is killed if it does not come up within `timeoutMs`.
 */
export function spawnTessera(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<SpawnedTessera> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin/tessera.ts'), ...args], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`tessera ${args.join(' ')} did not start in ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/[^\s]+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve({
          url: match[1],
          child,
          output: () => output,
          async stop(graceMs = 15_000) {
            if (child.exitCode !== null) return child.exitCode
            child.kill('SIGTERM')
            const killer = setTimeout(() => child.kill('SIGKILL'), graceMs)
            const code = await exited
            clearTimeout(killer)
            return code
          },
        })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`tessera ${args.join(' ')} exited with ${code}:\n${output}`))
    })
  })
}
