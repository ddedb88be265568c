/**
 * Statevector simulation of a validated circuit, with seeded measurement sampling.
 *
 * @module
 */

import { CIRCUIT_LIMITS, GATE_BY_SPELLING, isIntegerInRange, MAX_SEED, type Circuit, type Gate } from './gates.js'

/** Probabilities below this are numerical noise of the simulation, not outcomes. */
const PROBABILITY_EPSILON = 1e-12

/** Per-call overrides for {@link simulateCircuit}; they win over the circuit's own values. */
export type SimulateOptions = {
  /** Number of measurement samples; omitted means no sampling unless the circuit has shots. */
  shots?: number
  /** Seed for sampling; omitted means the circuit's seed, else a random one. */
  seed?: number
}

/** Result of {@link simulateCircuit}. */
export type SimulationResult = {
  /** Outcome probabilities keyed by bitstring q(n-1)…q0; negligible outcomes omitted. */
  probabilities: Record<string, number>
  /** Sampled counts (only observed outcomes), present when shots were requested. */
  counts?: Record<string, number>
  /** Final amplitudes, indexed by basis state (qubit 0 = least significant bit). */
  statevector: { re: number; im: number }[]
}

/** A 2×2 complex matrix, row-major, as [re, im] of m00, m01, m10, m11. */
type Matrix2 = readonly [number, number, number, number, number, number, number, number]

const INV_SQRT2 = Math.SQRT1_2
const HADAMARD: Matrix2 = [INV_SQRT2, 0, INV_SQRT2, 0, INV_SQRT2, 0, -INV_SQRT2, 0]
const PAULI_Y: Matrix2 = [0, 0, 0, -1, 0, 1, 0, 0]

/** Applies a general single-qubit unitary to every amplitude pair differing in `target`. */
function applyMatrix(re: Float64Array, im: Float64Array, target: number, m: Matrix2): void {
  const [ar, ai, br, bi, cr, ci, dr, di] = m
  const stride = 1 << target
  const dim = re.length
  // Walking blocks of 2·stride visits each (|…0…⟩, |…1…⟩) pair once without bit tests.
  for (let base = 0; base < dim; base += stride << 1) {
    for (let i0 = base; i0 < base + stride; i0++) {
      const i1 = i0 + stride
      const xr = re[i0]!
      const xi = im[i0]!
      const yr = re[i1]!
      const yi = im[i1]!
      re[i0] = ar * xr - ai * xi + br * yr - bi * yi
      im[i0] = ar * xi + ai * xr + br * yi + bi * yr
      re[i1] = cr * xr - ci * xi + dr * yr - di * yi
      im[i1] = cr * xi + ci * xr + dr * yi + di * yr
    }
  }
}

/** Applies diag(d0, d1) on `target`; diagonal gates need no pairing, only a scale. */
function applyDiagonal(re: Float64Array, im: Float64Array, target: number, d0r: number, d0i: number, d1r: number, d1i: number): void {
  const mask = 1 << target
  // Phase-type gates leave |0⟩ alone; skipping those halves the work.
  const touchZero = d0r !== 1 || d0i !== 0
  for (let i = 0; i < re.length; i++) {
    const isOne = (i & mask) !== 0
    if (!isOne && !touchZero) continue
    const dr = isOne ? d1r : d0r
    const di = isOne ? d1i : d0i
    const xr = re[i]!
    const xi = im[i]!
    re[i] = dr * xr - di * xi
    im[i] = dr * xi + di * xr
  }
}

function swapAmplitudes(re: Float64Array, im: Float64Array, a: number, b: number): void {
  const tr = re[a]!
  const ti = im[a]!
  re[a] = re[b]!
  im[a] = im[b]!
  re[b] = tr
  im[b] = ti
}

function applyX(re: Float64Array, im: Float64Array, target: number): void {
  const mask = 1 << target
  for (let i = 0; i < re.length; i++) {
    if ((i & mask) === 0) swapAmplitudes(re, im, i, i | mask)
  }
}

