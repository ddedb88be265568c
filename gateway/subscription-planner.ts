import { Supergraph, operationFromDocument } from '@apollo/federation-internals'
import { buildOperationContext, executeQueryPlan, type GraphQLDataSource } from '@apollo/gateway'
import { QueryPlanner, type FetchNode, type PlanNode, type QueryPlan } from '@apollo/query-planner'
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql'

/** A subscription split by the query planner: what its owning subgraph streams, and the rest. */
export interface PlannedSubscription {
  /** The subscription the owning subgraph runs: its own fields, plus keys for the other ones. */
  primary: FetchNode
  /** What other subgraphs add to each event (absent when the owner resolves everything). */
  rest: PlanNode | undefined
  operationContext: ReturnType<typeof buildOperationContext>
}

// The event a subgraph streamed stands in for the primary fetch, so the gateway's own executor
// runs the rest of the plan on it exactly as it would for a query.
const EVENT_SOURCE = '__subscription_event__'

/**
 * Plans subscriptions with Apollo's query planner and resolves each event's fields owned by
 * other subgraphs the way a query would be: the owner streams the root field with the keys
 * the other subgraphs need, and every event runs the remaining fetches (entity lookups) through
 * the gateway's executor, then is shaped to the client's selection.
 */
export function createSubscriptionPlanner(supergraphSdl: string) {
  const supergraph = Supergraph.build(supergraphSdl)
  const apiSchema = supergraph.apiSchema()
  const apiGraphQLSchema: GraphQLSchema = apiSchema.toGraphQLJSSchema()
  const supergraphSchema: GraphQLSchema = supergraph.schema.toGraphQLJSSchema()
  const planner = new QueryPlanner(supergraph)

  return {
    /** Plans a validated subscription document. */
    plan(document: DocumentNode, operationName: string | undefined): PlannedSubscription {
      const operation = operationFromDocument(apiSchema, document, { operationName })
      const plan = planner.buildQueryPlan(operation)
      if (plan.node?.kind !== 'Subscription') throw new Error('Not a subscription operation')
      return {
        primary: plan.node.primary,
        rest: plan.node.rest,
        operationContext: buildOperationContext({ schema: apiGraphQLSchema, operationDocument: document, operationName }),
      }
    },

    /** Completes one streamed event into the client's result. */
    async resolve(
      planned: PlannedSubscription,
      event: ExecutionResult,
      variables: Record<string, unknown>,
      dataSources: Record<string, GraphQLDataSource>,
      context: object,
    ): Promise<ExecutionResult> {
      const fetch: FetchNode = { ...planned.primary, serviceName: EVENT_SOURCE }
      const plan: QueryPlan = { kind: 'QueryPlan', node: planned.rest ? { kind: 'Sequence', nodes: [fetch, planned.rest] } : fetch }
      const serviceMap = { ...dataSources, [EVENT_SOURCE]: { process: async () => event } as unknown as GraphQLDataSource }
      const requestContext = { request: { variables }, context, logger: console, metrics: {} }
      const result = await executeQueryPlan(plan, serviceMap, requestContext as never, planned.operationContext, supergraphSchema, apiSchema)
      return result as ExecutionResult
    },
  }
}

/** The subscription planner of a gateway. */
export type SubscriptionPlanner = ReturnType<typeof createSubscriptionPlanner>
