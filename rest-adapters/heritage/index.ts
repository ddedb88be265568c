import { createRequire } from 'node:module'
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isTesseraError } from '../../platform/errors.js'
import { defineService } from '../../platform/service-kit/index.js'
import {
  ARTIFACTS_PAGE,
  DC_ELEMENTS,
  HERITAGE_BASE,
  heritageCore,
  toLinkedArt,
  toOaiDcXml,
  type ArtifactRecord,
  type ModelRecord,
  type TourRecord,
  type UploadPart,
} from '../../subgraphs/heritage/index.js'
import { tourPage } from './tour-page.js'

const base = HERITAGE_BASE
const require = createRequire(import.meta.url)
/** The self-contained <model-viewer> build (three.js included) from its npm package. */
const MODEL_VIEWER = require.resolve('@google/model-viewer/dist/model-viewer.min.js')
const VIEWER_PATH = `${base}/assets/model-viewer.min.js`

const id = { type: 'string', minLength: 1, maxLength: 100 } as const
const idParams = { type: 'object', required: ['id'], properties: { id } } as const
const modelParams = { type: 'object', required: ['id', 'modelId'], properties: { id, modelId: id } } as const
const text = { type: 'string', maxLength: 20_000 } as const
const vector = { type: ['object', 'number'] } as const
/** Query parameters the artifact list and search share: culture and the page. */
const listFilters = {
  culture: { type: 'string', maxLength: 500 },
  limit: { type: 'integer', minimum: 1, maximum: ARTIFACTS_PAGE.max, default: ARTIFACTS_PAGE.default },
  offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
} as const

const artifactBody = (a: ArtifactRecord) => ({
  id: a.id,
  spectrumId: a.spectrumId,
  title: a.title,
  culture: a.culture,
  description: a.description,
  period: a.period,
  periodRange: a.periodRange,
  materials: a.materials,
  dimensions: a.dimensions,
  location: a.location,
  '3dModels': a.models3d,
  metadata: {
    dublinCore: a.dublinCore,
    cidocCrm: toLinkedArt(a),
    technical: { ...(a.technical ?? {}), models: a.models.map((m) => ({ ...m, uploadedAt: m.uploadedAt.toISOString() })) },
  },
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
})

const modelBody = (m: ModelRecord) => ({
  id: m.id,
  artifactId: m.artifactId,
  format: m.format,
  resolution: m.resolution,
  container: m.container,
  fileName: m.fileName,
  contentType: m.contentType,
  fileSize: m.size,
  sha256: m.sha256,
  url: m.url,
  uploadedAt: m.uploadedAt.toISOString(),
  ...m.inspection,
  validation: m.validation,
})

const tourBody = (t: TourRecord) => ({
  id: t.id,
  name: t.name,
  type: t.type,
  artifacts: t.artifactIds,
  scenes: t.scenes,
  url: t.url,
  createdAt: t.createdAt.toISOString(),
})

/** A parser failure (a truncated body, a missing boundary) as the interface's 400 or 413. */
function malformed(error: unknown): unknown {
  if (isTesseraError(error)) return error
  const status = (error as { statusCode?: unknown }).statusCode
  if (status === 413)
    return heritageCore.errors.forRole('payloadTooLarge', 'The multipart body has too many parts or fields', { field: 'body', reason: 'too large' })
  const reason = error instanceof Error ? error.message : String(error)
  return heritageCore.errors.invalid([{ field: 'body', message: `is not well-formed multipart/form-data (${reason})` }])
}

/** Reads a parser's stream, turning its failures into the interface's errors. */
async function* guarded<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* source
  } catch (error) {
    throw malformed(error)
  }
}

/** Multipart parts as the domain reads them; the parser's file stream is handed over, guarded. */
async function* uploadParts(request: FastifyRequest): AsyncGenerator<UploadPart> {
  for await (const part of guarded(request.parts())) {
    if (part.type === 'file') {
      const file = part.file
      yield {
        kind: 'file',
        field: part.fieldname,
        filename: part.filename || undefined,
        stream: Object.assign(guarded<Buffer>(file), { resume: () => file.resume() }),
      }
    } else yield { kind: 'field', name: part.fieldname, value: String(part.value) }
  }
}

/** True when the client prefers XML (oai_dc) to JSON. */
function wantsXml(request: FastifyRequest) {
  const accept = request.headers.accept ?? ''
  const xml = accept.search(/(application|text)\/xml/)
  const json = accept.search(/application\/json/)
  return xml >= 0 && (json < 0 || xml < json)
}

