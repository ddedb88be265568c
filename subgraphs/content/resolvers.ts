import { DateTimeScalar, JSONScalar } from '../../platform/graphql/scalars.js'
import type { ContentEventRecord, ContentRecord, ContentService } from './content-service.js'
import type { ContentMetadataInput, Resolvers } from './generated/graphql.js'

/** GraphQL input with its nulls dropped: the domain treats an absent field and null alike. */
const defined = (input: object): Record<string, unknown> => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined))

/** The REST body's metadata object from the GraphQL input (extra keys beside the named ones). */
const metadataOf = (m: ContentMetadataInput | null | undefined) =>
  m ? { ...((m.extra as object | null) ?? {}), ...defined({ subject: m.subject, gradeLevel: m.gradeLevel, standards: m.standards }) } : undefined

/** GraphQL resolvers of the content subgraph: arguments in, one domain call, the result out. */
export function createContentResolvers(service: ContentService): Resolvers {
  return {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      contentItem: (_, { id }, ctx) => service.getContent(ctx.actor, id),
      contentItems: (_, args, ctx) => service.listContent(ctx.actor, args),
      contentVideo: (_, { id }, ctx) => service.getVideo(ctx.actor, id),
      contentRecommendations: (_, { input }, ctx) => {
        const { timeAvailable, objectives, ...rest } = input
        return service.recommendations(ctx.actor, defined({ ...rest, context: defined({ timeAvailable, objectives }) }))
      },
      contentAnalytics: (_, { contentId, timeRange, metrics }, ctx) => service.getAnalytics(ctx.actor, contentId, { timeRange, metrics }),
    },
    Mutation: {
      generateLesson: (_, { input }, ctx) => service.generateLesson(ctx.actor, defined(input)),
      generateProblems: (_, { input }, ctx) => service.generateProblems(ctx.actor, defined(input)),
      generateAssessment: (_, { input }, ctx) => service.generateAssessment(ctx.actor, defined(input)),
      generateVideo: (_, { input }, ctx) =>
        service.generateVideo(ctx.actor, defined({ ...input, voiceConfig: input.voiceConfig ? defined(input.voiceConfig) : undefined })),
      validateContent: (_, { input }, ctx) => service.validate(ctx.actor, defined(input)),
      createContent: (_, { input }, ctx) => service.createContent(ctx.actor, defined({ ...input, metadata: metadataOf(input.metadata) })),
      updateContent: (_, { id, input }, ctx) => service.updateContent(ctx.actor, id, defined({ ...input, metadata: metadataOf(input.metadata) })),
      deleteContent: async (_, { id }, ctx) => {
        await service.deleteContent(ctx.actor, id)
        return true
      },
      recordLearningEvents: (_, { events }, ctx) => service.recordEvents(ctx.actor, { events: events.map(defined) }),
    },
    Subscription: {
      contentGenerated: {
        subscribe: (_, __, ctx) => service.watchGenerated(ctx.actor),
        resolve: (event: ContentEventRecord) => event,
      },
      contentEvents: {
        subscribe: (_, { events }, ctx) => service.watchEvents(ctx.actor, events),
        resolve: (event: ContentEventRecord) => event,
      },
    },
    ContentItem: {
      __resolveReference: (ref, ctx) => service.getContent(ctx.actor, ref.id),
      metadata: (item: ContentRecord) => {
        const { subject, gradeLevel, standards, ...extra } = item.metadata
        return { subject, gradeLevel, standards, extra }
      },
    },
    ContentEvent: {
      // The item may have been deleted since the event: null then, not an error.
      item: (event, _, ctx) => service.getContent(ctx.actor, event.contentId).catch(() => null),
    },
  }
}
