import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'

/** Handles an HTTP upgrade to WebSocket. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void

/**
 * Routes WebSocket upgrades by path, so several WebSocket endpoints (the gateway's graphql-ws,
 * the chart stream) share one server and port; an upgrade to any other path is refused.
 */
export function routeUpgrades(server: Server, routes: Record<string, UpgradeHandler>) {
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = new URL(request.url ?? '/', 'http://upgrade').pathname.replace(/\/$/, '')
    const handler = routes[pathname]
    if (handler) return handler(request, socket, head)
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n')
  })
}
