import type { Principal } from '../../../platform/auth/scopes.js'
import type { ValidationIssue } from '../../../platform/errors.js'
import { writeOutbox } from '../../../platform/events/event-bus.js'
import { contentErrors as errors } from '../errors.js'
import { CONTENT_EVENTS, contentEvent } from '../events.js'
import type { PrismaClient } from '../generated/prisma/client.js'
import type { ContentScope } from '../scopes.js'
import { computeAnalytics, parseMetrics, parseTimeRange, type ContentAnalytics } from './content-analytics.js'
import { parseLearningEvents } from './learning-events.js'
import { estimateMastery, parseRecommendationRequest, recommend, type Candidate, type Mastery, type Recommendation } from './recommender.js'

/** The newest items considered by the recommender. */
export const CANDIDATE_LIMIT = 2000

/** The answer of POST /recommendations. */
export interface RecommendationsReport {
  studentId: string
  currentTopic: string
  /** (extension) The student's estimated mastery per topic, from their results. */
  mastery: Mastery[]
  recommendations: Recommendation[]
}

/** `analytics.updated` fires at most once per item in this span. */
export const ANALYTICS_NOTICE_MS = 60_000

/** The answer of POST /events. */
export interface RecordedEvents {
  received: number
  recorded: number
  duplicates: number
}

/** GET /analytics/{contentId}. */
export type AnalyticsReport = { contentId: string; timeRange: { start: Date; end: Date } } & ContentAnalytics

/** What the learning feature needs from the content domain. */
export interface LearningFeatureDeps {
  prisma: PrismaClient
  authorize(actor: Principal | null, scope: ContentScope): Principal
  /** Throws NOT_FOUND for an unknown item. */
  findItem(id: string): Promise<{ id: string; createdAt: Date }>
  now(): Date
}

/** Learner events (the ground truth of analytics, recommendations and experiments) and analytics. */
export function createLearningFeature(deps: LearningFeatureDeps) {
  const { prisma, now } = deps
  return {
    /**
     * POST /events: records a batch; events whose id is already recorded are skipped, so a
     * batch may be resent safely. The whole batch is checked before anything is written.
     */
    async recordEvents(actor: Principal | null, input: { events?: unknown }): Promise<RecordedEvents> {
      const caller = deps.authorize(actor, 'content:events')
      const at = now()
      const events = parseLearningEvents(input, at)
      const ids = [...new Set(events.map((e) => e.contentId))]
      const known = new Set((await prisma.contentItem.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id))
      const unknown = events.flatMap((e, i) =>
        known.has(e.contentId) ? [] : [{ field: `events[${i}].contentId`, message: `names no stored content item (${e.contentId})` }],
      )
      if (unknown.length) throw errors.invalid(unknown)
      return prisma.$transaction(async (tx) => {
        const already = new Set((await tx.learningEvent.findMany({ where: { id: { in: events.map((e) => e.id) } }, select: { id: true } })).map((r) => r.id))
        const fresh = events.filter((e) => !already.has(e.id))
        const { count } = await tx.learningEvent.createMany({ data: fresh.map((e) => ({ ...e, recordedBy: caller.id, recordedAt: at })), skipDuplicates: true })
        const perItem = new Map<string, number>()
        for (const e of fresh) perItem.set(e.contentId, (perItem.get(e.contentId) ?? 0) + 1)
        const cutoff = new Date(at.getTime() - ANALYTICS_NOTICE_MS)
        for (const [contentId, added] of perItem) {
          // Takes the item's notice slot only when the last notice is older than the span.
          const taken = await tx.$queryRaw<
            { content_id: string }[]
          >`INSERT INTO content.analytics_notices (content_id, notified_at) VALUES (${contentId}::uuid, ${at})
            ON CONFLICT (content_id) DO UPDATE SET notified_at = EXCLUDED.notified_at WHERE content.analytics_notices.notified_at <= ${cutoff}
            RETURNING content_id::text AS content_id`
          if (taken.length)
            await writeOutbox(tx, 'content', [
              contentEvent(CONTENT_EVENTS.analyticsUpdated, caller.environment, { contentId, status: 'updated', newEvents: added }),
            ])
        }
        return { received: events.length, recorded: count, duplicates: events.length - count }
      })
    },

    /**
     * POST /recommendations: stored items ranked for a student from their recorded results
     * (Elo mastery per topic), the topic's prerequisites, difficulty and the time available.
     */
    async recommendations(actor: Principal | null, input: Record<string, unknown>): Promise<RecommendationsReport> {
      deps.authorize(actor, 'content:read')
      const request = parseRecommendationRequest(input)
      const select = { id: true, type: true, title: true, subject: true, body: true, metadata: true } as const
      const toCandidate = (r: { id: string; type: string; title: string; subject: string | null; body: unknown; metadata: unknown }): Candidate => ({
        ...r,
        body: (r.body ?? {}) as Record<string, unknown>,
        metadata: (r.metadata ?? {}) as Record<string, unknown>,
      })
      const [rows, events] = await Promise.all([
        prisma.contentItem.findMany({ select, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: CANDIDATE_LIMIT }),
        prisma.learningEvent.findMany({
          where: { studentId: request.studentId, verb: { in: ['answered', 'scored', 'completed'] } },
          select: { contentId: true, verb: true, score: true, occurredAt: true },
        }),
      ])
      const items = new Map(rows.map((r) => [r.id, toCandidate(r)]))
      const absent = [...new Set(events.map((e) => e.contentId))].filter((id) => !items.has(id))
      if (absent.length) for (const r of await prisma.contentItem.findMany({ where: { id: { in: absent } }, select })) items.set(r.id, toCandidate(r))
      const results = events
        .filter((e) => e.verb !== 'completed' && e.score !== null)
        .map((e) => ({ contentId: e.contentId, score: e.score!, occurredAt: e.occurredAt }))
      const mastery = estimateMastery(results, items)
      const completed = new Set(events.filter((e) => e.verb === 'completed').map((e) => e.contentId))
      return {
        studentId: request.studentId,
        currentTopic: request.currentTopic,
        mastery: [...mastery.values()],
        recommendations: recommend(
          request,
          rows.map((r) => items.get(r.id)!),
          mastery,
          completed,
        ),
      }
    },

    /** GET /analytics/{contentId}: the selected blocks over the range, from the recorded events. */
    async getAnalytics(actor: Principal | null, contentId: string, query: { timeRange?: string | null; metrics?: string | null }): Promise<AnalyticsReport> {
      deps.authorize(actor, 'content:read')
      const at = now()
      const issues: ValidationIssue[] = []
      const range = parseTimeRange(query.timeRange, at, issues)
      const blocks = parseMetrics(query.metrics, issues)
      if (!range || issues.length) throw errors.invalid(issues)
      const item = await deps.findItem(contentId)
      const rows = await prisma.learningEvent.findMany({
        where: { contentId: item.id, occurredAt: { ...(range.start ? { gte: range.start } : {}), lt: range.end } },
        select: { studentId: true, verb: true, occurredAt: true, durationSeconds: true, score: true, assessment: true, rating: true },
      })
      const first = rows.reduce<Date | null>((min, r) => (!min || r.occurredAt < min ? r.occurredAt : min), null)
      const start = range.start ?? (first && first < item.createdAt ? first : item.createdAt)
      return { contentId: item.id, timeRange: { start, end: range.end }, ...computeAnalytics(rows, range, blocks) }
    },
  }
}
