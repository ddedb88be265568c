// `npm run bench:heritage`: what a model upload and download cost the server, through real HTTP
// on a loopback port, on the embedded database kept in a temp folder (as `npm start` runs).
//   upload    a valid GLB of BENCH_HERITAGE_MB MiB (default 48): streamed into the file store,
//             then validated and inspected (which needs the model whole, one at a time)
//   download  the same file back, whole
//   oversize  a file of 4 × the limit (limit BENCH_HERITAGE_LIMIT_MB, default 64): refused with 413
// For each, the time, the throughput and the process's peak memory above its level before
// (heap, external + array buffers, RSS), sampled every 20 ms — garbage included, as V8
// collects when it likes — and, for the upload, what is still held after a collection. The
// upload is split into the phase while the body arrives and the phase after it (validation,
// registration). Run with `node --expose-gc` (the npm script does).
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { createTesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import { TEST_CREDENTIALS, testEnv } from '../support/test-credentials.js'
import { largeGlbStream } from '../heritage/gltf-fixtures.js'
import { BenchError, positiveInt } from './bench-support.js'

const MB = 1024 * 1024
const BOUNDARY = '----tessera-heritage-bench'

interface Peak {
  heapMB: number
  externalMB: number
  rssMB: number
}

/** Samples memory until stopped; peaks are relative to the level at start. */
function sampleMemory() {
  globalThis.gc?.()
  const base = process.memoryUsage()
  const peak = { heap: 0, external: 0, rss: 0 }
  const sample = () => {
    const m = process.memoryUsage()
    peak.heap = Math.max(peak.heap, m.heapUsed - base.heapUsed)
    peak.external = Math.max(peak.external, m.external + m.arrayBuffers - base.external - base.arrayBuffers)
    peak.rss = Math.max(peak.rss, m.rss - base.rss)
  }
  const timer = setInterval(sample, 20)
  return (): Peak => {
    sample()
    clearInterval(timer)
    const mb = (n: number) => Math.round((n / MB) * 10) / 10
    return { heapMB: mb(peak.heap), externalMB: mb(peak.external), rssMB: mb(peak.rss) }
  }
}

async function send(url: string, method: string, body: AsyncIterable<Buffer> | undefined, onBodySent: () => void) {
  return new Promise<{ status: number; bytes: number; text: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}`, ...(body ? { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } : {}) },
      },
      (res) => {
        let bytes = 0
        const head: Buffer[] = []
        res.on('data', (d: Buffer) => {
          bytes += d.length
          if (head.length < 4) head.push(d)
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: Buffer.concat(head).toString('utf8', 0, 2000) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    if (!body) {
      req.end()
      onBodySent()
      return
    }
    const stream = Readable.from(body)
    stream.on('end', onBodySent)
    // The server may answer (413) before the body is all sent; the rest is then not needed.
    stream.pipe(req).on('error', () => {})
  })
}

async function* form(file: AsyncIterable<Buffer>) {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="resolution"\r\n\r\nhigh\r\n`)
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.glb"\r\nContent-Type: model/gltf-binary\r\n\r\n`)
  yield* file
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`)
}

async function main() {
  const sizeMB = positiveInt('BENCH_HERITAGE_MB', 48)
  const limitMB = positiveInt('BENCH_HERITAGE_LIMIT_MB', 64)
  if (sizeMB >= limitMB) throw new BenchError('BENCH_HERITAGE_MB must be below BENCH_HERITAGE_LIMIT_MB')
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-heritage-bench-'))
  const env = testEnv({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, TESSERA_HERITAGE_MAX_MODEL_BYTES: String(limitMB * MB) })
  const tessera = await createTesseraProcess({
    mode: { kind: 'all', services: ['heritage'] },
    config: loadPlatformConfig(env),
    env,
    announce: () => {},
    logger: false,
  })
  try {
    const url = await tessera.listen()
    const created = await tessera.app.inject({
      method: 'POST',
      url: '/v1/heritage/artifacts',
      headers: { authorization: `Bearer ${TEST_CREDENTIALS.apiKey}` },
      payload: { title: 'Bench', culture: 'Bench' },
    })
    const artifactId = created.json().id as string
    const uploadUrl = `${url}/v1/heritage/artifacts/${artifactId}/models`
    const results: Record<string, unknown> = {}

    const model = largeGlbStream(sizeMB * MB)
    globalThis.gc?.()
    const before = process.memoryUsage()
    let stopArriving: (() => Peak) | undefined
    let arriving: Peak | undefined
    let sentAt = 0
    const stopAll = sampleMemory()
    stopArriving = sampleMemory()
    const started = performance.now()
    const up = await send(uploadUrl, 'POST', form(model.stream()), () => {
      sentAt = performance.now()
      arriving = stopArriving?.()
      stopArriving = undefined
    })
    const done = performance.now()
    const whole = stopAll()
    if (up.status !== 201) throw new BenchError(`upload answered ${up.status}: ${up.text}`)
    globalThis.gc?.()
    const after = process.memoryUsage()
    const modelBody = JSON.parse(up.text.length < 2000 ? up.text : '{}') as { url?: string }
    results.upload = {
      sizeMB: Math.round((model.size / MB) * 10) / 10,
      ms: Math.round(done - started),
      bodyMs: Math.round(sentAt - started),
      afterBodyMs: Math.round(done - sentAt),
      MBperS: Math.round((model.size / MB / ((done - started) / 1000)) * 10) / 10,
      peakWhileArriving: arriving,
      peakOverall: whole,
      // What stays once garbage is collected: the upload is not held anywhere.
      // (The heap only: the embedded database's WebAssembly memory counts as external and moves on its own.)
      retainedHeapAfterGcMB: Math.round(((after.heapUsed - before.heapUsed) / MB) * 10) / 10,
    }

    globalThis.gc?.()
    const fileUrl = modelBody.url ? `${url}${modelBody.url}` : undefined
    if (fileUrl) {
      const stop = sampleMemory()
      const t0 = performance.now()
      const down = await send(fileUrl, 'GET', undefined, () => {})
      const t1 = performance.now()
      if (down.status !== 200 || down.bytes !== model.size) throw new BenchError(`download answered ${down.status} with ${down.bytes} bytes`)
      results.download = { ms: Math.round(t1 - t0), MBperS: Math.round((model.size / MB / ((t1 - t0) / 1000)) * 10) / 10, peak: stop() }
    }

    globalThis.gc?.()
    const huge = largeGlbStream(4 * limitMB * MB)
    const stop = sampleMemory()
    const t0 = performance.now()
    const refused = await send(uploadUrl, 'POST', form(huge.stream()), () => {})
    const t1 = performance.now()
    if (refused.status !== 413) throw new BenchError(`oversize upload answered ${refused.status}`)
    results.oversize = { sentMB: Math.round(huge.size / MB), status: refused.status, ms: Math.round(t1 - t0), peak: stop() }

    console.log(JSON.stringify({ bench: 'heritage', node: process.version, limitMB, ...results }, null, 2))
  } finally {
    await tessera.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof BenchError ? error.message : error)
  process.exitCode = 1
})
