import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PipelinesService } from '../../subgraphs/pipelines/index.js'
import { build, type TestTessera } from '../helper.js'

describe('runs whose worker is gone (another replica died)', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['pipelines'] })
  })
  afterAll(() => t.close())

  it('fails a run whose heartbeat stopped, logs why, removes its temporary file, keeps live ones', async () => {
    const files = path.join(t.dataDir, 'pipelines/files')
    mkdirSync(files, { recursive: true })
    writeFileSync(path.join(files, 'in.csv'), 'id\n1\n')
    const pipeline = async (name: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/v1/pipelines',
          headers: t.auth,
          payload: { name, source: { type: 'csv', path: 'in.csv' }, destination: { type: 'csv', path: 'out.csv' } },
        })
      ).json().pipeline_id as string
    const lost = crypto.randomUUID()
    const live = crypto.randomUUID()
    // Two runs another replica was executing: one stopped beating a minute ago, one beats now.
    const pipelines: Record<string, string> = {}
    for (const [id, beat] of [
      [lost, "now() - interval '1 minute'"],
      [live, 'now()'],
    ] as const) {
      pipelines[id] = await pipeline(id)
      await t.db!.query(`INSERT INTO pipelines.runs (id, pipeline_id, status, trigger, heartbeat_at) VALUES ($1, $2, 'running', 'manual', ${beat})`, [
        id,
        pipelines[id],
      ])
      writeFileSync(path.join(files, `.out.csv.${id}.tmp`), 'partial')
    }
    const domain = t.services.pipelines!.domain as PipelinesService
    await domain.sweepLostRuns()
    const status = async (id: string) =>
      (await t.app.inject({ method: 'GET', url: `/v1/pipelines/${pipelines[id]}/runs`, headers: t.auth })).json().runs[0].status
    expect([await status(lost), await status(live)]).toEqual(['failed', 'running'])
    const logs = (await t.app.inject({ method: 'GET', url: `/v1/runs/${lost}/logs`, headers: t.auth })).json().logs
    expect(logs.at(-1)).toMatchObject({ level: 'ERROR', message: expect.stringContaining('worker executing this run stopped') })
    expect(readdirSync(files).filter((n) => n.endsWith('.tmp'))).toEqual([`.out.csv.${live}.tmp`])
  })
})
