import { randomUUID } from 'node:crypto'
import { hasScope, type Principal } from '../../platform/auth/scopes.js'
import { writeOutbox, type EventBus } from '../../platform/events/event-bus.js'
import { mapAsyncIterator } from '../../platform/events/map-async-iterator.js'
import type { FileStore } from '../../platform/files/index.js'
import type { RateLimitPolicy } from '../../platform/rate-limit/rate-limiter.js'
import { CONTENT_PAGE, CONTENT_TYPES, isContentId, parseContentInput, type ContentInput, type ContentType } from './content-library.js'
import { parseAssessmentRequest, parseLessonRequest, parseProblemsRequest } from './content-input.js'
import type { Assessment } from './engine/assessment-generator.js'
import { ProviderError, UnsupportedTopicError, type GenerationEngine } from './engine/generation-engine.js'
import type { Lesson } from './engine/lesson-generator.js'
import { createOfflineEngine } from './engine/offline-engine.js'
import { SUPPORTED_TOPICS } from './engine/problem-families.js'
import type { ProblemSet } from './engine/problem-generator.js'
import { createProviderEngine, type ProviderConfig } from './engine/provider-engine.js'
import { contentErrors as errors } from './errors.js'
import type { Prisma, PrismaClient } from './generated/prisma/client.js'
import type { ContentScope } from './scopes.js'
import { CONTENT_EVENT_TYPES, CONTENT_EVENTS, contentEvent, type ContentEventData } from './events.js'
import type { Webhooks } from '../../platform/webhooks/index.js'
import { createWebhooksFeature } from './webhooks-feature.js'
import { createLearningFeature } from './learning/learning-feature.js'
import { createVideoFeature, videoFileIds } from './video/video-service.js'
import type { JobRunner } from '../../platform/jobs/job-runner.js'
import { validateContent, type ValidationReport } from './validation/content-validator.js'

/** Hourly request limits by credential tier; enterprise keys carry their own (`--rate-limit`). */
export const TIER_LIMITS: Record<string, number> = { free: 100, pro: 1000, enterprise: 10_000 }

/**
 * The content interface's limit for a caller: the credential's own limit when set, else its
 * tier's per hour; credentials without a tier (the development key) keep the process's limit.
 */
export function contentRateLimit(principal: Pick<Principal, 'tier' | 'rateLimitPerHour'>): RateLimitPolicy | undefined {
  if (principal.rateLimitPerHour) return { max: principal.rateLimitPerHour, windowSeconds: 3600 }
  const perHour = principal.tier ? TIER_LIMITS[principal.tier] : undefined
  return perHour ? { max: perHour, windowSeconds: 3600 } : undefined
}

/** A content event as subscriptions (and later webhooks) deliver it. */
export interface ContentEventRecord {
  event: string
  contentId: string
  status: string
  timestamp: Date
}

/** A stored content item as both faces show it. */
export interface ContentRecord {
  id: string
  type: ContentType
  title: string
  content: Record<string, unknown>
  metadata: { subject: string | null; gradeLevel: string | null; standards: string[] } & Record<string, unknown>
  origin: 'stored' | 'generated'
  engine: string | null
  parentId: string | null
  createdAt: Date
  updatedAt: Date
}

/** A page of stored content. */
export interface ContentPage {
  items: ContentRecord[]
  page: number
  limit: number
  total: number
}

/** What the content domain needs. */
export interface ContentServiceDeps {
  prisma: PrismaClient
  events: EventBus
  jobs: JobRunner
  /** The platform file store that keeps rendered videos' files. */
  files: FileStore
  /** The optional chat-completions provider. */
  provider?: ProviderConfig
  /** Replaces `fetch` for the provider (tests). */
  fetch?: typeof fetch
  /** Webhook subscriptions and delivery of the content events (platform/webhooks). */
  webhooks: Webhooks
  /** The clock (tests). */
  now?: () => Date
}

type Row = Awaited<ReturnType<PrismaClient['contentItem']['findFirstOrThrow']>>

