import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

// Addresses a webhook must never reach from inside the deployment: this host, private
// networks, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254), carrier-grade
// NAT (Alibaba's metadata at 100.100.100.200), and everything reserved or not unicast.
const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2001::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6')

/** Whether a webhook may not be sent to `address` (an IPv4 or IPv6 literal). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4')
  const family = isIP(address)
  if (family === 0) return true
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** Resolves a host name to all its addresses (dns.lookup, so /etc/hosts counts as it will when sending). */
export type ResolveHost = (host: string) => Promise<LookupAddress[]>

/** The system resolver. */
export const systemResolve: ResolveHost = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))))

/** Why a URL may not receive webhooks, or null when it may. */
export async function checkWebhookUrl(raw: string, options: { allowPrivate: boolean; resolve?: ResolveHost }): Promise<string | null> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute http or https URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL'
  if (url.username || url.password) return 'must not carry credentials; use the signing secret to authenticate deliveries'
  if (raw.length > 2048) return 'must be at most 2048 characters'
  if (options.allowPrivate) return null
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = (await (options.resolve ?? systemResolve)(host)).map((a) => a.address)
    } catch {
      return `host ${host} does not resolve`
    }
  }
  const bad = addresses.find(isBlockedAddress)
  return bad ? `resolves to ${bad}, a private, loopback, link-local or metadata address; webhooks go to public addresses only` : null
}

/**
 * A `lookup` for http.request that resolves the host and refuses blocked addresses, so the
 * address checked is the address connected to (a host that re-resolves to a private address
 * between the check and the connection — DNS rebinding — is still refused).
 */
export function guardedLookup(options: { allowPrivate: boolean; resolve?: ResolveHost }): LookupFunction {
  const resolve = options.resolve ?? systemResolve
  return ((
    host: string,
    lookupOptions: { all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(host).then(
      (addresses) => {
        const allowed = options.allowPrivate ? addresses : addresses.filter((a) => !isBlockedAddress(a.address))
        if (!allowed.length) {
          const error: NodeJS.ErrnoException = new Error(`${host} resolves to ${addresses.map((a) => a.address).join(', ') || 'nothing'}: not a public address`)
          error.code = 'EADDRNOTALLOWED'
          return callback(error, '')
        }
        if (lookupOptions.all) return callback(null, allowed)
        callback(null, allowed[0]!.address, allowed[0]!.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    )
  }) as LookupFunction
}