function applyCnot(re: Float64Array, im: Float64Array, control: number, target: number): void {
  const controlMask = 1 << control
  const targetMask = 1 << target
  for (let i = 0; i < re.length; i++) {
    if ((i & controlMask) !== 0 && (i & targetMask) === 0) swapAmplitudes(re, im, i, i | targetMask)
  }
}

function applyCz(re: Float64Array, im: Float64Array, a: number, b: number): void {
  const both = (1 << a) | (1 << b)
  for (let i = 0; i < re.length; i++) {
    if ((i & both) === both) {
      re[i] = -re[i]!
      im[i] = -im[i]!
    }
  }
}

function applySwap(re: Float64Array, im: Float64Array, a: number, b: number): void {
  const maskA = 1 << a
  const maskB = 1 << b
  for (let i = 0; i < re.length; i++) {
    // Only the |…1_a…0_b…⟩ ↔ |…0_a…1_b…⟩ pairs change; visit each pair from one side.
    if ((i & maskA) !== 0 && (i & maskB) === 0) swapAmplitudes(re, im, i, (i & ~maskA) | maskB)
  }
}

function applyPhase(re: Float64Array, im: Float64Array, target: number, theta: number): void {
  applyDiagonal(re, im, target, 1, 0, Math.cos(theta), Math.sin(theta))
}

function applyGate(re: Float64Array, im: Float64Array, gate: Gate): void {
  const q = gate.qubits[0]!
  const theta = gate.parameter ?? 0
  switch (gate.name) {
    case 'I':
      return
    case 'H':
      return applyMatrix(re, im, q, HADAMARD)
    case 'X':
      return applyX(re, im, q)
    case 'Y':
      return applyMatrix(re, im, q, PAULI_Y)
    case 'Z':
      return applyDiagonal(re, im, q, 1, 0, -1, 0)
    case 'S':
      return applyDiagonal(re, im, q, 1, 0, 0, 1)
    case 'SDG':
      return applyDiagonal(re, im, q, 1, 0, 0, -1)
    case 'T':
      return applyPhase(re, im, q, Math.PI / 4)
    case 'TDG':
      return applyPhase(re, im, q, -Math.PI / 4)
    case 'P':
      return applyPhase(re, im, q, theta)
    case 'RX': {
      const c = Math.cos(theta / 2)
      const s = Math.sin(theta / 2)
      return applyMatrix(re, im, q, [c, 0, 0, -s, 0, -s, c, 0])
    }
    case 'RY': {
      const c = Math.cos(theta / 2)
      const s = Math.sin(theta / 2)
      return applyMatrix(re, im, q, [c, 0, -s, 0, s, 0, c, 0])
    }
    case 'RZ': {
      const c = Math.cos(theta / 2)
      const s = Math.sin(theta / 2)
      return applyDiagonal(re, im, q, c, -s, c, s)
    }
    case 'CNOT':
      return applyCnot(re, im, q, gate.qubits[1]!)
    case 'CZ':
      return applyCz(re, im, q, gate.qubits[1]!)
    case 'SWAP':
      return applySwap(re, im, q, gate.qubits[1]!)
    default: {
      const unreachable: never = gate.name
      throw new Error(`unsupported gate ${String(unreachable)}`)
    }
  }
}

/**
 * Small seeded PRNG (a Weyl sequence through a 32-bit avalanche mix) returning
 * floats in [0, 1). Not cryptographic; only needs reproducibility per seed.
 */
function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    z ^= z >>> 16
    return (z >>> 0) / 4294967296
  }
}

