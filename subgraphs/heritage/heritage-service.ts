import { randomUUID } from 'node:crypto'
import { createAuthorizer } from '../../platform/auth/authorize.js'
import type { Principal } from '../../platform/auth/scopes.js'
import { outboxRow, writeOutbox } from '../../platform/events/event-bus.js'
import type { FileResponse, FileStore, StagedFile } from '../../platform/files/index.js'
import type { ValidationIssue } from '../../platform/errors.js'
import { isUuid } from '../../platform/validation/json-shapes.js'
import { parseArtifactDraft, parseTourDraft, type ArtifactDraft, type ArtifactFacts, type Dimensions, type Scene, type TourType } from './artifact-input.js'
import { DC_ELEMENTS, emptyDublinCore, parseDublinCore, type DublinCoreRecord } from './dublin-core.js'
import { heritageErrors as errors } from './errors.js'
import { Prisma, type PrismaClient } from './generated/prisma/client.js'
import { inspectModel, sniffContainer, type ModelInspection, type ValidationSummary } from './gltf-inspection.js'
import type { HeritageConfig } from './heritage-config.js'
import { toLinkedArt } from './linked-art.js'
import { answerOai, type OaiItem } from './oai-pmh.js'
import { formatYear, parsePeriod, type YearRange } from './period-grammar.js'

/** Where the REST interface lives; model and tour URLs are paths below it. */
export const HERITAGE_BASE = '/v1/heritage'

/** Page sizes of artifact listings and searches. */
export const ARTIFACTS_PAGE = { default: 20, max: 100 } as const
/** Records per OAI-PMH response before a resumption token. */
export const OAI_PAGE_SIZE = 50
/** The longest analytics range, in days. */
export const ANALYTICS_MAX_DAYS = 366
/** Days an analytics request covers when it names no range. */
export const ANALYTICS_DEFAULT_DAYS = 30

/** Model formats accepted on upload, and resolutions a model may be labelled with. */
export const MODEL_FORMATS = ['glTF-2.0'] as const
export const MODEL_RESOLUTIONS = ['low', 'medium', 'high', 'original'] as const

/** What analytics counts. */
export const ANALYTICS_KINDS = ['views', 'modelDownloads', 'tourViews', 'searchImpressions'] as const
type AnalyticsKind = (typeof ANALYTICS_KINDS)[number]
const KIND_COLUMN: Record<AnalyticsKind, string> = {
  views: 'view',
  modelDownloads: 'model_download',
  tourViews: 'tour_view',
  searchImpressions: 'search_impression',
}

/** Names of the events the heritage service publishes (outbox `type`). */
export const HERITAGE_EVENTS = {
  artifactCreated: 'artifact.created',
  modelUploaded: 'model.uploaded',
  tourCreated: 'tour.created',
  dublinCoreReplaced: 'metadata.dublincore.replaced',
} as const

/** A stored model's summary as an artifact lists it. */
export interface ModelSummary {
  id: string
  container: 'glb' | 'gltf'
  format: string
  resolution: string
  size: number
  sha256: string
  uploadedAt: Date
  /** Path that serves the file (range requests allowed). */
  url: string
}

/** An artifact as both faces show it. */
export interface ArtifactRecord extends ArtifactFacts {
  id: string
  /** The latest GLB-servable model (GLB or embedded glTF) and a USDZ one (never produced: see README). */
  models3d: { glb: string | null; usdz: string | null }
  models: ModelSummary[]
  dublinCore: DublinCoreRecord
  dublinCoreSource: 'derived' | 'replaced'
  technical: Record<string, unknown> | null
  createdAt: Date
  updatedAt: Date
}

/** A model's metadata, read from the file at upload. */
export interface ModelRecord extends ModelSummary {
  artifactId: string
  fileName: string | null
  contentType: string
  inspection: ModelInspection
  validation: ValidationSummary & { messages: Array<{ code: string; severity: string; message: string; pointer?: string }> }
}

/** A tour as both faces show it. */
export interface TourRecord {
  id: string
  name: string
  type: TourType
  artifactIds: string[]
  scenes: Scene[]
  url: string
  createdAt: Date
}

