import * as math from 'mathjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

/**
 * Re-verifies generated answers from the question text alone, with arithmetic written here:
 * nothing of the engine's own computation or verification is reused.
 */
const f = math.create(math.all!, { number: 'Fraction' })
const n = (s: string) => s.replace(/−/g, '-').replace(/×/g, '*').replace(/÷/g, '/')
const eq = (a: unknown, b: unknown) => f.equal(f.evaluate(n(String(a))), f.evaluate(n(String(b)))) as boolean
const simplest = (s: string) => !s.includes('/') || Number(math.gcd(Number(s.split('/')[0]), Number(s.split('/')[1]))) === 1

function reverify(question: string, answer: string): boolean {
  const q = n(question)
  let m: RegExpExecArray | null
  if ((m = /^Solve the system: (.+?) = (.+?) and (.+?) = (.+?)\. Give/.exec(q))) {
    const [x, y] = answer
      .replace(/[()]/g, '')
      .split(', ')
      .map((v) => Number(n(v)))
    const lin = (e: string) => e.replace(/(\d)([xy])/g, '$1*$2')
    const scope = { x, y }
    return math.evaluate(`${lin(m[1]!)} == ${m[2]}`, scope) && math.evaluate(`${lin(m[3]!)} == ${m[4]}`, scope)
  }
  if ((m = /^Solve for x: (.+) = (.+)$/.exec(q))) {
    const x = f.evaluate(n(answer.replace('x = ', '')))
    const lin = (e: string) =>
      e
        .replace(/(\d)x/g, '$1*x')
        .replace(/(\d|\))\(/g, '$1*(')
        .replace(/^-x/, '-1*x')
    return f.equal(f.evaluate(lin(m[1]!), { x }), f.evaluate(lin(m[2]!), { x })) as boolean
  }
  if ((m = /^Calculate (\d+\/\d+) ([-+*/]) (\d+\/\d+)\./.exec(q))) return simplest(answer) && eq(`(${m[1]}) ${m[2]} (${m[3]})`, answer)
  if ((m = /^(?:What is|Add:|Subtract:|Multiply:|Divide:|Evaluate:) ([\d.+\-*/ ]+?)\??$/.exec(q))) return eq(m[1], answer)
  if ((m = /^What is (\d+)% of (\d+)\?/.exec(q))) return eq(`${m[1]} / 100 * ${m[2]}`, answer)
  if ((m = /answered (\d+) of (\d+) questions/.exec(q))) return eq(`${m[1]} / ${m[2]} * 100`, answer.replace('%', ''))
  if ((m = /costs \$(\d+)\. The price rises by (\d+)%/.exec(q))) return eq(`${m[1]} * (100 + ${m[2]}) / 100`, answer)
  if ((m = /costs \$(\d+)\. It is on sale for (\d+)% off/.exec(q))) return eq(`${m[1]} * (100 - ${m[2]}) / 100`, answer)
  if ((m = /After a (\d+)% discount, a game costs \$([\d.]+)/.exec(q))) return eq(`${answer} * (100 - ${m[1]}) / 100`, m[2])
  if ((m = /^Simplify the ratio (\d+):(\d+)\./.exec(q))) {
    const [a, b] = answer.split(':')
    return eq(`${m[1]} / ${m[2]}`, `${a} / ${b}`) && Number(math.gcd(Number(a), Number(b))) === 1
  }
  if ((m = /uses (\d+) cups of flour for every (\d+) cups of milk\. How many cups of milk go with (\d+) cups/.exec(q)))
    return eq(`${m[2]} * ${m[3]} / ${m[1]}`, answer)
  if ((m = /share \$(\d+) in the ratio ([\d:]+)\./.exec(q))) {
    const parts = m[2]!.split(':').map(Number)
    const total = parts.reduce((s, p) => s + p, 0)
    return answer.split(', ').every((v, i) => eq(`${m![1]} * ${parts[i]} / ${total}`, v)) && answer.split(', ').length === parts.length
  }
  if ((m = /cycles (\d+) km in (\d+) hours/.exec(q))) return eq(`${m[1]} / ${m[2]}`, answer)
  if ((m = /rectangle is (\d+) \S+ long and (\d+) \S+ wide\. What is its (perimeter|area)/.exec(q)))
    return eq(m[3] === 'area' ? `${m[1]} * ${m[2]}` : `2 * ${m[1]} + 2 * ${m[2]}`, answer.split(' ')[0])
  if ((m = /triangle has a base of (\d+) \S+ and a height of (\d+)/.exec(q))) return eq(`${m[1]} * ${m[2]} / 2`, answer.split(' ')[0])
  if ((m = /a (\d+) \S+ by (\d+) \S+ rectangle with a (\d+) \S+ by (\d+) \S+ rectangle removed/.exec(q)))
    return eq(`${m[1]} * ${m[2]} - ${m[3]} * ${m[4]}`, answer.split(' ')[0])
  if ((m = /parallel sides of (\d+) \S+ and (\d+) \S+ and a height of (\d+)/.exec(q))) return eq(`(${m[1]} + ${m[2]}) * ${m[3]} / 2`, answer.split(' ')[0])
  if ((m = /^Convert ([\d.]+) (\S+) to (\S+)\.$/.exec(q))) {
    const unit = (u: string) => ({ hours: 'hour', minutes: 'minute', 'm²': 'm^2', 'cm²': 'cm^2', 'mm²': 'mm^2', 'km²': 'km^2' })[u] ?? u
    const value = math.unit(Number(m[1]), unit(m[2]!)).toNumber(unit(m[3]!))
    return Math.abs(value - Number(answer.split(' ')[0])) < 1e-9 * Math.max(1, value)
  }
  if ((m = /rolled once\. What is the probability of rolling (.+?)\?/.exec(q))) {
    const tests: Record<string, (k: number) => boolean> = {
      'an even number': (k) => k % 2 === 0,
      'a number greater than 4': (k) => k > 4,
      'a multiple of 3': (k) => k % 3 === 0,
      'a number less than 3': (k) => k < 3,
      'a prime number': (k) => k === 2 || k === 3 || k === 5,
    }
    return simplest(answer) && eq(`${[1, 2, 3, 4, 5, 6].filter(tests[m[1]!]!).length} / 6`, answer)
  }
  if ((m = /A bag holds (.+?) marbles\. One marble is drawn at random\. What is the probability that it is (not )?(\w+)\?/.exec(q))) {
    const counts = Object.fromEntries(
      m[1]!
        .split(', ')
        .map((s) => s.split(' '))
        .map(([c, colour]) => [colour!, Number(c)]),
    )
    const total = Object.values(counts).reduce((s, c) => s + c, 0)
    const hits = m[2] ? total - counts[m[3]!]! : counts[m[3]!]!
    return simplest(answer) && eq(`${hits} / ${total}`, answer)
  }
  if ((m = /Two fair number cubes .+ the sum is (\d+)\?/.exec(q))) {
    let hits = 0
    for (let a = 1; a <= 6; a++) for (let b = 1; b <= 6; b++) if (a + b === Number(m[1])) hits++
    return simplest(answer) && eq(`${hits} / 36`, answer)
  }
  if ((m = /holds (\d+) red and (\d+) blue counters/.exec(q))) {
    const [r, b] = [Number(m[1]), Number(m[2])]
    return simplest(answer) && eq(`${r} / ${r + b} * ${r - 1} / ${r + b - 1}`, answer)
  }
  throw new Error(`No independent check for: ${question}`)
}

