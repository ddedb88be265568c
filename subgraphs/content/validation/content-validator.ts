import { randomUUID } from 'node:crypto'
import * as math from 'mathjs'
import type { ValidationIssue } from '../../../platform/errors.js'
import { fleschKincaidGrade } from '../engine/readability.js'
import { levelForGrade } from '../engine/offline-engine.js'
import { contentErrors as errors } from '../errors.js'
import { MATH_STANDARDS, overlap } from './math-standards.js'
import { checkAccessibility } from './accessibility-check.js'
import { checkBias, checkGrammar } from './language-checks.js'

/** The checks POST /validate runs. */
export const VALIDATION_CHECKS = ['grammar', 'factual-accuracy', 'bias', 'accessibility', 'standards-alignment'] as const
/** One check. */
export type ValidationCheck = (typeof VALIDATION_CHECKS)[number]

/** Severities, with the points each issue takes off its check's score of 100. */
export const SEVERITY_PENALTY = { low: 3, medium: 10, high: 20 } as const
/** A severity. */
export type Severity = keyof typeof SEVERITY_PENALTY

/** One finding. */
export interface ValidationFinding {
  severity: Severity
  /** JSON path of the text in the content object, and the character range or line where known. */
  location: string
  message: string
  suggestion: string
  /** WCAG conformance level of the success criterion (accessibility findings only). */
  wcagLevel?: 'A' | 'AA' | 'AAA'
}

/** One check's result. */
export interface CheckResult {
  type: ValidationCheck
  score: number
  issues: ValidationFinding[]
  /** What the check could not verify offline, said plainly. */
  notes: string[]
}

/** The report of POST /validate. */
export interface ValidationReport {
  validationId: string
  overallScore: number
  checks: CheckResult[]
  recommendations: string[]
}

/** A text of the content object with its JSON path. */
export interface TextPart {
  path: string
  text: string
}

/** Every string of a content object with its path (`sections[2].content`), depth and count bounded. */
export function collectTexts(value: unknown, path = '', out: TextPart[] = [], depth = 0): TextPart[] {
  if (out.length >= 5000 || depth > 20) return out
  if (typeof value === 'string') {
    if (value.trim()) out.push({ path: path || 'content', text: value })
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => collectTexts(v, `${path}[${i}]`, out, depth + 1))
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // Ids, URLs and codes are not prose.
      if (['id', 'url', 'videoUrl', 'thumbnailUrl', 'captionsUrl', 'type', 'format', 'standards', 'generatedAt'].includes(k)) continue
      collectTexts(v, path ? `${path}.${k}` : k, out, depth + 1)
    }
  }
  return out
}

const score = (issues: readonly ValidationFinding[]) => Math.max(0, 100 - issues.reduce((s, i) => s + SEVERITY_PENALTY[i.severity], 0))

/** mathjs with exact fractions, so `1/3 + 1/6 = 1/2` is checked exactly. */
const exact = math.create(math.all!, { number: 'Fraction' })

const normalize = (expr: string) =>
  expr
    .replace(/[×x·]/g, '*')
    .replace(/÷/g, '/')
    .replace(/[−–]/g, '-')
    .replace(/,(?=\d{3}\b)/g, '')

/** Evaluates an arithmetic expression exactly; undefined when it is not one. */
function evaluate(expr: string): math.Fraction | undefined {
  try {
    const value = exact.evaluate(normalize(expr)) as unknown
    return value instanceof Object && 'n' in (value as object) ? (value as math.Fraction) : undefined
  } catch {
    return undefined
  }
}

const NUMBER = String.raw`-?\d+(?:[.,]\d+)*`
const CLAIM = new RegExp(String.raw`(${NUMBER}(?:\s*[-+×x*÷/−]\s*\(?${NUMBER}\)?)+)\s*=\s*(${NUMBER}(?:\s*/\s*\d+)?)`, 'g')