/** One part of a multipart model upload, as the REST face hands it over. */
export type UploadPart =
  | { kind: 'file'; field: string; filename: string | undefined; stream: AsyncIterable<Buffer> & { resume?: () => unknown } }
  | { kind: 'field'; name: string; value: string }

/** Per-day counts of an artifact's analytics. */
export interface AnalyticsReport {
  artifactId: string
  from: string
  to: string
  totals: Record<AnalyticsKind, number>
  daily: Array<{ date: string } & Record<AnalyticsKind, number>>
}

/** What the heritage domain needs from the platform. */
export interface HeritageServiceDeps {
  prisma: PrismaClient
  files: FileStore
  config: HeritageConfig
  now?: () => Date
}

type ArtifactRow = Prisma.ArtifactGetPayload<{ include: { models: true } }>
type ModelRow = Prisma.Model3dGetPayload<object>

const modelUrl = (artifactId: string, modelId: string) => `${HERITAGE_BASE}/artifacts/${artifactId}/models/${modelId}/file`
const contentTypeOf = (container: 'glb' | 'gltf') => (container === 'glb' ? 'model/gltf-binary' : 'model/gltf+json')

function summary(row: ModelRow): ModelSummary {
  return {
    id: row.id,
    container: row.container as 'glb' | 'gltf',
    format: row.format,
    resolution: row.resolution,
    size: Number(row.size),
    sha256: row.sha256,
    uploadedAt: row.uploadedAt,
    url: modelUrl(row.artifactId, row.id),
  }
}

function toModel(row: ModelRow): ModelRecord {
  return {
    ...summary(row),
    artifactId: row.artifactId,
    fileName: row.fileName,
    contentType: row.contentType,
    inspection: row.inspection as unknown as ModelInspection,
    validation: row.validation as unknown as ModelRecord['validation'],
  }
}

/** The Dublin Core record an artifact has until one replaces it. */
export function deriveDublinCore(
  a: Pick<
    ArtifactRecord,
    'id' | 'spectrumId' | 'title' | 'culture' | 'description' | 'period' | 'periodRange' | 'materials' | 'dimensions' | 'location' | 'models'
  >,
): DublinCoreRecord {
  const dc = emptyDublinCore()
  dc.title = [a.title]
  dc.subject = [a.culture]
  if (a.description) dc.description = [a.description]
  if (a.period) dc.date = [a.periodRange ? `${a.period} (${formatYear(a.periodRange.start)} – ${formatYear(a.periodRange.end)})` : a.period]
  dc.type = ['PhysicalObject']
  const d = a.dimensions
  dc.format = [
    ...a.materials,
    ...(d
      ? [
          (['height', 'width', 'depth'] as const)
            .filter((k) => d[k] !== undefined)
            .map((k) => `${k} ${d[k]} ${d.unit}`)
            .join(' × '),
        ]
      : []),
  ]
  dc.identifier = [...(a.spectrumId ? [a.spectrumId] : []), `urn:uuid:${a.id}`]
  dc.coverage = [...(a.location?.origin ? [a.location.origin] : []), a.culture]
  dc.relation = a.models.map((m) => m.url)
  return dc
}

