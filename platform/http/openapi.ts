import type { FastifyInstance, RouteOptions } from 'fastify'
import type { ErrorRegistry } from '../errors.js'

/** What an interface's OpenAPI document says about itself. */
export interface OpenApiInfo {
  /** Service name; the document is served at `/openapi/<service>.json`. */
  service: string
  title: string
  description: string
  errors: ErrorRegistry
  /** Base URLs the interface is served at; the server's own origin by default. */
  servers?: ReadonlyArray<{ url: string; description?: string }>
}

/**
 * Serves an OpenAPI 3.1 document of an interface's routes, built from the same JSON schemas
 * that validate its requests, so the document cannot drift from what the server accepts.
 * Call before the interface registers its routes: routes are collected as they are added.
 */
export function serveOpenApi(scope: FastifyInstance, info: OpenApiInfo) {
  const routes: RouteOptions[] = []
  scope.addHook('onRoute', (route) => {
    if (!route.config?.public && route.method !== 'HEAD') routes.push(route)
  })
  let document: object | undefined
  scope.get(`/openapi/${info.service}.json`, { config: { public: true } }, async () => (document ??= build(info, routes)))
}

function build(info: OpenApiInfo, routes: readonly RouteOptions[]) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const schema = (route.schema ?? {}) as {
      params?: JsonObject
      querystring?: JsonObject
      body?: JsonObject
      summary?: string
      description?: string
      tags?: string[]
      operationId?: string
      response?: Record<string, unknown>
    }
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    const parameters = [
      ...Object.entries(schema.params?.properties ?? {}).map(([name, s]) => ({ name, in: 'path', required: true, schema: s })),
      ...Object.entries(schema.querystring?.properties ?? {}).map(([name, s]) => ({
        name,
        in: 'query',
        required: (schema.querystring?.required ?? []).includes(name),
        schema: s,
      })),
    ]
    for (const method of [route.method].flat()) {
      ;(paths[path] ??= {})[method.toLowerCase()] = {
        operationId: schema.operationId ?? operationId(method, route.url),
        summary: schema.summary ?? `${method} ${path}`,
        ...(schema.description ? { description: schema.description } : {}),
        tags: schema.tags ?? [tagOf(route.url)],
        ...(parameters.length ? { parameters } : {}),
        ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: schema.body } } } } : {}),
        responses: {
          ...(schema.response
            ? Object.fromEntries(
                Object.entries(schema.response).map(([status, body]) => [
                  status,
                  { description: 'Success', content: { 'application/json': { schema: body } } },
                ]),
              )
            : { '2XX': { description: 'Success' } }),
          default: { description: 'Error (see the error codes)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: '1', description: info.description },
    servers: info.servers ?? [{ url: '/', description: 'This server' }],
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'API key or OAuth access token' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'timestamp', 'requestId'],
              properties: {
                code: { type: 'string', enum: Object.keys(info.errors.definitions) },
                message: { type: 'string' },
                details: { type: 'object', description: 'field and reason of the first problem; issues lists them all' },
                timestamp: { type: 'string', format: 'date-time' },
                requestId: { type: 'string' },
              },
            },
          },
        },
      },
      'x-error-codes': Object.fromEntries(Object.entries(info.errors.definitions).map(([code, d]) => [code, { status: d.status, message: d.message }])),
    },
  }
}

// `GET /v1/medical/alert/:alert_id/acknowledge` → `getV1MedicalAlertByAlertIdAcknowledge`: stable and unique per route.
function operationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `By_${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')
}

// The first path segment after the version: `/v1/medical/alerts` → `medical`.
function tagOf(url: string): string {
  const parts = url.split('/').filter(Boolean)
  const afterVersion = parts[0]?.match(/^v\d+$/) ? parts[1] : parts[0]
  return afterVersion && !afterVersion.startsWith(':') ? afterVersion : 'default'
}

interface JsonObject {
  properties?: Record<string, unknown>
  required?: string[]
}
