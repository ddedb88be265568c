/** Header values as Node gives them. */
export type HeaderBag = Record<string, string | string[] | undefined>

/**
 * The credential a request carries: `Authorization: Bearer <key or token>` (RFC 6750 §2.1)
 * or `X-API-Key: <key>`. Returns `undefined` when neither header is present and `null` when
 * one is present but malformed, so callers can tell "anonymous" from "bad credential".
 */
export function readCredential(headers: HeaderBag): string | null | undefined {
  const authorization = first(headers.authorization)
  if (authorization !== undefined) {
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization)
    return match?.[1] ?? null
  }
  const apiKey = first(headers['x-api-key'])
  if (apiKey !== undefined) return apiKey.trim() || null
  return undefined
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
