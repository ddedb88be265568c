import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** Prometheus metrics of a process. */
export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'tessera_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  const graphqlOperations = new Counter({
    name: 'tessera_graphql_operations_total',
    help: 'GraphQL operations through the gateway by type and outcome',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  })
  const subscriptions = new Gauge({
    name: 'tessera_graphql_subscriptions',
    help: 'Live GraphQL subscriptions held by the gateway',
    registers: [registry],
  })
  return {
    registry,
    graphqlOperations,
    subscriptions,
    observeHttp(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status: String(status) })
      duration.observe({ method, route }, seconds)
    },
  }
}

/** The metrics of a process. */
export type Metrics = ReturnType<typeof createMetrics>
