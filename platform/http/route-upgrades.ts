import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'

/** Handles an HTTP upgrade to WebSocket. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void

/**
 * Routes WebSocket upgrades by path, so several WebSocket endpoints (the gateway's graphql-ws,
 * the chart stream) share one server and port; an upgrade to any other path is refused.
 * Upgrade listeners already on the server (a subgraph server's own WebSocket) are taken over
 * and get the paths no route names, so exactly one handler answers each upgrade.
 */
export function routeUpgrades(server: Server, routes: Record<string, UpgradeHandler>) {
  const earlier = server.listeners('upgrade') as UpgradeHandler[]
  server.removeAllListeners('upgrade')
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = new URL(request.url ?? '/', 'http://upgrade').pathname.replace(/\/$/, '')
    const handler = routes[pathname]
    if (handler) return handler(request, socket, head)
    if (earlier.length > 0) {
      for (const listener of earlier) listener.call(server, request, socket, head)
      return
    }
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n')
  })
}
