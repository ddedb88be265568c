import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { defineService } from '../../platform/service-kit/index.js'
import {
  ANALYTICS_BLOCKS,
  CONTENT_EVENT_TYPES,
  CONTENT_PAGE,
  DELIVERY_PAGE,
  EVENT_LIMITS,
  CONTENT_TYPES,
  GENERATION_LIMITS,
  PROBLEM_FORMATS,
  QUESTION_TYPES,
  SUPPORTED_TOPICS,
  VALIDATION_CHECKS,
  VIDEO_FILES,
  VIDEO_LANGUAGES,
  VIDEO_LIMITS,
  VIDEO_STYLES,
  type VideoFileName,
  contentCore,
  contentRateLimit,
  type ContentRecord,
} from '../../subgraphs/content/index.js'

const BASE = '/v1/content-ai'
const text = { type: 'string', maxLength: GENERATION_LIMITS.maxText } as const
const texts = { type: 'array', items: text } as const
const videoParams = { type: 'object', required: ['videoId'], properties: { videoId: { type: 'string', minLength: 1, maxLength: 100 } } } as const
const contentParams = { type: 'object', required: ['contentId'], properties: { contentId: { type: 'string', minLength: 1, maxLength: 100 } } } as const
const metadata = {
  type: 'object',
  properties: { subject: { type: ['string', 'null'] }, gradeLevel: { type: ['string', 'null'] }, standards: { type: 'array', items: { type: 'string' } } },
} as const

/** A stored item as the interface shows it: its content object, metadata, and where it came from. */
const itemBody = (item: ContentRecord) => ({
  id: item.id,
  type: item.type,
  title: item.title,
  content: item.content,
  metadata: item.metadata,
  origin: item.origin,
  engine: item.engine,
  parentId: item.parentId,
  createdAt: item.createdAt.toISOString(),
  updatedAt: item.updatedAt.toISOString(),
})

/**
 * The content generation interface (Document 2, B) under /v1/content-ai. Every operation takes
 * an API key (`X-API-Key` or `Authorization: Bearer <key>`) or an OAuth access token
 * (`Authorization: Bearer <token>` from POST /oauth/token); limits are per credential by tier.
 */
