/**
 * Filter conditions of pipeline transformations: a small SQL-like boolean language, parsed
 * into an AST and evaluated by closures built from it. Condition text is never evaluated as
 * JavaScript nor pasted into SQL, so a condition can only ever read the columns it names.
 *
 * Grammar (keywords in any case; identifiers are case-sensitive):
 *
 * ```text
 * expr      := or
 * or        := and (OR and)*
 * and       := not (AND not)*
 * not       := NOT not | predicate
 * predicate := '(' expr ')'
 *            | operand [ compare operand | IS [NOT] NULL | [NOT] IN '(' literal {',' literal} ')'
 *                      | [NOT] LIKE string | [NOT] BETWEEN operand AND operand ]
 * compare   := = | == | != | <> | < | <= | > | >=
 * operand   := column | literal | '-' number
 * column    := [A-Za-z_][A-Za-z0-9_]* | "double quoted" ("" for a quote)
 * literal   := number | 'single quoted' ('' for a quote) | TRUE | FALSE | NULL
 * ```
 *
 * A column (or TRUE, FALSE, NULL) standing alone as a predicate means `column = TRUE`.
 *
 * @module
 */
import type { Row } from '../connectors/connector.js'
import { parseBooleanText, parseNumericText, parseTimestampText } from './cast-value.js'

/** Longest condition text accepted, in characters. */
export const MAX_FILTER_LENGTH = 10_000

/** Deepest nesting of parentheses and NOTs accepted, so hostile input cannot exhaust the stack. */
export const MAX_FILTER_DEPTH = 100

/** A column reference. */
export interface ColumnNode {
  kind: 'column'
  name: string
}

/** A number literal; `text` keeps the digits so that integers beyond 2^53 compare exactly. */
export interface NumberNode {
  kind: 'number'
  value: number
  text: string
}

export interface StringNode {
  kind: 'string'
  value: string
}

export interface BooleanNode {
  kind: 'boolean'
  value: boolean
}

export interface NullNode {
  kind: 'null'
}

/** A constant in a condition. */
export type LiteralNode = NumberNode | StringNode | BooleanNode | NullNode

/** Either side of a comparison. */
export type ValueNode = ColumnNode | LiteralNode

/** Comparison operators; `==` is read as `=` and `<>` as `!=`. */
export type CompareOperator = '=' | '!=' | '<' | '<=' | '>' | '>='

/** A parsed condition. `and` and `or` hold two or more operands. */
export type FilterNode =
  | { kind: 'and'; operands: FilterNode[] }
  | { kind: 'or'; operands: FilterNode[] }
  | { kind: 'not'; operand: FilterNode }
  | { kind: 'compare'; operator: CompareOperator; left: ValueNode; right: ValueNode }
  | { kind: 'isNull'; operand: ValueNode; negated: boolean }
  | { kind: 'in'; operand: ValueNode; values: LiteralNode[]; negated: boolean }
  | { kind: 'like'; operand: ValueNode; pattern: string; negated: boolean }
  | { kind: 'between'; operand: ValueNode; low: ValueNode; high: ValueNode; negated: boolean }

/** Why a condition did not parse; `position` is a 0-based offset into the text. */
export interface FilterSyntaxError {
  message: string
  position: number
}

/** What {@link parseFilter} returns. */
export type ParseFilterResult = { ok: true; ast: FilterNode } | { ok: false; error: FilterSyntaxError }

// ---------------------------------------------------------------------------------------------
// Tokens

type Token =
  | { kind: 'word'; text: string; upper: string; pos: number }
  | { kind: 'quoted'; text: string; name: string; pos: number }
  | { kind: 'number'; text: string; value: number; pos: number }
  | { kind: 'string'; text: string; value: string; pos: number }
  | { kind: 'operator'; text: string; operator: CompareOperator; pos: number }
  | { kind: '(' | ')' | ',' | '-'; text: string; pos: number }
  | { kind: 'end'; text: string; pos: number }

const KEYWORDS: ReadonlySet<string> = new Set(['AND', 'OR', 'NOT', 'IS', 'NULL', 'IN', 'LIKE', 'BETWEEN', 'TRUE', 'FALSE'])

