import type { TextPart, ValidationFinding } from './content-validator.js'

/** Link texts that say nothing out of context (WCAG 2.4.4). */
const VAGUE_LINKS = new Set(['click here', 'here', 'read more', 'more', 'link', 'this link', 'this', 'go', 'learn more'])

/** Relative luminance of an sRGB colour (WCAG 2.2 definition). */
function luminance([r, g, b]: readonly number[]): number {
  const lin = (c: number) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!)
}

/** Contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: readonly number[], b: readonly number[]): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (l1! + 0.05) / (l2! + 0.05)
}

const NAMED: Record<string, [number, number, number]> = {
  black: [0, 0, 0],
  white: [255, 255, 255],
  red: [255, 0, 0],
  green: [0, 128, 0],
  blue: [0, 0, 255],
  yellow: [255, 255, 0],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  silver: [192, 192, 192],
  orange: [255, 165, 0],
  navy: [0, 0, 128],
}

/** `#rgb`, `#rrggbb`, `rgb(r, g, b)` or a basic named colour; undefined otherwise. */
export function parseColour(value: string): [number, number, number] | undefined {
  const v = value.trim().toLowerCase()
  if (NAMED[v]) return NAMED[v]
  let m = /^#([0-9a-f]{3})$/.exec(v)
  if (m) return [...m[1]!].map((c) => parseInt(c + c, 16)) as [number, number, number]
  m = /^#([0-9a-f]{6})$/.exec(v)
  if (m) return [0, 2, 4].map((i) => parseInt(m![1]!.slice(i, i + 2), 16)) as [number, number, number]
  m = /^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(v)
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])]
  return undefined
}

/**
 * WCAG 2.2 checks on HTML and markdown in the content: images without a text alternative
 * (1.1.1, A), skipped heading levels (1.3.1, A), link text that says nothing (2.4.4, A),
 * colour contrast of inline styles below 4.5:1 (1.4.3, AA), and a reading level well above
 * the stated grade (3.1.5, AAA).
 */
export function checkAccessibility(texts: readonly TextPart[], grade?: { label: string; grade: number; measured: number }) {
  const issues: ValidationFinding[] = []
  for (const part of texts) {
    const { text, path } = part
    for (const m of text.matchAll(/<img\b[^>]*>/gi)) {
      if (!/\balt\s*=/i.test(m[0]))
        issues.push({
          severity: 'high',
          location: `${path} (character ${m.index})`,
          message: 'An image has no alt attribute (WCAG 1.1.1 Non-text Content).',
          suggestion: 'Add alt text that says what the image shows, or alt="" if it is decorative.',
          wcagLevel: 'A',
        })
    }
    for (const m of text.matchAll(/!\[([^\]]*)\]\(([^)]*)\)/g)) {
      if (!m[1]!.trim())
        issues.push({
          severity: 'high',
          location: `${path} (character ${m.index})`,
          message: `The image ${m[2]} has empty alt text (WCAG 1.1.1 Non-text Content).`,
          suggestion: 'Write what the image shows between the square brackets.',
          wcagLevel: 'A',
        })
    }
    // Heading levels in document order, from HTML and markdown alike.
    const headings = [...text.matchAll(/<h([1-6])\b|^(#{1,6})\s/gim)].map((m) => ({ level: m[1] ? Number(m[1]) : m[2]!.length, at: m.index }))
    headings.forEach((h, i) => {
      const previous = headings[i - 1]
      if (previous && h.level > previous.level + 1)
        issues.push({
          severity: 'medium',
          location: `${path} (character ${h.at})`,
          message: `A level-${h.level} heading follows a level-${previous.level} heading, skipping a level (WCAG 1.3.1 Info and Relationships).`,
          suggestion: `Use a level-${previous.level + 1} heading here.`,
          wcagLevel: 'A',
        })
    })
    const links = [...text.matchAll(/<a\b[^>]*>(.*?)<\/a>/gis)]
      .map((m) => ({ label: m[1]!.replace(/<[^>]*>/g, ''), at: m.index }))
      .concat([...text.matchAll(/(?<!!)\[([^\]]*)\]\([^)]*\)/g)].map((m) => ({ label: m[1]!, at: m.index })))
    for (const link of links) {
      const label = link.label.trim().toLowerCase().replace(/[.!]$/, '')
      if (!label || VAGUE_LINKS.has(label))
        issues.push({
          severity: 'medium',
          location: `${path} (character ${link.at})`,
          message: `The link text "${link.label.trim()}" does not say where the link goes (WCAG 2.4.4 Link Purpose).`,
          suggestion: 'Use link text that names the destination, e.g. "fraction practice worksheet".',
          wcagLevel: 'A',
        })
    }
    for (const m of text.matchAll(/style\s*=\s*"([^"]*)"/gi)) {
      const style = Object.fromEntries(
        m[1]!
          .split(';')
          .map((d) => d.split(':').map((s) => s.trim().toLowerCase()))
          .filter((d) => d.length === 2),
      ) as Record<string, string>
      const fg = style.color ? parseColour(style.color) : undefined
      const bg = parseColour(style['background-color'] ?? style.background ?? '')
      if (fg && bg) {
        const ratio = contrastRatio(fg, bg)
        if (ratio < 4.5)
          issues.push({
            severity: ratio < 3 ? 'high' : 'medium',
            location: `${path} (character ${m.index})`,
            message: `Text colour ${style.color} on ${style['background-color'] ?? style.background} has a contrast ratio of ${ratio.toFixed(2)}:1, below 4.5:1 (WCAG 1.4.3 Contrast).`,
            suggestion: 'Darken the text or lighten the background to reach at least 4.5:1.',
            wcagLevel: 'AA',
          })
      }
    }
  }
  const notes: string[] = []
  if (grade) {
    notes.push(`Measured reading level: Flesch–Kincaid grade ${grade.measured}; stated grade ${grade.label}.`)
    if (grade.measured > grade.grade + 2)
      issues.push({
        severity: 'medium',
        location: 'content',
        message: `The text reads at grade ${grade.measured}, more than two grades above the stated grade ${grade.label} (WCAG 3.1.5 Reading Level).`,
        suggestion: 'Use shorter sentences and more common words, or add a simpler summary.',
        wcagLevel: 'AAA',
      })
  } else notes.push('No grade level was given, so the reading level was not compared with one.')
  return { issues, notes }
}
