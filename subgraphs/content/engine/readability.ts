/** Syllables of an English word by vowel groups, with the usual silent-e and -le rules. */
export function syllables(word: string): number {
  const w = word.toLowerCase().replace(/[^a-z]/g, '')
  if (!w) return 0
  if (w.length <= 3) return 1
  const trimmed = w.replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, '').replace(/^y/, '')
  const groups = trimmed.match(/[aeiouy]{1,2}/g)
  return Math.max(1, groups?.length ?? 1)
}

/** Counts of a text: sentences, words and syllables. */
export function textStatistics(text: string) {
  const plain = text.replace(/[#*_`>|[\]()]/g, ' ')
  const words = plain.match(/[A-Za-z][A-Za-z'’-]*/g) ?? []
  const sentences = Math.max(1, (plain.match(/[^.!?]+[.!?]+(\s|$)/g) ?? []).length || (words.length ? 1 : 0))
  const syllableCount = words.reduce((s, w) => s + syllables(w), 0)
  return { sentences, words: words.length, syllables: syllableCount }
}

/**
 * Flesch–Kincaid grade level measured on the text:
 * 0.39 × (words / sentences) + 11.8 × (syllables / words) − 15.59, rounded to one decimal.
 * Numbers and symbols are not words; an empty text is grade 0.
 */
export function fleschKincaidGrade(text: string): number {
  const { sentences, words, syllables: syl } = textStatistics(text)
  if (words === 0) return 0
  const grade = 0.39 * (words / sentences) + 11.8 * (syl / words) - 15.59
  return Math.round(Math.max(0, grade) * 10) / 10
}
