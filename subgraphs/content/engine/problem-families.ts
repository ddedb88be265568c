import * as math from 'mathjs'
import type { Random } from './random.js'

/** A problem as a family drafts it, before ids, formats and verification. */
export interface DraftProblem {
  question: string
  /** The answer as a student writes it: `7/12`, `3.45`, `x = 4`, `(2, -1)`, `36 cm²`. */
  answer: string
  steps: string[]
  hints: string[]
  tags: string[]
  /** Answers a student reaches through a typical mistake (multiple-choice distractors). */
  mistakes: string[]
  /**
   * Re-evaluates the question with mathjs from the question's own numbers and compares with
   * the stated answer: an evaluation independent of the arithmetic that produced the answer.
   */
  verify(): boolean
}

/** A family of problems the offline engine can write and check. */
export interface ProblemFamily {
  id: string
  name: string
  /** Words in a topic that select this family. */
  keywords: RegExp
  /** Common Core codes the family practises. */
  standards: readonly string[]
  /** What the family's problems ask, for lesson prose. */
  summary: string
  /** What each difficulty level (1–5) asks. */
  levels: readonly [string, string, string, string, string]
  generate(random: Random, level: number): DraftProblem
}

const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b))
const lcm = (a: number, b: number) => Math.abs(a * b) / gcd(a, b)

/** A fraction in lowest terms with a positive denominator, written `n/d` (or `n` when whole). */
function fractionText(n: number, d: number): string {
  const g = gcd(n, d) || 1
  let num = n / g
  let den = d / g
  if (den < 0) {
    num = -num
    den = -den
  }
  return den === 1 ? String(num) : `${num}/${den}`
}

