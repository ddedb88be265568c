import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql'

/** ISO 8601 UTC timestamps; accepts Date objects or ISO strings from resolvers. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO 8601 UTC timestamp',
  serialize(value) {
    const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError(`DateTime cannot represent ${String(value)}`)
    return date.toISOString()
  },
  parseValue(value) {
    return parseDate(value)
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be an ISO 8601 string', { nodes: [ast] })
    return parseDate(ast.value)
  },
})

function parseDate(value: unknown): Date {
  const date = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : null
  if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string')
  return date
}

/** Any JSON value, passed through as is. */
export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => literal(ast, variables ?? undefined),
})

function literal(ast: ValueNode, variables: Record<string, unknown> | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value)
    case Kind.NULL:
      return null
    case Kind.ENUM:
      return ast.value
    case Kind.LIST:
      return ast.values.map((v) => literal(v, variables))
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value, variables)]))
    case Kind.VARIABLE:
      return variables?.[ast.name.value]
  }
}
