import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { GraphQLError } from 'graphql'
import mercurius from 'mercurius'
import type { Subgraph } from '../platform/graphql/subgraph.js'

// Split mode: the service's subgraph at /graphql over HTTP and graphql-ws (mercurius), with
// the same context factory the embedded gateway uses in-process.
export async function serveSubgraph(app: FastifyInstance, subgraph: Subgraph) {
  await app.register(mercurius, {
    schema: subgraph.schema,
    path: '/graphql',
    graphiql: false,
    context: (request: FastifyRequest) => subgraph.createContext({ ...request.headers, 'x-request-id': request.id }),
    subscription: {
      onConnect: async ({ payload }: { payload?: Record<string, unknown> }) => {
        const headers = Object.fromEntries(Object.entries(payload ?? {}).map(([k, v]) => [k.toLowerCase(), typeof v === 'string' ? v : undefined]))
        return { ...(await subgraph.createContext(headers)) }
      },
    },
    // Coded errors keep their extensions; anything else is masked. Always 200 with the
    // errors in the body, as the gateway expects of a subgraph.
    errorFormatter: (execution: { data?: unknown; errors?: readonly GraphQLError[] }, context: unknown) => {
      const requestId = (context as { requestId?: string } | undefined)?.requestId
      return {
        statusCode: 200,
        response: { data: execution.data ?? null, errors: execution.errors?.map((e) => subgraph.maskError(e, requestId).toJSON()) },
      }
    },
  } as never)
  app.graphql.addHook('preExecution', async (_schema, document, _context, variables) => {
    const refused = subgraph.checkInput(document, variables as Record<string, unknown> | undefined)
    if (refused) throw refused
  })
}
