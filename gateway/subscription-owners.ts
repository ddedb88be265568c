import { Kind, parse, type ConstDirectiveNode, type ObjectTypeDefinitionNode, type ObjectTypeExtensionNode } from 'graphql'

/**
 * Reads from a supergraph which subgraph owns each root field of `Subscription`, using the
 * join__ directives composition writes: a field's `@join__field(graph:)`, else the single
 * graph of its type's `@join__type`. Returns field name → subgraph name.
 */
export function subscriptionOwners(supergraphSdl: string): Map<string, string> {
  const document = parse(supergraphSdl)
  const graphNames = new Map<string, string>()
  const owners = new Map<string, string>()
  for (const def of document.definitions) {
    if (def.kind === Kind.ENUM_TYPE_DEFINITION && def.name.value === 'join__Graph') {
      for (const value of def.values ?? []) {
        const name = stringArgument(value.directives?.find((d) => d.name.value === 'join__graph'), 'name')
        if (name) graphNames.set(value.name.value, name)
      }
    }
  }
  for (const def of document.definitions) {
    if ((def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) || def.name.value !== 'Subscription') continue
    const typeGraphs = joinGraphs(def, 'join__type')
    for (const field of def.fields ?? []) {
      const fieldGraphs = (field.directives ?? []).filter((d) => d.name.value === 'join__field').map((d) => enumArgument(d, 'graph'))
      const graph = fieldGraphs.find(Boolean) ?? (typeGraphs.length === 1 ? typeGraphs[0] : undefined)
      const name = graph ? graphNames.get(graph) : undefined
      if (name) owners.set(field.name.value, name)
    }
  }
  return owners
}

function joinGraphs(def: ObjectTypeDefinitionNode | ObjectTypeExtensionNode, directive: string): string[] {
  return (def.directives ?? []).filter((d) => d.name.value === directive).map((d) => enumArgument(d, 'graph')).filter((g): g is string => Boolean(g))
}

function enumArgument(directive: ConstDirectiveNode, name: string): string | undefined {
  const arg = directive.arguments?.find((a) => a.name.value === name)
  return arg?.value.kind === Kind.ENUM ? arg.value.value : undefined
}

function stringArgument(directive: ConstDirectiveNode | undefined, name: string): string | undefined {
  const arg = directive?.arguments?.find((a) => a.name.value === name)
  return arg?.value.kind === Kind.STRING ? arg.value.value : undefined
}