function toArtifact(row: ArtifactRow): ArtifactRecord {
  const models = [...row.models].sort((x, y) => y.uploadedAt.getTime() - x.uploadedAt.getTime()).map(summary)
  const base = {
    id: row.id,
    spectrumId: row.spectrumId,
    title: row.title,
    culture: row.culture,
    description: row.description,
    period: row.period,
    periodRange: row.periodStart !== null && row.periodEnd !== null ? { start: row.periodStart, end: row.periodEnd } : null,
    materials: row.materials,
    dimensions: row.dimensions as Dimensions | null,
    location: row.location as ArtifactRecord['location'],
    models,
  }
  return {
    ...base,
    models3d: { glb: models[0]?.url ?? null, usdz: null },
    dublinCore: (row.dublinCore as DublinCoreRecord | null) ?? deriveDublinCore(base),
    dublinCoreSource: row.dublinCore ? 'replaced' : 'derived',
    technical: row.technical as Record<string, unknown> | null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

const dayString = (d: Date) => d.toISOString().slice(0, 10)

/**
 * The heritage digitization domain: the catalogue, 3D models (validated, inspected, stored as
 * platform files), tours, Dublin Core / Linked Art / OAI-PMH records, search and analytics.
 * REST handlers and GraphQL resolvers call these methods and only translate shapes; every
 * rule, authorization included, lives here.
 */
export function createHeritageService(deps: HeritageServiceDeps) {
  const { prisma, files, config } = deps
  const now = deps.now ?? (() => new Date())
  const authorize = createAuthorizer(errors, 'heritage')
  const notFound = (what: string, id: string) => errors.create('NOT_FOUND', `${what} ${id} not found`, { field: 'id', reason: 'not found' })
  const invalid = (issues: ValidationIssue[]) => errors.invalid(issues)

  // The validator and glTF-Transform need a model whole in memory; one model at a time per
  // process keeps that bounded by the upload limit, however many uploads arrive together.
  let inspecting: Promise<unknown> = Promise.resolve()
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = inspecting.then(work, work)
    inspecting = run.catch(() => undefined)
    return run
  }

  async function loadArtifact(id: string): Promise<ArtifactRow> {
    if (!isUuid(id)) throw notFound('Artifact', id)
    const row = await prisma.artifact.findUnique({ where: { id }, include: { models: true } })
    if (!row) throw notFound('Artifact', id)
    return row
  }

  async function record(artifactIds: readonly string[], kind: AnalyticsKind) {
    if (!artifactIds.length) return
    const at = now()
    await prisma.analyticsEvent.createMany({ data: artifactIds.map((artifactId) => ({ artifactId, kind: KIND_COLUMN[kind], occurredAt: at })) })
  }

  function checkPage(page: { limit?: number | null; offset?: number | null }) {
    const limit = page.limit ?? ARTIFACTS_PAGE.default
    const offset = page.offset ?? 0
    const issues: ValidationIssue[] = []
    if (!Number.isInteger(limit) || limit < 1 || limit > ARTIFACTS_PAGE.max)
      issues.push({ field: 'limit', message: `must be an integer from 1 to ${ARTIFACTS_PAGE.max}` })
    if (!Number.isInteger(offset) || offset < 0 || offset > 1_000_000) issues.push({ field: 'offset', message: 'must be an integer from 0 to 1000000' })
    if (issues.length) throw invalid(issues)
    return { limit, offset }
  }

  async function discardQuietly(staged: StagedFile | undefined) {
    if (staged) await files.discard(staged.id).catch(() => undefined)
  }

  const oaiRepository = {
    async earliestDatestamp() {
      const first = await prisma.artifact.findFirst({ orderBy: { updatedAt: 'asc' }, select: { updatedAt: true } })
      return first?.updatedAt ?? null
    },
    async page(range: { from?: Date; until?: Date }, offset: number, limit: number) {
      const where = { updatedAt: { ...(range.from ? { gte: range.from } : {}), ...(range.until ? { lte: range.until } : {}) } }
      const [rows, total] = await Promise.all([
        prisma.artifact.findMany({ where, include: { models: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }], skip: offset, take: limit }),
        prisma.artifact.count({ where }),
      ])
      return { items: rows.map((r): OaiItem => ({ id: r.id, datestamp: r.updatedAt, record: toArtifact(r).dublinCore })), total }
    },
    async get(id: string) {
      const row = await prisma.artifact.findUnique({ where: { id }, include: { models: true } })
      return row ? { id: row.id, datestamp: row.updatedAt, record: toArtifact(row).dublinCore } : null
    },
  }

  const service = {
    /** Limits a face announces (the multipart parser's own limit sits just above the model limit). */
    limits: { maxModelBytes: config.maxModelBytes },

    /** Artifacts, oldest first, optionally of one culture (case-insensitive). */
    async listArtifacts(actor: Principal | null, filter: { culture?: string | null; limit?: number | null; offset?: number | null }) {
      authorize(actor, 'read')
      const { limit, offset } = checkPage(filter)
      const where = filter.culture ? { culture: { equals: filter.culture.trim(), mode: 'insensitive' as const } } : {}
      const [rows, total] = await Promise.all([
        prisma.artifact.findMany({ where, include: { models: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: offset, take: limit }),
        prisma.artifact.count({ where }),
      ])
      return { items: rows.map(toArtifact), total, limit, offset }
    },

    /** Catalogues a new artifact. */
    async createArtifact(actor: Principal | null, draft: ArtifactDraft): Promise<ArtifactRecord> {
      const who = authorize(actor, 'write')
      const parsed = parseArtifactDraft(draft)
      if (!parsed.ok) throw invalid(parsed.issues)
      const input = parsed.input
      const id = randomUUID()
      try {
        return await prisma.$transaction(async (tx) => {
          const at = now()
          const row = await tx.artifact.create({
            data: {
              id,
              spectrumId: input.spectrumId,
              title: input.title,
              culture: input.culture,
              description: input.description,
              period: input.period,
              periodStart: input.periodRange?.start ?? null,
              periodEnd: input.periodRange?.end ?? null,
              materials: input.materials,
              dimensions: input.dimensions ? (input.dimensions as unknown as Prisma.InputJsonObject) : Prisma.DbNull,
              location: input.location ? (input.location as Prisma.InputJsonObject) : Prisma.DbNull,
              dublinCore: input.dublinCore ? (input.dublinCore as unknown as Prisma.InputJsonObject) : Prisma.DbNull,
              technical: input.technical ? (input.technical as Prisma.InputJsonObject) : Prisma.DbNull,
              createdAt: at,
              updatedAt: at,
              createdBy: who.id,
            },
            include: { models: true },
          })
          const artifact = toArtifact(row)
          await writeOutbox(tx, 'heritage', [
            outboxRow(HERITAGE_EVENTS.artifactCreated, id, { id, title: artifact.title, culture: artifact.culture, period: artifact.period }),
          ])
          return artifact
        })
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
          throw errors.create('CONFLICT', `An artifact with spectrumId ${input.spectrumId} exists already`, { field: 'spectrumId', reason: 'already used' })
        }
        throw error
      }
    },

    /** One artifact; counts as a view in its analytics. */
    async getArtifact(actor: Principal | null, id: string): Promise<ArtifactRecord> {
      authorize(actor, 'read')
      const artifact = toArtifact(await loadArtifact(id))
      await record([artifact.id], 'views')
      return artifact
    },

    /** Artifacts by id in the order asked (null where none), for GraphQL entity batches; not counted as views. */
    async getArtifactsByIds(actor: Principal | null, ids: readonly string[]): Promise<Array<ArtifactRecord | null>> {
      authorize(actor, 'read')
      const valid = ids.filter(isUuid)
      const rows = valid.length ? await prisma.artifact.findMany({ where: { id: { in: valid } }, include: { models: true } }) : []
      const byId = new Map(rows.map((r) => [r.id, toArtifact(r)]))
      return ids.map((id) => byId.get(id.toLowerCase()) ?? null)
    },

    /**
     * Stores a model from a multipart upload: the file streams into the file store (refused
     * past the size limit), is validated by the Khronos glTF Validator and read by glTF-Transform,
     * and is registered with its record in one transaction — or discarded.
     */
    async uploadModel(actor: Principal | null, artifactId: string, parts: AsyncIterable<UploadPart>): Promise<ModelRecord> {
      const who = authorize(actor, 'write')
      await loadArtifact(artifactId)
      const fields: Record<string, string> = {}
      let staged: StagedFile | undefined
      let fileName: string | undefined
      try {
        for await (const part of parts) {
          if (part.kind === 'field') {
            if (part.name !== 'format' && part.name !== 'resolution')
              throw invalid([{ field: part.name, message: 'is not a field of a model upload (file, format, resolution)' }])
            fields[part.name] = part.value
            continue
          }
          if (part.field !== 'file' || staged) {
            part.stream.resume?.()
            throw invalid([{ field: part.field, message: part.field === 'file' ? 'must be sent once' : 'is not a file field of a model upload (file)' }])
          }
          fileName = part.filename
          staged = await files.write(part.stream, {
            maxBytes: config.maxModelBytes,
            tooLarge: () =>
              errors.forRole('payloadTooLarge', `The model is larger than ${config.maxModelBytes} bytes`, {
                field: 'file',
                reason: 'too large',
                limit: config.maxModelBytes,
              }),
          })
        }
        const issues: ValidationIssue[] = []
        if (!staged) issues.push({ field: 'file', message: 'is required' })
        const format = fields.format ?? MODEL_FORMATS[0]
        const resolution = fields.resolution ?? 'original'
        if (!(MODEL_FORMATS as readonly string[]).includes(format)) issues.push({ field: 'format', message: `must be one of: ${MODEL_FORMATS.join(', ')}` })
        if (!(MODEL_RESOLUTIONS as readonly string[]).includes(resolution))
          issues.push({ field: 'resolution', message: `must be one of: ${MODEL_RESOLUTIONS.join(', ')}` })
        if (issues.length) throw invalid(issues)
        const file = staged!
        const container = sniffContainer(file.head)
        if (!container)
          throw errors.create('UNSUPPORTED_MEDIA_TYPE', 'The file is not glTF 2.0: upload a GLB or glTF JSON with embedded buffers', {
            field: 'file',
            reason: 'not glTF',
          })
        const result = await oneAtATime(async () => inspectModel(await files.readAll(file), container))
        if (!result.ok) {
          if (result.kind === 'not-gltf') throw errors.create('UNSUPPORTED_MEDIA_TYPE', `The file ${result.reason}`, { field: 'file', reason: 'not glTF' })
          throw errors.create('INVALID_MODEL', `The glTF validator found ${result.summary.errors} error(s) in the model`, {
            field: 'file',
            reason: 'invalid glTF',
            validator: result.summary,
            issues: result.messages.map((m) => ({ field: 'file', reason: m.message, code: m.code, severity: m.severity, pointer: m.pointer })),
          })
        }
        const id = randomUUID()
        const validation = { ...result.summary, messages: result.messages }
        const row = await prisma.$transaction(async (tx) => {
          await files.register(tx, file, { service: 'heritage', contentType: contentTypeOf(container) })
          const at = now()
          const created = await tx.model3d.create({
            data: {
              id,
              artifactId,
              fileId: file.id,
              container,
              format,
              resolution,
              fileName: fileName?.slice(0, 255) ?? null,
              contentType: contentTypeOf(container),
              size: BigInt(file.size),
              sha256: file.sha256,
              inspection: result.inspection as unknown as Prisma.InputJsonObject,
              validation: validation as unknown as Prisma.InputJsonObject,
              uploadedAt: at,
              uploadedBy: who.id,
            },
          })
          await tx.artifact.update({ where: { id: artifactId }, data: { updatedAt: at } })
          await writeOutbox(tx, 'heritage', [
            outboxRow(HERITAGE_EVENTS.modelUploaded, artifactId, { artifactId, modelId: id, size: file.size, sha256: file.sha256 }),
          ])
          return created
        })
        return toModel(row)
      } catch (error) {
        await discardQuietly(staged)
        throw error
      }
    },

    /** A model's metadata. */
    async getModel(actor: Principal | null, artifactId: string, modelId: string): Promise<ModelRecord> {
      authorize(actor, 'read')
      if (!isUuid(artifactId) || !isUuid(modelId)) throw notFound('Model', modelId)
      const row = await prisma.model3d.findFirst({ where: { id: modelId, artifactId } })
      if (!row) throw notFound('Model', modelId)
      return toModel(row)
    },

    /** A model by its id alone (GraphQL entity references). */
    async getModelById(actor: Principal | null, modelId: string): Promise<ModelRecord> {
      authorize(actor, 'read')
      const row = isUuid(modelId) ? await prisma.model3d.findUnique({ where: { id: modelId } }) : null
      if (!row) throw notFound('Model', modelId)
      return toModel(row)
    },

    /** Models of artifacts, newest first, for GraphQL. */
    async listModels(actor: Principal | null, artifactId: string): Promise<ModelRecord[]> {
      authorize(actor, 'read')
      const rows = await prisma.model3d.findMany({ where: { artifactId }, orderBy: { uploadedAt: 'desc' } })
      return rows.map(toModel)
    },

    /**
     * A model's bytes for download (whole or one range). A download from the first byte counts
     * once in the artifact's analytics; a viewer's follow-up range requests, and a request for
     * the headers only, do not.
     */
    async downloadModel(
      actor: Principal | null,
      artifactId: string,
      modelId: string,
      range: string | undefined,
      options: { headersOnly?: boolean } = {},
    ): Promise<FileResponse> {
      const model = await service.getModel(actor, artifactId, modelId)
      const row = await prisma.model3d.findUniqueOrThrow({ where: { id: model.id }, select: { fileId: true } })
      const info = await files.stat(row.fileId)
      if (!info) throw notFound('Model file', modelId)
      const response = files.respond(
        info,
        range,
        {
          'content-disposition': `inline; filename="${(model.fileName ?? `${model.id}.${model.container}`).replace(/[^\w.-]/g, '_')}"`,
          'cache-control': 'private, max-age=3600',
        },
        options,
      )
      if (options.headersOnly) return response
      if (response.status === 200 || (response.status === 206 && /^bytes=0-/.test(range ?? ''))) await record([artifactId], 'modelDownloads')
      return response
    },

    /** Creates a tour through existing artifacts. */
    async createTour(actor: Principal | null, draft: { name?: unknown; type?: unknown; artifacts?: unknown; scenes?: unknown }): Promise<TourRecord> {
      const who = authorize(actor, 'write')
      const parsed = parseTourDraft(draft)
      if (!parsed.ok) throw invalid(parsed.issues)
      const input = parsed.input
      const found = await prisma.artifact.findMany({ where: { id: { in: input.artifactIds } }, select: { id: true } })
      const known = new Set(found.map((f) => f.id))
      const missing = input.artifactIds.map((id, i) => ({ id, i })).filter((x) => !known.has(x.id))
      if (missing.length) throw invalid(missing.map((m) => ({ field: `artifacts[${m.i}]`, message: `artifact ${m.id} does not exist` })))
      const id = randomUUID()
      return prisma.$transaction(async (tx) => {
        const row = await tx.tour.create({
          data: {
            id,
            name: input.name,
            type: input.type,
            artifactIds: input.artifactIds,
            scenes: input.scenes as unknown as Prisma.InputJsonArray,
            createdAt: now(),
            createdBy: who.id,
          },
        })
        await writeOutbox(tx, 'heritage', [outboxRow(HERITAGE_EVENTS.tourCreated, id, { id, name: input.name, artifactIds: input.artifactIds })])
        return toTour(row)
      })
    },

    /** A tour. */
    async getTour(actor: Principal | null, id: string): Promise<TourRecord> {
      authorize(actor, 'read')
      if (!isUuid(id)) throw notFound('Tour', id)
      const row = await prisma.tour.findUnique({ where: { id } })
      if (!row) throw notFound('Tour', id)
      return toTour(row)
    },

    /** Tours, newest first (GraphQL). */
    async listTours(actor: Principal | null, page: { limit?: number | null; offset?: number | null }): Promise<TourRecord[]> {
      authorize(actor, 'read')
      const { limit, offset } = checkPage(page)
      const rows = await prisma.tour.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], skip: offset, take: limit })
      return rows.map(toTour)
    },

    /**
     * What a tour's viewer page shows: the tour and, per scene, its artifact with the newest
     * model. Counts as a tour view of each of the tour's artifacts.
     */
    async viewTour(actor: Principal | null, id: string) {
      const tour = await service.getTour(actor, id)
      const artifacts = await service.getArtifactsByIds(actor, tour.artifactIds)
      const byId = new Map(artifacts.filter((a): a is ArtifactRecord => a !== null).map((a) => [a.id, a]))
      await record([...byId.keys()], 'tourViews')
      return { tour, scenes: tour.scenes.map((scene) => ({ scene, artifact: byId.get(scene.artifactId) ?? null })) }
    },

    /** An artifact's Dublin Core record: derived from the artifact until one replaces it. */
    async getDublinCore(actor: Principal | null, id: string): Promise<{ record: DublinCoreRecord; source: 'derived' | 'replaced' }> {
      authorize(actor, 'read')
      const artifact = toArtifact(await loadArtifact(id))
      return { record: artifact.dublinCore, source: artifact.dublinCoreSource }
    },

    /** Replaces an artifact's Dublin Core record (unknown elements refused; left-out ones empty). */
    async replaceDublinCore(actor: Principal | null, id: string, body: unknown): Promise<{ record: DublinCoreRecord; source: 'replaced' }> {
      authorize(actor, 'write')
      const parsed = parseDublinCore(body)
      if (!parsed.ok) throw invalid(parsed.issues)
      await loadArtifact(id)
      await prisma.$transaction(async (tx) => {
        await tx.artifact.update({ where: { id }, data: { dublinCore: parsed.record as unknown as Prisma.InputJsonObject, updatedAt: now() } })
        await writeOutbox(tx, 'heritage', [outboxRow(HERITAGE_EVENTS.dublinCoreReplaced, id, { artifactId: id })])
      })
      return { record: parsed.record, source: 'replaced' }
    },

    /** An artifact as a Linked Art JSON-LD record. */
    async getLinkedArt(actor: Principal | null, id: string) {
      authorize(actor, 'read')
      return toLinkedArt(toArtifact(await loadArtifact(id)))
    },

    /**
     * Full-text search (PostgreSQL, English stemming, ranked: title above culture and materials
     * above description above Dublin Core) with culture and period filters. A period matches
     * artifacts whose own period overlaps it. Each artifact returned counts one search
     * impression.
     */
    async search(
      actor: Principal | null,
      query: { q?: string | null; culture?: string | null; period?: string | null; limit?: number | null; offset?: number | null },
    ) {
      authorize(actor, 'read')
      const { limit, offset } = checkPage(query)
      const issues: ValidationIssue[] = []
      const q = query.q?.trim() || null
      if (q && q.length > 500) issues.push({ field: 'q', message: 'must be at most 500 characters' })
      let range: YearRange | null = null
      if (query.period !== undefined && query.period !== null) {
        const parsed = parsePeriod(query.period)
        if (parsed.ok) range = parsed.range
        else issues.push({ field: 'period', message: parsed.reason })
      }
      if (issues.length) throw invalid(issues)
      const culture = query.culture?.trim() || null
      const rows = await prisma.$queryRaw<Array<{ id: string; rank: number; total: bigint }>>`
        WITH docs AS (
          SELECT a.id, a.title, a.created_at,
            setweight(to_tsvector('english', a.title), 'A') ||
            setweight(to_tsvector('english', a.culture || ' ' || array_to_string(a.materials, ' ')), 'B') ||
            setweight(to_tsvector('english', coalesce(a.description, '') || ' ' || coalesce(a.period, '')), 'C') ||
            setweight(to_tsvector('english', coalesce((SELECT string_agg(v, ' ') FROM jsonb_each(a.dublin_core) e, jsonb_array_elements_text(e.value) v), '')), 'D') AS doc
          FROM heritage.artifacts a
          WHERE (${culture}::text IS NULL OR lower(a.culture) = lower(${culture}::text))
            AND (${range?.start ?? null}::int IS NULL OR (a.period_start <= ${range?.end ?? null}::int AND a.period_end >= ${range?.start ?? null}::int))
        )
        SELECT id, CASE WHEN ${q}::text IS NULL THEN 0 ELSE ts_rank(doc, websearch_to_tsquery('english', ${q}::text)) END::float8 AS rank, count(*) OVER () AS total
        FROM docs
        WHERE ${q}::text IS NULL OR doc @@ websearch_to_tsquery('english', ${q}::text)
        ORDER BY rank DESC, created_at ASC, id ASC
        LIMIT ${limit} OFFSET ${offset}`
      const artifacts = await service.getArtifactsByIds(
        actor,
        rows.map((r) => r.id),
      )
      await record(
        rows.map((r) => r.id),
        'searchImpressions',
      )
      return {
        results: rows.map((r, i) => ({ artifact: artifacts[i]!, score: Math.round(r.rank * 1e6) / 1e6 })),
        total: rows.length ? Number(rows[0]!.total) : 0,
        limit,
        offset,
        period: range,
      }
    },

    /**
     * Per-day counts of an artifact's views, model downloads, tour views and search impressions
     * over `from`..`to` (UTC days, inclusive; the last 30 days by default, at most 366).
     */
    async analytics(actor: Principal | null, id: string, range: { from?: string | null; to?: string | null }): Promise<AnalyticsReport> {
      authorize(actor, 'read')
      const issues: ValidationIssue[] = []
      const parseDay = (value: string | null | undefined, field: string) => {
        if (value === undefined || value === null) return undefined
        const d = new Date(`${value}T00:00:00.000Z`)
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(d.getTime()) || dayString(d) !== value) {
          issues.push({ field, message: 'must be a date YYYY-MM-DD' })
          return undefined
        }
        return d
      }
      const today = new Date(`${dayString(now())}T00:00:00.000Z`)
      let to = parseDay(range.to, 'to')
      let from = parseDay(range.from, 'from')
      if (issues.length) throw invalid(issues)
      to ??= from ? new Date(Math.min(today.getTime(), from.getTime() + (ANALYTICS_DEFAULT_DAYS - 1) * 86_400_000)) : today
      from ??= new Date(to.getTime() - (ANALYTICS_DEFAULT_DAYS - 1) * 86_400_000)
      const days = Math.round((to.getTime() - from.getTime()) / 86_400_000) + 1
      if (days < 1) throw invalid([{ field: 'from', message: 'must not be after to' }])
      if (days > ANALYTICS_MAX_DAYS) throw invalid([{ field: 'from', message: `the range must be at most ${ANALYTICS_MAX_DAYS} days` }])
      await loadArtifact(id)
      const rows = await prisma.$queryRaw<Array<{ day: string; kind: string; n: bigint }>>`
        SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, kind, count(*) AS n
        FROM heritage.analytics_events
        WHERE artifact_id = ${id}::uuid AND occurred_at >= ${from} AND occurred_at < ${new Date(to.getTime() + 86_400_000)}
        GROUP BY 1, 2`
      const zero = () => Object.fromEntries(ANALYTICS_KINDS.map((k) => [k, 0])) as Record<AnalyticsKind, number>
      const daily = Array.from({ length: days }, (_, i) => ({ date: dayString(new Date(from.getTime() + i * 86_400_000)), ...zero() }))
      const index = new Map(daily.map((d, i) => [d.date, i]))
      const totals = zero()
      for (const row of rows) {
        const kind = ANALYTICS_KINDS.find((k) => KIND_COLUMN[k] === row.kind)
        const i = index.get(row.day)
        if (!kind || i === undefined) continue
        daily[i]![kind] += Number(row.n)
        totals[kind] += Number(row.n)
      }
      return { artifactId: id, from: dayString(from), to: dayString(to), totals, daily }
    },

    /** Answers an OAI-PMH 2.0 request with its XML document (oai_dc records of the catalogue). */
    async oai(actor: Principal | null, args: Record<string, string | string[] | undefined>, baseUrl: string): Promise<string> {
      authorize(actor, 'read')
      return answerOai(args, oaiRepository, {
        baseUrl: config.publicUrl ? `${config.publicUrl}/oai` : baseUrl,
        repositoryName: config.repositoryName,
        adminEmail: config.adminEmail,
        now: now(),
        pageSize: OAI_PAGE_SIZE,
      })
    },

    /** Removes chunks of uploads that never completed (after a crash mid-upload). */
    sweepAbandonedUploads: (olderThan: Date) => files.sweepAbandoned(olderThan),
  }
  return service
}

function toTour(row: { id: string; name: string; type: string; artifactIds: string[]; scenes: Prisma.JsonValue; createdAt: Date }): TourRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type as TourType,
    artifactIds: row.artifactIds,
    scenes: row.scenes as unknown as Scene[],
    url: `${HERITAGE_BASE}/tours/${row.id}/view`,
    createdAt: row.createdAt,
  }
}

export { DC_ELEMENTS }

/** The heritage service's domain. */
export type HeritageService = ReturnType<typeof createHeritageService>
