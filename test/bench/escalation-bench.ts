// Escalation lateness: raises BENCH_ESCALATION_ALERTS (1,000) high-priority alerts at once in a
// whole Tessera process (devices service, embedded database in a temp folder), then measures how
// late each first escalation comes after its due time (raised_at + the delay), as the database
// records it. Target: every escalation within 2 s of its due time.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createTesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import type { DevicesService } from '../../subgraphs/devices/index.js'
import { positiveInt } from './bench-support.js'
import { summarize } from './bench-stats.js'

const alerts = positiveInt('BENCH_ESCALATION_ALERTS', 1000)
const delaySeconds = positiveInt('BENCH_ESCALATION_DELAY_SECONDS', 3)
const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-escalation-bench-'))
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  TESSERA_API_KEY: 'tsr_escalation_bench_key_0123456789',
  TESSERA_SECRET_KEY: 'b'.repeat(64),
  TESSERA_ALERT_ESCALATE_HIGH_SECONDS: String(delaySeconds),
  TESSERA_ALERT_MAX_ESCALATIONS: '1',
}

const tessera = await createTesseraProcess({
  mode: { kind: 'all', services: ['devices'] },
  config: loadPlatformConfig(env),
  env,
  announce: () => {},
  logger: false,
})
try {
  const devices = tessera.services.devices!.domain as DevicesService
  const actor = { id: 'key:bench', method: 'api_key' as const, scopes: ['*'], environment: 'production' as const }
  const started = performance.now()
  await Promise.all(Array.from({ length: alerts }, (_, i) => devices.raiseAlert(actor, { device_id: `bench-${i}`, priority: 'high' })))
  const raisedIn = performance.now() - started
  const deadline = Date.now() + (delaySeconds + 60) * 1000
  let escalated = 0
  while (escalated < alerts && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200))
    const [row] = await tessera.db!.query<{ n: number }>('SELECT count(*)::int AS n FROM devices.alerts WHERE escalation_level >= 1')
    escalated = row?.n ?? 0
  }
  const rows = await tessera.db!.query<{ late_ms: number }>(
    `SELECT EXTRACT(EPOCH FROM (escalated_at - raised_at))::float8 * 1000 - $1::float8 AS late_ms FROM devices.alerts WHERE escalation_level >= 1`,
    [delaySeconds * 1000],
  )
  const late = summarize(rows.map((r) => r.late_ms))
  const f = (ms: number) => `${Math.round(ms)} ms`
  console.log(`Escalation lateness: ${alerts} high alerts raised at once (in ${f(raisedIn)}), escalation due ${delaySeconds} s after each`)
  console.log(`  escalated ${rows.length}/${alerts}`)
  console.log(`  lateness  min ${f(late.min)}  p50 ${f(late.p50)}  p95 ${f(late.p95)}  p99 ${f(late.p99)}  max ${f(late.max)}  mean ${f(late.mean)}`)
  console.log(`  target ≤ 2000 ms for every alert: ${rows.length === alerts && late.max <= 2000 ? 'met' : 'MISSED'}`)
  process.exitCode = rows.length === alerts && late.max <= 2000 ? 0 : 1
} finally {
  await tessera.close()
  rmSync(dataDir, { recursive: true, force: true })
}
