/**
 * The gates and limits of the device gateway's quantum circuits, declared once as data so
 * the parser, the simulator, the error messages and the API documentation cannot drift apart.
 * Conventions follow Qiskit: qubit 0 is the least significant bit of a basis-state index and
 * bitstrings are printed q(n-1)…q0.
 *
 * @module
 */

/**
 * Hard limits on what a caller may ask for. They bound memory (2^maxQubits
 * amplitudes) and CPU (gates × 2^qubits, shots × log states) per request.
 */
export const CIRCUIT_LIMITS = { maxQubits: 16, maxGates: 1000, maxShots: 100000 } as const

/** Largest accepted seed; seeds are used as 32-bit PRNG state. */
export const MAX_SEED = 0xffffffff

/** One validation problem, addressed by a JSON path into the request body. */
export type ValidationIssue = {
  /** JSON path of the offending value, e.g. `qubits`, `gates[2]`, `shots`. */
  field: string
  /** Human-readable explanation meant to be shown to the API client. */
  message: string
}

/**
 * Every gate the simulator understands. Declared once, as data, so that the
 * parser, the error messages and any API documentation cannot drift apart.
 */
export const SUPPORTED_GATES = [
  { name: 'H', arity: 1, parametric: false, aliases: [], description: 'Hadamard' },
  { name: 'X', arity: 1, parametric: false, aliases: [], description: 'Pauli-X (NOT)' },
  { name: 'Y', arity: 1, parametric: false, aliases: [], description: 'Pauli-Y' },
  { name: 'Z', arity: 1, parametric: false, aliases: [], description: 'Pauli-Z' },
  { name: 'S', arity: 1, parametric: false, aliases: [], description: 'phase π/2 (√Z)' },
  { name: 'SDG', arity: 1, parametric: false, aliases: [], description: 'inverse of S' },
  { name: 'T', arity: 1, parametric: false, aliases: [], description: 'phase π/4 (√S)' },
  { name: 'TDG', arity: 1, parametric: false, aliases: [], description: 'inverse of T' },
  { name: 'I', arity: 1, parametric: false, aliases: ['ID'], description: 'identity' },
  { name: 'RX', arity: 1, parametric: true, aliases: [], description: 'rotation about X by θ' },
  { name: 'RY', arity: 1, parametric: true, aliases: [], description: 'rotation about Y by θ' },
  { name: 'RZ', arity: 1, parametric: true, aliases: [], description: 'rotation about Z by θ' },
  { name: 'P', arity: 1, parametric: true, aliases: [], description: 'phase θ on |1⟩' },
  { name: 'CNOT', arity: 2, parametric: false, aliases: ['CX'], description: 'controlled NOT (control, target)' },
  { name: 'CZ', arity: 2, parametric: false, aliases: [], description: 'controlled Z' },
  { name: 'SWAP', arity: 2, parametric: false, aliases: [], description: 'swap two qubits' },
] as const satisfies readonly {
  name: string
  arity: 1 | 2
  parametric: boolean
  aliases: readonly string[]
  description: string
}[]

/** Canonical (upper-case) name of a supported gate. */
export type GateName = (typeof SUPPORTED_GATES)[number]['name']

/** Static description of a supported gate, as listed in {@link SUPPORTED_GATES}. */
export type GateSpec = {
  /** Canonical upper-case name. */
  readonly name: GateName
  /** Number of qubits the gate acts on. */
  readonly arity: 1 | 2
  /** Whether the gate takes an angle in radians, written `NAME(angle)`. */
  readonly parametric: boolean
  /** Other accepted spellings (upper case; matching is case-insensitive). */
  readonly aliases: readonly string[]
  /** Short human-readable description. */
  readonly description: string
}

/**
 * A validated gate application. For two-qubit gates `qubits` is ordered:
 * `[control, target]` for CNOT/CZ, the two swapped qubits for SWAP.
 */
export type Gate = {
  /** Canonical gate name (aliases are resolved). */
  name: GateName
  /** Qubit indices the gate acts on, one per arity. */
  qubits: number[]
  /** Rotation/phase angle in radians; present exactly for parametric gates. */
  parameter?: number
}

/** A validated circuit, ready for {@link simulateCircuit}. */
export type Circuit = {
  /** Number of qubits, 1..{@link CIRCUIT_LIMITS}.maxQubits. */
  qubits: number
  /** Gates in application order. */
  gates: Gate[]
  /** Number of measurement samples to draw, if any. */
  shots?: number
  /** PRNG seed for reproducible sampling, 0..2^32-1. */
  seed?: number
}

/** Every spelling of a gate (its name and aliases) to its description. */
export const GATE_BY_SPELLING: ReadonlyMap<string, GateSpec> = new Map(
  SUPPORTED_GATES.flatMap((spec): [string, GateSpec][] => [[spec.name, spec], ...spec.aliases.map((alias): [string, GateSpec] => [alias, spec])]),
)

/** True for an integer from `min` to `max`. */
export function isIntegerInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
}
