/** An inclusive byte range of a file, as an HTTP `Range` header asks for it. */
export interface ByteRange {
  start: number
  /** Inclusive. */
  end: number
}

/** What a `Range` header means for a file of a given size. */
export type RangeRequest = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' }

/**
 * Reads a `Range: bytes=…` header (RFC 9110 §14.1.2) against a file's size. One range is served
 * (`bytes=0-99`, `bytes=100-`, `bytes=-500`); a header with several ranges, another unit or a
 * malformed value is ignored and the whole file is sent, as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (!header) return { kind: 'whole' }
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' }
  const [, from, to] = match as unknown as [string, string, string]
  if (from === '') {
    // A suffix range: the last N bytes.
    const length = Number(to)
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', range: { start: Math.max(0, size - length), end: size - 1 } }
  }
  const start = Number(from)
  if (start >= size) return { kind: 'unsatisfiable' }
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  if (end < start) return { kind: 'whole' }
  return { kind: 'partial', range: { start, end } }
}
