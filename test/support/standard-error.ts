import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'

/** ISO 8601 UTC with optional fractions, as every timestamp Tessera writes. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** Asserts the X-RateLimit-* headers every response of a rate-limited interface carries. */
export function expectRateLimitHeaders(res: LightMyRequestResponse) {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(res.headers[name], `${name} on ${res.statusCode}`).toMatch(/^\d+$/)
  }
}

/**
 * Asserts a response is Tessera's standard error body (`{ error: { code, message, details,
 * timestamp, requestId } }`) with this status and code, naming `field` when given, and carries
 * the rate-limit headers. Returns the error object.
 */
export function expectError(res: LightMyRequestResponse, status: number, code: string, field?: string) {
  expect(res.statusCode, res.body).toBe(status)
  const { error } = res.json()
  expect(error.code).toBe(code)
  expect(typeof error.message).toBe('string')
  expect(error.timestamp).toMatch(ISO_UTC)
  expect(error.requestId).toBe(res.headers['x-request-id'])
  if (field !== undefined) expect(error.details.field).toBe(field)
  expectRateLimitHeaders(res)
  return error
}
