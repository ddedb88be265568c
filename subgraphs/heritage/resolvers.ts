import { isTesseraError } from '../../platform/errors.js'
import { DateTimeScalar, JSONScalar } from '../../platform/graphql/scalars.js'
import type { Resolvers } from './generated/graphql.js'
import type { ArtifactRecord, HeritageService, UploadPart } from './heritage-service.js'

// GraphQL sends null for what a client left out; the domain reads absent and null alike, except
// in a Dublin Core record, where only real elements may appear.
const defined = <T extends object>(entries: T) => Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined && v !== null))

/** A lookup that answers null for an unknown id, as GraphQL clients expect. */
const orNull = <T>(promise: Promise<T>) =>
  promise.catch((error: unknown) => {
    if (isTesseraError(error) && error.code === 'NOT_FOUND') return null
    throw error
  })

/** A base64 file as the parts of a multipart upload, so both faces store models the same way. */
async function* inlineParts(input: {
  fileBase64: string
  fileName?: string | null
  format?: string | null
  resolution?: string | null
}): AsyncGenerator<UploadPart> {
  if (input.format) yield { kind: 'field', name: 'format', value: input.format }
  if (input.resolution) yield { kind: 'field', name: 'resolution', value: input.resolution }
  const bytes = Buffer.from(input.fileBase64, 'base64')
  yield {
    kind: 'file',
    field: 'file',
    filename: input.fileName ?? undefined,
    stream: (async function* () {
      yield bytes
    })(),
  }
}

/** GraphQL resolvers of the heritage subgraph: arguments in, one domain call, the result out. */
export function createHeritageResolvers(service: HeritageService): Resolvers {
  return {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      artifact: (_, { id }, ctx) => orNull(service.getArtifact(ctx.actor, id)),
      artifacts: (_, args, ctx) => service.listArtifacts(ctx.actor, args),
      searchArtifacts: (_, args, ctx) => service.search(ctx.actor, args),
      artifactModel: (_, { artifactId, modelId }, ctx) => orNull(service.getModel(ctx.actor, artifactId, modelId)),
      tour: (_, { id }, ctx) => orNull(service.getTour(ctx.actor, id)),
      tours: (_, args, ctx) => service.listTours(ctx.actor, args),
    },
    Mutation: {
      createArtifact: (_, { input }, ctx) => {
        const { dublinCore, technical, ...rest } = input
        const metadata = defined({ dublinCore: dublinCore ? defined(dublinCore) : undefined, technical })
        return service.createArtifact(ctx.actor, {
          ...defined(rest),
          dimensions: rest.dimensions ? defined(rest.dimensions) : undefined,
          location: rest.location ? defined(rest.location) : undefined,
          metadata: Object.keys(metadata).length ? metadata : undefined,
        })
      },
      uploadModel: (_, { input }, ctx) => service.uploadModel(ctx.actor, input.artifactId, inlineParts(input)),
      createTour: (_, { input }, ctx) =>
        service.createTour(ctx.actor, {
          ...input,
          scenes: input.scenes?.map((s) => ({
            ...defined(s),
            position: s.position ? defined(s.position) : undefined,
            rotation: s.rotation ? defined(s.rotation) : undefined,
            scale: s.scale ? defined(s.scale) : undefined,
            hotspots: s.hotspots?.map((h) => defined({ ...h, position: defined(h.position), normal: h.normal ? defined(h.normal) : undefined })),
          })),
        }),
      replaceDublinCore: async (_, { artifactId, record }, ctx) => (await service.replaceDublinCore(ctx.actor, artifactId, defined(record))).record,
    },
    Artifact: {
      __resolveReference: async (ref, ctx) => ctx.artifactLoader.load(ref.id as string),
      // The artifact record carries model summaries; the GraphQL type is the full model record.
      models: (artifact, _, ctx) => service.listModels(ctx.actor, artifact.id),
      linkedArt: (artifact, _, ctx) => service.getLinkedArt(ctx.actor, artifact.id),
      analytics: (artifact, args, ctx) => service.analytics(ctx.actor, artifact.id, args),
      viewsPerDay: async (artifact, _, ctx) => (await service.analytics(ctx.actor, artifact.id, {})).daily.map((d) => ({ date: d.date, views: d.views })),
    },
    Model3d: {
      __resolveReference: async (ref, ctx) => {
        const model = await orNull(service.getModelById(ctx.actor, ref.id as string))
        return model
      },
    },
    ModelInspection: {
      materialCount: (i) => i.materials.count,
      materialNames: (i) => i.materials.names,
      textures: (i) => i.textures.items,
    },
    Tour: {
      __resolveReference: (ref, ctx) => orNull(service.getTour(ctx.actor, ref.id as string)),
      artifacts: async (tour, _, ctx) =>
        (await ctx.artifactLoader.loadMany(tour.artifactIds)).filter((a): a is ArtifactRecord => a !== null && !(a instanceof Error)),
    },
    TourScene: {
      artifact: (scene, _, ctx) => ctx.artifactLoader.load(scene.artifactId),
    },
  }
}
