export { createGateway, type Gateway, type GatewayContext, type GatewayOptions } from './create-gateway.js'
export type { SubgraphEndpoint } from './subgraph-endpoint.js'
