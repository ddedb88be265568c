import { LocalLinter } from 'harper.js'
import { binary } from 'harper.js/binary'
import { retext } from 'retext'
import retextEnglish from 'retext-english'
import retextEquality from 'retext-equality'
import retextProfanities from 'retext-profanities'
import type { TextPart, ValidationFinding } from './content-validator.js'

/** Text checked per request: longer content is checked up to here, and the note says so. */
const MAX_CHECKED_CHARS = 200_000

// Harper's WASM module takes ~2 s to load: once per process, on first use.
let linter: Promise<LocalLinter> | undefined
const getLinter = () => {
  linter ??= (async () => {
    const l = new LocalLinter({ binary })
    await l.setup()
    return l
  })()
  return linter
}

/** Markup is not prose: tags, markdown links' targets and code are blanked (offsets kept). */
const prose = (text: string) =>
  text
    .replace(/<[^>]*>/g, (m) => ' '.repeat(m.length))
    .replace(/\]\([^)]*\)/g, (m) => ' '.repeat(m.length))
    .replace(/`[^`]*`/g, (m) => ' '.repeat(m.length))

/** Parts up to the size limit, and a note when some were left out. */
function within(texts: readonly TextPart[]) {
  let total = 0
  const parts = texts.filter((t) => (total += t.text.length) <= MAX_CHECKED_CHARS)
  return { parts, notes: parts.length < texts.length ? [`Only the first ${MAX_CHECKED_CHARS} characters were checked.`] : [] }
}

/** Grammar, spelling and style with Harper (offline, rule-based). */
export async function checkGrammar(texts: readonly TextPart[]) {
  const l = await getLinter()
  const { parts, notes } = within(texts)
  const issues: ValidationFinding[] = []
  for (const part of parts) {
    for (const lint of await l.lint(prose(part.text))) {
      const span = lint.span()
      const kind = lint.lint_kind()
      const replacements = lint
        .suggestions()
        .map((s) => s.get_replacement_text())
        .filter(Boolean)
      // Spelling flags names and terms a dictionary lacks: low. Agreement and usage: medium.
      const severity = kind === 'Spelling' || kind === 'Style' || kind === 'Repetition' || kind === 'Formatting' ? 'low' : 'medium'
      issues.push({
        severity,
        location: `${part.path} (characters ${span.start}–${span.end})`,
        message: `${lint.message()} ("${part.text.slice(span.start, span.end)}")`,
        suggestion: replacements.length ? `Replace with "${replacements.slice(0, 3).join('" or "')}"` : 'Rephrase this passage.',
      })
    }
  }
  return { issues, notes: ['Checked with Harper, an offline grammar checker for English.', ...notes] }
}

const biasProcessor = retext().use(retextEnglish).use(retextEquality).use(retextProfanities)

/** Insensitive, non-inclusive and profane wording (retext-equality, retext-profanities). */
export async function checkBias(texts: readonly TextPart[]) {
  const { parts, notes } = within(texts)
  const issues: ValidationFinding[] = []
  for (const part of parts) {
    const file = await biasProcessor.process(prose(part.text))
    for (const m of file.messages) {
      const profane = m.source === 'retext-profanities'
      const expected = Array.isArray(m.expected) ? m.expected.filter((e): e is string => typeof e === 'string') : []
      const start = m.place && 'start' in m.place ? m.place.start.offset : undefined
      issues.push({
        severity: profane ? 'high' : 'medium',
        location: `${part.path}${start !== undefined ? ` (character ${start})` : ''}`,
        message: profane ? `Profane or vulgar wording: "${m.actual}"` : `Potentially non-inclusive wording: "${m.actual}"`,
        suggestion: expected.length ? `Consider "${expected.slice(0, 3).join('" or "')}"` : 'Remove or reword it.',
      })
    }
  }
  return { issues, notes: ['Checked with retext-equality and retext-profanities (English).', ...notes] }
}
