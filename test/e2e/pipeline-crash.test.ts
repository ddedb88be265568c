import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnTessera, type SpawnedTessera } from '../support/spawn-tessera.js'
import { TEST_CREDENTIALS, testEnv } from '../support/test-credentials.js'

const auth = { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` }

async function writeBigCsv(file: string, rows: number) {
  const out = createWriteStream(file)
  out.write('id,label,value\n')
  for (let i = 1; i <= rows; i += 10_000) {
    let chunk = ''
    for (let j = i; j < i + 10_000 && j <= rows; j++) chunk += `${j},item-${j},${(j * 7) % 101}\n`
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

const tempFiles = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.tmp')) : []

describe('kill -9 during a pipeline run', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-crash-'))
  const files = path.join(dataDir, 'pipelines/files')
  const env = testEnv({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', TESSERA_PIPELINES_HEARTBEAT_SECONDS: '0.5' })
  let running: SpawnedTessera | undefined
  afterAll(async () => {
    await running?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('ends the run as failed with the reason after restart, removes its temporary file and takes new runs', async () => {
    mkdirSync(files, { recursive: true })
    await writeBigCsv(path.join(files, 'big.csv'), 400_000)
    let tessera = await spawnTessera(['start', '--service', 'pipelines'], env)
    running = tessera
    const api = (method: string, url: string, body?: object) =>
      fetch(`${tessera.url}${url}`, {
        method,
        ...(body ? { headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) } : { headers: auth }),
      })
    const created = await api('POST', '/v1/pipelines', {
      name: 'crash',
      source: { type: 'csv', path: 'big.csv' },
      destination: { type: 'csv', path: 'out/big.csv' },
      sync: { batch_size: 1000 },
    })
    expect(created.status).toBe(201)
    const pipelineId = ((await created.json()) as { pipeline_id: string }).pipeline_id
    const started = await api('POST', `/v1/pipelines/${pipelineId}/run`)
    expect(started.status).toBe(202)
    const runId = ((await started.json()) as { run_id: string }).run_id

    // Killed once it is writing its temporary output.
    const deadline = Date.now() + 20_000
    while (!tempFiles(files).some((name) => name.includes(runId))) {
      if (Date.now() > deadline) throw new Error(`the run never started writing: ${tessera.output()}`)
      await new Promise((r) => setTimeout(r, 20))
    }
    tessera.child.kill('SIGKILL')
    await once(tessera.child, 'exit')
    expect(tempFiles(files).length).toBe(1)

    tessera = await spawnTessera(['start', '--service', 'pipelines'], env)
    running = tessera
    const restartedAt = Date.now()
    let run: { status: string; error_message?: string; error_code?: string } | undefined
    for (;;) {
      const runs = ((await (await api('GET', `/v1/pipelines/${pipelineId}/runs`)).json()) as { runs: Array<{ run_id: string; status: string }> }).runs
      run = runs.find((r) => r.run_id === runId)
      if (run?.status !== 'running') break
      if (Date.now() - restartedAt > 60_000) throw new Error('run still running a minute after restart')
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(run?.status).toBe('failed')
    const logs = ((await (await api('GET', `/v1/runs/${runId}/logs`)).json()) as { logs: Array<{ level: string; message: string }> }).logs
    expect(logs.at(-1)).toMatchObject({ level: 'ERROR', message: expect.stringMatching(/worker executing this run stopped/) })
    expect(tessera.output()).toMatch(/lost its worker/)
    expect(tempFiles(files)).toEqual([])
    // The destination was never half-written, and the pipeline takes a new run.
    expect(existsSync(path.join(files, 'out/big.csv'))).toBe(false)
    const again = await api('POST', `/v1/pipelines/${pipelineId}/run`)
    expect(again.status).toBe(202)
  }, 120_000)
})