function xml(reply: FastifyReply, body: string) {
  return reply.header('content-type', 'application/xml; charset=utf-8').send(body)
}

/** The heritage digitization interface (Document 3, A) under /v1/heritage, plus its extensions. */
export const heritageService = defineService(heritageCore, {
  prefixes: [base],
  openapi: {
    title: 'Tessera heritage digitization',
    description: 'Artifact catalogue, validated 3D models, virtual tours, Dublin Core, Linked Art and OAI-PMH records, search and analytics (v1).',
  },
  realm: 'tessera-heritage',
  async routes(app, { domain }) {
    await app.register(multipart, {
      // One byte above the model limit, so the domain sees the oversize upload and answers 413.
      limits: { fileSize: domain.limits.maxModelBytes + 1, files: 2, fields: 10, fieldSize: 1000, parts: 20, headerPairs: 100 },
      throwFileSizeLimit: false,
    })

    // --- Artifacts -----------------------------------------------------------------------
    app.get(
      `${base}/artifacts`,
      {
        schema: {
          summary: 'List artifacts, oldest first',
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              ...listFilters,
            },
          },
        } as const,
      },
      async (request) => {
        const page = await domain.listArtifacts(request.principal, request.query)
        return { artifacts: page.items.map(artifactBody), total: page.total, limit: page.limit, offset: page.offset }
      },
    )

    app.post(
      `${base}/artifacts`,
      {
        schema: {
          summary: 'Catalogue an artifact',
          body: {
            type: 'object',
            required: ['title', 'culture'],
            additionalProperties: false,
            properties: {
              spectrumId: { type: 'string', maxLength: 100 },
              title: { type: 'string', maxLength: 500 },
              culture: { type: 'string', maxLength: 500 },
              description: text,
              period: { type: 'string', maxLength: 200 },
              materials: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 200 } },
              dimensions: { type: 'object' },
              location: { type: 'object' },
              metadata: { type: 'object' },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const artifact = await domain.createArtifact(request.principal, request.body)
        return reply.code(201).header('location', `${base}/artifacts/${artifact.id}`).send(artifactBody(artifact))
      },
    )

    app.get(`${base}/artifacts/:id`, { schema: { summary: 'One artifact', params: idParams } as const }, async (request) =>
      artifactBody(await domain.getArtifact(request.principal, request.params.id)),
    )

    // --- Models ----------------------------------------------------------------------------
    app.post(
      `${base}/artifacts/:id/models`,
      {
        schema: { summary: 'Upload a glTF 2.0 model (multipart/form-data: file, format, resolution)', params: idParams } as const,
      },
      async (request, reply) => {
        if (!request.isMultipart()) {
          throw heritageCore.errors.create('UNSUPPORTED_MEDIA_TYPE', 'Send the model as multipart/form-data with a file field', {
            field: 'content-type',
            reason: 'must be multipart/form-data',
          })
        }
        const model = await domain.uploadModel(request.principal, request.params.id, uploadParts(request))
        return reply.code(201).header('location', `${base}/artifacts/${model.artifactId}/models/${model.id}`).send(modelBody(model))
      },
    )

    app.get(`${base}/artifacts/:id/models/:modelId`, { schema: { summary: "A model's metadata", params: modelParams } as const }, async (request) =>
      modelBody(await domain.getModel(request.principal, request.params.id, request.params.modelId)),
    )

    app.get(
      `${base}/artifacts/:id/models/:modelId/file`,
      { schema: { summary: "A model's file (range requests served)", params: modelParams } as const },
      async (request, reply) => {
        const file = await domain.downloadModel(request.principal, request.params.id, request.params.modelId, request.headers.range, {
          headersOnly: request.method === 'HEAD',
        })
        reply.code(file.status).headers(file.headers)
        // Without a body (HEAD, 416) an empty stream keeps the Content-Length the file store set.
        return reply.send(file.body ?? Readable.from([]))
      },
    )

    // --- Tours -----------------------------------------------------------------------------
    app.post(
      `${base}/tours`,
      {
        schema: {
          summary: 'Create a virtual tour',
          body: {
            type: 'object',
            required: ['name', 'type', 'artifacts'],
            additionalProperties: false,
            properties: {
              name: { type: 'string', maxLength: 200 },
              type: { type: 'string', maxLength: 20 },
              artifacts: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 100 } },
              scenes: {
                type: 'array',
                maxItems: 100,
                items: {
                  type: 'object',
                  properties: {
                    artifactId: { type: 'string', maxLength: 100 },
                    title: { type: 'string', maxLength: 200 },
                    position: vector,
                    rotation: vector,
                    scale: vector,
                    narration: { type: 'string', maxLength: 5000 },
                    hotspots: { type: 'array', maxItems: 20, items: { type: 'object' } },
                  },
                },
              },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const tour = await domain.createTour(request.principal, request.body)
        return reply.code(201).header('location', `${base}/tours/${tour.id}`).send(tourBody(tour))
      },
    )

    app.get(`${base}/tours/:id`, { schema: { summary: 'A tour', params: idParams } as const }, async (request) =>
      tourBody(await domain.getTour(request.principal, request.params.id)),
    )

    app.get(`${base}/tours/:id/view`, { schema: { summary: "A tour's viewer page (HTML)", params: idParams } as const }, async (request, reply) => {
      const view = await domain.viewTour(request.principal, request.params.id)
      return (
        reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'private, no-cache')
          .header('referrer-policy', 'no-referrer')
          // Everything from this origin: the viewer script, the models, nothing else.
          .header(
            'content-security-policy',
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' data: blob:; worker-src 'self' blob:",
          )
          .send(tourPage({ ...view, viewerScript: VIEWER_PATH }))
      )
    })

    app.get(VIEWER_PATH, { config: { public: true } }, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400').send(createReadStream(MODEL_VIEWER)),
    )

    // --- Metadata --------------------------------------------------------------------------
    app.get(
      `${base}/artifacts/:id/metadata/dublincore`,
      {
        schema: { summary: 'The Dublin Core record (JSON, or oai_dc XML with Accept: application/xml)', params: idParams } as const,
      },
      async (request, reply) => {
        const dc = await domain.getDublinCore(request.principal, request.params.id)
        reply.header('x-dublin-core-source', dc.source).header('vary', 'Accept')
        return wantsXml(request) ? xml(reply, toOaiDcXml(dc.record, { standalone: true })) : dc.record
      },
    )

    app.put(
      `${base}/artifacts/:id/metadata/dublincore`,
      {
        schema: {
          summary: 'Replace the Dublin Core record',
          params: idParams,
          body: { type: 'object', properties: Object.fromEntries(DC_ELEMENTS.map((e) => [e, { type: 'array', items: { type: 'string' } }])) },
        } as const,
      },
      async (request, reply) => {
        const dc = await domain.replaceDublinCore(request.principal, request.params.id, request.body)
        reply.header('x-dublin-core-source', dc.source).header('vary', 'Accept')
        return wantsXml(request) ? xml(reply, toOaiDcXml(dc.record, { standalone: true })) : dc.record
      },
    )

    app.get(
      `${base}/artifacts/:id/metadata/cidoc`,
      { schema: { summary: 'The Linked Art (CIDOC-CRM) JSON-LD record', params: idParams } as const },
      async (request, reply) =>
        reply.header('content-type', 'application/ld+json; charset=utf-8').send(await domain.getLinkedArt(request.principal, request.params.id)),
    )

    // --- Search and analytics ----------------------------------------------------------------
    app.get(
      `${base}/search`,
      {
        schema: {
          summary: 'Full-text search with culture and period filters',
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              q: { type: 'string', maxLength: 500 },
              period: { type: 'string', maxLength: 200 },
              ...listFilters,
            },
          },
        } as const,
      },
      async (request) => {
        const found = await domain.search(request.principal, request.query)
        return {
          results: found.results.map((r) => ({ score: r.score, artifact: artifactBody(r.artifact) })),
          total: found.total,
          limit: found.limit,
          offset: found.offset,
          period: found.period,
        }
      },
    )

    app.get(
      `${base}/artifacts/:id/analytics`,
      {
        schema: {
          summary: 'Per-day analytics of an artifact',
          params: idParams,
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: { from: { type: 'string', maxLength: 10 }, to: { type: 'string', maxLength: 10 } },
          },
        } as const,
      },
      async (request) => domain.analytics(request.principal, request.params.id, request.query),
    )

    // --- OAI-PMH -----------------------------------------------------------------------------
    app.get(
      `${base}/oai`,
      {
        schema: {
          summary: 'OAI-PMH 2.0 (oai_dc)',
          // Every argument passes through: the protocol answers unknown ones with badArgument.
          querystring: {
            type: 'object',
            additionalProperties: {
              anyOf: [
                { type: 'string', maxLength: 2000 },
                { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 2000 } },
              ],
            },
          },
        } as const,
      },
      async (request, reply) => {
        const args = request.query
        const baseUrl = `${request.protocol}://${request.host}${base}/oai`
        return xml(reply, await domain.oai(request.principal, args, baseUrl))
      },
    )
  },
})
