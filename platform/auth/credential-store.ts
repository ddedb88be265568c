import { randomUUID } from 'node:crypto'
import type { PrismaClient } from '../generated/prisma/client.js'
import { generateToken, hashSecret, sha256, verifySecret } from './secrets.js'
import { ENVIRONMENTS, hasScope, SCOPE_PATTERN, type Environment, type Principal } from './scopes.js'

/** A credential as listed to its owner: never the secret, only enough to recognise it. */
export interface ApiKeyInfo extends CredentialShape {
  id: string
  name: string
  prefix: string
  scopes: string[]
  createdAt: Date
  revokedAt: Date | null
}

/** An OAuth client as listed: never its secret. */
export interface OAuthClientInfo extends CredentialShape {
  clientId: string
  name: string
  scopes: string[]
  createdAt: Date
  revokedAt: Date | null
}

/** What a credential carries besides its scopes. */
export interface CredentialShape {
  environment: Environment
  tier: string | null
  rateLimitPerHour: number | null
}

/** Optional shape given when a credential is created; production, no tier and no own limit by default. */
export type CredentialShapeInput = Partial<CredentialShape>

/** The outcome of a token request, in RFC 6749 §5 terms. */
export type TokenResult =
  | { ok: true; accessToken: string; tokenType: 'Bearer'; expiresIn: number; scope: string }
  | { ok: false; error: 'invalid_client' | 'invalid_scope' | 'invalid_request'; description: string }

/** Options of the credential store. */
export interface CredentialStoreOptions {
  /** Lifetime of issued access tokens, seconds. */
  tokenTtlSeconds: number
  /** How long a verified credential is trusted without asking the database again (ms). */
  cacheMs?: number
  /** Scopes the running services define; others are refused when granted or requested. */
  knownScopes?: readonly string[]
}

export const API_KEY_PREFIX = 'tsr_'
export const ACCESS_TOKEN_PREFIX = 'tst_'

/** Raised for bad arguments to the store (an empty name, an unknown scope form). */
export class CredentialError extends Error {
  override name = 'CredentialError'
}

/**
 * API keys (stored as SHA-256, shown once), OAuth 2.0 clients (secrets stored as scrypt) and
 * the opaque access tokens issued to them (stored as SHA-256). Verification is cached briefly
 * per process so a hot credential costs no query; a revocation takes effect everywhere within
 * `cacheMs`.
 */
