import { Supergraph, operationFromDocument } from '@apollo/federation-internals'
import { buildOperationContext, executeQueryPlan, type ApolloGateway, type GraphQLDataSource } from '@apollo/gateway'
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types.js'
import { QueryPlanner, type FetchNode, type QueryPlan } from '@apollo/query-planner'
import {
  Kind,
  getNamedType,
  getVariableValues,
  isAbstractType,
  isEnumType,
  isObjectType,
  parse,
  print,
  type DocumentNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql'

/** Apollo Gateway's executor: what Apollo Server calls once an operation is parsed and validated. */
export type GatewayExecutor = ApolloGateway['executor']
type RequestContext = Parameters<GatewayExecutor>[0]
type ExecutionResult = Awaited<ReturnType<GatewayExecutor>>

/** What the fast path decided for one operation of one document. */
export type FastPathDecision = { kind: 'apollo'; reason: string } | { kind: 'fetch'; plan: QueryPlan; fetch: FetchNode }

/** Options of the fast path. */
export interface FastPathOptions {
  supergraphSdl: string
  /** The gateway's data sources by subgraph name (the same objects Apollo's executor calls). */
  dataSources: Record<string, GraphQLDataSource>
}

const APOLLO = (reason: string): FastPathDecision => ({ kind: 'apollo', reason })
const SHAPING_DIRECTIVES = new Set(['skip', 'include'])

/**
 * A cheaper executor for the commonest plan. When the query plan of an operation is one fetch
 * to one subgraph and the subgraph's answer is, by construction, already what Apollo's result
 * shaping would produce (same fields, aliases and order; no `__typename`, fragments or
 * abstract types; the same nullability and enum values in the subgraph as in the API schema),
 * the fetch is sent through the same data source Apollo would use and its data returned as is.
 * Every other operation, and every answer carrying errors (or a failed fetch), goes through
 * Apollo's `executeQueryPlan` — for an answer already fetched, replayed into it, so error
 * codes, paths and null propagation are Apollo's own. Decisions are made once per parsed
 * document (Apollo Server caches those by operation text) and operation name.
 */
export function createFastPath(options: FastPathOptions) {
  // Built on the first operation, not at start-up: Apollo Gateway builds its own copy then too.
  let built: ReturnType<typeof buildPlanning> | undefined
  const planning = () => (built ??= buildPlanning(options.supergraphSdl))
  const subgraphSchemas = new Map<string, GraphQLSchema>()
  const subgraphSchema = (name: string): GraphQLSchema | undefined => {
    let schema = subgraphSchemas.get(name)
    if (!schema) {
      const subgraph = planning().supergraph.subgraphs().get(name)
      if (!subgraph) return undefined
      schema = subgraph.schema.toGraphQLJSSchema()
      subgraphSchemas.set(name, schema)
    }
    return schema
  }
  const decisions = new WeakMap<DocumentNode, Map<string, FastPathDecision>>()
  /**
   * Operations by path: fast (the subgraph's data as is), refused (variables Apollo would refuse),
   * replayed (a fetched answer with errors, shaped by Apollo), apollo (Apollo's executor throughout).
   */
  const stats = { fast: 0, refused: 0, replayed: 0, apollo: 0 }

  /** Plans an operation and decides, once, whether its subgraph answer can be returned as is. */
  const decide = (document: DocumentNode, operationName: string | undefined): FastPathDecision => {
    let perName = decisions.get(document)
    if (!perName) decisions.set(document, (perName = new Map()))
    const key = operationName ?? ''
    let decision = perName.get(key)
    if (!decision) {
      decision = plan(document, operationName)
      perName.set(key, decision)
    }
    return decision
  }

  const plan = (document: DocumentNode, operationName: string | undefined): FastPathDecision => {
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    if (operations.length !== document.definitions.length) return APOLLO('the document has fragments')
    const operation =
      operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName)
    if (!operation) return APOLLO('no single operation')
    if (operation.operation !== 'query') return APOLLO(`a ${operation.operation}`)
    const { apiSchema, apiGraphQLSchema, planner } = planning()
    let queryPlan: QueryPlan
    try {
      queryPlan = planner.buildQueryPlan(operationFromDocument(apiSchema, document, { operationName }))
    } catch {
      return APOLLO('not plannable here')
    }
    const fetch = queryPlan.node
    if (fetch?.kind !== 'Fetch') return APOLLO(`plan is ${fetch?.kind ?? 'empty'}`)
    if (fetch.requires || fetch.inputRewrites?.length || fetch.outputRewrites?.length || fetch.contextRewrites?.length) return APOLLO('fetch rewrites data')
    const sent = fetch.operationDocumentNode ?? parse(fetch.operation)
    if (!sent || sent.definitions.length !== 1 || sent.definitions[0]!.kind !== Kind.OPERATION_DEFINITION) return APOLLO('fetch is not one operation')
    const sentOperation = sent.definitions[0]
    if (sentOperation.operation !== 'query') return APOLLO('fetch is not a query')
    const printed = (o: OperationDefinitionNode) => (o.variableDefinitions ?? []).map((v) => print(v)).join(',')
    if (printed(operation) !== printed(sentOperation)) return APOLLO('fetch declares other variables')
    const schema = subgraphSchema(fetch.serviceName)
    const subgraphQuery = schema?.getQueryType()
    const apiQuery = apiGraphQLSchema.getQueryType()
    if (!subgraphQuery || !apiQuery) return APOLLO('no query type')
    const difference = compare(operation.selectionSet, sentOperation.selectionSet, apiQuery, subgraphQuery)
    return difference ? APOLLO(difference) : { kind: 'fetch', plan: queryPlan, fetch }
  }

  /**
   * Why the subgraph's answer to `sent` could differ from Apollo's shaping of it for `asked`
   * (undefined when it cannot): walked field by field, both selections must match exactly.
   */
  const compare = (asked: SelectionSetNode, sent: SelectionSetNode, apiType: GraphQLObjectType, subgraphType: GraphQLObjectType): string | undefined => {
    if (asked.selections.length !== sent.selections.length) return 'the planner changed the selection'
    const seen = new Set<string>()
    for (let i = 0; i < asked.selections.length; i++) {
      const a = asked.selections[i]!
      const s = sent.selections[i]!
      if (a.kind !== Kind.FIELD || s.kind !== Kind.FIELD) return 'fragments'
      const name = a.name.value
      if (name.startsWith('__')) return `${name} is answered by the gateway`
      if (name !== s.name.value || a.alias?.value !== s.alias?.value) return 'the planner renamed a field'
      // Two selections of one response key are merged by both executors, possibly differently.
      const responseKey = a.alias?.value ?? name
      if (seen.has(responseKey)) return `${responseKey} selected twice`
      seen.add(responseKey)
      if ((a.arguments ?? []).map((x) => print(x)).join(',') !== (s.arguments ?? []).map((x) => print(x)).join(',')) return 'arguments differ'
      for (const directive of a.directives ?? []) if (!SHAPING_DIRECTIVES.has(directive.name.value)) return `@${directive.name.value}`
      if ((a.directives ?? []).map((x) => print(x)).join(',') !== (s.directives ?? []).map((x) => print(x)).join(',')) return 'directives differ'
      const apiField = apiType.getFields()[name]
      const subgraphField = subgraphType.getFields()[name]
      if (!apiField || !subgraphField) return `${apiType.name}.${name} unknown`
      // Same wrapping (lists, non-null) on both sides: null propagation already happened alike.
      if (String(apiField.type) !== String(subgraphField.type)) return `${apiType.name}.${name} is typed differently in the subgraph`
      const apiNamed = getNamedType(apiField.type)
      const subgraphNamed = getNamedType(subgraphField.type)
      if (isAbstractType(apiNamed) || isAbstractType(subgraphNamed)) return `${apiNamed.name} is abstract`
      if (isEnumType(apiNamed)) {
        // Apollo drops enum values the API schema hides; equal value sets leave nothing to drop.
        if (!isEnumType(subgraphNamed)) return `${apiNamed.name} differs`
        const values = (t: typeof apiNamed) =>
          t
            .getValues()
            .map((v) => v.name)
            .sort()
            .join(',')
        if (values(apiNamed) !== values(subgraphNamed)) return `${apiNamed.name} has values the API schema hides`
      }
      if (isObjectType(apiNamed)) {
        if (!isObjectType(subgraphNamed) || !a.selectionSet || !s.selectionSet) return `${apiNamed.name} differs`
        const inner = compare(a.selectionSet, s.selectionSet, apiNamed, subgraphNamed)
        if (inner) return inner
      } else if (a.selectionSet || s.selectionSet) {
        return `${apiNamed.name} differs`
      }
    }
    return undefined
  }

  /** The executor: the fast path where the plan allows it, Apollo's executor otherwise. */
  const wrap = (apollo: GatewayExecutor): GatewayExecutor =>
    async function fastPathExecutor(requestContext: RequestContext): Promise<ExecutionResult> {
      // Apollo asks subgraphs for traces when it reports usage; that is its executor's job.
      if (requestContext.metrics?.captureTraces) return apollo(requestContext)
      const { document, request } = requestContext
      const decision = decide(document, request.operationName)
      if (decision.kind !== 'fetch') {
        stats.apollo++
        return apollo(requestContext)
      }
      return runFastPath(decision, requestContext)
    }

  const runFastPath = async (decision: Extract<FastPathDecision, { kind: 'fetch' }>, requestContext: RequestContext): Promise<ExecutionResult> => {
    const { fetch } = decision
    const { request, document } = requestContext
    const provided = request.variables
    // The same variable check, and the same errors, as Apollo's executor before it plans.
    const definitions = requestContext.operation.variableDefinitions
    if (definitions?.length) {
      const { errors } = getVariableValues(requestContext.schema, definitions, provided ?? {})
      if (errors) {
        stats.refused++
        return { errors }
      }
    }
    const service = options.dataSources[fetch.serviceName]
    if (!service) {
      stats.apollo++
      return throughApollo()
    }
    const variables: Record<string, unknown> = Object.create(null)
    for (const name of fetch.variableUsages ?? []) {
      if (provided && Object.hasOwn(provided, name) && provided[name] !== undefined) variables[name] = provided[name]
    }
    let response: Awaited<ReturnType<GraphQLDataSource['process']>> | undefined
    let failure: { error: unknown } | undefined
    try {
      response = await service.process({
        kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
        request: { query: fetch.operation, variables, operationName: fetch.operationName },
        incomingRequestContext: requestContext,
        context: requestContext.context,
        document: fetch.operationDocumentNode,
        pathInIncomingRequest: [],
      })
    } catch (error) {
      failure = { error }
    }
    if (response && !response.errors && response.data !== null && typeof response.data === 'object') {
      stats.fast++
      return { data: response.data }
    }
    stats.replayed++
    // Errors, a failed fetch, or no data: Apollo's executor shapes what was fetched.
    const replay: GraphQLDataSource = {
      async process() {
        if (failure) throw failure.error
        return response!
      },
    }
    return throughApollo(replay)

    // Apollo's own execution of the same plan, from the data source or from a replay of it.
    function throughApollo(source?: GraphQLDataSource): Promise<ExecutionResult> {
      const operationContext = buildOperationContext({ schema: requestContext.schema, operationDocument: document, operationName: request.operationName })
      const serviceMap = { ...options.dataSources, ...(source ? { [fetch.serviceName]: source } : {}) }
      const { supergraphSchema, apiSchema } = planning()
      return executeQueryPlan(decision.plan, serviceMap, requestContext, operationContext, supergraphSchema, apiSchema)
    }
  }

  return {
    /** Wraps Apollo Gateway's executor. */
    wrap,
    /** The decision for an operation (tests and diagnostics). */
    decide,
    stats,
  }
}

// The supergraph, API schema and query planner the fast path plans with.
function buildPlanning(supergraphSdl: string) {
  const supergraph = Supergraph.build(supergraphSdl)
  const apiSchema = supergraph.apiSchema()
  return {
    supergraph,
    apiSchema,
    apiGraphQLSchema: apiSchema.toGraphQLJSSchema(),
    supergraphSchema: supergraph.schema.toGraphQLJSSchema(),
    planner: new QueryPlanner(supergraph),
  }
}

/** The fast path of a gateway. */
export type FastPath = ReturnType<typeof createFastPath>