/** Rejects circuits that did not come through {@link parseCircuit} and would misbehave. */
function assertSimulatable(circuit: Circuit, shots: number | undefined, seed: number | undefined): void {
  const n = circuit.qubits
  if (!isIntegerInRange(n, 1, CIRCUIT_LIMITS.maxQubits)) {
    throw new RangeError(`qubits must be an integer from 1 to ${CIRCUIT_LIMITS.maxQubits}`)
  }
  if (circuit.gates.length > CIRCUIT_LIMITS.maxGates) {
    throw new RangeError(`at most ${CIRCUIT_LIMITS.maxGates} gates are allowed`)
  }
  for (const gate of circuit.gates) {
    const spec = GATE_BY_SPELLING.get(gate.name)
    if (spec === undefined || spec.name !== gate.name) throw new RangeError(`unknown gate ${String(gate.name)}`)
    if (gate.qubits.length !== spec.arity || gate.qubits.some((q) => !isIntegerInRange(q, 0, n - 1))) {
      throw new RangeError(`${gate.name} has invalid qubits [${gate.qubits.join(', ')}] for ${n} qubits`)
    }
    if (spec.arity === 2 && gate.qubits[0] === gate.qubits[1]) {
      throw new RangeError(`${gate.name} needs two different qubits`)
    }
    if (spec.parametric && !Number.isFinite(gate.parameter)) {
      throw new RangeError(`${gate.name} needs a finite angle`)
    }
  }
  if (shots !== undefined && !isIntegerInRange(shots, 1, CIRCUIT_LIMITS.maxShots)) {
    throw new RangeError(`shots must be an integer from 1 to ${CIRCUIT_LIMITS.maxShots}`)
  }
  if (seed !== undefined && !isIntegerInRange(seed, 0, MAX_SEED)) {
    throw new RangeError(`seed must be an integer from 0 to ${MAX_SEED}`)
  }
}

/**
 * Simulates a circuit on a dense statevector starting from |0…0⟩, in
 * O(gates × 2^qubits) time and O(2^qubits) memory, and optionally samples
 * measurement counts.
 *
 * Bitstring keys are q(n-1)…q0 (Qiskit order): after `X 0` on two qubits the
 * outcome is `"01"`. Probabilities are rounded to 12 decimals and outcomes
 * below 1e-12 are omitted, so a Bell circuit yields exactly
 * `{ "00": 0.5, "11": 0.5 }`. Note that JSON object key order is not
 * meaningful: JavaScript lists keys such as `"11"` before `"00"`.
 *
 * @param circuit - a circuit, normally from {@link parseCircuit}.
 * @param options - shots/seed overriding the circuit's own; with shots and no
 *   seed anywhere, a random seed is used.
 * @throws RangeError if the circuit breaks {@link CIRCUIT_LIMITS} or is malformed.
 */
export function simulateCircuit(circuit: Circuit, options: SimulateOptions = {}): SimulationResult {
  const shots = options.shots ?? circuit.shots
  const seed = options.seed ?? circuit.seed
  assertSimulatable(circuit, shots, seed)

  const n = circuit.qubits
  const dim = 2 ** n
  const re = new Float64Array(dim)
  const im = new Float64Array(dim)
  re[0] = 1
  for (const gate of circuit.gates) applyGate(re, im, gate)

  const label = (index: number) => index.toString(2).padStart(n, '0')
  const probabilities: Record<string, number> = {}
  // Sampling uses the unrounded values so rounding never biases the counts.
  const outcomes: number[] = []
  const cumulative: number[] = []
  let total = 0
  for (let i = 0; i < dim; i++) {
    const p = re[i]! * re[i]! + im[i]! * im[i]!
    if (p < PROBABILITY_EPSILON) continue
    probabilities[label(i)] = Math.round(p * 1e12) / 1e12
    total += p
    outcomes.push(i)
    cumulative.push(total)
  }

  const statevector = Array.from({ length: dim }, (_, i) => ({ re: re[i]!, im: im[i]! }))
  if (shots === undefined) return { probabilities, statevector }

  const random = createRandom(seed ?? Math.floor(Math.random() * (MAX_SEED + 1)))
  const tally = new Uint32Array(outcomes.length)
  for (let shot = 0; shot < shots; shot++) {
    const u = random() * total
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cumulative[mid]! > u) hi = mid
      else lo = mid + 1
    }
    tally[lo] = tally[lo]! + 1
  }
  const counts: Record<string, number> = {}
  outcomes.forEach((index, k) => {
    if (tally[k]! > 0) counts[label(index)] = tally[k]!
  })
  return { probabilities, counts, statevector }
}