export function createCredentialStore(prisma: PrismaClient, options: CredentialStoreOptions) {
  const cacheMs = options.cacheMs ?? 5_000
  const cache = new Map<string, { principal: Principal | null; until: number }>()
  const remember = (hash: string, principal: Principal | null, until: number) => {
    // Bounded so a flood of random credentials cannot grow the process without limit.
    if (cache.size >= 10_000) cache.delete(cache.keys().next().value as string)
    cache.set(hash, { principal, until })
  }

  const known = (scope: string) => isKnownScope(scope, options.knownScopes)
  const checkShape = (input: CredentialShapeInput) => checkCredentialShape(input)
  const checkScopes = (scopes: readonly string[]) => checkCredentialScopes(scopes, options.knownScopes)

  return {
    /** Creates an API key; the returned `key` is the only time it is ever visible. */
    async createApiKey(input: { name: string; scopes: readonly string[]; key?: string } & CredentialShapeInput) {
      if (!input.name.trim()) throw new CredentialError('A name is required')
      const key = input.key ?? generateToken(API_KEY_PREFIX)
      const row = await prisma.apiKey.create({
        data: {
          id: randomUUID(),
          name: input.name.trim(),
          prefix: key.slice(0, API_KEY_PREFIX.length + 6),
          keyHash: sha256(key),
          scopes: checkScopes(input.scopes),
          ...checkShape(input),
        },
      })
      return { key, info: toKeyInfo(row) }
    },

    async listApiKeys(): Promise<ApiKeyInfo[]> {
      return (await prisma.apiKey.findMany({ orderBy: { createdAt: 'asc' } })).map(toKeyInfo)
    },

    /** Revokes a key by id; false when no live key has that id. */
    async revokeApiKey(id: string): Promise<boolean> {
      const { count } = await prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } })
      cache.clear()
      return count === 1
    },

    /** Registers an OAuth client; a secret is generated unless one is given, and shown once. */
    async createClient(input: { name: string; scopes: readonly string[]; clientId?: string; clientSecret?: string } & CredentialShapeInput) {
      if (!input.name.trim()) throw new CredentialError('A name is required')
      const clientId = input.clientId ?? `tsc_${randomUUID().replaceAll('-', '')}`
      const clientSecret = input.clientSecret ?? generateToken('tss_')
      const row = await prisma.oAuthClient.create({
        data: { clientId, name: input.name.trim(), secretHash: await hashSecret(clientSecret), scopes: checkScopes(input.scopes), ...checkShape(input) },
      })
      return { clientId, clientSecret, info: toClientInfo(row) }
    },

    async listClients(): Promise<OAuthClientInfo[]> {
      return (await prisma.oAuthClient.findMany({ orderBy: { createdAt: 'asc' } })).map(toClientInfo)
    },

    /** Revokes a client and every token it holds. */
    async revokeClient(clientId: string): Promise<boolean> {
      const [{ count }] = await prisma.$transaction([
        prisma.oAuthClient.updateMany({ where: { clientId, revokedAt: null }, data: { revokedAt: new Date() } }),
        prisma.oAuthToken.deleteMany({ where: { clientId } }),
      ])
      cache.clear()
      return count === 1
    },

    /**
     * The client-credentials grant (RFC 6749 §4.4): authenticates the client, narrows the
     * requested scopes to those it holds (an empty request means all of them) and issues an
     * opaque bearer token. With `environment`, only clients of that environment get one (an
     * interface's sandbox token endpoint serves sandbox clients only).
     */
    async issueToken(input: { clientId: string; clientSecret: string; scope?: string; environment?: Environment }): Promise<TokenResult> {
      const client = await prisma.oAuthClient.findUnique({ where: { clientId: input.clientId } })
      const valid = client && !client.revokedAt && (await verifySecret(input.clientSecret, client.secretHash))
      if (!client || !valid) return { ok: false, error: 'invalid_client', description: 'Client authentication failed' }
      if (input.environment && client.environment !== input.environment) {
        return { ok: false, error: 'invalid_client', description: `This token endpoint serves ${input.environment} clients only` }
      }
      const requested = input.scope?.trim() ? input.scope.trim().split(/\s+/) : client.scopes
      const holder: Principal = { id: `client:${client.clientId}`, method: 'access_token', scopes: client.scopes, ...shapeOf(client) }
      const denied = requested.filter((s) => !known(s) || !hasScope(holder, s))
      if (denied.length) {
        return { ok: false, error: 'invalid_scope', description: `Scope not granted to this client: ${denied.join(' ')}` }
      }
      const accessToken = generateToken(ACCESS_TOKEN_PREFIX)
      const expiresIn = options.tokenTtlSeconds
      await prisma.$transaction([
        // Expired tokens are swept by the client that next asks, keeping the table small without a job.
        prisma.oAuthToken.deleteMany({ where: { clientId: client.clientId, expiresAt: { lt: new Date() } } }),
        prisma.oAuthToken.create({
          data: {
            tokenHash: sha256(accessToken),
            clientId: client.clientId,
            scopes: [...new Set(requested)],
            expiresAt: new Date(Date.now() + expiresIn * 1000),
          },
        }),
      ])
      return { ok: true, accessToken, tokenType: 'Bearer', expiresIn, scope: [...new Set(requested)].join(' ') }
    },

    /** Resolves an API key or access token to its principal; null when unknown, revoked or expired. */
    async verify(credential: string): Promise<Principal | null> {
      const hash = sha256(credential)
      const now = Date.now()
      const hit = cache.get(hash)
      if (hit && hit.until > now) return hit.principal
      let principal: Principal | null = null
      let until = now + cacheMs
      if (credential.startsWith(ACCESS_TOKEN_PREFIX)) {
        const token = await prisma.oAuthToken.findUnique({ where: { tokenHash: hash }, include: { client: true } })
        if (token && token.expiresAt.getTime() > now && !token.client.revokedAt) {
          principal = { id: `client:${token.clientId}`, method: 'access_token', scopes: token.scopes, ...shapeOf(token.client) }
          until = Math.min(until, token.expiresAt.getTime())
        }
      } else {
        const key = await prisma.apiKey.findUnique({ where: { keyHash: hash } })
        if (key && !key.revokedAt) principal = { id: `key:${key.id}`, method: 'api_key', scopes: key.scopes, ...shapeOf(key) }
      }
      remember(hash, principal, until)
      return principal
    },

    /** True when no credential of any kind exists yet (first start). */
    async isEmpty(): Promise<boolean> {
      const [keys, clients] = await Promise.all([prisma.apiKey.count(), prisma.oAuthClient.count()])
      return keys + clients === 0
    },
  }
}

