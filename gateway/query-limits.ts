import {
  GraphQLError,
  Kind,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  parse,
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLSchema,
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

/** Limits on the text of a document, checked while and right after it is parsed. */
export interface DocumentLimits {
  /** Most lexical tokens a document may have; parsing stops at the first one over. */
  maxTokens: number
  /** Most aliases in a document (each alias can repeat a field, fragments included once). */
  maxAliases: number
  /** Most directives in a document. */
  maxDirectives: number
  /** Deepest nesting of `{`, `[` and `(` in the text (selections, lists, input objects). */
  maxNesting?: number
}

/** Defaults of the document limits (documented in the README's settings). */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { maxTokens: 10_000, maxAliases: 100, maxDirectives: 50, maxNesting: 128 }

const PAGE_ARGUMENTS = ['limit', 'first', 'last', 'pageSize']

/**
 * Parses a document within `limits`, before any validation or planning: the token bound stops
 * the parser itself, so a huge document costs no more than its first `maxTokens` tokens, and
 * aliases and directives are counted in one pass over the (bounded) tree. Returns the document,
 * or the error to answer with 400.
 */
export function parseWithinLimits(query: string, limits: DocumentLimits): { document: DocumentNode } | { error: GraphQLError } {
  // graphql's parser is recursive: a few thousand nested braces overflow the stack long before
  // the token bound, so nesting is measured on the text first, without parsing.
  const maxNesting = limits.maxNesting ?? DEFAULT_DOCUMENT_LIMITS.maxNesting ?? 128
  if (nestingExceeds(query, maxNesting)) {
    return { error: limitError(`Document nests deeper than ${maxNesting} levels`, 'QUERY_TOO_DEEP', { maxNesting }) }
  }
  let document: DocumentNode
  try {
    document = parse(query, { maxTokens: limits.maxTokens, noLocation: false })
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error
    const tooMany = /contains more tha[nt] \d+ tokens/.test(error.message)
    return {
      error: tooMany
        ? limitError(`Document has more than ${limits.maxTokens} tokens`, 'QUERY_TOO_LARGE', { maxTokens: limits.maxTokens })
        : new GraphQLError(error.message, { extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400 } } }),
    }
  }
  let aliases = 0
  let directives = 0
  // An explicit stack: the token bound limits the tree's size, not its depth.
  const stack: unknown[] = [document]
  while (stack.length) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    if (!node || typeof node !== 'object' || !('kind' in node)) continue
    const ast = node as ASTNode
    if (ast.kind === Kind.FIELD && ast.alias) aliases++
    if (ast.kind === Kind.DIRECTIVE) directives++
    for (const [key, value] of Object.entries(ast)) if (key !== 'loc' && value && typeof value === 'object') stack.push(value)
  }
  if (aliases > limits.maxAliases) {
    return {
      error: limitError(`Document has ${aliases} aliases; the maximum is ${limits.maxAliases}`, 'QUERY_TOO_MANY_ALIASES', {
        aliases,
        maxAliases: limits.maxAliases,
      }),
    }
  }
  if (directives > limits.maxDirectives) {
    return {
      error: limitError(`Document has ${directives} directives; the maximum is ${limits.maxDirectives}`, 'QUERY_TOO_MANY_DIRECTIVES', {
        directives,
        maxDirectives: limits.maxDirectives,
      }),
    }
  }
  return { document }
}

// Counts open brackets outside strings and comments, stopping at the first level past `max`.
function nestingExceeds(text: string, max: number): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '#') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++
    } else if (c === '"') {
      if (text.startsWith('"""', i)) {
        // Inside a block string only \""" escapes; an unterminated one is the parser's to report.
        let end = text.indexOf('"""', i + 3)
        while (end > 0 && text[end - 1] === '\\') end = text.indexOf('"""', end + 3)
        i = end < 0 ? text.length : end + 2
      } else {
        i++
        while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1
      }
    } else if (c === '{' || c === '[' || c === '(') {
      if (++depth > max) return true
    } else if (c === '}' || c === ']' || c === ')') {
      depth--
    }
  }
  return false
}

/** The 400 for a request body or variables nested deeper than the platform allows. */
export function inputTooDeep(problem: { field: string; message: string }): GraphQLError {
  return new GraphQLError(`${problem.field} ${problem.message}`, {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 }, details: { field: problem.field, reason: problem.message } },
  })
}

function limitError(message: string, code: string, details: Record<string, number>): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 }, details } })
}

interface Measure {
  /** Deepest field nesting below the selection set (0 when it selects no field). */
  depth: number
  cost: number
}

