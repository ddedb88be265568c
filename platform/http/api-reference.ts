import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'

const require = createRequire(import.meta.url)

// Swagger UI's browser bundle, served from the installed package: the reference page loads
// nothing from elsewhere. Only these files are served.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

/** An interface listed on the reference page. */
export interface ReferencedInterface {
  /** Service name: its document is /openapi/<name>.json. */
  name: string
  title: string
}

/**
 * A browsable REST reference at /docs: Swagger UI over each running interface's OpenAPI
 * document (built from the schemas that validate its requests), one interface at a time
 * from the selector, with "Try it out" sending real requests with the credential given under
 * "Authorize". `/docs?interface=<name>` opens one interface directly.
 */
export function serveApiReference(app: FastifyInstance, interfaces: readonly ReferencedInterface[]) {
  const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'))
  const cache = new Map<string, Buffer>()

  app.get('/docs', { logLevel: 'warn' }, async (request, reply) => {
    const wanted = (request.query as { interface?: unknown }).interface
    const primary = interfaces.find((i) => i.name === wanted)?.title ?? interfaces[0]?.title ?? ''
    const urls = interfaces.map((i) => ({ url: `/openapi/${i.name}.json`, name: i.title }))
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera REST reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head><body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({
  dom_id: '#reference',
  urls: ${JSON.stringify(urls).replace(/</g, '\\u003c')},
  'urls.primaryName': ${JSON.stringify(primary).replace(/</g, '\\u003c')},
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  deepLinking: true,
  tryItOutEnabled: false,
  // No validator badge: it would send the document to a service elsewhere.
  validatorUrl: null,
})
</script></body></html>`)
  })

  app.get('/docs/assets/:file', { logLevel: 'warn' }, async (request, reply) => {
    const file = (request.params as { file: string }).file
    const type = ASSETS[file]
    if (!type) return reply.code(404).send({ error: { code: 'NOT_FOUND', message: `No asset ${file}`, requestId: request.id } })
    let body = cache.get(file)
    if (!body) {
      body = await readFile(path.join(dist, file))
      cache.set(file, body)
    }
    return reply.type(type).header('cache-control', 'public, max-age=3600').send(body)
  })
}
