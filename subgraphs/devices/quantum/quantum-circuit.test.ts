import { describe, expect, it } from 'vitest'
import { CIRCUIT_LIMITS, SUPPORTED_GATES, parseCircuit, simulateCircuit, type Circuit, type SimulationResult, type ValidationIssue } from './index.js'

/** Parses a body that the test expects to be valid, failing loudly otherwise. */
function circuitOf(body: unknown): Circuit {
  const result = parseCircuit(body)
  if (!result.ok) throw new Error(`expected a valid circuit, got ${JSON.stringify(result.issues)}`)
  return result.circuit
}

function run(qubits: number, gates: string[], options?: { shots?: number; seed?: number }): SimulationResult {
  return simulateCircuit(circuitOf({ qubits, gates }), options)
}

function issuesOf(body: unknown): ValidationIssue[] {
  const result = parseCircuit(body)
  if (result.ok) throw new Error(`expected issues, got a valid circuit ${JSON.stringify(result.circuit)}`)
  return result.issues
}

function sum(record: Record<string, number>): number {
  return Object.values(record).reduce((a, b) => a + b, 0)
}

/** Deterministic generator so the "random" circuits are the same on every run. */
function testRandom(seed: number): () => number {
  let s = seed
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 4294967296
  }
}

function randomGates(qubits: number, count: number, seed: number): string[] {
  const random = testRandom(seed)
  const pick = (n: number) => Math.floor(random() * n)
  const gates: string[] = []
  for (let k = 0; k < count; k++) {
    const spec = SUPPORTED_GATES[pick(SUPPORTED_GATES.length)]!
    const a = pick(qubits)
    const b = (a + 1 + pick(qubits - 1)) % qubits
    const angle = spec.parametric ? `(${(random() * 6.28 - 3.14).toFixed(4)})` : ''
    gates.push(spec.arity === 2 ? `${spec.name} ${a} ${b}` : `${spec.name}${angle} ${a}`)
  }
  return gates
}