/** Exact decimal text of `units / 10^places` (no binary rounding). */
function decimalText(units: number, places: number): string {
  const negative = units < 0
  const digits = String(Math.abs(units)).padStart(places + 1, '0')
  const whole = digits.slice(0, digits.length - places)
  const frac = digits.slice(digits.length - places).replace(/0+$/, '')
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`
}

const signed = (n: number) => (n < 0 ? `− ${Math.abs(n)}` : `+ ${n}`)
const term = (a: number, v = 'x') => (a === 1 ? v : a === -1 ? `−${v}` : `${a}${v}`.replace('-', '−'))
const num = (n: number) => String(n).replace('-', '−')
const bigEq = (a: math.BigNumber, b: string) => math.equal(a, math.bignumber(b)) as boolean
const fracEq = (a: math.Fraction, b: string) => math.equal(a, math.fraction(b)) as boolean
/** Distinct wrong answers, none equal to the right one. */
const wrong = (answer: string, ...candidates: string[]) => [...new Set(candidates.filter((c) => c !== answer && c !== ''))]

const NAMES = ['Amara', 'Diego', 'Mei', 'Kofi', 'Priya', 'Liam', 'Noor', 'Sofia', 'Tomás', 'Yuki']

const wholeNumbers: ProblemFamily = {
  id: 'whole-number-arithmetic',
  name: 'Whole-number arithmetic',
  keywords:
    /\b(whole numbers?|arithmetic|addition|adding|add|subtraction|subtracting|subtract|multiplication|multiplying|multiply|times tables?|division|dividing|divide|order of operations|pemdas|integers?)\b/,
  standards: ['2.NBT.B.5', '3.OA.C.7', '4.NBT.B.4', '4.NBT.B.5', '5.NBT.B.6', '6.EE.A.2c'],
  summary: 'adding, subtracting, multiplying and dividing whole numbers and using the order of operations',
  levels: [
    'addition and subtraction within 20',
    'two-digit addition and subtraction with regrouping',
    'multiplying a two-digit number by a one-digit number',
    'dividing a three-digit number by a one-digit number',
    'multi-step expressions with the order of operations',
  ],
  generate(r, level) {
    switch (level) {
      case 1: {
        const a = r.int(3, 12)
        const b = r.int(2, 8)
        const add = r.next() < 0.5
        // Subtraction is written as the inverse of an addition fact, so it never goes below zero.
        const [x, y] = add ? [a, b] : [a + b, b]
        const answer = String(add ? a + b : a)
        return {
          question: add ? `What is ${x} + ${y}?` : `What is ${x} − ${y}?`,
          answer,
          steps: add ? [`Start at ${x} and count on ${y}.`, `${x} + ${y} = ${answer}`] : [`Start at ${x} and count back ${y}.`, `${x} − ${y} = ${answer}`],
          hints: add ? ['Count on from the larger number.'] : ['Think of the addition fact that uses the same numbers.'],
          tags: [add ? 'addition' : 'subtraction', 'whole numbers'],
          mistakes: wrong(answer, String(Number(answer) + 1), String(Number(answer) - 1), add ? String(Math.abs(x - y)) : String(x + y)),
          verify: () => math.evaluate(add ? `${x} + ${y}` : `${x} - ${y}`) === Number(answer),
        }
      }
      case 2: {
        const add = r.next() < 0.5
        const a = r.int(25, 89)
        const b = r.int(13, add ? Math.max(13, 99 - a) : a - 5)
        const x = a
        const y = b
        const answer = String(add ? x + y : x - y)
        const noRegroup = add
          ? String(Math.floor((x + y) / 10) * 10 - 10 + ((x + y) % 10))
          : String(Math.abs((x % 10) - (y % 10)) + (Math.floor(x / 10) - Math.floor(y / 10)) * 10)
        return {
          question: add ? `Add: ${x} + ${y}` : `Subtract: ${x} − ${y}`,
          answer,
          steps: add
            ? [
                `Add the ones: ${x % 10} + ${y % 10} = ${(x % 10) + (y % 10)}.`,
                `Add the tens: ${Math.floor(x / 10) * 10} + ${Math.floor(y / 10) * 10} = ${(Math.floor(x / 10) + Math.floor(y / 10)) * 10}.`,
                `Combine: ${x} + ${y} = ${answer}.`,
              ]
            : [
                `Subtract the tens first: ${x} − ${Math.floor(y / 10) * 10} = ${x - Math.floor(y / 10) * 10}.`,
                `Then the ones: ${x - Math.floor(y / 10) * 10} − ${y % 10} = ${answer}.`,
                `So ${x} − ${y} = ${answer}.`,
              ],
          hints: [
            add ? 'Line up the ones and the tens; carry a ten when the ones make 10 or more.' : 'Regroup a ten into ten ones when there are not enough ones.',
          ],
          tags: [add ? 'addition' : 'subtraction', 'regrouping', 'whole numbers'],
          mistakes: wrong(answer, noRegroup, String(Number(answer) + 10), String(Number(answer) - 10)),
          verify: () => math.evaluate(add ? `${x} + ${y}` : `${x} - ${y}`) === Number(answer),
        }
      }
      case 3: {
        const a = r.int(12, 98)
        const b = r.int(3, 9)
        const answer = String(a * b)
        const tens = Math.floor(a / 10) * 10
        const ones = a % 10
        return {
          question: `Multiply: ${a} × ${b}`,
          answer,
          steps: [
            `Split ${a} into ${tens} + ${ones}.`,
            `${tens} × ${b} = ${tens * b} and ${ones} × ${b} = ${ones * b}.`,
            `Add the partial products: ${tens * b} + ${ones * b} = ${answer}.`,
          ],
          hints: ['Break the two-digit number into tens and ones, then multiply each part.'],
          tags: ['multiplication', 'partial products', 'whole numbers'],
          // Forgetting the tens' place value, or adding instead of multiplying.
          mistakes: wrong(answer, String(Math.floor(a / 10) * b + ones * b), String(a + b), String(tens * b + ones)),
          verify: () => math.evaluate(`${a} * ${b}`) === Number(answer),
        }
      }
      case 4: {
        const d = r.int(3, 9)
        const q = r.int(21, 199)
        const n = q * d
        const answer = String(q)
        return {
          question: `Divide: ${n} ÷ ${d}`,
          answer,
          steps: [
            `How many groups of ${d} are in ${n}? Estimate: ${d} × ${Math.floor(q / 10) * 10} = ${Math.floor(q / 10) * 10 * d}.`,
            `Subtract: ${n} − ${Math.floor(q / 10) * 10 * d} = ${n - Math.floor(q / 10) * 10 * d}, which is ${d} × ${q % 10 === 0 ? 0 : q - Math.floor(q / 10) * 10}.`,
            `${Math.floor(q / 10) * 10} + ${q - Math.floor(q / 10) * 10} = ${q}, so ${n} ÷ ${d} = ${answer}.`,
            `Check: ${answer} × ${d} = ${n}.`,
          ],
          hints: ['Use multiplication facts of the divisor to estimate the quotient.', 'Check by multiplying the quotient by the divisor.'],
          tags: ['division', 'whole numbers'],
          mistakes: wrong(answer, String(q + 1), String(q - 1), String(n - d)),
          verify: () => math.evaluate(`${n} / ${d}`) === Number(answer),
        }
      }
      default: {
        const a = r.int(2, 12)
        const b = r.int(2, 9)
        const c = r.int(2, 9)
        const d = r.int(1, 20)
        const answer = String(a + b * c - d)
        return {
          question: `Evaluate: ${a} + ${b} × ${c} − ${d}`,
          answer,
          steps: [`Multiply first: ${b} × ${c} = ${b * c}.`, `Then work left to right: ${a} + ${b * c} = ${a + b * c}.`, `${a + b * c} − ${d} = ${answer}.`],
          hints: ['Multiplication and division come before addition and subtraction.'],
          tags: ['order of operations', 'whole numbers'],
          // Working strictly left to right is the classic mistake.
          mistakes: wrong(answer, String((a + b) * c - d), String(a + b * (c - d)), String(a + b * c + d)),
          verify: () => math.evaluate(`${a} + ${b} * ${c} - ${d}`) === Number(answer),
        }
      }
    }
  },
}

const decimals: ProblemFamily = {
  id: 'decimal-arithmetic',
  name: 'Decimal arithmetic',
  keywords: /\b(decimals?|tenths|hundredths|money)\b/,
  standards: ['5.NBT.B.7', '6.NS.B.3'],
  summary: 'adding, subtracting, multiplying and dividing decimals',
  levels: ['adding tenths', 'subtracting hundredths', 'multiplying a decimal by a whole number', 'multiplying two decimals', 'dividing by a decimal'],
  generate(r, level) {
    switch (level) {
      case 1:
      case 2: {
        const places = level
        const scale = 10 ** places
        const a = r.int(11, places === 1 ? 99 : 990)
        const b = r.int(5, a - 1)
        const add = level === 1
        const [x, y] = [decimalText(a, places), decimalText(b, places)]
        const answer = decimalText(add ? a + b : a - b, places)
        return {
          question: add ? `Add: ${x} + ${y}` : `Subtract: ${x} − ${y}`,
          answer,
          steps: [
            `Line up the decimal points: ${x} and ${y}.`,
            add
              ? `Add as whole numbers of ${places === 1 ? 'tenths' : 'hundredths'}: ${a} + ${b} = ${a + b}.`
              : `Subtract as whole numbers of hundredths: ${a} − ${b} = ${a - b}.`,
            `Place the decimal point back: ${answer}.`,
          ],
          hints: ['Line up the decimal points before you add or subtract.', 'Write a zero in an empty place if it helps.'],
          tags: [add ? 'addition' : 'subtraction', 'decimals'],
          mistakes: wrong(
            answer,
            decimalText(add ? a + b : a - b, places + 1),
            decimalText(add ? a + b : a - b, Math.max(0, places - 1)),
            decimalText(add ? a + b + scale / 10 : a - b - scale / 10, places),
          ),
          verify: () => bigEq(add ? math.add(math.bignumber(x), math.bignumber(y)) : math.subtract(math.bignumber(x), math.bignumber(y)), answer),
        }
      }
      case 3:
      case 4: {
        const a = r.int(12, 95)
        const x = decimalText(a, 1)
        const bUnits = level === 3 ? r.int(3, 9) : r.int(12, 48)
        const bPlaces = level === 3 ? 0 : 1
        const y = decimalText(bUnits, bPlaces)
        const answer = decimalText(a * bUnits, 1 + bPlaces)
        return {
          question: `Multiply: ${x} × ${y}`,
          answer,
          steps: [
            `Multiply as whole numbers: ${a} × ${bUnits} = ${a * bUnits}.`,
            `Count the decimal places in the factors: ${1 + bPlaces}.`,
            `Place the decimal point ${1 + bPlaces} place${bPlaces ? 's' : ''} from the right: ${answer}.`,
          ],
          hints: ['Ignore the decimal points, multiply, then count decimal places.'],
          tags: ['multiplication', 'decimals'],
          mistakes: wrong(answer, decimalText(a * bUnits, bPlaces), decimalText(a * bUnits, 2 + bPlaces), decimalText(a * bUnits, 0)),
          verify: () => bigEq(math.multiply(math.bignumber(x), math.bignumber(y)) as math.BigNumber, answer),
        }
      }
      default: {
        const divisorUnits = r.pick([2, 4, 5, 8, 12, 15, 25])
        const quotient = r.int(3, 48)
        const dividendUnits = divisorUnits * quotient
        const x = decimalText(dividendUnits, 1)
        const y = decimalText(divisorUnits, 1)
        const answer = String(quotient)
        return {
          question: `Divide: ${x} ÷ ${y}`,
          answer,
          steps: [
            `Multiply both numbers by 10 so the divisor is whole: ${x} ÷ ${y} = ${dividendUnits} ÷ ${divisorUnits}.`,
            `${dividendUnits} ÷ ${divisorUnits} = ${quotient}.`,
            `Check: ${quotient} × ${y} = ${x}.`,
          ],
          hints: ['Shift the decimal point in both numbers by the same number of places.'],
          tags: ['division', 'decimals'],
          mistakes: wrong(answer, decimalText(quotient, 1), String(quotient * 10), decimalText(quotient, 2)),
          verify: () => bigEq(math.divide(math.bignumber(x), math.bignumber(y)) as math.BigNumber, answer),
        }
      }
    }
  },
}

const fractions: ProblemFamily = {
  id: 'fraction-arithmetic',
  name: 'Fraction arithmetic',
  keywords: /\b(fractions?|numerators?|denominators?|mixed numbers?)\b/,
  standards: ['4.NF.B.3', '5.NF.A.1', '5.NF.B.4', '6.NS.A.1'],
  summary: 'adding, subtracting, multiplying and dividing fractions',
  levels: [
    'adding fractions with like denominators',
    'adding fractions with unlike denominators',
    'subtracting fractions with unlike denominators',
    'multiplying fractions',
    'dividing fractions',
  ],
  generate(r, level) {
    const proper = (den: number) => {
      // Fractions in lowest terms, as a teacher writes them (1/2, not 2/4), except like denominators.
      for (let i = 0; i < 20; i++) {
        const n = r.int(1, den - 1)
        if (level === 1 || gcd(n, den) === 1) return n
      }
      return 1
    }
    const op = level <= 2 ? '+' : level === 3 ? '−' : level === 4 ? '×' : '÷'
    let b = r.int(level === 1 ? 5 : 2, level === 1 ? 12 : 9)
    let d = level === 1 ? b : r.int(level === 3 ? 3 : 2, 10)
    let a = proper(b)
    let c = proper(d)
    if (op === '−') {
      // The first fraction is the larger, so the difference is positive; equal ones are redrawn.
      if (a * d === c * b) d = d === 10 ? 3 : d + 1
      c = Math.min(c, d - 1)
      if (a * d < c * b) [a, b, c, d] = [c, d, a, b]
      if (a * d === c * b) [a, c] = [Math.min(a + 1, b - 1), 1]
    }
    const [n, m] = op === '+' ? [a * d + c * b, b * d] : op === '−' ? [a * d - c * b, b * d] : op === '×' ? [a * c, b * d] : [a * d, b * c]
    const answer = fractionText(n, m)
    const common = lcm(b, d)
    const steps =
      op === '+' || op === '−'
        ? b === d
          ? [
              `The denominators are the same, so ${op === '+' ? 'add' : 'subtract'} the numerators: ${a} ${op} ${c} = ${op === '+' ? a + c : a - c}.`,
              `Keep the denominator: ${op === '+' ? a + c : a - c}/${b}.`,
              `Simplify: ${answer}.`,
            ]
          : [
              `Find a common denominator: the least common multiple of ${b} and ${d} is ${common}.`,
              `Rewrite: ${a}/${b} = ${(a * common) / b}/${common} and ${c}/${d} = ${(c * common) / d}/${common}.`,
              `${op === '+' ? 'Add' : 'Subtract'} the numerators: ${(a * common) / b} ${op} ${(c * common) / d} = ${op === '+' ? (a * common) / b + (c * common) / d : (a * common) / b - (c * common) / d}, giving ${op === '+' ? (a * common) / b + (c * common) / d : (a * common) / b - (c * common) / d}/${common}.`,
              `Simplify: ${answer}.`,
            ]
        : op === '×'
          ? [
              `Multiply the numerators: ${a} × ${c} = ${a * c}.`,
              `Multiply the denominators: ${b} × ${d} = ${b * d}.`,
              `Simplify ${a * c}/${b * d} to ${answer}.`,
            ]
          : [`Dividing by ${c}/${d} is multiplying by its reciprocal ${d}/${c}.`, `${a}/${b} × ${d}/${c} = ${a * d}/${b * c}.`, `Simplify: ${answer}.`]
    const mistakes =
      op === '+'
        ? [fractionText(a + c, b + d), fractionText(a + c, b * d), fractionText(a * c, b * d)]
        : op === '−'
          ? [fractionText(a - c, Math.abs(b - d) || 1), fractionText(a - c, b * d), fractionText(c * b - a * d, b * d)]
          : op === '×'
            ? [fractionText(a * d + c * b, b * d), fractionText(a * c, b + d), fractionText(a * d, b * c)]
            : [fractionText(a * c, b * d), fractionText(b * c, a * d), fractionText(a, b * c)]
    return {
      question: `Calculate ${a}/${b} ${op} ${c}/${d}. Give the answer in simplest form.`,
      answer,
      steps,
      hints:
        op === '+' || op === '−'
          ? ['You can only add or subtract fractions with the same denominator.', 'Find the least common multiple of the denominators.']
          : op === '×'
            ? ['Multiply straight across: numerator by numerator, denominator by denominator.']
            : ['Keep, change, flip: multiply by the reciprocal of the second fraction.'],
      tags: ['fractions', op === '+' ? 'addition' : op === '−' ? 'subtraction' : op === '×' ? 'multiplication' : 'division'],
      mistakes: wrong(answer, ...mistakes),
      verify: () => {
        const x = math.fraction(a, b)
        const y = math.fraction(c, d)
        const result = op === '+' ? math.add(x, y) : op === '−' ? math.subtract(x, y) : op === '×' ? math.multiply(x, y) : math.divide(x, y)
        return (
          fracEq(result as math.Fraction, answer) &&
          fractionText(n, m) === answer &&
          gcd(Math.abs(Number(answer.split('/')[0])), Number(answer.split('/')[1] ?? 1)) === 1
        )
      },
    }
  },
}

const percentages: ProblemFamily = {
  id: 'percentages',
  name: 'Percentages',
  keywords: /\b(percent(ages?)?|%|discounts?|tax|interest|markup)\b/,
  standards: ['6.RP.A.3c', '7.RP.A.3'],
  summary: 'finding a percent of a quantity, the percent one number is of another, and percent change',
  levels: [
    '10%, 25% or 50% of a number',
    'any whole percent of a number',
    'what percent one number is of another',
    'percent increase and decrease',
    'finding the original amount before a percent change',
  ],
  generate(r, level) {
    const name = r.pick(NAMES)
    switch (level) {
      case 1:
      case 2: {
        const p = level === 1 ? r.pick([10, 25, 50]) : r.pick([5, 15, 20, 30, 35, 40, 60, 75, 80])
        const n = r.int(2, 40) * 20
        const answer = String((p * n) / 100)
        return {
          question: `What is ${p}% of ${n}?`,
          answer,
          steps: [`${p}% means ${p} per 100, or ${p}/100.`, `${p}/100 × ${n} = ${p * n}/100.`, `${p * n}/100 = ${answer}.`],
          hints: [`Find 1% of ${n} first, or use ${p}% = ${p / 100}.`],
          tags: ['percentages', 'percent of a number'],
          mistakes: wrong(answer, String(p * n), String(n - (p * n) / 100), String(n / p)),
          verify: () => bigEq(math.multiply(math.divide(math.bignumber(p), 100), math.bignumber(n)) as math.BigNumber, answer),
        }
      }
      case 3: {
        const whole = r.pick([20, 25, 40, 50, 80, 200])
        // Only percents that make a whole number of questions.
        const p = r.pick([5, 10, 15, 20, 30, 35, 40, 45, 60, 70, 85].filter((x) => (x * whole) % 100 === 0))
        const part = (p * whole) / 100
        const answer = `${p}%`
        return {
          question: `${name} answered ${part} of ${whole} questions correctly. What percent is that?`,
          answer,
          steps: [`Write the part over the whole: ${part}/${whole}.`, `Divide: ${part} ÷ ${whole} = ${p / 100}.`, `Multiply by 100: ${p / 100} × 100 = ${p}%.`],
          hints: ['Percent = part ÷ whole × 100.'],
          tags: ['percentages', 'percent of a whole'],
          mistakes: wrong(answer, `${Math.round((whole / part) * 100)}%`, `${part}%`, `${100 - p}%`),
          verify: () => bigEq(math.multiply(math.divide(math.bignumber(part), math.bignumber(whole)), 100) as math.BigNumber, String(p)),
        }
      }
      case 4: {
        const price = r.int(4, 40) * 5
        const p = r.pick([10, 20, 25, 30, 40, 50])
        const up = r.next() < 0.5
        const answer = String(up ? price + (price * p) / 100 : price - (price * p) / 100)
        return {
          question: up
            ? `A bike costs $${price}. The price rises by ${p}%. What is the new price in dollars?`
            : `A jacket costs $${price}. It is on sale for ${p}% off. What is the sale price in dollars?`,
          answer,
          steps: [
            `${p}% of ${price} = ${(price * p) / 100}.`,
            up ? `Add the increase: ${price} + ${(price * p) / 100} = ${answer}.` : `Subtract the discount: ${price} − ${(price * p) / 100} = ${answer}.`,
          ],
          hints: ['Find the amount of the change first, then add or subtract it.', up ? `Or multiply by ${1 + p / 100}.` : `Or multiply by ${1 - p / 100}.`],
          tags: ['percentages', up ? 'percent increase' : 'percent decrease'],
          mistakes: wrong(
            answer,
            String((price * p) / 100),
            String(up ? price - (price * p) / 100 : price + (price * p) / 100),
            String(up ? price + p : price - p),
          ),
          verify: () => bigEq(math.multiply(math.bignumber(price), math.bignumber(up ? 1 + p / 100 : 1 - p / 100)) as math.BigNumber, answer),
        }
      }
      default: {
        const p = r.pick([10, 20, 25, 40, 50])
        const original = r.int(2, 30) * 20
        const sale = original - (original * p) / 100
        const answer = String(original)
        return {
          question: `After a ${p}% discount, a game costs $${sale}. What was the original price in dollars?`,
          answer,
          steps: [
            `After ${p}% off, the price is ${100 - p}% of the original.`,
            `${100 - p}% of the original = ${sale}, so the original = ${sale} ÷ ${(100 - p) / 100}.`,
            `${sale} ÷ ${(100 - p) / 100} = ${answer}.`,
          ],
          hints: ['The sale price is what percent of the original price?', 'Divide the sale price by that percent as a decimal.'],
          tags: ['percentages', 'reverse percentage'],
          // Adding the percent back onto the sale price is the usual mistake.
          mistakes: wrong(answer, String(sale + (sale * p) / 100), String(sale + p), String(sale * (1 + p / 100))),
          verify: () => bigEq(math.multiply(math.bignumber(answer), math.bignumber(1 - p / 100)) as math.BigNumber, String(sale)),
        }
      }
    }
  },
}

const ratios: ProblemFamily = {
  id: 'ratios',
  name: 'Ratios and rates',
  keywords: /\b(ratios?|rates?|proportions?|proportional|unit rates?|scale)\b/,
  standards: ['6.RP.A.1', '6.RP.A.2', '6.RP.A.3', '7.RP.A.2'],
  summary: 'simplifying ratios, equivalent ratios, sharing in a ratio and unit rates',
  levels: [
    'simplifying a ratio',
    'finding a missing term of an equivalent ratio',
    'sharing a quantity in a ratio',
    'finding a unit rate',
    'sharing a quantity in a three-part ratio',
  ],
  generate(r, level) {
    const name = r.pick(NAMES)
    switch (level) {
      case 1: {
        const k = r.int(2, 9)
        let a = r.int(1, 9)
        let b = r.int(1, 9)
        if (gcd(a, b) !== 1) [a, b] = [a / gcd(a, b), b / gcd(a, b)]
        if (a === b) b += 1
        const answer = `${a}:${b}`
        return {
          question: `Simplify the ratio ${a * k}:${b * k}.`,
          answer,
          steps: [
            `The greatest common factor of ${a * k} and ${b * k} is ${k * gcd(a, b)}.`,
            `Divide both parts by it: ${a * k} ÷ ${k} = ${a} and ${b * k} ÷ ${k} = ${b}.`,
            `The ratio is ${answer}.`,
          ],
          hints: ['Divide both parts by the same number.', 'Use the greatest common factor.'],
          tags: ['ratios', 'simplifying'],
          mistakes: wrong(
            answer,
            `${b}:${a}`,
            `${a * k - (k - 1)}:${b * k - (k - 1)}`,
            `${(a * k) / (k > 3 && k % 2 === 0 ? 2 : 1)}:${(b * k) / (k > 3 && k % 2 === 0 ? 2 : 1)}`,
          ),
          verify: () => (math.equal(math.fraction(a * k, b * k), math.fraction(answer.replace(':', '/'))) as boolean) && math.gcd(a, b) === 1,
        }
      }
      case 2: {
        const a = r.int(2, 7)
        const b = r.int(2, 9)
        const k = r.int(2, 8)
        const answer = String(b * k)
        return {
          question: `A recipe uses ${a} cups of flour for every ${b} cups of milk. How many cups of milk go with ${a * k} cups of flour?`,
          answer,
          steps: [`${a * k} ÷ ${a} = ${k}, so the recipe is scaled by ${k}.`, `Scale the milk by the same factor: ${b} × ${k} = ${answer}.`],
          hints: ['How many times bigger is the new amount of flour?'],
          tags: ['ratios', 'equivalent ratios'],
          // Adding the difference instead of scaling is the additive-thinking mistake.
          mistakes: wrong(answer, String(b + (a * k - a)), String(a * k * b), String(k)),
          verify: () => math.equal(math.fraction(a, b), math.fraction(a * k, Number(answer))) as boolean,
        }
      }
      case 3:
      case 5: {
        const parts = level === 3 ? [r.int(1, 5), r.int(2, 7)] : [r.int(1, 4), r.int(2, 5), r.int(3, 6)]
        const total = parts.reduce((s, p) => s + p, 0)
        const unit = r.int(3, 15)
        const amount = total * unit
        const shares = parts.map((p) => p * unit)
        const names = r.shuffle(NAMES).slice(0, parts.length)
        const answer = shares.join(', ')
        return {
          question: `${names.join(', ').replace(/, ([^,]*)$/, ' and $1')} share $${amount} in the ratio ${parts.join(':')}. How much does each get? List the amounts in order.`,
          answer,
          steps: [
            `Add the parts: ${parts.join(' + ')} = ${total}.`,
            `One part is $${amount} ÷ ${total} = $${unit}.`,
            ...parts.map((p, i) => `${names[i]}: ${p} × ${unit} = ${shares[i]}.`),
          ],
          hints: ['Find the total number of parts first.', 'Work out the value of one part.'],
          tags: ['ratios', 'sharing in a ratio'],
          mistakes: wrong(
            answer,
            parts.map((p) => (p * amount) / 10).join(', '),
            parts.map((p) => p * parts.length * unit).join(', '),
            parts.map(() => amount / parts.length).join(', '),
          ),
          verify: () => {
            const values = answer.split(', ').map(Number)
            return math.sum(values) === amount && values.every((v, i) => math.equal(math.fraction(v, values[0]!), math.fraction(parts[i]!, parts[0]!)))
          },
        }
      }
      default: {
        const hours = r.int(2, 8)
        const rate = r.int(4, 75)
        const distance = hours * rate
        const answer = String(rate)
        return {
          question: `${name} cycles ${distance} km in ${hours} hours at a steady speed. How many kilometres per hour is that?`,
          answer,
          steps: [`A unit rate is the amount for 1 hour.`, `${distance} ÷ ${hours} = ${answer}.`, `${name} cycles ${answer} km per hour.`],
          hints: ['Divide the distance by the time.'],
          tags: ['ratios', 'unit rate'],
          mistakes: wrong(answer, String(distance * hours), fractionText(hours, distance), String(distance - hours)),
          verify: () => math.unit(distance, 'km').toNumber('km') / hours === Number(answer),
        }
      }
    }
  },
}

const linearEquations: ProblemFamily = {
  id: 'linear-equations',
  name: 'Linear equations',
  keywords: /\b(linear equations?|one[- ]step|two[- ]step|multi[- ]step|solv(e|ing) (for x|equations?)|equations?|algebra|variables?)\b/,
  standards: ['6.EE.B.7', '7.EE.B.4a', '8.EE.C.7'],
  summary: 'solving linear equations in one variable',
  levels: [
    'one-step equations with addition',
    'one-step equations with multiplication',
    'two-step equations',
    'variables on both sides',
    'brackets, negatives and variables on both sides',
  ],
  generate(r, level) {
    const x = level >= 4 ? r.nonZero(-9, 12) : r.int(1, 12)
    let lhs = ''
    let rhs = ''
    let steps: string[] = []
    let mistakes: string[] = []
    let check = ''
    switch (level) {
      case 1: {
        const b = r.int(2, 20)
        lhs = `x + ${b}`
        rhs = String(x + b)
        steps = [`Subtract ${b} from both sides: x = ${x + b} − ${b}.`, `x = ${x}.`]
        mistakes = [String(x + 2 * b), String(-x)]
        check = `x + ${b} == ${x + b}`
        break
      }
      case 2: {
        const a = r.int(2, 12)
        lhs = `${a}x`
        rhs = String(a * x)
        steps = [`Divide both sides by ${a}: x = ${a * x} ÷ ${a}.`, `x = ${x}.`]
        mistakes = [String(a * x - a), String(a * x * a)]
        check = `${a} * x == ${a * x}`
        break
      }
      case 3: {
        const a = r.int(2, 9)
        const b = r.nonZero(-15, 15)
        lhs = `${a}x ${signed(b)}`
        rhs = num(a * x + b)
        steps = [
          `${b > 0 ? 'Subtract' : 'Add'} ${Math.abs(b)} ${b > 0 ? 'from' : 'to'} both sides: ${a}x = ${num(a * x)}.`,
          `Divide both sides by ${a}: x = ${x}.`,
        ]
        mistakes = [fractionText(a * x + 2 * b, a), fractionText(a * x + b, a) === String(x) ? String(x + 1) : fractionText(a * x + b, a)]
        check = `${a} * x + (${b}) == ${a * x + b}`
        break
      }
      case 4: {
        const a = r.int(3, 9)
        const c = r.int(1, a - 1)
        const b = r.nonZero(-12, 12)
        const d = (a - c) * x + b
        lhs = `${a}x ${signed(b)}`
        rhs = `${term(c)} ${signed(d)}`
        steps = [
          `Subtract ${term(c)} from both sides: ${term(a - c)} ${signed(b)} = ${num(d)}.`,
          `${b > 0 ? 'Subtract' : 'Add'} ${Math.abs(b)}: ${term(a - c)} = ${num(d - b)}.`,
          `Divide by ${a - c}: x = ${x}.`,
        ]
        mistakes = [fractionText(d - b, a + c), fractionText(d + b, a - c)]
        check = `${a} * x + (${b}) == ${c} * x + (${d})`
        break
      }
      default: {
        const a = r.nonZero(-5, 6)
        const b = r.nonZero(-6, 6)
        const c = r.nonZero(-4, 4) === a ? a + 1 : r.nonZero(-4, 4)
        const cc = c === a ? c + 2 : c
        const d = a * (x + b) - cc * x
        lhs = `${num(a)}(x ${signed(b)})`
        rhs = `${term(cc)} ${signed(d)}`
        steps = [
          `Expand the brackets: ${term(a)} ${signed(a * b)} = ${term(cc)} ${signed(d)}.`,
          `Collect x terms on the left: ${term(a - cc)} ${signed(a * b)} = ${num(d)}.`,
          `Move the constant: ${term(a - cc)} = ${num(d - a * b)}.`,
          `Divide by ${num(a - cc)}: x = ${num(x)}.`,
        ]
        // Multiplying only the first term inside the brackets.
        mistakes = [fractionText(d - b, a - cc), fractionText(d + a * b, a - cc)]
        check = `${a} * (x + (${b})) == ${cc} * x + (${d})`
      }
    }
    const answer = `x = ${num(x)}`
    return {
      question: `Solve for x: ${lhs} = ${rhs}`,
      answer,
      steps: [...steps, `Check: substitute x = ${num(x)} into ${lhs} = ${rhs}; both sides are equal.`],
      hints: ['Do the same operation to both sides to keep the equation balanced.', 'Undo addition or subtraction first, then multiplication.'],
      tags: ['linear equations', 'algebra'],
      mistakes: wrong(answer, ...mistakes.map((m) => `x = ${m.replace('-', '−')}`), `x = ${num(-x)}`, `x = ${num(x + 1)}`),
      verify: () => math.evaluate(check, { x: Number(answer.slice(4).replace('−', '-')) }) === true,
    }
  },
}

const systems: ProblemFamily = {
  id: 'systems-of-equations',
  name: 'Systems of linear equations',
  keywords: /\b(systems?( of (linear )?equations)?|simultaneous equations?|elimination|substitution method)\b/,
  standards: ['8.EE.C.8b', 'HSA.REI.C.6'],
  summary: 'solving two linear equations in two unknowns by substitution or elimination',
  levels: [
    'x + y and x − y given',
    'one equation already solved for y',
    'elimination by adding',
    'elimination after scaling one equation',
    'elimination after scaling both equations',
  ],
  generate(r, level) {
    const x = r.nonZero(-6, 9)
    const y = r.nonZero(-6, 9)
    const [a, b, c, d] =
      level === 1
        ? [1, 1, 1, -1]
        : level === 2
          ? [r.int(2, 4), 1, -r.int(1, 3), 1]
          : level === 3
            ? [r.int(1, 4), r.int(2, 5), r.int(1, 4), 0]
            : level === 4
              ? [r.int(2, 5), r.int(1, 3), 1, r.int(2, 4)]
              : [r.int(2, 5), r.int(2, 4), r.int(3, 6), -r.int(2, 5)]
    // Level 3: the second equation's y coefficient is the negative of the first's.
    const d2 = level === 3 ? -b : d
    // A singular system has no single answer: nudge the coefficients apart.
    const c2 = a * d2 - b * c === 0 ? c + 1 : c
    const e = a * x + b * y
    const f = c2 * x + d2 * y
    const eq = (p: number, q: number, s: number) => `${term(p)} ${q < 0 ? '−' : '+'} ${term(Math.abs(q), 'y')} = ${num(s)}`.replace(/^1x/, 'x')
    const answer = `(${num(x)}, ${num(y)})`
    return {
      question: `Solve the system: ${eq(a, b, e)} and ${eq(c2, d2, f)}. Give the answer as (x, y).`,
      answer,
      steps: [
        level === 2
          ? `Rearrange the second equation for y: y = ${num(f)} ${c2 < 0 ? '+' : '−'} ${Math.abs(c2)}x, and substitute into the first.`
          : `Scale the equations so one variable has opposite coefficients, then add them to eliminate it.`,
        `Solve the resulting equation in one variable: x = ${num(x)}.`,
        `Substitute x = ${num(x)} into ${eq(a, b, e)}: ${a * x} + ${b}y = ${e}, so y = ${num(y)}.`,
        `Check in the second equation: ${c2}(${num(x)}) + ${d2}(${num(y)}) = ${num(f)}.`,
      ],
      hints: ['Make the coefficients of one variable opposites, then add the equations.', 'After finding one variable, substitute it back to find the other.'],
      tags: ['systems of equations', 'algebra'],
      mistakes: wrong(answer, `(${num(y)}, ${num(x)})`, `(${num(x)}, ${num(-y)})`, `(${num(-x)}, ${num(y)})`),
      verify: () => {
        const [sx, sy] = answer
          .slice(1, -1)
          .split(', ')
          .map((v) => Number(v.replace('−', '-')))
        const scope = { x: sx, y: sy }
        return (
          math.evaluate(`${a}*x + ${b}*y == ${e}`, scope) === true &&
          math.evaluate(`${c2}*x + ${d2}*y == ${f}`, scope) === true &&
          math.det([
            [a, b],
            [c2, d2],
          ]) !== 0
        )
      },
    }
  },
}

const areaPerimeter: ProblemFamily = {
  id: 'area-and-perimeter',
  name: 'Area and perimeter',
  keywords: /\b(area|perimeter|rectangles?|triangles?|trapezoids?|trapeziums?|squares?|polygons?|geometry|composite (figures?|shapes?))\b/,
  standards: ['3.MD.C.7', '3.MD.D.8', '4.MD.A.3', '6.G.A.1'],
  summary: 'finding the perimeter and area of rectangles, triangles, trapezoids and composite shapes',
  levels: [
    'the perimeter of a rectangle',
    'the area of a rectangle',
    'the area of a triangle',
    'the area of an L-shaped composite figure',
    'the area of a trapezoid',
  ],
  generate(r, level) {
    const u = r.pick(['cm', 'm', 'in', 'ft'])
    switch (level) {
      case 1:
      case 2: {
        const l = r.int(3, 25)
        const w = r.int(2, l)
        const perimeter = level === 1
        const answer = `${perimeter ? 2 * (l + w) : l * w} ${perimeter ? u : `${u}²`}`
        return {
          question: `A rectangle is ${l} ${u} long and ${w} ${u} wide. What is its ${perimeter ? 'perimeter' : 'area'}?`,
          answer,
          steps: perimeter
            ? [`Perimeter = 2 × (length + width).`, `2 × (${l} + ${w}) = 2 × ${l + w} = ${2 * (l + w)}.`, `The perimeter is ${answer}.`]
            : [`Area = length × width.`, `${l} × ${w} = ${l * w}.`, `The area is ${answer}.`],
          hints: perimeter ? ['Perimeter is the distance all the way around.'] : ['Area counts the unit squares that cover the shape.'],
          tags: ['geometry', perimeter ? 'perimeter' : 'area', 'rectangles'],
          // Confusing area with perimeter, or adding only two sides.
          mistakes: wrong(
            answer,
            `${perimeter ? l * w : 2 * (l + w)} ${perimeter ? u : `${u}²`}`,
            `${l + w} ${perimeter ? u : `${u}²`}`,
            `${perimeter ? 2 * l + w : 2 * l * w} ${perimeter ? u : `${u}²`}`,
          ),
          verify: () => {
            const value = Number(answer.split(' ')[0])
            return perimeter ? math.evaluate('2 * (l + w)', { l, w }) === value : math.evaluate('l * w', { l, w }) === value
          },
        }
      }
      case 3: {
        const base = r.int(3, 20)
        const height = r.int(2, 16) * (base % 2 === 0 ? 1 : 2)
        const area = (base * height) / 2
        const answer = `${area} ${u}²`
        return {
          question: `A triangle has a base of ${base} ${u} and a height of ${height} ${u}. What is its area?`,
          answer,
          steps: [`Area of a triangle = ½ × base × height.`, `½ × ${base} × ${height} = ${area}.`, `The area is ${answer}.`],
          hints: ['A triangle is half of a rectangle with the same base and height.'],
          tags: ['geometry', 'area', 'triangles'],
          mistakes: wrong(answer, `${base * height} ${u}²`, `${base + height} ${u}²`, `${area / 2} ${u}²`),
          verify: () => math.evaluate('b * h / 2', { b: base, h: height }) === Number(answer.split(' ')[0]),
        }
      }
      case 4: {
        const L = r.int(8, 20)
        const W = r.int(6, 16)
        const cutL = r.int(2, L - 3)
        const cutW = r.int(2, W - 3)
        const area = L * W - cutL * cutW
        const answer = `${area} ${u}²`
        return {
          question: `An L-shaped room is a ${L} ${u} by ${W} ${u} rectangle with a ${cutL} ${u} by ${cutW} ${u} rectangle removed from one corner. What is its area?`,
          answer,
          steps: [
            `Area of the whole rectangle: ${L} × ${W} = ${L * W}.`,
            `Area of the removed corner: ${cutL} × ${cutW} = ${cutL * cutW}.`,
            `Subtract: ${L * W} − ${cutL * cutW} = ${area}.`,
            `The area is ${answer}.`,
          ],
          hints: ['Split the shape into rectangles, or subtract the missing part from a whole rectangle.'],
          tags: ['geometry', 'area', 'composite figures'],
          mistakes: wrong(answer, `${L * W} ${u}²`, `${L * W + cutL * cutW} ${u}²`, `${2 * (L + W)} ${u}²`),
          verify: () => math.evaluate('L * W - a * b', { L, W, a: cutL, b: cutW }) === Number(answer.split(' ')[0]),
        }
      }
      default: {
        const a = r.int(3, 14)
        const b = r.int(a + 1, a + 12)
        const h = r.int(2, 12) * ((a + b) % 2 === 0 ? 1 : 2)
        const area = ((a + b) * h) / 2
        const answer = `${area} ${u}²`
        return {
          question: `A trapezoid has parallel sides of ${a} ${u} and ${b} ${u} and a height of ${h} ${u}. What is its area?`,
          answer,
          steps: [`Area of a trapezoid = ½ × (a + b) × h.`, `a + b = ${a} + ${b} = ${a + b}.`, `½ × ${a + b} × ${h} = ${area}.`, `The area is ${answer}.`],
          hints: ['Average the two parallel sides, then multiply by the height.'],
          tags: ['geometry', 'area', 'trapezoids'],
          mistakes: wrong(answer, `${(a + b) * h} ${u}²`, `${a * b * h} ${u}²`, `${(b - a) * h} ${u}²`),
          verify: () => math.evaluate('(a + b) / 2 * h', { a, b, h }) === Number(answer.split(' ')[0]),
        }
      }
    }
  },
}

/** Conversions by level: [from unit, to unit, how the step reads, magnitude of the value]. */
const CONVERSIONS: ReadonlyArray<ReadonlyArray<readonly [string, string, number]>> = [
  [
    ['m', 'cm', 100],
    ['cm', 'mm', 10],
    ['kg', 'g', 1000],
  ],
  [
    ['km', 'm', 1000],
    ['L', 'mL', 1000],
    ['h', 'minute', 60],
  ],
  [
    ['cm', 'm', 0.01],
    ['g', 'kg', 0.001],
    ['minute', 'h', 1 / 60],
  ],
  [
    ['km/h', 'm/s', 1 / 3.6],
    ['m/s', 'km/h', 3.6],
  ],
  [
    ['m^2', 'cm^2', 10000],
    ['cm^2', 'mm^2', 100],
    ['km^2', 'm^2', 1000000],
  ],
]
const UNIT_WORDS: Record<string, string> = {
  m: 'm',
  cm: 'cm',
  mm: 'mm',
  kg: 'kg',
  g: 'g',
  km: 'km',
  L: 'L',
  mL: 'mL',
  h: 'hours',
  minute: 'minutes',
  'km/h': 'km/h',
  'm/s': 'm/s',
  'm^2': 'm²',
  'cm^2': 'cm²',
  'mm^2': 'mm²',
  'km^2': 'km²',
}

const unitConversion: ProblemFamily = {
  id: 'unit-conversion',
  name: 'Unit conversion',
  keywords: /\b(units?( of measure(ment)?)?|conver(sion|ting|t)|measurement|metric|length|mass|capacity|speed)\b/,
  standards: ['4.MD.A.1', '5.MD.A.1', '6.RP.A.3d'],
  summary: 'converting between metric units of length, mass, capacity, time, speed and area',
  levels: [
    'larger to smaller metric units',
    'kilometres, litres and hours',
    'smaller to larger units (decimals)',
    'speeds between km/h and m/s',
    'square units of area',
  ],
  generate(r, level) {
    const [from, to, factor] = r.pick(CONVERSIONS[level - 1]!)
    // Values are chosen so the converted amount is exact.
    const value =
      level === 3 ? r.int(2, 90) * (factor === 1 / 60 ? 15 : 10) : level === 4 ? (from === 'km/h' ? r.int(1, 30) * 18 : r.int(1, 40) * 5) : r.int(2, 95)
    const converted = Number((value * factor).toPrecision(12))
    const answer = `${converted} ${UNIT_WORDS[to]}`
    const multiply = factor >= 1
    return {
      question: `Convert ${value} ${UNIT_WORDS[from]} to ${UNIT_WORDS[to]}.`,
      answer,
      steps: [
        factor === 1 / 3.6
          ? '1 km/h = 1000 m ÷ 3600 s, so divide by 3.6.'
          : factor === 3.6
            ? '1 m/s = 3600 m per hour = 3.6 km/h, so multiply by 3.6.'
            : multiply
              ? `1 ${UNIT_WORDS[from]} = ${factor} ${UNIT_WORDS[to]}, so multiply by ${factor}.`
              : `1 ${UNIT_WORDS[to]} = ${Number((1 / factor).toPrecision(12))} ${UNIT_WORDS[from]}, so divide by ${Number((1 / factor).toPrecision(12))}.`,
        `${value} ${factor === 1 / 3.6 ? '÷ 3.6' : multiply ? `× ${factor}` : `÷ ${Number((1 / factor).toPrecision(12))}`} = ${converted}.`,
        `${value} ${UNIT_WORDS[from]} = ${answer}.`,
      ],
      hints: [
        'Converting to a smaller unit gives a larger number; to a larger unit, a smaller number.',
        level === 5 ? 'Square units use the square of the length factor.' : 'Recall how many of the smaller unit make one of the larger.',
      ],
      tags: ['measurement', 'unit conversion'],
      // Multiplying where one should divide; using the length factor for area units.
      mistakes: wrong(
        answer,
        `${Number((value / factor).toPrecision(12))} ${UNIT_WORDS[to]}`,
        level === 5
          ? `${Number((value * Math.sqrt(factor)).toPrecision(12))} ${UNIT_WORDS[to]}`
          : `${Number((value * factor * 10).toPrecision(12))} ${UNIT_WORDS[to]}`,
        `${Number(((value * factor) / 10).toPrecision(12))} ${UNIT_WORDS[to]}`,
      ),
      verify: () => Math.abs(math.unit(value, from).toNumber(to) - Number(answer.split(' ')[0])) <= 1e-9 * Math.max(1, converted),
    }
  },
}

const COLOURS = ['red', 'blue', 'green', 'yellow', 'purple']

const probability: ProblemFamily = {
  id: 'probability',
  name: 'Simple probability',
  keywords: /\b(probability|chance|likelihood|likely|outcomes?|dice|die|coins?|spinners?|random)\b/,
  standards: ['7.SP.C.5', '7.SP.C.7', '7.SP.C.8'],
  summary: 'finding the probability of single and compound events as fractions',
  levels: [
    'one roll of a number cube',
    'drawing one marble from a bag',
    'the complement of an event',
    'the sum of two number cubes',
    'two draws without replacement',
  ],
  generate(r, level) {
    switch (level) {
      case 1: {
        const kind = r.pick(['an even number', 'a number greater than 4', 'a multiple of 3', 'a number less than 3', 'a prime number'])
        const test: Record<string, (n: number) => boolean> = {
          'an even number': (n) => n % 2 === 0,
          'a number greater than 4': (n) => n > 4,
          'a multiple of 3': (n) => n % 3 === 0,
          'a number less than 3': (n) => n < 3,
          'a prime number': (n) => [2, 3, 5].includes(n),
        }
        const favourable = [1, 2, 3, 4, 5, 6].filter(test[kind]!)
        const answer = fractionText(favourable.length, 6)
        return {
          question: `A fair number cube numbered 1 to 6 is rolled once. What is the probability of rolling ${kind}? Give the answer as a fraction in simplest form.`,
          answer,
          steps: [
            `There are 6 equally likely outcomes.`,
            `The favourable outcomes are ${favourable.join(', ')}: ${favourable.length} of them.`,
            `P = ${favourable.length}/6 = ${answer}.`,
          ],
          hints: ['Probability = favourable outcomes ÷ total outcomes.'],
          tags: ['probability', 'single event'],
          mistakes: wrong(answer, fractionText(6 - favourable.length, 6), `${favourable.length}/${6 - favourable.length}`, String(favourable.length)),
          verify: () => fracEq(math.fraction(favourable.length, 6), answer),
        }
      }
      case 2:
      case 3: {
        const counts = COLOURS.slice(0, 3).map(() => r.int(1, 9))
        const total = counts.reduce((s, c) => s + c, 0)
        const i = r.int(0, 2)
        const colour = COLOURS[i]!
        const complement = level === 3
        const favourable = complement ? total - counts[i]! : counts[i]!
        const answer = fractionText(favourable, total)
        return {
          question: `A bag holds ${counts.map((c, k) => `${c} ${COLOURS[k]}`).join(', ')} marbles. One marble is drawn at random. What is the probability that it is ${complement ? `not ${colour}` : colour}? Give the answer as a fraction in simplest form.`,
          answer,
          steps: complement
            ? [
                `There are ${total} marbles in all.`,
                `P(${colour}) = ${counts[i]}/${total}.`,
                `P(not ${colour}) = 1 − ${counts[i]}/${total} = ${favourable}/${total} = ${answer}.`,
              ]
            : [
                `There are ${counts.join(' + ')} = ${total} marbles.`,
                `${counts[i]} of them are ${colour}.`,
                `P(${colour}) = ${counts[i]}/${total} = ${answer}.`,
              ],
          hints: complement ? ['The probabilities of an event and its complement add to 1.'] : ['Count all the marbles first.'],
          tags: ['probability', complement ? 'complement' : 'single event'],
          mistakes: wrong(answer, fractionText(total - favourable, total), `${favourable}/${total - favourable}`, fractionText(1, 3)),
          verify: () => fracEq(complement ? (math.subtract(1, math.fraction(counts[i]!, total)) as math.Fraction) : math.fraction(counts[i]!, total), answer),
        }
      }
      case 4: {
        const target = r.int(3, 11)
        const outcomes: Array<[number, number]> = []
        for (let a = 1; a <= 6; a++) for (let b = 1; b <= 6; b++) if (a + b === target) outcomes.push([a, b])
        const answer = fractionText(outcomes.length, 36)
        return {
          question: `Two fair number cubes numbered 1 to 6 are rolled. What is the probability that the sum is ${target}? Give the answer as a fraction in simplest form.`,
          answer,
          steps: [
            `There are 6 × 6 = 36 equally likely outcomes.`,
            `The pairs with sum ${target}: ${outcomes.map(([a, b]) => `(${a}, ${b})`).join(', ')} — ${outcomes.length} pairs.`,
            `P = ${outcomes.length}/36 = ${answer}.`,
          ],
          hints: ['List the outcomes in a 6 × 6 table.', 'Order matters: (1, 2) and (2, 1) are different outcomes.'],
          tags: ['probability', 'compound events'],
          // Counting unordered pairs, or using 11 possible sums as equally likely.
          mistakes: wrong(answer, fractionText(Math.ceil(outcomes.length / 2), 36), fractionText(1, 11), fractionText(outcomes.length, 12)),
          verify: () => {
            let count = 0
            for (let a = 1; a <= 6; a++) for (let b = 1; b <= 6; b++) if (math.add(a, b) === target) count++
            return fracEq(math.fraction(count, 36), answer)
          },
        }
      }
      default: {
        const red = r.int(2, 7)
        const blue = r.int(2, 7)
        const total = red + blue
        const answer = fractionText(red * (red - 1), total * (total - 1))
        return {
          question: `A box holds ${red} red and ${blue} blue counters. Two counters are drawn one after the other without replacement. What is the probability that both are red? Give the answer as a fraction in simplest form.`,
          answer,
          steps: [
            `P(first red) = ${red}/${total}.`,
            `After one red is removed: P(second red) = ${red - 1}/${total - 1}.`,
            `Multiply: ${red}/${total} × ${red - 1}/${total - 1} = ${red * (red - 1)}/${total * (total - 1)} = ${answer}.`,
          ],
          hints: ['The second draw has one fewer counter in the box.'],
          tags: ['probability', 'without replacement'],
          // Treating the draws as independent (with replacement) is the typical mistake.
          mistakes: wrong(answer, fractionText(red * red, total * total), fractionText(red + red - 1, total + total - 1), fractionText(red, total)),
          verify: () => fracEq(math.multiply(math.fraction(red, total), math.fraction(red - 1, total - 1)) as math.Fraction, answer),
        }
      }
    }
  },
}

/** Every problem family of the offline engine, in the order topics are matched. */
export const PROBLEM_FAMILIES: readonly ProblemFamily[] = [
  systems,
  linearEquations,
  fractions,
  decimals,
  percentages,
  ratios,
  probability,
  unitConversion,
  areaPerimeter,
  wholeNumbers,
]

/** The family a topic asks for, or undefined when the offline engine has none. */
export function familyForTopic(topic: string): ProblemFamily | undefined {
  const text = topic.toLowerCase()
  return PROBLEM_FAMILIES.find((f) => f.id === text || f.keywords.test(text))
}

/** Topics the offline engine understands, for the error that lists them. */
export const SUPPORTED_TOPICS = PROBLEM_FAMILIES.map((f) => ({ id: f.id, name: f.name, covers: f.summary }))
