import type { FastifyInstance } from 'fastify'
import type { CredentialStore } from '../auth/credential-store.js'
import type { Environment } from '../auth/scopes.js'

/** Options of an OAuth 2.0 token endpoint. */
export interface TokenRouteOptions {
  /** Path of the endpoint inside the scope it is registered in, e.g. `/auth/token`. */
  path: string
  store: Pick<CredentialStore, 'issueToken'>
  /** Issue tokens only to clients of this environment (a sandbox's own token endpoint). */
  environment?: Environment
}

/**
 * An OAuth 2.0 token endpoint for the client-credentials grant (RFC 6749 §4.4): the client
 * authenticates with HTTP Basic or with client_id/client_secret in the body (§2.3.1), as form
 * or JSON; errors are the RFC's `{ error, error_description }` bodies (§5.2), never cached.
 * An interface that hands out tokens registers this at its documented path.
 */
export async function registerTokenRoute(scope: FastifyInstance, options: TokenRouteOptions) {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
  scope.post(options.path, { config: { public: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>
    const fail = (status: number, error: string, description: string) => {
      if (status === 401) reply.header('www-authenticate', 'Basic realm="tessera"')
      return reply.code(status).send({ error, error_description: description })
    }
    let clientId = typeof body.client_id === 'string' ? body.client_id : undefined
    let clientSecret = typeof body.client_secret === 'string' ? body.client_secret : undefined
    const basic = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(request.headers.authorization ?? '')
    if (basic?.[1]) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8')
      const colon = decoded.indexOf(':')
      if (colon < 0) return fail(401, 'invalid_client', 'Malformed Basic credentials')
      clientId = decodeURIComponent(decoded.slice(0, colon))
      clientSecret = decodeURIComponent(decoded.slice(colon + 1))
    }
    if (body.grant_type === undefined) return fail(400, 'invalid_request', 'grant_type is required')
    if (body.grant_type !== 'client_credentials') {
      return fail(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported')
    }
    if (!clientId || !clientSecret) return fail(401, 'invalid_client', 'client_id and client_secret are required')
    if (body.scope !== undefined && typeof body.scope !== 'string') return fail(400, 'invalid_request', 'scope must be a string')
    const result = await options.store.issueToken({ clientId, clientSecret, scope: body.scope as string | undefined, environment: options.environment })
    if (!result.ok) return fail(result.error === 'invalid_client' ? 401 : 400, result.error, result.description)
    return { access_token: result.accessToken, token_type: result.tokenType, expires_in: result.expiresIn, scope: result.scope }
  })
}
