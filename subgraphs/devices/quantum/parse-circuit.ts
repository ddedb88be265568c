/**
 * Parsing and validation of a circuit request (`{ qubits, gates, shots?, seed? }`): every
 * problem is reported with the field it is in, so a client can fix all of them at once.
 *
 * @module
 */

import { isRecord } from '../../../platform/validation/json-shapes.js'
import {
  CIRCUIT_LIMITS,
  GATE_BY_SPELLING,
  isIntegerInRange,
  MAX_SEED,
  SUPPORTED_GATES,
  type Circuit,
  type Gate,
  type GateSpec,
  type ValidationIssue,
} from './gates.js'

/** Outcome of {@link parseCircuit}: either a circuit or every problem found. */
export type ParseCircuitResult = { ok: true; circuit: Circuit } | { ok: false; issues: ValidationIssue[] }

const SUPPORTED_NAMES_TEXT = SUPPORTED_GATES.map((spec) => (spec.aliases.length > 0 ? `${spec.name} (${spec.aliases.join(', ')})` : spec.name)).join(', ')

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  if (typeof value === 'number') return String(value)
  return `a ${typeof value}`
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

const DECIMAL_ANGLE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i
// Only `[±][k*]pi[/d]`: enough for the angles people actually write, small
// enough to parse without an expression evaluator (never eval client input).
const PI_ANGLE = /^([+-])?(?:(\d+(?:\.\d+)?)\s*\*\s*)?(?:pi|π)(?:\s*\/\s*(\d+(?:\.\d+)?))?$/i

/**
 * Parses an angle written as a decimal number of radians or as a multiple of
 * pi (`pi`, `-pi`, `pi/2`, `2*pi`, `3*pi/4`, `-pi/4`).
 *
 * @returns the angle in radians, or `null` if the text is not of that form or
 *   does not denote a finite number.
 */
export function parseAngle(text: string): number | null {
  const trimmed = text.trim()
  if (DECIMAL_ANGLE.test(trimmed)) {
    const value = Number(trimmed)
    return Number.isFinite(value) ? value : null
  }
  const match = PI_ANGLE.exec(trimmed)
  if (match === null) return null
  const sign = match[1] === '-' ? -1 : 1
  const factor = match[2] === undefined ? 1 : Number(match[2])
  const divisor = match[3] === undefined ? 1 : Number(match[3])
  if (divisor === 0) return null
  const value = (sign * factor * Math.PI) / divisor
  return Number.isFinite(value) ? value : null
}

/**
 * Parses one gate string. `qubitCount` is undefined when the circuit's own
 * qubit count was invalid, in which case range checks are skipped rather than
 * reported against a number the client never meant.
 */
function parseGate(raw: string, field: string, qubitCount: number | undefined): { gate: Gate | null; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  const fail = (message: string) => {
    issues.push({ field, message })
    return { gate: null, issues }
  }

  const text = raw.trim()
  const head = /^([A-Za-z][A-Za-z0-9]*)([\s\S]*)$/.exec(text)
  if (head === null || head[1] === undefined) {
    return fail(text === '' ? 'gate must not be empty' : `malformed gate ${JSON.stringify(raw)}: expected "NAME", "NAME q", "NAME q1 q2" or "NAME(angle) q"`)
  }
  const spelledName = head[1]
  let rest = (head[2] ?? '').trim()

  const spec = GATE_BY_SPELLING.get(spelledName.toUpperCase())
  if (spec === undefined) {
    return fail(`unknown gate "${spelledName}"; supported gates: ${SUPPORTED_NAMES_TEXT}`)
  }

  let angleText: string | undefined
  if (rest.startsWith('(')) {
    const close = rest.indexOf(')')
    if (close === -1) return fail(`missing ")" after the angle of ${spec.name}`)
    angleText = rest.slice(1, close)
    rest = rest.slice(close + 1).trim()
  }

  let parameter: number | undefined
  if (spec.parametric) {
    if (angleText === undefined) {
      issues.push({
        field,
        message: `${spec.name} needs an angle in radians, e.g. "${spec.name}(pi/2) 0"`,
      })
    } else {
      const angle = parseAngle(angleText)
      if (angle === null) {
        issues.push({
          field,
          message: `malformed angle "${angleText.trim()}" for ${spec.name}: expected a finite number of radians or a multiple of pi such as pi/2, -pi/4, 3*pi/4`,
        })
      } else {
        parameter = angle
      }
    }
  } else if (angleText !== undefined) {
    issues.push({ field, message: `${spec.name} takes no angle, but "(${angleText})" was given` })
  }

  const tokens = rest === '' ? [] : rest.split(/\s*,\s*|\s+/)
  let qubits: number[] | null = null

  if (tokens.includes('')) {
    issues.push({ field, message: 'empty operand: separate qubit indices with spaces or a single comma' })
  } else if (tokens.length === 0) {
    // Bare names are the legacy body format: ["H", "CNOT"] is a Bell circuit.
    if (spec.arity === 1) {
      qubits = [0]
    } else if (qubitCount !== undefined && qubitCount < 2) {
      issues.push({
        field,
        message: `${spec.name} without operands acts on qubits 0 and 1, which needs a circuit of at least 2 qubits (this one has ${qubitCount})`,
      })
    } else {
      qubits = [0, 1]
    }
  } else if (tokens.length !== spec.arity) {
    const expected = spec.arity === 1 ? '1 qubit' : spec.name === 'SWAP' ? '2 qubits' : '2 qubits (control, target)'
    issues.push({
      field,
      message: `${spec.name} acts on ${expected} but ${plural(tokens.length, 'operand')} ${tokens.length === 1 ? 'was' : 'were'} given`,
    })
  } else {
    const parsed: number[] = []
    for (const token of tokens) {
      const index = /^\d+$/.test(token) ? Number(token) : Number.NaN
      if (!Number.isSafeInteger(index)) {
        issues.push({
          field,
          message: `operand "${token}" is not a qubit index (expected a non-negative integer)`,
        })
        continue
      }
      if (qubitCount !== undefined && index >= qubitCount) {
        issues.push({
          field,
          message: `qubit ${index} is out of range for a ${qubitCount}-qubit circuit (valid: 0..${qubitCount - 1})`,
        })
        continue
      }
      parsed.push(index)
    }
    if (parsed.length === spec.arity) {
      if (spec.arity === 2 && parsed[0] === parsed[1]) {
        issues.push({
          field,
          message: `${spec.name} needs two different qubits, but qubit ${parsed[0]} was given twice`,
        })
      } else {
        qubits = parsed
      }
    }
  }

  if (issues.length > 0 || qubits === null) return { gate: null, issues }
  const gate: Gate = { name: spec.name, qubits }
  if (parameter !== undefined) gate.parameter = parameter
  return { gate, issues }
}

