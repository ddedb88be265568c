// The server side of the gateway benchmark. gateway-bench.ts forks this file once per role so
// that no server shares an event loop (or a core it could otherwise get) with autocannon:
//   tessera               a whole Tessera process (gateway at /graphql + REST adapter), plus the
//                         devices subgraph served by a stock @apollo/server on a second port.
//                         Both live here because the subgraph needs this process's database
//                         (PGlite is single-process) and the alert the parent creates.
//   stock-gateway <url>   a stock ApolloGateway + @apollo/server in front of that subgraph.
// Each role reports its URLs to the parent over IPC, then serves until the parent says stop.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway'
import { ApolloServer } from '@apollo/server'
import { startStandaloneServer } from '@apollo/server/standalone'
import { createTesseraProcess } from '../../bin/create-process.js'
import { loadPlatformConfig } from '../../platform/config.js'
import { closeOnRequest } from './bench-support.js'

/** What a server process tells the benchmark. */
export type ServerMessage =
  | { type: 'ready'; role: 'tessera'; tesseraUrl: string; stockSubgraphUrl: string }
  | { type: 'ready'; role: 'stock-gateway'; url: string }
  | { type: 'failed'; message: string }

/** What the benchmark tells a server process. */
export type ControlMessage = { type: 'stop' }

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const HOST = '127.0.0.1'

function send(message: ServerMessage) {
  if (!process.send) throw new Error('servers.ts is started by test/bench/gateway-bench.ts, not directly')
  process.send(message)
}

async function runTessera() {
  // The parent builds the environment (temp DATA_DIR, key, raised rate limit); use it as is.
  const env = process.env
  const tessera = await createTesseraProcess({ mode: { kind: 'all' }, config: loadPlatformConfig(env), env, announce: () => {} })
  let stock: ApolloServer<{ requestId?: string }> | undefined
  // After createTesseraProcess, whose gateway's ApolloServer has registered its signal handlers.
  closeOnRequest('bench server', async () => {
    await stock?.stop()
    await tessera.close()
  })
  const tesseraUrl = await tessera.listen()

  const devices = tessera.services.devices
  if (!devices) throw new Error('the devices service did not start')
  const subgraph = devices.subgraph
  // By the book: the same schema object (SDL + resolvers) in a stock Apollo Server, with the
  // service's own context factory so authorization and data loaders are identical.
  // stopOnTerminationSignals only hands shutdown to closeOnRequest; it changes no request path.
  stock = new ApolloServer<{ requestId?: string }>({ schema: subgraph.schema, stopOnTerminationSignals: false })
  const { url: stockSubgraphUrl } = await startStandaloneServer(stock, {
    listen: { host: HOST, port: 0 },
    context: ({ req }) => subgraph.createContext(req.headers),
  })
  send({ type: 'ready', role: 'tessera', tesseraUrl, stockSubgraphUrl })
}

interface StockGatewayContext {
  authorization?: string
}

async function runStockGateway(subgraphUrl: string) {
  const composed = await readFile(path.join(root, 'schema/supergraph.graphql'), 'utf8')
  // The committed supergraph names a placeholder host for the devices graph; a stock gateway
  // takes subgraph URLs from the supergraph, so point it at the subgraph server.
  const supergraphSdl = composed.replace(/(@join__graph\(name: "devices", url: ")[^"]*"/, `$1${subgraphUrl}"`)
  if (supergraphSdl === composed) throw new Error('could not find the devices @join__graph url in schema/supergraph.graphql')

  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<StockGatewayContext>({
        url,
        // The subgraph authorizes, so the caller's credential travels with each fetch.
        willSendRequest({ request, context }) {
          if (typeof context.authorization === 'string') request.http?.headers.set('authorization', context.authorization)
        },
      }),
  })
  const server = new ApolloServer<StockGatewayContext>({ gateway, stopOnTerminationSignals: false })
  closeOnRequest('bench server', () => server.stop())
  const { url } = await startStandaloneServer(server, {
    listen: { host: HOST, port: 0 },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  })
  send({ type: 'ready', role: 'stock-gateway', url })
}

const [role, argument] = process.argv.slice(2)
try {
  if (role === 'tessera') await runTessera()
  else if (role === 'stock-gateway' && argument) await runStockGateway(argument)
  else throw new Error(`unknown role "${role ?? ''}"; expected tessera | stock-gateway <subgraph url>`)
} catch (error) {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
  // Exit only once the message is out: IPC writes are asynchronous.
  if (process.send) {
    process.send({ type: 'failed', message } satisfies ServerMessage, () => process.exit(1))
  } else {
    process.stderr.write(`${message}\n`)
    process.exit(1)
  }
}