/**
 * A validation rule that rejects operations that are too deep or too costly, so one request
 * cannot fan out into millions of subgraph rows. The cost model is deliberately simple and
 * documented: every field costs 1, multiplied by the page size of each list field above it,
 * and a field that fetches a page (it takes a page argument) costs at least the default list
 * size, so many aliases of one small page still add up.
 *
 * Each fragment is measured once per page size it is spread under (depth is measured relative
 * to the spread), so fragments that spread each other many times cost time linear in the
 * document, not in its expansion.
 */
export function createQueryLimitsRule(limits: QueryLimits) {
  const listSize = limits.defaultListSize ?? 10
  return (context: ValidationContext): ASTVisitor => {
    const schema = context.getSchema()
    return {
      OperationDefinition(node) {
        const { depth, cost } = measureOperation(schema, context.getDocument(), node.selectionSet, node.operation, listSize)
        if (depth > limits.maxDepth) {
          context.reportError(
            new GraphQLError(`Query depth ${depth} exceeds the maximum of ${limits.maxDepth}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_DEEP', http: { status: 400 }, details: { depth, maxDepth: limits.maxDepth } },
            }),
          )
        }
        if (cost > limits.maxCost) {
          const shown = Number.isFinite(cost) && cost < Number.MAX_SAFE_INTEGER ? cost : Number.MAX_SAFE_INTEGER
          context.reportError(
            new GraphQLError(`Query cost ${shown} exceeds the maximum of ${limits.maxCost}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_COSTLY', http: { status: 400 }, details: { cost: shown, maxCost: limits.maxCost } },
            }),
          )
        }
      },
    }
  }
}

function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  selectionSet: SelectionSetNode,
  operation: 'query' | 'mutation' | 'subscription',
  listSize: number,
): Measure {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def)
  const memo = new Map<string, Measure>()
  const inProgress = new Set<string>()

  // Recursion follows the document's own nesting: its depth is bounded by the parser's token
  // bound and, through fragments, by the number of fragments (each is entered once per key).
  const measure = (set: SelectionSetNode, parent: GraphQLType | undefined, pageSize: number | undefined): Measure => {
    let deepest = 0
    let cost = 0
    const named = parent ? getNamedType(parent) : undefined
    const fields = named && (isObjectType(named) || isInterfaceType(named)) ? named.getFields() : undefined
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value
        if (name.startsWith('__')) continue
        const type = fields?.[name]?.type
        const arg = selection.arguments?.find((a) => PAGE_ARGUMENTS.includes(a.name.value))
        const requested = arg ? (pageArgument(arg.value) ?? listSize) : undefined
        // A list multiplies what it selects by its size: its own page argument, else one
        // given on the page object above it (`alerts(limit: 100) { items { … } }`).
        const list = type !== undefined && isList(type)
        const multiplier = list ? (requested ?? pageSize ?? listSize) : 1
        let own = 1
        if (selection.selectionSet) {
          const inner = measure(selection.selectionSet, type, list ? undefined : requested)
          deepest = Math.max(deepest, inner.depth + 1)
          own = 1 + multiplier * inner.cost
        } else {
          deepest = Math.max(deepest, 1)
        }
        // Every page fetched is real work in a subgraph, however small the page: 3,000 aliases
        // of `alerts(limit: 1)` must not pass as 6,000 cheap fields.
        cost += arg ? Math.max(own, listSize) : own
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const onType = selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) ?? parent) : parent
        const inner = measure(selection.selectionSet, onType as GraphQLType | undefined, pageSize)
        deepest = Math.max(deepest, inner.depth)
        cost += inner.cost
      } else {
        const fragment = fragments.get(selection.name.value)
        const key = `${selection.name.value}:${pageSize ?? ''}`
        // A fragment cycle is reported by graphql's own rules; here it is simply not followed.
        if (!fragment || inProgress.has(key)) continue
        let inner = memo.get(key)
        if (!inner) {
          inProgress.add(key)
          const onType = schema.getType(fragment.typeCondition.name.value) ?? parent
          inner = measure(fragment.selectionSet, onType as GraphQLType | undefined, pageSize)
          inProgress.delete(key)
          memo.set(key, inner)
        }
        deepest = Math.max(deepest, inner.depth)
        cost += inner.cost
      }
    }
    return { depth: deepest, cost }
  }

  const root = operation === 'query' ? schema.getQueryType() : operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType()
  return measure(selectionSet, root ?? undefined, undefined)
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type)
}

// Variables are not known during validation, so a page size given by a variable counts as
// the default size; the subgraphs enforce their own maxima on the real value.
function pageArgument(value: ValueNode): number | undefined {
  return value.kind === Kind.INT ? Math.max(1, Number(value.value)) : undefined
}