export const contentService = defineService(contentCore, {
  prefixes: [BASE],
  openapi: {
    title: 'Tessera content generation',
    description: 'Lessons, problems and assessments generated and verified offline; content validation; the stored content library (v1).',
  },
  realm: 'tessera-content',
  rateLimit: contentRateLimit,
  routes(app, { domain }) {
    // Generated items are stored: 201 with the library address of the new item.
    const stored = <T extends { id: string }>(reply: FastifyReply, item: T) => reply.code(201).header('location', `${BASE}/content/${item.id}`).send(item)

    app.post(
      `${BASE}/generate/lesson`,
      {
        schema: {
          summary: 'Generate a 5E lesson',
          body: {
            type: 'object',
            required: ['subject', 'topic', 'gradeLevel'],
            additionalProperties: false,
            properties: {
              subject: text,
              topic: text,
              gradeLevel: text,
              objectives: texts,
              duration: { type: 'number' },
              includeAssessment: { type: 'boolean' },
              differentiation: { type: 'boolean' },
              standards: texts,
              seed: { type: 'integer' },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const lesson = await domain.generateLesson(request.principal, request.body)
        return stored(reply, lesson)
      },
    )

    app.post(
      `${BASE}/generate/problems`,
      {
        schema: {
          summary: 'Generate practice problems with verified answers',
          body: {
            type: 'object',
            required: ['topic'],
            additionalProperties: false,
            properties: {
              topic: text,
              difficulty: { type: 'number' },
              count: { type: 'integer' },
              includeHints: { type: 'boolean' },
              includeSolutions: { type: 'boolean' },
              format: { type: 'string', enum: PROBLEM_FORMATS },
              seed: { type: 'integer' },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const set = await domain.generateProblems(request.principal, request.body)
        return stored(reply, set)
      },
    )

    app.post(
      `${BASE}/generate/assessment`,
      {
        schema: {
          summary: 'Generate an assessment',
          body: {
            type: 'object',
            required: ['topic'],
            additionalProperties: false,
            properties: {
              topic: text,
              questionTypes: { type: 'array', items: { type: 'string', enum: QUESTION_TYPES } },
              questionCount: { type: 'integer' },
              difficulty: { type: 'number' },
              standards: texts,
              includeRubric: { type: 'boolean' },
              seed: { type: 'integer' },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const assessment = await domain.generateAssessment(request.principal, request.body)
        return stored(reply, assessment)
      },
    )

    app.post(
      `${BASE}/generate/video`,
      {
        schema: {
          summary: 'Render a narrated video from a script (a job: answers 202 with status processing)',
          body: {
            type: 'object',
            required: ['topic', 'script'],
            additionalProperties: false,
            properties: {
              topic: text,
              script: { type: 'string', maxLength: VIDEO_LIMITS.scriptChars },
              duration: { type: 'number' },
              style: { type: 'string', enum: VIDEO_STYLES },
              voiceConfig: {
                type: 'object',
                additionalProperties: false,
                properties: { gender: { type: 'string' }, accent: { type: 'string' }, speed: { type: 'number' } },
              },
              captions: { type: 'boolean' },
              language: { type: 'string', enum: VIDEO_LANGUAGES },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const video = await domain.generateVideo(request.principal, request.body)
        return reply.code(202).header('location', `${BASE}/videos/${video.id}`).send(video)
      },
    )

    app.get(
      `${BASE}/videos/:videoId`,
      {
        schema: { summary: 'A video and its rendering state (extension)', params: videoParams } as const,
      },
      async (request) => domain.getVideo(request.principal, request.params.videoId),
    )

    app.get(
      `${BASE}/videos/:videoId/:file`,
      {
        schema: {
          summary: 'A rendered video file: video.mp4 (byte ranges), thumbnail.png or captions.vtt (extension)',
          params: {
            type: 'object',
            required: ['videoId', 'file'],
            properties: { videoId: { type: 'string', maxLength: 100 }, file: { type: 'string', enum: Object.keys(VIDEO_FILES) as VideoFileName[] } },
          },
        } as const,
      },
      async (request, reply) => {
        const file = await domain.downloadVideoFile(request.principal, request.params.videoId, request.params.file, request.headers.range, {
          headersOnly: request.method === 'HEAD',
        })
        reply.code(file.status).headers(file.headers)
        // Without a body (HEAD, 416) an empty stream keeps the Content-Length the file store set.
        return reply.send(file.body ?? Readable.from([]))
      },
    )

    app.get(
      `${BASE}/topics`,
      {
        schema: { summary: 'Topics the offline engine covers (extension)', querystring: { type: 'object', additionalProperties: false } } as const,
      },
      async () => ({ topics: SUPPORTED_TOPICS }),
    )

    app.post(
      `${BASE}/validate`,
      {
        schema: {
          summary: 'Check content: grammar, factual accuracy, bias, accessibility, standards alignment',
          body: {
            type: 'object',
            required: ['content'],
            additionalProperties: false,
            properties: {
              content: { type: 'object' },
              checks: { type: 'array', items: { type: 'string', enum: VALIDATION_CHECKS } },
              gradeLevel: { type: 'string' },
            },
          },
        } as const,
      },
      async (request) => domain.validate(request.principal, request.body),
    )

    app.post(
      `${BASE}/content`,
      {
        schema: {
          summary: 'Store a content item',
          body: {
            type: 'object',
            required: ['type', 'title', 'content'],
            additionalProperties: false,
            properties: { type: { type: 'string', enum: CONTENT_TYPES }, title: { type: 'string' }, content: { type: 'object' }, metadata },
          },
        } as const,
      },
      async (request, reply) => {
        const item = await domain.createContent(request.principal, request.body)
        return reply.code(201).header('location', `${BASE}/content/${item.id}`).send(itemBody(item))
      },
    )

    app.get(
      `${BASE}/content`,
      {
        schema: {
          summary: `List content, newest first (page 1 and ${CONTENT_PAGE.defaultLimit} items by default, at most ${CONTENT_PAGE.maxLimit})`,
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              subject: { type: 'string' },
              gradeLevel: { type: 'string' },
              type: { type: 'string', enum: CONTENT_TYPES },
              page: { type: 'integer', minimum: 1 },
              limit: { type: 'integer', minimum: 1, maximum: CONTENT_PAGE.maxLimit },
            },
          },
        } as const,
      },
      async (request) => {
        const page = await domain.listContent(request.principal, request.query)
        return { items: page.items.map(itemBody), page: page.page, limit: page.limit, total: page.total }
      },
    )

    app.get(
      `${BASE}/content/:contentId`,
      {
        schema: { summary: 'One content item (extension)', params: contentParams } as const,
      },
      async (request) => itemBody(await domain.getContent(request.principal, request.params.contentId)),
    )

    app.put(
      `${BASE}/content/:contentId`,
      {
        schema: {
          summary: 'Replace the given fields of a content item',
          params: contentParams,
          body: {
            type: 'object',
            minProperties: 1,
            additionalProperties: false,
            properties: { type: { type: 'string', enum: CONTENT_TYPES }, title: { type: 'string' }, content: { type: 'object' }, metadata },
          },
        } as const,
      },
      async (request) => itemBody(await domain.updateContent(request.principal, request.params.contentId, request.body)),
    )

    app.delete(
      `${BASE}/content/:contentId`,
      {
        schema: { summary: 'Delete a content item', params: contentParams } as const,
      },
      async (request, reply) => {
        await domain.deleteContent(request.principal, request.params.contentId)
        return reply.code(204).send()
      },
    )

    app.post(
      `${BASE}/events`,
      {
        schema: {
          summary: `Record learner events, idempotent on each event id (extension; up to ${EVENT_LIMITS.batch} a batch)`,
          body: { type: 'object', required: ['events'], additionalProperties: false, properties: { events: { type: 'array' } } },
        } as const,
      },
      async (request) => domain.recordEvents(request.principal, request.body),
    )

    // --- Webhooks (the document names the events but no subscription operation; these are Tessera's)
    const webhookParams = { type: 'object', required: ['webhookId'], properties: { webhookId: { type: 'string', minLength: 1, maxLength: 100 } } } as const
    app.post(
      `${BASE}/webhooks`,
      {
        schema: {
          summary: `Subscribe a URL to content events (${CONTENT_EVENT_TYPES.join(', ')})`,
          body: {
            type: 'object',
            required: ['url', 'events', 'secret'],
            additionalProperties: false,
            properties: {
              url: { type: 'string' },
              events: { type: 'array', items: { type: 'string', enum: CONTENT_EVENT_TYPES } },
              secret: { type: 'string' },
              description: { type: 'string' },
            },
          },
        } as const,
      },
      async (request, reply) => {
        const webhook = await domain.createWebhook(request.principal, request.body)
        return reply.code(201).header('location', `${BASE}/webhooks/${webhook.id}`).send(webhook)
      },
    )

    app.get(
      `${BASE}/webhooks`,
      {
        schema: { summary: 'The webhook subscriptions of the caller’s environment', querystring: { type: 'object', additionalProperties: false } } as const,
      },
      async (request) => ({ items: await domain.listWebhooks(request.principal) }),
    )

    app.get(
      `${BASE}/webhooks/:webhookId`,
      {
        schema: { summary: 'One webhook subscription', params: webhookParams } as const,
      },
      async (request) => domain.getWebhook(request.principal, request.params.webhookId),
    )

    app.delete(
      `${BASE}/webhooks/:webhookId`,
      {
        schema: { summary: 'Delete a webhook subscription with its delivery log', params: webhookParams } as const,
      },
      async (request, reply) => {
        await domain.deleteWebhook(request.principal, request.params.webhookId)
        return reply.code(204).send()
      },
    )

    app.post(
      `${BASE}/webhooks/:webhookId/enable`,
      {
        schema: { summary: 'Enable a subscription disabled after failed deliveries', params: webhookParams } as const,
      },
      async (request) => domain.enableWebhook(request.principal, request.params.webhookId),
    )

    app.get(
      `${BASE}/webhooks/:webhookId/deliveries`,
      {
        schema: {
          summary: `Delivery log, newest first (${DELIVERY_PAGE.defaultLimit} by default, at most ${DELIVERY_PAGE.maxLimit})`,
          params: webhookParams,
          querystring: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer' } } },
        } as const,
      },
      async (request) => ({ items: await domain.listDeliveries(request.principal, request.params.webhookId, request.query.limit) }),
    )

    app.post(
      `${BASE}/webhooks/:webhookId/deliveries/:deliveryId/redeliver`,
      {
        schema: {
          summary: 'Send a delivery again (same event id)',
          params: {
            type: 'object',
            required: ['webhookId', 'deliveryId'],
            properties: { webhookId: { type: 'string', maxLength: 100 }, deliveryId: { type: 'string', maxLength: 100 } },
          },
        } as const,
      },
      async (request, reply) => reply.code(202).send(await domain.redeliverWebhook(request.principal, request.params.webhookId, request.params.deliveryId)),
    )

    app.post(
      `${BASE}/recommendations`,
      {
        schema: {
          summary: 'Stored content ranked for a student by mastery, prerequisites, difficulty and time',
          body: {
            type: 'object',
            required: ['studentId', 'currentTopic'],
            additionalProperties: false,
            properties: {
              studentId: { type: 'string' },
              currentTopic: { type: 'string' },
              context: { type: 'object', additionalProperties: false, properties: { timeAvailable: { type: 'number' }, objectives: texts } },
              limit: { type: 'integer' },
            },
          },
        } as const,
      },
      async (request) => domain.recommendations(request.principal, request.body),
    )

    app.get(
      `${BASE}/analytics/:contentId`,
      {
        schema: {
          summary: `Engagement, effectiveness and usage of a content item over a time range (metrics: ${ANALYTICS_BLOCKS.join(', ')})`,
          params: contentParams,
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: { timeRange: { type: 'string', maxLength: 100 }, metrics: { type: 'string', maxLength: 200 } },
          },
        } as const,
      },
      async (request) => {
        const report = await domain.getAnalytics(request.principal, request.params.contentId, request.query)
        return { ...report, timeRange: { start: report.timeRange.start.toISOString(), end: report.timeRange.end.toISOString() } }
      },
    )
  },
})
