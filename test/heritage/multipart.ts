import { Readable } from 'node:stream'

/** One part of a multipart/form-data body. */
export type FormPart =
  { name: string; value: string } | { name: string; filename: string; contentType?: string; bytes: Buffer | (() => AsyncGenerator<Buffer>) }

const BOUNDARY = '----tessera-heritage-test-boundary'

/**
 * A multipart/form-data body and its headers for `app.inject()`. File parts given as a generator
 * are streamed, so a large upload is never held whole by the test either.
 */
export function multipart(parts: FormPart[], headers: Record<string, string> = {}) {
  async function* body() {
    for (const part of parts) {
      if ('value' in part) {
        yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`)
        continue
      }
      yield Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      )
      if (Buffer.isBuffer(part.bytes)) yield part.bytes
      else yield* part.bytes()
      yield Buffer.from('\r\n')
    }
    yield Buffer.from(`--${BOUNDARY}--\r\n`)
  }
  return { headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload: Readable.from(body()) }
}
