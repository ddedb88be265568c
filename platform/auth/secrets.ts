import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

/** A random credential: `prefix` + 43 base64url characters (256 bits). */
export function generateToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url')
}

/** SHA-256, hex. Right for random 256-bit tokens, where a slow hash buys nothing. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 }

function scryptAsync(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (err, key) => (err ? reject(err) : resolve(key))),
  )
}

/** Hashes a secret a person may have chosen (scrypt, random salt, parameters kept in the string). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(secret, salt)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Checks a secret against `hashSecret` output in constant time. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, , , , salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'))
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/**
 * Encrypts secrets that must be read back (connector passwords, webhook signing secrets)
 * with AES-256-GCM; the output carries its IV and tag, so tampering fails loudly.
 */
export interface SecretBox {
  seal(plaintext: string): string
  open(sealed: string): string
  /**
   * HMAC-SHA256 of `message` (base64url) under a key derived from the secret key: for links
   * and tokens the service hands out and must recognise later (signed download URLs).
   */
  sign(message: string): string
  /** Whether `signature` is `sign(message)`, compared in constant time. */
  verify(message: string, signature: string): boolean
}

/** Creates a SecretBox over a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('The secret key must be 32 bytes')
  // A separate key for signatures, so no value ever serves both encryption and MACs.
  const macKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'tessera signatures v1', 32))
  const mac = (message: string) => createHmac('sha256', macKey).update(message, 'utf8').digest()
  return {
    sign: (message) => mac(message).toString('base64url'),
    verify(message, signature) {
      const given = Buffer.from(signature, 'base64url')
      const expected = mac(message)
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
    seal(plaintext) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.')
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Not a sealed secret')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
    },
  }
}
