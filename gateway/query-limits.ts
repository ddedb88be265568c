import {
  GraphQLError,
  Kind,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLType,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql'

/** Limits on the shape of an operation, checked before it is planned. */
export interface QueryLimits {
  /** Deepest field nesting allowed (introspection fields excluded). */
  maxDepth: number
  /** Highest estimated cost: 1 per field, times the page size of every list above it. */
  maxCost: number
  /** Size assumed for a list field whose page size is not given as an argument. */
  defaultListSize?: number
}

const PAGE_ARGUMENTS = ['limit', 'first', 'last', 'pageSize']

/**
 * A validation rule that rejects operations that are too deep or too costly, so one request
 * cannot fan out into millions of subgraph rows. The cost model is deliberately simple and
 * documented: every field costs 1, multiplied by the page size of each list field above it.
 */
export function createQueryLimitsRule(limits: QueryLimits) {
  const listSize = limits.defaultListSize ?? 10
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>()
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def)
    }
    const measure = (
      selectionSet: SelectionSetNode,
      parent: GraphQLType | undefined,
      depth: number,
      variables: Record<string, unknown>,
      seen: Set<string>,
      pageSize: number | undefined,
    ): { depth: number; cost: number } => {
      let deepest = depth
      let cost = 0
      const named = parent ? getNamedType(parent) : undefined
      const fields = named && (isObjectType(named) || isInterfaceType(named)) ? named.getFields() : undefined
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          const name = selection.name.value
          if (name.startsWith('__')) continue
          const type = fields?.[name]?.type
          const arg = selection.arguments?.find((a) => PAGE_ARGUMENTS.includes(a.name.value))
          const requested = arg ? pageArgument(arg.value, variables) ?? listSize : undefined
          // A list multiplies what it selects by its size: its own page argument, else one
          // given on the page object above it (`alerts(limit: 100) { items { … } }`).
          const list = type !== undefined && isList(type)
          const multiplier = list ? requested ?? pageSize ?? listSize : 1
          if (selection.selectionSet) {
            const inner = measure(selection.selectionSet, type, depth + 1, variables, seen, list ? undefined : requested)
            deepest = Math.max(deepest, inner.depth)
            cost += 1 + multiplier * inner.cost
          } else {
            deepest = Math.max(deepest, depth + 1)
            cost += 1
          }
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const onType = selection.typeCondition ? context.getSchema().getType(selection.typeCondition.name.value) ?? parent : parent
          const inner = measure(selection.selectionSet, onType as GraphQLType | undefined, depth, variables, seen, pageSize)
          deepest = Math.max(deepest, inner.depth)
          cost += inner.cost
        } else {
          const fragment = fragments.get(selection.name.value)
          // A fragment cycle is reported by graphql's own rules; here it is simply not followed.
          if (!fragment || seen.has(fragment.name.value)) continue
          const onType = context.getSchema().getType(fragment.typeCondition.name.value) ?? parent
          const inner = measure(fragment.selectionSet, onType as GraphQLType | undefined, depth, variables, new Set([...seen, fragment.name.value]), pageSize)
          deepest = Math.max(deepest, inner.depth)
          cost += inner.cost
        }
      }
      return { depth: deepest, cost }
    }

    return {
      OperationDefinition(node) {
        const schema = context.getSchema()
        const root =
          node.operation === 'query' ? schema.getQueryType() : node.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType()
        const { depth, cost } = measure(node.selectionSet, root ?? undefined, 0, {}, new Set(), undefined)
        if (depth > limits.maxDepth) {
          context.reportError(
            new GraphQLError(`Query depth ${depth} exceeds the maximum of ${limits.maxDepth}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_DEEP', http: { status: 400 }, details: { depth, maxDepth: limits.maxDepth } },
            }),
          )
        }
        if (cost > limits.maxCost) {
          context.reportError(
            new GraphQLError(`Query cost ${cost} exceeds the maximum of ${limits.maxCost}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_COSTLY', http: { status: 400 }, details: { cost, maxCost: limits.maxCost } },
            }),
          )
        }
      },
    }
  }
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type)
}

// Variables are not known during validation, so a page size given by a variable counts as
// the default size; the subgraphs enforce their own maxima on the real value.
function pageArgument(value: ValueNode, _variables: Record<string, unknown>): number | undefined {
  return value.kind === Kind.INT ? Math.max(1, Number(value.value)) : undefined
}