const TOPICS = [
  'whole numbers',
  'decimals',
  'fractions',
  'percentages',
  'ratios',
  'linear equations',
  'systems of equations',
  'area and perimeter',
  'unit conversion',
  'probability',
]

describe('1,000 generated problems, re-verified independently', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['content'] })
  })
  afterAll(() => t.close())

  it('every answer in ten families at five difficulties is right', async () => {
    let checked = 0
    const wrong: string[] = []
    for (const topic of TOPICS) {
      for (let difficulty = 1; difficulty <= 5; difficulty++) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/content-ai/generate/problems',
          headers: t.auth,
          payload: { topic, difficulty, count: 20, seed: difficulty * 101 },
        })
        expect(res.statusCode, res.body).toBe(201)
        for (const p of res.json().problems as Array<{ question: string; solution: { answer: string } }>) {
          checked++
          if (!reverify(p.question, p.solution.answer)) wrong.push(`${p.question} → ${p.solution.answer}`)
        }
      }
    }
    expect(wrong).toEqual([])
    expect(checked).toBe(1000)
  })

  it('rejects a wrong answer (the checker itself can fail)', () => {
    expect(reverify('Calculate 1/2 + 1/3. Give the answer in simplest form.', '2/5')).toBe(false)
    expect(reverify('Calculate 1/2 + 1/3. Give the answer in simplest form.', '10/12')).toBe(false)
    expect(reverify('Solve for x: 3x + 4 = 19', 'x = 6')).toBe(false)
    expect(reverify('Convert 2 km to m.', '200 m')).toBe(false)
  })
})
