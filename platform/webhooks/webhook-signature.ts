import { createHmac } from 'node:crypto'

/** What a delivery is signed with and over. */
export interface SignatureInput {
  /** The event id (`webhook-id`), the same on every attempt. */
  id: string
  /** Seconds since the epoch of this attempt (`webhook-timestamp`). */
  timestamp: number
  /** The exact request body. */
  body: string
  secret: string
}

const hmac = (secret: string, content: string) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(content, 'utf8')

/**
 * The payload's `signature` member: `sha256=` and the hex HMAC-SHA256, keyed by the secret,
 * of `<payload timestamp>.<payload data as sent>` (the `data` member's JSON text).
 */
export function payloadSignature(secret: string, timestamp: string, dataJson: string): string {
  return `sha256=${hmac(secret, `${timestamp}.${dataJson}`).digest('hex')}`
}

/**
 * Signature headers of one attempt: Standard Webhooks' `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the secret's
 * UTF-8 bytes: standard libraries take it as `whsec_` + base64(secret)), and
 * `x-tessera-signature: sha256=<hex HMAC-SHA256 of the raw body>`.
 */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': `v1,${hmac(input.secret, `${input.id}.${input.timestamp}.${input.body}`).digest('base64')}`,
    'x-tessera-signature': `sha256=${hmac(input.secret, input.body).digest('hex')}`,
  }
}
