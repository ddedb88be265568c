import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

const URL = '/v1/content-ai/validate'

interface Finding {
  severity: string
  location: string
  message: string
  suggestion: string
  wcagLevel?: string
}
interface Check {
  type: string
  score: number
  issues: Finding[]
  notes: string[]
}

describe('POST /validate', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'] })
  })
  afterAll(() => t.close())

  const validate = async (payload: object) => {
    const res = await t.app.inject({ method: 'POST', url: URL, headers: t.auth, payload })
    expect(res.statusCode, res.body).toBe(200)
    const report = res.json()
    return { report, check: (type: string) => report.checks.find((c: Check) => c.type === type) as Check }
  }

  it('finds a wrong sum and a wrong answer, and says what it cannot verify', async () => {
    const { check } = await validate({
      content: {
        text: 'Adding the parts gives 3/4 + 1/8 = 7/8, and 12 × 4 = 46 in the second row. Also 25 + 17 = 42.',
        problems: [
          { question: 'What is 15% of 80?', solution: { answer: '12' } },
          { question: 'Calculate 2/3 + 1/6.', solution: { answer: '3/9' } },
          { question: 'Solve for x: 3x + 4 = 19', solution: { answer: 'x = 5' } },
          { question: 'Why do we find common denominators?', solution: { answer: 'So the parts are the same size.' } },
        ],
      },
      checks: ['factual-accuracy'],
    })
    const facts = check('factual-accuracy')
    const messages = facts.issues.map((i) => i.message).join('\n')
    expect(facts.issues).toHaveLength(2)
    expect(messages).toContain('"12 × 4 = 46" is wrong: 12 × 4 = 48')
    expect(messages).toContain('The answer "3/9" to "Calculate 2/3 + 1/6." is wrong: 5/6')
    expect(facts.issues.every((i) => i.severity === 'high' && i.suggestion.length > 0)).toBe(true)
    expect(facts.score).toBe(60)
    expect(facts.notes.join(' ')).toMatch(/1 answer\(s\) could not be verified offline/)
  })

  it('flags a biased phrase and profanity with suggestions', async () => {
    const { check } = await validate({ content: { text: 'Each fireman must check his answers. That is a damn easy question.' }, checks: ['bias'] })
    const bias = check('bias')
    expect(bias.issues.map((i) => i.message).join(' ')).toMatch(/fireman/)
    expect(bias.issues.find((i) => /fireman/.test(i.message))!.suggestion).toMatch(/fire fighter/)
    expect(bias.issues.some((i) => i.severity === 'high' && /damn/.test(i.message))).toBe(true)
    expect(bias.score).toBeLessThan(100)
  })

  it('finds a missing alt, a skipped heading, vague link text, low contrast and a reading level above the grade', async () => {
    const html =
      '<h1>Fractions</h1><h3>Practice</h3><img src="pie.png"><p style="color: #999999; background-color: #ffffff">Read carefully.</p><a href="/worksheet">click here</a>'
    const markdown = '## Extra\n\n![](number-line.png)\n\nSee [the fraction wall](wall.png).'
    const hard =
      'Consequently, the multiplicative relationship characterizing proportional quantities necessitates understanding equivalence representations systematically.'
    const { check } = await validate({ content: { html, markdown, summary: hard }, checks: ['accessibility'], gradeLevel: '3' })
    const a11y = check('accessibility')
    const text = a11y.issues.map((i) => `${i.wcagLevel} ${i.message}`).join('\n')
    expect(text).toMatch(/A An image has no alt attribute/)
    expect(text).toMatch(/A The image number-line\.png has empty alt text/)
    expect(text).toMatch(/A A level-3 heading follows a level-1 heading/)
    expect(text).toMatch(/A The link text "click here"/)
    expect(text).toMatch(/AA Text colour #999999 on #ffffff has a contrast ratio of 2\.85:1/)
    expect(text).toMatch(/AAA The text reads at grade/)
    expect(a11y.issues.find((i) => /no alt/.test(i.message))!.location).toMatch(/^html \(character \d+\)$/)
  })

  it('checks standards codes against the shipped list and objectives against their text', async () => {
    const { check } = await validate({
      content: { standards: ['6.RP.A.3', '9.XX.Z.9'], objectives: ['Solve unit rate problems using ratio reasoning', 'Paint a landscape in watercolour'] },
      checks: ['standards-alignment'],
    })
    const s = check('standards-alignment')
    expect(s.issues.map((i) => i.message).join('\n')).toMatch(/"9\.XX\.Z\.9" is not a Common Core/)
    expect(s.issues.some((i) => /Paint a landscape/.test(i.message))).toBe(true)
    expect(s.issues.some((i) => /Solve unit rate/.test(i.message))).toBe(false)
  })

  it('scores grammar and computes the overall score as the mean of the checks', async () => {
    const { report, check } = await validate({
      content: { text: 'This is an test. She go to school every day and and learns math.' },
      checks: ['grammar', 'bias'],
    })
    const grammar = check('grammar')
    expect(grammar.issues.length).toBeGreaterThanOrEqual(2)
    expect(grammar.issues.map((i) => i.suggestion).join(' ')).toMatch(/"a"/)
    expect(report.overallScore).toBe(Math.round(((grammar.score + check('bias').score) / 2) * 10) / 10)
    expect(report.recommendations.length).toBeGreaterThan(0)
    expect(report.validationId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('passes clean, generated content with high scores', async () => {
    const set = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/content-ai/generate/problems',
        headers: t.auth,
        payload: { topic: 'fractions', count: 5, difficulty: 2, seed: 9 },
      })
    ).json()
    const { check } = await validate({ content: set, checks: ['factual-accuracy'] })
    expect(check('factual-accuracy').issues).toEqual([])
    expect(check('factual-accuracy').notes[0]).toMatch(/^([5-9]|\d\d+) arithmetic/)
  })

  it('refuses an unknown check and a missing content object, naming the field', async () => {
    expectError(
      await t.app.inject({ method: 'POST', url: URL, headers: t.auth, payload: { content: {}, checks: ['spelling'] } }),
      400,
      'INVALID_REQUEST',
      'checks[0]',
    )
    expectError(await t.app.inject({ method: 'POST', url: URL, headers: t.auth, payload: { checks: ['bias'] } }), 400, 'INVALID_REQUEST', 'content')
    const graph = (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: t.auth,
        payload: { query: 'mutation { validateContent(input: { content: {}, checks: ["spelling"] }) { overallScore } }' },
      })
    ).json()
    expect(graph.errors[0].extensions.code).toBe('INVALID_REQUEST')
    expect(graph.errors[0].extensions.details.field).toBe('checks[0]')
  })
})