describe('simulateCircuit', () => {
  it('turns the legacy bare-name body into a Bell state', () => {
    const result = simulateCircuit(circuitOf({ qubits: 2, gates: ['H', 'CNOT'] }))
    expect(result.probabilities).toEqual({ '00': 0.5, '11': 0.5 })
    expect(result.counts).toBeUndefined()
    expect(result.statevector).toHaveLength(4)
    expect(result.statevector[0]!.re).toBeCloseTo(Math.SQRT1_2, 12)
    expect(result.statevector[3]!.re).toBeCloseTo(Math.SQRT1_2, 12)
  })

  it('writes bitstrings q(n-1)…q0, so X on qubit 0 of 2 reads "01"', () => {
    expect(run(2, ['X 0']).probabilities).toEqual({ '01': 1 })
    expect(run(3, ['X 2']).probabilities).toEqual({ '100': 1 })
  })

  it('distinguishes control and target of CNOT', () => {
    expect(run(2, ['X 0', 'CNOT 0 1']).probabilities).toEqual({ '11': 1 })
    expect(run(2, ['X 0', 'CNOT 1 0']).probabilities).toEqual({ '01': 1 })
  })

  it('accepts CX and comma-separated operands as CNOT', () => {
    expect(run(2, ['x 0', 'cx 0, 1']).probabilities).toEqual({ '11': 1 })
    expect(run(2, ['X 0', 'CNOT 0,1']).probabilities).toEqual({ '11': 1 })
  })

  it('prepares a 3-qubit GHZ state', () => {
    expect(run(3, ['H 0', 'CNOT 0 1', 'CNOT 1 2']).probabilities).toEqual({ '000': 0.5, '111': 0.5 })
  })

  it('undoes H with a second H', () => {
    const result = run(1, ['H 0', 'H 0'])
    expect(result.probabilities).toEqual({ '0': 1 })
    expect(result.statevector[0]!.re).toBeCloseTo(1, 12)
  })

  it('makes RX(pi) act like X up to a global phase', () => {
    const rx = run(2, ['RX(pi) 1'])
    expect(rx.probabilities).toEqual(run(2, ['X 1']).probabilities)
    expect(rx.probabilities).toEqual({ '10': 1 })
    // RX(π) = -iX: the phase is visible in the amplitude, not in the probabilities.
    expect(rx.statevector[2]!.im).toBeCloseTo(-1, 12)
  })

  it('composes S·S into Z (H Z H = X)', () => {
    expect(run(1, ['H', 'S', 'S', 'H']).probabilities).toEqual({ '1': 1 })
    expect(run(1, ['H', 'Z', 'H']).probabilities).toEqual({ '1': 1 })
    // S·SDG must cancel, so a wrong sign in either would show up here.
    expect(run(1, ['H', 'S', 'SDG', 'H']).probabilities).toEqual({ '0': 1 })
    expect(run(1, ['H', 'T', 'T', 'SDG', 'H']).probabilities).toEqual({ '0': 1 })
  })

  it('applies Qiskit phase conventions for Y, P and RZ', () => {
    // Y|0⟩ = i|1⟩
    const y = run(1, ['Y']).statevector
    expect(y[1]!.im).toBeCloseTo(1, 12)
    // RZ(θ) = diag(e^{-iθ/2}, e^{iθ/2}): on |1⟩ with θ = π the amplitude is i.
    const rz = run(1, ['X', 'RZ(pi) 0']).statevector
    expect(rz[1]!.im).toBeCloseTo(1, 12)
    // P(π/2) on |+⟩ then H gives the same split as S: 50/50.
    expect(run(1, ['H', 'P(pi/2) 0', 'H']).probabilities).toEqual({ '0': 0.5, '1': 0.5 })
    expect(run(1, ['RY(pi/2) 0']).probabilities).toEqual({ '0': 0.5, '1': 0.5 })
  })

  it('moves a 1 from q0 to q1 with SWAP', () => {
    expect(run(2, ['X 0', 'SWAP 0 1']).probabilities).toEqual({ '10': 1 })
    expect(run(3, ['X 0', 'SWAP 2 0']).probabilities).toEqual({ '100': 1 })
  })

  it('flips the phase of |11⟩ only with CZ', () => {
    // H CZ H on the target is a CNOT.
    expect(run(2, ['X 0', 'H 1', 'CZ 0 1', 'H 1']).probabilities).toEqual({ '11': 1 })
    expect(run(2, ['H 1', 'CZ 0 1', 'H 1']).probabilities).toEqual({ '00': 1 })
  })

  it('keeps probabilities summing to 1 on a random 10-qubit circuit', () => {
    const result = run(10, randomGates(10, 300, 7))
    expect(Object.keys(result.probabilities).length).toBeGreaterThan(1)
    expect(sum(result.probabilities)).toBeCloseTo(1, 8)
    for (const key of Object.keys(result.probabilities)) expect(key).toMatch(/^[01]{10}$/)
  })

  it('gives reproducible counts for a seed, summing to shots', () => {
    const circuit = circuitOf({ qubits: 3, gates: randomGates(3, 40, 3) })
    const first = simulateCircuit(circuit, { shots: 1000, seed: 42 })
    const second = simulateCircuit(circuit, { shots: 1000, seed: 42 })
    expect(first.counts).toEqual(second.counts)
    expect(sum(first.counts!)).toBe(1000)
    const other = simulateCircuit(circuit, { shots: 1000, seed: 43 })
    expect(other.counts).not.toEqual(first.counts)
  })

  it('uses shots and seed from the request body', () => {
    const circuit = circuitOf({ qubits: 2, gates: ['H', 'CNOT'], shots: 500, seed: 9 })
    const a = simulateCircuit(circuit)
    expect(sum(a.counts!)).toBe(500)
    expect(simulateCircuit(circuit).counts).toEqual(a.counts)
  })

  it('samples the Bell state close to 50/50', () => {
    const { counts } = run(2, ['H 0', 'CNOT 0 1'], { shots: 10000, seed: 123 })
    expect(Object.keys(counts!).sort()).toEqual(['00', '11'])
    expect(counts!['00']! + counts!['11']!).toBe(10000)
    expect(counts!['00']! / 10000).toBeGreaterThanOrEqual(0.45)
    expect(counts!['00']! / 10000).toBeLessThanOrEqual(0.55)
    expect(counts!['11']! / 10000).toBeGreaterThanOrEqual(0.45)
    expect(counts!['11']! / 10000).toBeLessThanOrEqual(0.55)
  })

  it('still samples without a seed', () => {
    const { counts } = run(1, ['X'], { shots: 10 })
    expect(counts).toEqual({ '1': 10 })
  })

  it('runs 16 qubits × 1000 gates', () => {
    const gates = randomGates(CIRCUIT_LIMITS.maxQubits, CIRCUIT_LIMITS.maxGates, 11)
    const result = run(CIRCUIT_LIMITS.maxQubits, gates)
    expect(result.statevector).toHaveLength(2 ** 16)
    expect(sum(result.probabilities)).toBeCloseTo(1, 6)
  })

  it('rejects circuits that bypass parseCircuit', () => {
    expect(() => simulateCircuit({ qubits: 17, gates: [] })).toThrow(RangeError)
    expect(() => simulateCircuit({ qubits: 2, gates: [{ name: 'X', qubits: [2] }] })).toThrow(RangeError)
    expect(() => simulateCircuit({ qubits: 2, gates: [] }, { shots: 0 })).toThrow(RangeError)
  })
})