/** Recomputes every arithmetic claim (`a op b = c`) in the texts and every problem's answer. */
export function checkFacts(content: unknown, texts: readonly TextPart[]): Omit<CheckResult, 'type' | 'score'> {
  const issues: ValidationFinding[] = []
  const notes: string[] = []
  let claims = 0
  for (const part of texts) {
    for (const match of part.text.matchAll(CLAIM)) {
      const left = evaluate(match[1]!)
      const right = evaluate(match[2]!)
      if (!left || !right) continue
      claims++
      if (!exact.equal(left, right)) {
        issues.push({
          severity: 'high',
          location: `${part.path} (characters ${match.index}–${match.index + match[0].length})`,
          message: `"${match[0]}" is wrong: ${match[1]!.trim()} = ${exact.format(left, { fraction: 'ratio' })}`,
          suggestion: `Write ${match[1]!.trim()} = ${exact.format(left, { fraction: 'ratio' })}`,
        })
      }
    }
  }
  // Problems: an answer next to a question whose arithmetic can be read back.
  let unverifiable = 0
  const visit = (value: unknown, path: string, depth: number) => {
    if (depth > 12 || !value || typeof value !== 'object') return
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${path}[${i}]`, depth + 1))
    const item = value as Record<string, unknown>
    const question = typeof item.question === 'string' ? item.question : typeof item.prompt === 'string' ? item.prompt : undefined
    const solution = item.solution as Record<string, unknown> | undefined
    const answer = typeof item.answer === 'string' ? item.answer : typeof solution?.answer === 'string' ? solution.answer : undefined
    if (question && answer) {
      const verdict = checkAnswer(question, answer)
      if (verdict === undefined) unverifiable++
      else if (!verdict.ok)
        issues.push({
          severity: 'high',
          location: `${path || 'content'}.answer`,
          message: `The answer "${answer}" to "${question}" is wrong: ${verdict.expected}`,
          suggestion: `Correct the answer to ${verdict.expected}`,
        })
      else claims++
    }
    for (const [k, v] of Object.entries(item)) visit(v, path ? `${path}.${k}` : k, depth + 1)
  }
  visit(content, '', 0)
  notes.push(`${claims} arithmetic claim(s) and answer(s) recomputed.`)
  if (unverifiable)
    notes.push(
      `${unverifiable} answer(s) could not be verified offline: their questions are not arithmetic the checker can read back (word problems, explanations).`,
    )
  notes.push('Statements of fact that are not arithmetic (history, science, definitions) cannot be verified offline and were not checked.')
  return { issues, notes }
}

/** Checks an answer against a question that states its arithmetic; undefined when it cannot. */
export function checkAnswer(question: string, answer: string): { ok: boolean; expected: string } | undefined {
  const q = question.replace(/[−–]/g, '-')
  const given = evaluate(answer.replace(/^\s*x\s*=\s*/i, '').replace(/[$%]|\s*(cm|m|mm|km|in|ft)²?\s*$/g, ''))
  const equation = /solve for x:\s*(.+?)\s*=\s*(.+?)\s*$/i.exec(q)
  if (equation && given) {
    try {
      const x = Number(given.valueOf())
      const lhs = math.evaluate(equation[1]!.replace(/(\d)x/g, '$1*x').replace(/(\d)\(/g, '$1*('), { x }) as number
      const rhs = math.evaluate(equation[2]!.replace(/(\d)x/g, '$1*x').replace(/(\d)\(/g, '$1*('), { x }) as number
      return { ok: Math.abs(lhs - rhs) < 1e-9, expected: 'a value of x that makes both sides equal' }
    } catch {
      return undefined
    }
  }
  const percent = /what is (\d+(?:\.\d+)?)% of (\d+(?:\.\d+)?)/i.exec(q)
  const arithmetic = percent
    ? `${percent[1]}/100 * ${percent[2]}`
    : /(?:what is|calculate|evaluate|add|subtract|multiply|divide)[:\s]+([\d\s.+\-×x*÷/()]+?)\s*(?:\?|\.|$)/i.exec(q)?.[1]
  if (!arithmetic || !given) return undefined
  const expected = evaluate(arithmetic)
  if (!expected) return undefined
  return { ok: exact.equal(expected, given) as boolean, expected: exact.format(expected, { fraction: 'ratio' }) }
}

/** Codes of the content's standards and its objectives, wherever the object keeps them. */
function standardsOf(content: Record<string, unknown>): { codes: string[]; objectives: string[] } {
  const meta = (content.metadata ?? {}) as Record<string, unknown>
  const codes = [content.standards, meta.standards].flatMap((v) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []))
  const objectives = Array.isArray(content.objectives) ? content.objectives.filter((s): s is string => typeof s === 'string') : []
  return { codes: [...new Set(codes)], objectives }
}

/** Codes checked against the shipped Common Core list; objectives matched to the standards' text. */
export function checkStandards(content: Record<string, unknown>): Omit<CheckResult, 'type' | 'score'> {
  const { codes, objectives } = standardsOf(content)
  const issues: ValidationFinding[] = []
  if (!codes.length)
    issues.push({
      severity: 'medium',
      location: 'standards',
      message: 'The content lists no standards.',
      suggestion: 'Add the Common Core codes the content addresses, e.g. 6.RP.A.3.',
    })
  const known = codes.filter((c) => {
    if (MATH_STANDARDS[c.toUpperCase().replace(/^CCSS\.MATH\.CONTENT\./, '')]) return true
    issues.push({
      severity: 'high',
      location: `standards (${c})`,
      message: `"${c}" is not a Common Core mathematics standard Tessera knows.`,
      suggestion: 'Check the code against the Common Core list (e.g. 7.RP.A.3, 8.EE.C.7).',
    })
    return false
  })
  objectives.forEach((objective, i) => {
    if (!known.length) return
    const best = Math.max(...known.map((c) => overlap(objective, MATH_STANDARDS[c.toUpperCase().replace(/^CCSS\.MATH\.CONTENT\./, '')]!)))
    if (best < 0.2) {
      issues.push({
        severity: 'medium',
        location: `objectives[${i}]`,
        message: `The objective "${objective}" shares few words with the standards listed (${known.join(', ')}).`,
        suggestion: "Reword the objective with the standard's language, or list the standard it addresses.",
      })
    }
  })
  return {
    issues,
    notes: [`${known.length} of ${codes.length} code(s) found in the shipped list of Common Core mathematics standards (grades 3–8 and high-school algebra).`],
  }
}

/**
 * Runs the requested checks (all five by default). Each check scores 100 minus its issues'
 * penalties (high 20, medium 10, low 3), floored at 0; overallScore is the mean of the
 * requested checks' scores, rounded to one decimal.
 */
export async function validateContent(input: Record<string, unknown>): Promise<ValidationReport> {
  const issues: ValidationIssue[] = []
  if (!input.content || typeof input.content !== 'object' || Array.isArray(input.content)) issues.push({ field: 'content', message: 'is required: an object' })
  let checks: ValidationCheck[] = [...VALIDATION_CHECKS]
  if (input.checks !== undefined && input.checks !== null) {
    if (!Array.isArray(input.checks) || input.checks.length === 0)
      issues.push({ field: 'checks', message: `must be a non-empty array of: ${VALIDATION_CHECKS.join(', ')}` })
    else {
      input.checks.forEach((c, i) => {
        if (!VALIDATION_CHECKS.includes(c as ValidationCheck))
          issues.push({ field: `checks[${i}]`, message: `unknown check "${String(c)}"; must be one of: ${VALIDATION_CHECKS.join(', ')}` })
      })
      checks = [...new Set(input.checks as ValidationCheck[])]
    }
  }
  if (input.gradeLevel !== undefined && typeof input.gradeLevel !== 'string') issues.push({ field: 'gradeLevel', message: 'must be a string' })
  if (issues.length) throw errors.invalid(issues)
  const content = input.content as Record<string, unknown>
  const texts = collectTexts(content)
  const meta = (content.metadata ?? {}) as Record<string, unknown>
  const gradeText = [input.gradeLevel, content.gradeLevel, meta.gradeLevel].find((g): g is string => typeof g === 'string')
  const results: CheckResult[] = []
  for (const type of checks) {
    const found =
      type === 'grammar'
        ? await checkGrammar(texts)
        : type === 'bias'
          ? await checkBias(texts)
          : type === 'accessibility'
            ? checkAccessibility(
                texts,
                gradeText ? { label: gradeText, grade: gradeNumber(gradeText), measured: fleschKincaidGrade(texts.map((t) => t.text).join('\n')) } : undefined,
              )
            : type === 'factual-accuracy'
              ? checkFacts(content, texts)
              : checkStandards(content)
    results.push({ type, score: score(found.issues), ...found })
  }
  const overallScore = Math.round((results.reduce((s, r) => s + r.score, 0) / results.length) * 10) / 10
  const advice: Record<ValidationCheck, string> = {
    grammar: 'Fix the grammar and spelling issues listed before sharing the content with students.',
    'factual-accuracy': 'Correct the wrong calculations and answers: students learn from worked examples.',
    bias: 'Replace the flagged words with inclusive alternatives.',
    accessibility: 'Fix the accessibility issues so every student can use the content (WCAG 2.2).',
    'standards-alignment': 'Align the listed standards and the objectives.',
  }
  return { validationId: randomUUID(), overallScore, checks: results, recommendations: results.filter((r) => r.issues.length).map((r) => advice[r.type]) }
}

/** A grade as a number for comparison with a measured reading grade (K = 0). */
function gradeNumber(text: string): number {
  if (/^\s*k/i.test(text)) return 0
  const n = Number(/\d+/.exec(text)?.[0] ?? NaN)
  return Number.isFinite(n) ? n : levelForGrade(text) * 2 + 1
}
