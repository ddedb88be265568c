/**
 * An integer in the Row convention: a number when it is exactly representable (within ±2^53),
 * otherwise its decimal text, since a double would silently change the value.
 */
export function integerValue(text: string): number | string {
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : text
}

/** Decimal integer text, optionally negative (no sign for positives, no spaces, no exponent). */
export const INTEGER_TEXT = /^-?\d+$/