describe('parseCircuit', () => {
  it('normalises names, aliases, operands and angles', () => {
    const circuit = circuitOf({
      qubits: 3,
      gates: ['  h  ', 'cx 0, 2', 'rz(-pi/4) 1', 'P(3*pi/4) 2', 'RX(2*PI) 0', 'RY(0.5) 1', 'rx(-pi) 0', 'id 2'],
      shots: 10,
      seed: 0,
    })
    expect(circuit).toEqual({
      qubits: 3,
      shots: 10,
      seed: 0,
      gates: [
        { name: 'H', qubits: [0] },
        { name: 'CNOT', qubits: [0, 2] },
        { name: 'RZ', qubits: [1], parameter: -Math.PI / 4 },
        { name: 'P', qubits: [2], parameter: (3 * Math.PI) / 4 },
        { name: 'RX', qubits: [0], parameter: 2 * Math.PI },
        { name: 'RY', qubits: [1], parameter: 0.5 },
        { name: 'RX', qubits: [0], parameter: -Math.PI },
        { name: 'I', qubits: [2] },
      ],
    })
  })

  it('accepts an empty gate list', () => {
    expect(run(2, []).probabilities).toEqual({ '00': 1 })
  })

  it('rejects a body that is not an object', () => {
    expect(issuesOf([1, 2])).toEqual([{ field: 'body', message: expect.any(String) }])
    expect(issuesOf(null)[0]!.field).toBe('body')
  })

  it.each([
    ['missing', undefined],
    ['zero', 0],
    ['too many', 17],
    ['fractional', 1.5],
    ['a string', '2'],
  ])('rejects qubits that are %s', (_label, qubits) => {
    expect(issuesOf({ qubits, gates: [] })).toEqual([{ field: 'qubits', message: expect.any(String) }])
  })

  it('rejects gates that are missing, not an array or too long', () => {
    expect(issuesOf({ qubits: 1 })).toEqual([{ field: 'gates', message: expect.any(String) }])
    expect(issuesOf({ qubits: 1, gates: 'H' })).toEqual([{ field: 'gates', message: expect.any(String) }])
    const tooMany = issuesOf({ qubits: 1, gates: Array(CIRCUIT_LIMITS.maxGates + 1).fill('H') })
    expect(tooMany).toEqual([{ field: 'gates', message: expect.stringContaining('1000') }])
  })

  it('accepts exactly maxGates gates', () => {
    expect(parseCircuit({ qubits: 1, gates: Array(CIRCUIT_LIMITS.maxGates).fill('H') }).ok).toBe(true)
  })

  it.each([
    ['zero', 0],
    ['above the limit', 100001],
    ['fractional', 2.5],
    ['a string', '10'],
  ])('rejects shots that are %s', (_label, shots) => {
    expect(issuesOf({ qubits: 1, gates: [], shots })).toEqual([{ field: 'shots', message: expect.any(String) }])
  })

  it.each([
    ['negative', -1],
    ['above 2^32-1', 2 ** 32],
    ['fractional', 0.5],
  ])('rejects a seed that is %s', (_label, seed) => {
    expect(issuesOf({ qubits: 1, gates: [], seed })).toEqual([{ field: 'seed', message: expect.any(String) }])
  })

  it('accepts the largest seed and shots', () => {
    expect(parseCircuit({ qubits: 1, gates: [], shots: 100000, seed: 2 ** 32 - 1 }).ok).toBe(true)
  })

  it('names the supported gates when a gate is unknown', () => {
    const [issue] = issuesOf({ qubits: 2, gates: ['H 0', 'FOO 1'] })
    expect(issue!.field).toBe('gates[1]')
    expect(issue!.message).toContain('FOO')
    for (const name of ['H', 'CNOT', 'CX', 'SWAP', 'RZ']) expect(issue!.message).toContain(name)
  })

  it.each([
    ['a non-string item', 42, /string/],
    ['an empty string', '  ', /empty/],
    ['a malformed string', '0 H', /malformed/],
    ['too many operands on a 1-qubit gate', 'H 0 1', /1 qubit.*2 operands/],
    ['one operand on a 2-qubit gate', 'CNOT 0', /2 qubits.*1 operand/],
    ['a negative operand', 'X -1', /not a qubit index/],
    ['a fractional operand', 'X 1.5', /not a qubit index/],
    ['a word operand', 'X one', /not a qubit index/],
    ['the same qubit twice', 'CNOT 1 1', /different qubits/],
    ['a missing angle', 'RX 0', /needs an angle/],
    ['an unexpected angle', 'H(pi) 0', /takes no angle/],
    ['a malformed angle', 'RZ(pi*2) 0', /malformed angle/],
    ['a non-numeric angle', 'RZ(abc) 0', /malformed angle/],
    ['an empty angle', 'P() 0', /malformed angle/],
    ['division by zero in an angle', 'P(pi/0) 0', /malformed angle/],
    ['an infinite angle', 'P(1e999) 0', /malformed angle/],
    ['an unclosed angle', 'RX(pi 0', /missing "\)"/],
    ['a stray comma', 'CNOT 0,,1', /empty operand/],
  ])('reports %s on the gate', (_label, gate, message) => {
    const issues = issuesOf({ qubits: 2, gates: ['H 0', gate] })
    expect(issues.length).toBeGreaterThan(0)
    for (const issue of issues) expect(issue.field).toBe('gates[1]')
    expect(issues.map((i) => i.message).join('\n')).toMatch(message)
  })

  it('reports out-of-range qubits with the circuit size', () => {
    expect(issuesOf({ qubits: 2, gates: ['X 3'] })).toEqual([
      { field: 'gates[0]', message: expect.stringContaining('qubit 3 is out of range for a 2-qubit circuit') },
    ])
  })

  it('needs two qubits for a bare two-qubit gate', () => {
    expect(issuesOf({ qubits: 1, gates: ['CNOT'] })).toEqual([{ field: 'gates[0]', message: expect.stringContaining('at least 2 qubits') }])
  })

  it('returns every issue at once', () => {
    const issues = issuesOf({ qubits: 2, gates: ['H 0', 'FOO', 7, 'X 5', 'CZ 0 0'], shots: 0, seed: -3 })
    expect(issues.map((i) => i.field)).toEqual(['gates[1]', 'gates[2]', 'gates[3]', 'gates[4]', 'shots', 'seed'])
  })

  it('still checks gate syntax when qubits is invalid, but not qubit ranges', () => {
    const issues = issuesOf({ qubits: 40, gates: ['X 30', 'BAR 0'] })
    expect(issues.map((i) => i.field)).toEqual(['qubits', 'gates[1]'])
  })
})