const toRecord = (row: Row): ContentRecord => {
  const extra = (row.metadata ?? {}) as Record<string, unknown>
  return {
    id: row.id,
    type: row.type as ContentType,
    title: row.title,
    content: row.body as Record<string, unknown>,
    metadata: { ...extra, subject: row.subject, gradeLevel: row.gradeLevel, standards: row.standards },
    origin: row.origin as 'stored' | 'generated',
    engine: row.engine,
    parentId: row.parentId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

/** The content service's domain: every rule, and who may do what, lives here. */
export function createContentService(deps: ContentServiceDeps) {
  const { prisma } = deps
  const offline = createOfflineEngine()
  const provider = deps.provider ? createProviderEngine(deps.provider, deps.fetch) : undefined

  const authorize = (actor: Principal | null, scope: ContentScope): Principal => {
    if (!actor) throw errors.forRole('unauthorized')
    if (!hasScope(actor, scope)) throw errors.forRole('forbidden', `This operation needs the scope ${scope}`, { requiredScope: scope })
    return actor
  }

  /**
   * Runs a generator on the configured engine. A provider that fails falls back to the
   * offline engine (CONTENT_PROVIDER_FALLBACK=offline, the default) or answers 503; a topic
   * the offline engine does not cover is a 400 that lists the topics it does.
   */
  const generate = async <T>(
    run: (engine: GenerationEngine) => Promise<T>,
  ): Promise<{ result: T; engine: GenerationEngine['name']; fallbackReason?: string }> => {
    const offlineRun = async (fallbackReason?: string) => {
      try {
        return { result: await run(offline), engine: offline.name, ...(fallbackReason ? { fallbackReason } : {}) }
      } catch (error) {
        if (error instanceof UnsupportedTopicError) {
          if (fallbackReason)
            throw errors.create(
              'SERVICE_UNAVAILABLE',
              `The content provider is unavailable (${fallbackReason}) and the offline engine does not cover this topic`,
              { reason: fallbackReason },
            )
          throw errors.invalid([
            {
              field: 'topic',
              message: `is not a topic the offline engine covers; supported topics: ${SUPPORTED_TOPICS.map((t) => `${t.id} (${t.covers})`).join('; ')}`,
            },
          ])
        }
        throw error
      }
    }
    if (!provider) return offlineRun()
    try {
      return { result: await run(provider), engine: provider.name }
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error
      if (deps.provider?.fallback === 'none') throw errors.create('SERVICE_UNAVAILABLE', error.message, { reason: error.message })
      return offlineRun(error.message)
    }
  }

  /** Stores a generated item with its event, in one transaction. */
  const storeGenerated = async (
    actor: Principal,
    item: { id: string; type: ContentType; title: string; subject?: string; gradeLevel?: string; standards: string[]; body: object; engine: string },
  ) => {
    await prisma.$transaction(async (tx) => {
      await tx.contentItem.create({
        data: {
          id: item.id,
          type: item.type,
          title: item.title,
          subject: item.subject ?? null,
          gradeLevel: item.gradeLevel ?? null,
          standards: item.standards,
          body: item.body as Prisma.InputJsonValue,
          metadata: {},
          origin: 'generated',
          engine: item.engine,
          createdBy: actor.id,
        },
      })
      await writeOutbox(tx, 'content', [
        contentEvent(CONTENT_EVENTS.generated, actor.environment, { contentId: item.id, status: 'completed', type: item.type, title: item.title }),
      ])
    })
  }

  const watchEvents = (actor: Principal | null, types: readonly string[]): AsyncIterable<ContentEventRecord> => {
    const caller = authorize(actor, 'content:read')
    const unknown = types.flatMap((t, i) =>
      (CONTENT_EVENT_TYPES as readonly string[]).includes(t) ? [] : [{ field: `events[${i}]`, message: `must be one of: ${CONTENT_EVENT_TYPES.join(', ')}` }],
    )
    if (unknown.length) throw errors.invalid(unknown)
    const stream = deps.events.subscribe<{ environment?: string; data: ContentEventData }>({
      schema: 'content',
      types,
      where: (e) => (e.payload as { environment?: string }).environment === caller.environment,
    })
    return mapAsyncIterator(stream, (e) => ({
      event: e.type,
      contentId: e.payload.data.contentId,
      status: e.payload.data.status,
      timestamp: new Date(e.occurredAt),
    }))
  }

  const findItem = async (id: string): Promise<Row> => {
    const row = isContentId(id) ? await prisma.contentItem.findUnique({ where: { id } }) : null
    if (!row) throw errors.create('NOT_FOUND', `No content with id ${id}`, { field: 'contentId', contentId: id })
    return row
  }

  const video = createVideoFeature({ prisma, jobs: deps.jobs, files: deps.files, authorize })
  const learning = createLearningFeature({ prisma, authorize, findItem, now: deps.now ?? (() => new Date()) })

  return {
    ...video,
    ...learning,
    ...createWebhooksFeature({ webhooks: deps.webhooks, authorize }),
    /** The delivery machinery, for the service's jobs and shutdown. */
    webhookDelivery: deps.webhooks,

    /** Registers the render queue and the webhook delivery queue. */
    defineJobs(runner: JobRunner) {
      video.defineJobs(runner)
      deps.webhooks.defineJobs(runner)
    },

    /** POST /generate/problems: verified problems of one family, stored as a problem set. */
    async generateProblems(actor: Principal | null, input: Record<string, unknown>): Promise<ProblemSet> {
      const caller = authorize(actor, 'content:generate')
      const request = parseProblemsRequest(input)
      const { result, engine, fallbackReason } = await generate((e) => e.problems(request))
      const set: ProblemSet = { ...result, metadata: { ...result.metadata, engine, ...(fallbackReason ? { fallbackReason } : {}) } }
      await storeGenerated(caller, { id: set.id, type: 'problem-set', title: `Practice: ${request.topic}`, standards: set.standards, body: set, engine })
      return set
    },

    /** POST /generate/lesson: a 5E lesson, stored. */
    async generateLesson(actor: Principal | null, input: Record<string, unknown>): Promise<Lesson> {
      const caller = authorize(actor, 'content:generate')
      const request = parseLessonRequest(input)
      const { result, engine, fallbackReason } = await generate((e) => e.lesson(request))
      const lesson = { ...result, metadata: { ...result.metadata, engine, ...(fallbackReason ? { fallbackReason } : {}) } }
      await storeGenerated(caller, {
        id: lesson.id,
        type: 'lesson',
        title: lesson.title,
        subject: request.subject,
        gradeLevel: request.gradeLevel,
        standards: lesson.standards,
        body: lesson,
        engine,
      })
      return lesson
    },

    /** POST /generate/assessment: items from the problem engine, stored. */
    async generateAssessment(actor: Principal | null, input: Record<string, unknown>): Promise<Assessment> {
      const caller = authorize(actor, 'content:generate')
      const request = parseAssessmentRequest(input)
      const { result, engine, fallbackReason } = await generate((e) => e.assessment(request))
      const assessment = { ...result, metadata: { engine, ...(fallbackReason ? { fallbackReason } : {}) } }
      await storeGenerated(caller, {
        id: assessment.id,
        type: 'assessment',
        title: assessment.title,
        standards: assessment.standards,
        body: assessment,
        engine,
      })
      return assessment
    },

    /** POST /validate: the requested checks on a content object, the report kept under its id. */
    async validate(actor: Principal | null, input: Record<string, unknown>): Promise<ValidationReport> {
      const caller = authorize(actor, 'content:generate')
      const report = await validateContent(input)
      await prisma.validation.create({
        data: { id: report.validationId, overallScore: report.overallScore, report: report as unknown as Prisma.InputJsonValue, createdBy: caller.id },
      })
      return report
    },

    /** POST /content. */
    async createContent(actor: Principal | null, input: Record<string, unknown>): Promise<ContentRecord> {
      const caller = authorize(actor, 'content:write')
      const item = parseContentInput(input)
      const row = await prisma.contentItem.create({ data: { id: randomUUID(), ...columns(item), origin: 'stored', createdBy: caller.id } })
      return toRecord(row)
    },

    /** PUT /content/{id}: the given fields replace the stored ones; the rest stay. */
    async updateContent(actor: Principal | null, id: string, input: Record<string, unknown>): Promise<ContentRecord> {
      authorize(actor, 'content:write')
      const current = toRecord(await findItem(id))
      const { subject, gradeLevel, standards, ...extra } = current.metadata
      const item = parseContentInput(input, {
        type: current.type,
        title: current.title,
        content: current.content,
        metadata: { subject, gradeLevel, standards, extra },
      })
      const row = await prisma.contentItem.update({ where: { id: current.id }, data: { ...columns(item), updatedAt: new Date() } })
      return toRecord(row)
    },

    /** DELETE /content/{id}: the item, and a video's files with it in one transaction. */
    async deleteContent(actor: Principal | null, id: string): Promise<void> {
      authorize(actor, 'content:write')
      const row = await findItem(id)
      // Its learner events and its video's files go with it: analytics of a deleted item are not served.
      await prisma.$transaction(async (tx) => {
        await tx.learningEvent.deleteMany({ where: { contentId: row.id } })
        await tx.analyticsNotice.deleteMany({ where: { contentId: row.id } })
        await tx.contentItem.delete({ where: { id: row.id } })
        await deps.files.remove(tx, videoFileIds(row))
      })
    },

    /** GET /content/{id}. */
    async getContent(actor: Principal | null, id: string): Promise<ContentRecord> {
      authorize(actor, 'content:read')
      return toRecord(await findItem(id))
    },

    /** GET /content: newest first, filtered by subject, gradeLevel and type (exact matches). */
    async listContent(
      actor: Principal | null,
      query: { subject?: string | null; gradeLevel?: string | null; type?: string | null; page?: number | null; limit?: number | null },
    ): Promise<ContentPage> {
      authorize(actor, 'content:read')
      const page = query.page ?? 1
      const limit = query.limit ?? CONTENT_PAGE.defaultLimit
      const issues = []
      if (!Number.isInteger(page) || page < 1 || page > 100_000) issues.push({ field: 'page', message: 'must be an integer from 1 to 100000' })
      if (!Number.isInteger(limit) || limit < 1 || limit > CONTENT_PAGE.maxLimit)
        issues.push({ field: 'limit', message: `must be an integer from 1 to ${CONTENT_PAGE.maxLimit}` })
      if (query.type != null && !CONTENT_TYPES.includes(query.type as ContentType))
        issues.push({ field: 'type', message: `must be one of: ${CONTENT_TYPES.join(', ')}` })
      if (issues.length) throw errors.invalid(issues)
      const where = {
        ...(query.subject != null ? { subject: query.subject } : {}),
        ...(query.gradeLevel != null ? { gradeLevel: query.gradeLevel } : {}),
        ...(query.type != null ? { type: query.type } : {}),
      }
      const [rows, total] = await Promise.all([
        prisma.contentItem.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], skip: (page - 1) * limit, take: limit }),
        prisma.contentItem.count({ where }),
      ])
      return { items: rows.map(toRecord), page, limit, total }
    },

    /** Live `content.generated` events for GraphQL subscriptions. */
    watchGenerated(actor: Principal | null): AsyncIterable<ContentEventRecord> {
      return watchEvents(actor, [CONTENT_EVENTS.generated])
    },

    /** Live content events of the caller's environment: what webhooks deliver, for GraphQL subscriptions. */
    watchEvents(actor: Principal | null, types?: readonly string[] | null): AsyncIterable<ContentEventRecord> {
      return watchEvents(actor, types?.length ? types : CONTENT_EVENT_TYPES)
    },
  }
}

const columns = (item: ContentInput) => ({
  type: item.type,
  title: item.title,
  subject: item.metadata.subject,
  gradeLevel: item.metadata.gradeLevel,
  standards: item.metadata.standards,
  body: item.content as Prisma.InputJsonValue,
  metadata: item.metadata.extra as Prisma.InputJsonValue,
})

/** The content service's domain. */
export type ContentService = ReturnType<typeof createContentService>
