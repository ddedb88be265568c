import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway'
import { Kind, parse, type DocumentNode } from 'graphql'

/** How the gateway protects itself from one slow or failing subgraph. */
export interface SubgraphGuardOptions {
  /** Longest wait for one subgraph fetch (ms), then the fetch fails with SUBGRAPH_TIMEOUT. */
  timeoutMs: number
  /** Consecutive failed fetches (timeouts, unreachable) that open the breaker. */
  failuresToOpen?: number
  /** How long an open breaker fails fetches at once before letting one try through (ms). */
  openMs?: number
  /** Told when a subgraph's breaker opens or closes (the process logs it). */
  onBreakerChange?: (subgraph: string, state: 'open' | 'closed') => void
  now?: () => number
}

/** Defaults of the breaker (documented in the README). */
export const SUBGRAPH_BREAKER = { failuresToOpen: 5, openMs: 10_000 }

type Response = Awaited<ReturnType<GraphQLDataSource['process']>>

/**
 * Wraps a subgraph's data source with a timeout and a circuit breaker. A fetch that takes too
 * long, or cannot reach the subgraph, answers errors that name the subgraph and carry the
 * path of each field it would have answered, so the rest of the operation still returns its
 * data. After `failuresToOpen` such failures in a row the breaker opens: fetches fail at once
 * (SUBGRAPH_UNAVAILABLE) for `openMs`, then one is let through, and its success closes it.
 * Answers that are GraphQL errors (a subgraph saying no) count as the subgraph being up.
 */
export function guardDataSource<T extends GraphQLDataSource>(name: string, inner: T, options: SubgraphGuardOptions): GraphQLDataSource {
  const now = options.now ?? Date.now
  const failuresToOpen = options.failuresToOpen ?? SUBGRAPH_BREAKER.failuresToOpen
  const openMs = options.openMs ?? SUBGRAPH_BREAKER.openMs
  let failures = 0
  let openUntil = 0
  let trial = false

  const failed = (request: GraphQLDataSourceProcessOptions, code: 'SUBGRAPH_TIMEOUT' | 'SUBGRAPH_UNAVAILABLE', message: string): Response => {
    const fields = rootFields(request)
    const where = 'pathInIncomingRequest' in request && request.pathInIncomingRequest?.length ? ` at ${request.pathInIncomingRequest.join('.')}` : ''
    const status = code === 'SUBGRAPH_TIMEOUT' ? 504 : 503
    const error = (path?: string[]) => ({ message: `${message}${where}`, ...(path ? { path } : {}), extensions: { code, subgraph: name, http: { status } } })
    return { errors: fields.length ? fields.map((field) => error([field])) : [error()] } as Response
  }
  const recordFailure = () => {
    trial = false
    failures++
    if (failures >= failuresToOpen && openUntil <= now()) {
      if (openUntil === 0) options.onBreakerChange?.(name, 'open')
      openUntil = now() + openMs
    }
  }
  const recordSuccess = () => {
    trial = false
    if (openUntil !== 0) options.onBreakerChange?.(name, 'closed')
    failures = 0
    openUntil = 0
  }

  return {
    async process(request) {
      if (openUntil > now() || (openUntil !== 0 && trial)) {
        return failed(
          request,
          'SUBGRAPH_UNAVAILABLE',
          `Subgraph ${name} is unavailable (failing fast after ${failures} failed fetches; retried within ${Math.ceil(openMs / 1000)} s)`,
        )
      }
      if (openUntil !== 0) trial = true
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs)
      })
      try {
        const outcome = await Promise.race([inner.process(request as never), timeout])
        if (outcome === 'timeout') {
          recordFailure()
          return failed(request, 'SUBGRAPH_TIMEOUT', `Subgraph ${name} did not answer within ${options.timeoutMs} ms`)
        }
        recordSuccess()
        return outcome
      } catch (error) {
        recordFailure()
        return failed(request, 'SUBGRAPH_UNAVAILABLE', `Subgraph ${name} is unreachable: ${(error as Error).message}`)
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

// Response keys of a root fetch's top-level fields: the paths its failure leaves null.
// Entity fetches (`_entities`) are placed by the gateway; they get no path of their own.
function rootFields(request: GraphQLDataSourceProcessOptions): string[] {
  let document = 'document' in request ? (request.document as DocumentNode | undefined) : undefined
  try {
    // Only on the failure path: the fetch's own text, when the plan did not keep its document.
    document ??= request.request.query ? parse(request.request.query) : undefined
  } catch {
    return []
  }
  const operation = document?.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return []
  const keys: string[] = []
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue
    if (selection.name.value === '_entities') return []
    keys.push(selection.alias?.value ?? selection.name.value)
  }
  return keys
}