/** Checks a credential's environment, tier and own limit; throws CredentialError naming the problem. */
export function checkCredentialShape(input: CredentialShapeInput): CredentialShape {
  const environment = input.environment ?? 'production'
  if (!ENVIRONMENTS.includes(environment)) throw new CredentialError(`Unknown environment "${environment}"; known: ${ENVIRONMENTS.join(', ')}`)
  const tier = input.tier ?? null
  if (tier !== null && !/^[a-z][a-z0-9_-]{0,31}$/.test(tier)) throw new CredentialError(`Invalid tier "${tier}": lower-case letters, digits, - and _`)
  const rateLimitPerHour = input.rateLimitPerHour ?? null
  if (rateLimitPerHour !== null && (!Number.isInteger(rateLimitPerHour) || rateLimitPerHour < 1)) {
    throw new CredentialError('The rate limit must be a whole number of requests per hour, 1 or more')
  }
  return { environment, tier, rateLimitPerHour }
}

/** Checks scopes against those the services define; returns them without duplicates. */
export function checkCredentialScopes(scopes: readonly string[], knownScopes?: readonly string[]): string[] {
  if (scopes.length === 0) throw new CredentialError('At least one scope is required')
  for (const s of scopes) {
    if (!isKnownScope(s, knownScopes)) throw new CredentialError(`Unknown scope "${s}"${knownScopes ? `; known: *, ${knownScopes.join(', ')}` : ''}`)
  }
  return [...new Set(scopes)]
}

/** A scope string of the right form that some service defines (`*` and `<service>:*` included). */
export function isKnownScope(scope: string, knownScopes?: readonly string[]): boolean {
  if (!SCOPE_PATTERN.test(scope)) return false
  if (!knownScopes || scope === '*') return true
  const service = scope.split(':')[0]
  return knownScopes.some((k) => k === scope || (scope.endsWith(':*') && k.startsWith(`${service}:`)))
}

/** The credential store's interface. */
export type CredentialStore = ReturnType<typeof createCredentialStore>

function shapeOf(row: { environment: string; tier: string | null; rateLimitPerHour: number | null }): CredentialShape {
  return { environment: row.environment as Environment, tier: row.tier, rateLimitPerHour: row.rateLimitPerHour }
}

function toKeyInfo(row: Omit<ApiKeyInfo, 'environment'> & { environment: string; keyHash?: string }): ApiKeyInfo {
  return { id: row.id, name: row.name, prefix: row.prefix, scopes: row.scopes, ...shapeOf(row), createdAt: row.createdAt, revokedAt: row.revokedAt }
}

function toClientInfo(row: Omit<OAuthClientInfo, 'environment'> & { environment: string; secretHash?: string }): OAuthClientInfo {
  return { clientId: row.clientId, name: row.name, scopes: row.scopes, ...shapeOf(row), createdAt: row.createdAt, revokedAt: row.revokedAt }
}