/**
 * Validates a request body of the form
 * `{ qubits: integer, gates: string[], shots?: integer, seed?: integer }`.
 *
 * All problems are collected, not just the first, so a client can fix its
 * request in one round trip. Unknown top-level properties are ignored (older
 * clients send extra fields); `null` for `shots`/`seed` counts as omitted.
 *
 * @param input - the parsed JSON body, of unknown shape.
 * @returns the normalised circuit (canonical gate names, explicit operands,
 *   angles in radians) or the list of issues.
 */
export function parseCircuit(input: unknown): ParseCircuitResult {
  if (!isRecord(input)) {
    return {
      ok: false,
      issues: [{ field: 'body', message: `expected a JSON object with "qubits" and "gates", got ${describeValue(input)}` }],
    }
  }
  const body: { qubits?: unknown; gates?: unknown; shots?: unknown; seed?: unknown } = input
  const issues: ValidationIssue[] = []
  const { maxQubits, maxGates, maxShots } = CIRCUIT_LIMITS

  let qubitCount: number | undefined
  if (body.qubits === undefined) {
    issues.push({ field: 'qubits', message: `qubits is required (an integer from 1 to ${maxQubits})` })
  } else if (!isIntegerInRange(body.qubits, 1, maxQubits)) {
    issues.push({
      field: 'qubits',
      message: `qubits must be an integer from 1 to ${maxQubits}, got ${describeValue(body.qubits)}`,
    })
  } else {
    qubitCount = body.qubits
  }

  const gates: Gate[] = []
  if (body.gates === undefined) {
    issues.push({ field: 'gates', message: 'gates is required (an array of gate strings, may be empty)' })
  } else if (!Array.isArray(body.gates)) {
    issues.push({ field: 'gates', message: `gates must be an array of strings, got ${describeValue(body.gates)}` })
  } else if (body.gates.length > maxGates) {
    // Per-item issues for an oversized list would only produce an oversized response.
    issues.push({
      field: 'gates',
      message: `at most ${maxGates} gates are allowed, got ${body.gates.length}`,
    })
  } else {
    body.gates.forEach((item: unknown, index) => {
      const field = `gates[${index}]`
      if (typeof item !== 'string') {
        issues.push({ field, message: `gate must be a string such as "H 0" or "CNOT 0 1", got ${describeValue(item)}` })
        return
      }
      const result = parseGate(item, field, qubitCount)
      issues.push(...result.issues)
      if (result.gate !== null) gates.push(result.gate)
    })
  }

  let shots: number | undefined
  if (body.shots !== undefined && body.shots !== null) {
    if (isIntegerInRange(body.shots, 1, maxShots)) {
      shots = body.shots
    } else {
      issues.push({
        field: 'shots',
        message: `shots must be an integer from 1 to ${maxShots}, got ${describeValue(body.shots)}`,
      })
    }
  }

  let seed: number | undefined
  if (body.seed !== undefined && body.seed !== null) {
    if (isIntegerInRange(body.seed, 0, MAX_SEED)) {
      seed = body.seed
    } else {
      issues.push({
        field: 'seed',
        message: `seed must be an integer from 0 to ${MAX_SEED}, got ${describeValue(body.seed)}`,
      })
    }
  }

  if (issues.length > 0 || qubitCount === undefined) return { ok: false, issues }
  const circuit: Circuit = { qubits: qubitCount, gates }
  if (shots !== undefined) circuit.shots = shots
  if (seed !== undefined) circuit.seed = seed
  return { ok: true, circuit }
}