/** Thrown inside the parser only; {@link parseFilter} turns it into a result. */
class SyntaxFailure extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`)
  }
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'
const isIdentStart = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_')
const isIdentPart = (c: string | undefined) => isIdentStart(c) || isDigit(c)

function describeChar(c: string): string {
  const code = c.codePointAt(0) ?? 0
  return code < 0x20 || code === 0x7f ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `'${c}'`
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
      continue
    }
    const start = i
    if (isIdentStart(c)) {
      while (isIdentPart(text[i])) i++
      const word = text.slice(start, i)
      tokens.push({ kind: 'word', text: word, upper: word.toUpperCase(), pos: start })
    } else if (isDigit(c)) {
      while (isDigit(text[i])) i++
      if (text[i] === '.') {
        i++
        if (!isDigit(text[i])) throw new SyntaxFailure('expected a digit after the decimal point', i)
        while (isDigit(text[i])) i++
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++
        if (text[i] === '+' || text[i] === '-') i++
        if (!isDigit(text[i])) throw new SyntaxFailure('expected a digit in the exponent', i)
        while (isDigit(text[i])) i++
      }
      // `12abc` is a typo, not the number 12 followed by the column abc.
      if (isIdentPart(text[i]) || text[i] === '.') {
        throw new SyntaxFailure(`unexpected character ${describeChar(text[i] as string)}`, i)
      }
      const numberText = text.slice(start, i)
      const value = Number(numberText)
      if (!Number.isFinite(value)) throw new SyntaxFailure('number out of range', start)
      tokens.push({ kind: 'number', text: numberText, value, pos: start })
    } else if (c === "'" || c === '"') {
      let value = ''
      i++
      for (;;) {
        const q = text.indexOf(c, i)
        if (q === -1) {
          throw new SyntaxFailure(c === "'" ? 'unterminated string starting' : 'unterminated quoted identifier starting', start)
        }
        value += text.slice(i, q)
        i = q + 1
        // A doubled quote is one quote character; a single one ends the literal.
        if (text[i] !== c) break
        value += c
        i++
      }
      const raw = text.slice(start, i)
      if (c === "'") tokens.push({ kind: 'string', text: raw, value, pos: start })
      else if (value === '') throw new SyntaxFailure('empty quoted identifier', start)
      else tokens.push({ kind: 'quoted', text: raw, name: value, pos: start })
    } else if (c === '(' || c === ')' || c === ',' || c === '-') {
      tokens.push({ kind: c, text: c, pos: start })
      i++
    } else {
      const two = text.slice(i, i + 2)
      let operator: CompareOperator | undefined
      let width = 2
      if (two === '==') operator = '='
      else if (two === '!=' || two === '<>') operator = '!='
      else if (two === '<=') operator = '<='
      else if (two === '>=') operator = '>='
      else {
        width = 1
        if (c === '=') operator = '='
        else if (c === '<') operator = '<'
        else if (c === '>') operator = '>'
      }
      if (operator === undefined) {
        const char = String.fromCodePoint(text.codePointAt(i) ?? 0)
        throw new SyntaxFailure(`unexpected character ${describeChar(char)}`, i)
      }
      tokens.push({ kind: 'operator', text: text.slice(i, i + width), operator, pos: start })
      i += width
    }
  }
  tokens.push({ kind: 'end', text: '', pos: text.length })
  return tokens
}

// ---------------------------------------------------------------------------------------------
// Parser

function show(token: Token): string {
  if (token.kind === 'end') return 'end of input'
  const text = token.text.length > 24 ? `${token.text.slice(0, 24)}…` : token.text
  return `'${text}'`
}

/** Recursive descent over the token list; one instance per parse, so no state is shared. */
class Parser {
  private index = 0
  private depth = 0

  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    const node = this.parseOr()
    const rest = this.peek()
    if (rest.kind !== 'end') throw this.unexpected(rest)
    return node
  }

  private peek(): Token {
    // The list always ends with an `end` token and the parser never moves past it.
    return this.tokens[this.index] as Token
  }

  private next(): Token {
    const token = this.peek()
    if (token.kind !== 'end') this.index++
    return token
  }

  private isKeyword(word: string, token: Token = this.peek()): boolean {
    return token.kind === 'word' && token.upper === word
  }

  private unexpected(token: Token): SyntaxFailure {
    if (token.kind === 'end') return new SyntaxFailure('unexpected end of input', token.pos)
    return new SyntaxFailure(`unexpected token ${show(token)}`, token.pos)
  }

  private expected(what: string, token: Token = this.peek()): SyntaxFailure {
    if (token.kind === 'end') return new SyntaxFailure(`expected ${what}`, token.pos)
    return new SyntaxFailure(`expected ${what} but found ${show(token)}`, token.pos)
  }

  private expectKeyword(word: string): void {
    if (!this.isKeyword(word)) throw this.expected(word)
    this.next()
  }

  private enter(token: Token): void {
    if (++this.depth > MAX_FILTER_DEPTH) {
      throw new SyntaxFailure(`condition nested too deeply (more than ${MAX_FILTER_DEPTH} levels)`, token.pos)
    }
  }

  private parseOr(): FilterNode {
    const first = this.parseAnd()
    if (!this.isKeyword('OR')) return first
    const operands = [first]
    while (this.isKeyword('OR')) {
      this.next()
      operands.push(this.parseAnd())
    }
    return { kind: 'or', operands }
  }

  private parseAnd(): FilterNode {
    const first = this.parseNot()
    if (!this.isKeyword('AND')) return first
    const operands = [first]
    while (this.isKeyword('AND')) {
      this.next()
      operands.push(this.parseNot())
    }
    return { kind: 'and', operands }
  }

  private parseNot(): FilterNode {
    const token = this.peek()
    if (!this.isKeyword('NOT', token)) return this.parsePredicate()
    this.enter(token)
    this.next()
    const operand = this.parseNot()
    this.depth--
    return { kind: 'not', operand }
  }

  private parsePredicate(): FilterNode {
    const token = this.peek()
    if (token.kind === '(') {
      this.enter(token)
      this.next()
      const inner = this.parseOr()
      if (this.peek().kind !== ')') throw this.expected("')'")
      this.next()
      this.depth--
      return inner
    }
    const left = this.parseOperand()
    if (left === undefined) {
      if (token.kind === 'end') throw new SyntaxFailure('expected a condition', token.pos)
      throw this.unexpected(token)
    }
    const after = this.peek()
    if (after.kind === 'operator') {
      this.next()
      return { kind: 'compare', operator: after.operator, left, right: this.requireOperand() }
    }
    if (this.isKeyword('IS', after)) {
      this.next()
      const negated = this.isKeyword('NOT')
      if (negated) this.next()
      this.expectKeyword('NULL')
      return { kind: 'isNull', operand: left, negated }
    }
    let negated = false
    if (this.isKeyword('NOT', after)) {
      this.next()
      negated = true
      const word = this.peek()
      if (!this.isKeyword('IN', word) && !this.isKeyword('LIKE', word) && !this.isKeyword('BETWEEN', word)) {
        throw this.expected('IN, LIKE or BETWEEN after NOT')
      }
    }
    if (this.isKeyword('IN')) {
      this.next()
      return { kind: 'in', operand: left, values: this.parseList(), negated }
    }
    if (this.isKeyword('LIKE')) {
      this.next()
      const pattern = this.peek()
      if (pattern.kind !== 'string') throw this.expected('a quoted pattern after LIKE')
      this.next()
      return { kind: 'like', operand: left, pattern: pattern.value, negated }
    }
    if (this.isKeyword('BETWEEN')) {
      this.next()
      const low = this.requireOperand()
      this.expectKeyword('AND')
      const high = this.requireOperand()
      return { kind: 'between', operand: left, low, high, negated }
    }
    // A bare column, TRUE, FALSE or NULL is a truth value in its own right.
    if (left.kind === 'column' || left.kind === 'boolean' || left.kind === 'null') {
      return { kind: 'compare', operator: '=', left, right: { kind: 'boolean', value: true } }
    }
    throw this.expected('a comparison operator, IS, IN, LIKE or BETWEEN')
  }

  private parseList(): LiteralNode[] {
    if (this.peek().kind !== '(') throw this.expected("'(' after IN")
    this.next()
    const values: LiteralNode[] = []
    for (;;) {
      const token = this.peek()
      const value = this.parseOperand()
      if (value === undefined || value.kind === 'column') throw this.expected('a value', token)
      values.push(value)
      const separator = this.peek()
      if (separator.kind === ')') break
      if (separator.kind !== ',') throw this.expected("',' or ')'")
      this.next()
    }
    this.next()
    return values
  }

  private requireOperand(): ValueNode {
    const operand = this.parseOperand()
    if (operand === undefined) throw this.expected('a column or value')
    return operand
  }

  /** Reads an operand when the next token starts one; `undefined` (nothing consumed) otherwise. */
  private parseOperand(): ValueNode | undefined {
    const token = this.peek()
    switch (token.kind) {
      case 'quoted':
        this.next()
        return { kind: 'column', name: token.name }
      case 'number':
        this.next()
        return { kind: 'number', value: token.value, text: token.text }
      case 'string':
        this.next()
        return { kind: 'string', value: token.value }
      case '-': {
        this.next()
        const digits = this.peek()
        if (digits.kind !== 'number') throw this.expected("a number after '-'")
        this.next()
        return { kind: 'number', value: -digits.value, text: `-${digits.text}` }
      }
      case 'word':
        if (token.upper === 'TRUE' || token.upper === 'FALSE') {
          this.next()
          return { kind: 'boolean', value: token.upper === 'TRUE' }
        }
        if (token.upper === 'NULL') {
          this.next()
          return { kind: 'null' }
        }
        if (KEYWORDS.has(token.upper)) return undefined
        this.next()
        return { kind: 'column', name: token.text }
      default:
        return undefined
    }
  }
}

/**
 * Parses a filter condition. Errors say what was expected and where, as a 0-based character
 * offset: `expected ')' at position 14`, `unterminated string starting at position 3`,
 * `unexpected token 'AND' at position 0`. Text longer than {@link MAX_FILTER_LENGTH} or nested
 * deeper than {@link MAX_FILTER_DEPTH} is refused.
 */
export function parseFilter(text: string): ParseFilterResult {
  if (text.length > MAX_FILTER_LENGTH) {
    return {
      ok: false,
      error: {
        message: `condition too long (${text.length} characters, at most ${MAX_FILTER_LENGTH}) at position ${MAX_FILTER_LENGTH}`,
        position: MAX_FILTER_LENGTH,
      },
    }
  }
  try {
    return { ok: true, ast: new Parser(tokenize(text)).parse() }
  } catch (error) {
    if (error instanceof SyntaxFailure) return { ok: false, error: { message: error.message, position: error.position } }
    throw error
  }
}

/** A condition's leaves: the comparisons, IS NULL, IN, LIKE and BETWEEN tests. */
export type PredicateNode = Exclude<FilterNode, { kind: 'and' | 'or' | 'not' }>

/** The predicates of a condition, in order, below its AND / OR / NOT structure. */
export function predicatesOf(ast: FilterNode): PredicateNode[] {
  const out: PredicateNode[] = []
  const visit = (node: FilterNode): void => {
    if (node.kind === 'and' || node.kind === 'or') node.operands.forEach(visit)
    else if (node.kind === 'not') visit(node.operand)
    else out.push(node)
  }
  visit(ast)
  return out
}

/** Names of the columns a condition reads, each once, in order of first mention. */
export function columnsOf(ast: FilterNode): string[] {
  const names = new Set<string>()
  const value = (node: ValueNode) => {
    if (node.kind === 'column') names.add(node.name)
  }
  for (const node of predicatesOf(ast)) {
    switch (node.kind) {
      case 'compare':
        value(node.left)
        value(node.right)
        break
      case 'between':
        value(node.operand)
        value(node.low)
        value(node.high)
        break
      default:
        value(node.operand)
    }
  }
  return [...names]
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** SQL truth value: `null` is unknown. */
type Truth = boolean | null

/**
 * A value prepared once for repeated comparisons: a literal, with its text already read as a
 * number, boolean and timestamp, so rows do not pay for parsing it again.
 */
type Prepared =
  | { kind: 'null' }
  | { kind: 'number'; n: number | bigint }
  | { kind: 'string'; s: string; n: number | bigint | undefined; b: boolean | undefined; t: number | undefined }
  | { kind: 'boolean'; b: boolean }
  | { kind: 'date'; t: number }
  | { kind: 'other' }

function prepare(value: unknown): Prepared {
  if (value === null || value === undefined) return { kind: 'null' }
  if (typeof value === 'number') return Number.isNaN(value) ? { kind: 'other' } : { kind: 'number', n: value }
  if (typeof value === 'bigint') return { kind: 'number', n: value }
  if (typeof value === 'string') {
    return { kind: 'string', s: value, n: parseNumericText(value), b: parseBooleanText(value), t: parseTimestampText(value) }
  }
  if (typeof value === 'boolean') return { kind: 'boolean', b: value }
  if (value instanceof Date) {
    const t = value.getTime()
    return Number.isNaN(t) ? { kind: 'other' } : { kind: 'date', t }
  }
  return { kind: 'other' }
}

function literalValue(node: LiteralNode): unknown {
  switch (node.kind) {
    case 'number':
      // From the text, so 9007199254740993 is not rounded to 9007199254740992.
      return parseNumericText(node.text) ?? node.value
    case 'null':
      return null
    default:
      return node.value
  }
}

function order(a: number | bigint, b: number | bigint): number | undefined {
  // `<` and `>` compare numbers with bigints exactly; NaN is unordered.
  if (a < b) return -1
  if (a > b) return 1
  return a == b ? 0 : undefined
}

function orderBooleans(a: boolean, b: boolean): number {
  return a === b ? 0 : a ? 1 : -1
}

function booleanOfNumber(n: number | bigint): boolean | undefined {
  if (n == 1) return true
  if (n == 0) return false
  return undefined
}

function timeOf(date: Date): number | undefined {
  const t = date.getTime()
  return Number.isNaN(t) ? undefined : t
}

/** Compares a row value with a prepared value: -1, 0, 1, or `undefined` when unknown. */
function compareWith(a: unknown, p: Prepared): number | undefined {
  if (a === null || a === undefined) return undefined
  switch (p.kind) {
    case 'number': {
      if (typeof a === 'number' || typeof a === 'bigint') return order(a, p.n)
      if (typeof a === 'string') {
        const n = parseNumericText(a)
        return n === undefined ? undefined : order(n, p.n)
      }
      if (typeof a === 'boolean') {
        const b = booleanOfNumber(p.n)
        return b === undefined ? undefined : orderBooleans(a, b)
      }
      if (a instanceof Date) {
        const t = timeOf(a)
        return t === undefined ? undefined : order(t, p.n)
      }
      return undefined
    }
    case 'string': {
      if (typeof a === 'string') return a < p.s ? -1 : a > p.s ? 1 : 0
      if (typeof a === 'number' || typeof a === 'bigint') return p.n === undefined ? undefined : order(a, p.n)
      if (typeof a === 'boolean') return p.b === undefined ? undefined : orderBooleans(a, p.b)
      if (a instanceof Date) {
        const t = timeOf(a)
        return t === undefined || p.t === undefined ? undefined : order(t, p.t)
      }
      return undefined
    }
    case 'boolean': {
      if (typeof a === 'boolean') return orderBooleans(a, p.b)
      if (typeof a === 'number' || typeof a === 'bigint') {
        const b = booleanOfNumber(a)
        return b === undefined ? undefined : orderBooleans(b, p.b)
      }
      if (typeof a === 'string') {
        const b = parseBooleanText(a)
        return b === undefined ? undefined : orderBooleans(b, p.b)
      }
      return undefined
    }
    case 'date': {
      if (a instanceof Date) {
        const t = timeOf(a)
        return t === undefined ? undefined : order(t, p.t)
      }
      if (typeof a === 'string') {
        const t = parseTimestampText(a)
        return t === undefined ? undefined : order(t, p.t)
      }
      if (typeof a === 'number' || typeof a === 'bigint') return order(a, p.t)
      return undefined
    }
    default:
      return undefined
  }
}

/** Compares two row values; same rules as {@link compareWith}, with fast paths for like types. */
function compareValues(a: unknown, b: unknown): number | undefined {
  const ta = typeof a
  if (ta === typeof b) {
    if (ta === 'number') return order(a as number, b as number)
    if (ta === 'string') return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0
    if (ta === 'boolean') return orderBooleans(a as boolean, b as boolean)
  }
  return compareWith(a, prepare(b))
}

function holds(operator: CompareOperator, c: number): boolean {
  switch (operator) {
    case '=':
      return c === 0
    case '!=':
      return c !== 0
    case '<':
      return c < 0
    case '<=':
      return c <= 0
    case '>':
      return c > 0
    case '>=':
      return c >= 0
  }
}

const MIRROR: Readonly<Record<CompareOperator, CompareOperator>> = {
  '=': '=',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
}

const WILDCARD_ANY = -1
const WILDCARD_ONE = -2

/** Width in UTF-16 units of the character at `i`, so `_` matches a whole emoji. */
function charWidth(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1)
    if (d >= 0xdc00 && d <= 0xdfff) return 2
  }
  return 1
}

/**
 * Builds a LIKE matcher. No regular expression is involved, so characters such as `.` `*` `(`
 * in the pattern or the data are plain characters, and no pattern can make matching
 * backtrack exponentially (`%a%a%a%b` against a long string): the worst case is
 * pattern length × value length.
 */
function likeMatcher(pattern: string): (value: string) => boolean {
  if (!pattern.includes('_')) {
    const parts = pattern.split('%')
    if (parts.length === 1) return (v) => v === pattern
    const [first = '', last = ''] = [parts[0], parts[parts.length - 1]]
    if (parts.length === 2) {
      if (first === '') return (v) => v.endsWith(last)
      if (last === '') return (v) => v.startsWith(first)
    }
    if (parts.length === 3 && first === '' && last === '') {
      const middle = parts[1] as string
      return (v) => v.includes(middle)
    }
  }
  const codes: number[] = []
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]
    if (ch === '%') {
      if (codes[codes.length - 1] !== WILDCARD_ANY) codes.push(WILDCARD_ANY)
    } else if (ch === '_') codes.push(WILDCARD_ONE)
    else codes.push(pattern.charCodeAt(i))
  }
  const m = codes.length
  return (v) => {
    const n = v.length
    let p = 0
    let s = 0
    // Where the last `%` was and how much of the value it has swallowed so far.
    let starP = -1
    let starS = 0
    while (s < n) {
      const code = p < m ? (codes[p] as number) : undefined
      if (code === WILDCARD_ONE) {
        s += charWidth(v, s)
        p++
      } else if (code !== undefined && code >= 0 && code === v.charCodeAt(s)) {
        s++
        p++
      } else if (code === WILDCARD_ANY) {
        starP = p++
        starS = s
      } else if (starP >= 0) {
        p = starP + 1
        starS += charWidth(v, starS)
        s = starS
      } else return false
    }
    while (p < m && codes[p] === WILDCARD_ANY) p++
    return p === m
  }
}

/** How a compiled condition reads a column's value from the thing it is evaluated on. */
export type ColumnAccessor<C> = (name: string) => (context: C) => unknown

function compileNode<C>(node: FilterNode, column: ColumnAccessor<C>): (context: C) => Truth {
  const value = (operand: ValueNode): ((context: C) => unknown) => {
    if (operand.kind === 'column') return column(operand.name)
    const constant = literalValue(operand)
    return () => constant
  }
  const compare = (operator: CompareOperator, left: ValueNode, right: ValueNode): ((context: C) => Truth) => {
    // Put the literal on the right so that it is prepared once rather than once per row.
    if (left.kind !== 'column' && right.kind === 'column') return compare(MIRROR[operator], right, left)
    if (right.kind !== 'column') {
      const get = value(left)
      const prepared = prepare(literalValue(right))
      return (context) => {
        const c = compareWith(get(context), prepared)
        return c === undefined ? null : holds(operator, c)
      }
    }
    const getLeft = value(left)
    const getRight = value(right)
    return (context) => {
      const c = compareValues(getLeft(context), getRight(context))
      return c === undefined ? null : holds(operator, c)
    }
  }
  const negate = (inner: (context: C) => Truth, negated: boolean): ((context: C) => Truth) =>
    negated
      ? (context) => {
          const t = inner(context)
          return t === null ? null : !t
        }
      : inner

  switch (node.kind) {
    case 'and': {
      const operands = node.operands.map((operand) => compileNode(operand, column))
      return (context) => {
        let unknown = false
        for (const operand of operands) {
          const t = operand(context)
          if (t === false) return false
          if (t === null) unknown = true
        }
        return unknown ? null : true
      }
    }
    case 'or': {
      const operands = node.operands.map((operand) => compileNode(operand, column))
      return (context) => {
        let unknown = false
        for (const operand of operands) {
          const t = operand(context)
          if (t === true) return true
          if (t === null) unknown = true
        }
        return unknown ? null : false
      }
    }
    case 'not':
      return negate(compileNode(node.operand, column), true)
    case 'compare':
      return compare(node.operator, node.left, node.right)
    case 'isNull': {
      const get = value(node.operand)
      return node.negated
        ? (context) => {
            const v = get(context)
            return v !== null && v !== undefined
          }
        : (context) => {
            const v = get(context)
            return v === null || v === undefined
          }
    }
    case 'in': {
      const get = value(node.operand)
      const candidates = node.values.map((literal) => prepare(literalValue(literal)))
      const test = (context: C): Truth => {
        const v = get(context)
        if (v === null || v === undefined) return null
        let unknown = false
        for (const candidate of candidates) {
          const c = compareWith(v, candidate)
          if (c === 0) return true
          if (c === undefined) unknown = true
        }
        return unknown ? null : false
      }
      return negate(test, node.negated)
    }
    case 'like': {
      const get = value(node.operand)
      const matches = likeMatcher(node.pattern)
      const test = (context: C): Truth => {
        const v = get(context)
        return typeof v === 'string' ? matches(v) : null
      }
      return negate(test, node.negated)
    }
    case 'between': {
      const low = compare('>=', node.operand, node.low)
      const high = compare('<=', node.operand, node.high)
      const test = (context: C): Truth => {
        const a = low(context)
        if (a === false) return false
        const b = high(context)
        if (b === false) return false
        return a === null || b === null ? null : true
      }
      return negate(test, node.negated)
    }
  }
}

/**
 * Like {@link compileFilter}, for conditions evaluated on something other than a plain row:
 * `column(name)` is asked once per column mention and returns that column's reader.
 */
export function compileFilterWith<C>(ast: FilterNode, column: ColumnAccessor<C>): (context: C) => boolean {
  const test = compileNode(ast, column)
  return (context) => test(context) === true
}

function rowColumn(name: string): (row: Row) => unknown {
  // Plain objects inherit `constructor`, `toString`…: a row without such a column must read
  // as NULL, not as Object.prototype's function.
  if (name in Object.prototype) return (row) => (Object.hasOwn(row, name) ? row[name] : undefined)
  return (row) => row[name]
}

/**
 * Turns a parsed condition into a row predicate; build it once and call it for every row.
 *
 * Logic is SQL's three-valued logic: a comparison involving NULL (or a missing column) is
 * unknown; NOT unknown is unknown; `false AND unknown` is false and `true OR unknown` is true,
 * other mixes with unknown are unknown; a row is kept only when the whole condition is true.
 * `x IN (…)` is true when x equals a listed value, otherwise unknown when x is NULL or any
 * comparison was unknown (so `x NOT IN (1, NULL)` is never true), otherwise false.
 * `x BETWEEN a AND b` is `x >= a AND x <= b` (no match when a > b). `IS [NOT] NULL` is never
 * unknown.
 *
 * How values of different types compare (values arrive as numbers, strings, booleans, Dates,
 * bigints, or digit strings for integers beyond 2^53):
 *
 * - number with number (and bigint, and digit strings read as numbers): numerically, exactly
 *   even beyond 2^53 (`'9007199254740993' > 9007199254740992`). NaN is unknown.
 * - number with a string: numerically when the string is decimal text (`price > '10'`,
 *   `' 42 '`), otherwise unknown.
 * - string with string: by UTF-16 code units, case-sensitive (not locale collation); the same
 *   for strings holding numbers (`'10' < '9'` between two strings).
 * - boolean with boolean: false < true. With a number: only 1 and 0 count (as true and
 *   false). With a string: `true`/`false`/`yes`/`no`/`1`/`0` in any case. Else unknown.
 * - Date with a string: as instants when the string is ISO 8601 (UTC unless it has an
 *   offset), otherwise unknown. Date with a number: the number is epoch milliseconds.
 * - LIKE applies to strings only (other values are unknown); `%` matches any run of
 *   characters, `_` exactly one; there is no escape character and matching is case-sensitive.
 * - Anything else (objects, invalid dates, mismatched types) is unknown, like NULL.
 */
export function compileFilter(ast: FilterNode): (row: Row) => boolean {
  return compileFilterWith<Row>(ast, rowColumn)
}
