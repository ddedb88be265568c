import { ACCESS_TOKEN_PREFIX, API_KEY_PREFIX } from './credential-store.js'

// Query parameters whose value is a credential of some kind: embed tokens (which a URL must
// carry, an <img> sends no headers), signatures of download links, and what clients try.
const SECRET_PARAMETERS = new Set(['token', 'access_token', 'api_key', 'apikey', 'key', 'signature', 'client_secret', 'password'])
// Values that are credentials whatever the parameter is called.
const SECRET_VALUE = /^(tsr_|tst_|tss_|emb_)/
// Credentials that must travel in a header: a URL ends up in logs, proxies and browser history.
const HEADER_ONLY = [API_KEY_PREFIX, ACCESS_TOKEN_PREFIX, 'tss_']

/**
 * The query parameter that carries an API key, access token or client secret, if any. Those
 * are accepted only in `Authorization` / `X-API-Key`; an interface refuses a request that puts
 * one in its URL (embed tokens, made for URLs, are fine).
 */
export function credentialInQuery(query: unknown): string | undefined {
  if (!query || typeof query !== 'object') return undefined
  for (const [name, value] of Object.entries(query)) {
    const values: unknown[] = Array.isArray(value) ? value : [value]
    if (name === 'api_key' || name === 'apikey' || name === 'access_token') return name
    if (values.some((v) => typeof v === 'string' && HEADER_ONLY.some((prefix) => v.startsWith(prefix)))) return name
  }
  return undefined
}

/** A request URL with every credential in its query string replaced by `[REDACTED]`, for logs. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?')
  if (mark < 0) return url
  const parts = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      if (equals < 0) return pair
      const name = safeDecode(pair.slice(0, equals)).toLowerCase()
      const value = safeDecode(pair.slice(equals + 1))
      return SECRET_PARAMETERS.has(name) || SECRET_VALUE.test(value) ? `${pair.slice(0, equals)}=[REDACTED]` : pair
    })
  return `${url.slice(0, mark)}?${parts.join('&')}`
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}
