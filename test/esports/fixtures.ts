import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { Environment } from '../../platform/auth/scopes.js'
import type { TestTessera } from '../helper.js'

/** Base path of an environment. */
export const baseOf = (environment: Environment) => (environment === 'sandbox' ? '/sandbox/v1' : '/v1')

let counter = 0

/**
 * An OAuth client of `environment` holding `scopes`, and a bearer token for it from the
 * interface's own token endpoint — the way an integration gets one.
 */
export async function tokenFor(t: TestTessera, scopes: string[], environment: Environment = 'production') {
  const client = await t.credentials!.createClient({ name: `esports-test-${++counter}`, scopes, environment })
  const res = await t.app.inject({
    method: 'POST',
    url: `${baseOf(environment)}/auth/token`,
    payload: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
  })
  expect(res.statusCode, res.body).toBe(200)
  return { authorization: `Bearer ${res.json().access_token as string}`, client }
}

/**
 * An API key of `environment` holding `scopes`, as a bearer credential: for tests about
 * something other than the token flow (no scrypt hashing, so they stay fast).
 */
export async function keyFor(t: TestTessera, scopes: string[], environment: Environment = 'production') {
  const { key } = await t.credentials!.createApiKey({ name: `esports-key-${++counter}`, scopes, environment })
  return { authorization: `Bearer ${key}` }
}

/** Every esports scope. */
export const ALL = [
  'programs:read',
  'programs:write',
  'teams:read',
  'teams:write',
  'players:read',
  'players:write',
  'matches:read',
  'matches:write',
  'career:read',
  'career:write',
  'webhooks:read',
  'webhooks:write',
]

/** A REST caller bound to one environment's base and credential. */
export function restClient(t: TestTessera, authorization: string, environment: Environment = 'production') {
  const headers = { authorization }
  const base = baseOf(environment)
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url: `${base}${path}`, headers, ...(payload !== undefined ? { payload: payload as object } : {}) })
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown) => call('POST', path, body),
    patch: (path: string, body: unknown) => call('PATCH', path, body),
    delete: (path: string) => call('DELETE', path),
    /** POSTs and expects `status`, returning the JSON body. */
    async created(path: string, body: unknown, status = 201) {
      const res = await call('POST', path, body)
      expect(res.statusCode, res.body).toBe(status)
      return res.json()
    },
  }
}

/** A valid program body. */
export function programBody(overrides: { institutionId?: string; games?: string[]; status?: string; name?: string } = {}) {
  return {
    institution: {
      id: overrides.institutionId ?? 'inst-1',
      name: 'Lincoln High School',
      type: 'high_school',
      location: { country: 'US', state: 'CA', city: 'Fresno' },
    },
    program: {
      name: overrides.name ?? 'Lincoln Esports',
      type: 'varsity',
      ...(overrides.status ? { status: overrides.status } : {}),
      games: overrides.games ?? ['Rocket League', 'Overwatch 2'],
      gradeLevels: { min: 9, max: 12 },
      learningObjectives: ['teamwork', 'communication'],
    },
  }
}

/** A valid player body for a program. */
export function playerBody(
  programId: string,
  n: number,
  consent: Partial<{ parentalConsent: boolean; dataSharing: boolean; mediaRelease: boolean }> = {},
  personal: Record<string, unknown> = {},
) {
  const all = { parentalConsent: true, dataSharing: true, mediaRelease: true, ...consent }
  return {
    programId,
    personal: { studentId: `S-${n}`, gamerTag: `Player${n}`, grade: 10, enrollmentYear: 2025, ...personal },
    consent: { ...all, consentDate: '2026-09-01T00:00:00Z' },
  }
}
