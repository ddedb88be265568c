/**
 * Quantum circuit parsing, validation and statevector simulation for the
 * device gateway's `POST /v1/quantum/circuit` endpoint.
 *
 * Pure domain code: no I/O, no framework types. Conventions follow Qiskit so
 * results can be cross-checked against it: qubit 0 is the least significant
 * bit of a basis-state index and bitstrings are printed q(n-1)…q0.
 *
 * @module
 */

import { isRecord } from '../../platform/validation/json-shapes.js';

/**
 * Hard limits on what a caller may ask for. They bound memory (2^maxQubits
 * amplitudes) and CPU (gates × 2^qubits, shots × log states) per request.
 */
export const CIRCUIT_LIMITS = { maxQubits: 16, maxGates: 1000, maxShots: 100000 } as const;

/** Largest accepted seed; seeds are used as 32-bit PRNG state. */
const MAX_SEED = 0xffffffff;

/** Probabilities below this are numerical noise of the simulation, not outcomes. */
const PROBABILITY_EPSILON = 1e-12;

/** One validation problem, addressed by a JSON path into the request body. */
export type ValidationIssue = {
  /** JSON path of the offending value, e.g. `qubits`, `gates[2]`, `shots`. */
  field: string;
  /** Human-readable explanation meant to be shown to the API client. */
  message: string;
};

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
  name: string;
  arity: 1 | 2;
  parametric: boolean;
  aliases: readonly string[];
  description: string;
}[];

/** Canonical (upper-case) name of a supported gate. */
export type GateName = (typeof SUPPORTED_GATES)[number]['name'];

/** Static description of a supported gate, as listed in {@link SUPPORTED_GATES}. */
export type GateSpec = {
  /** Canonical upper-case name. */
  readonly name: GateName;
  /** Number of qubits the gate acts on. */
  readonly arity: 1 | 2;
  /** Whether the gate takes an angle in radians, written `NAME(angle)`. */
  readonly parametric: boolean;
  /** Other accepted spellings (upper case; matching is case-insensitive). */
  readonly aliases: readonly string[];
  /** Short human-readable description. */
  readonly description: string;
};

/**
 * A validated gate application. For two-qubit gates `qubits` is ordered:
 * `[control, target]` for CNOT/CZ, the two swapped qubits for SWAP.
 */
export type Gate = {
  /** Canonical gate name (aliases are resolved). */
  name: GateName;
  /** Qubit indices the gate acts on, one per arity. */
  qubits: number[];
  /** Rotation/phase angle in radians; present exactly for parametric gates. */
  parameter?: number;
};

/** A validated circuit, ready for {@link simulateCircuit}. */
export type Circuit = {
  /** Number of qubits, 1..{@link CIRCUIT_LIMITS}.maxQubits. */
  qubits: number;
  /** Gates in application order. */
  gates: Gate[];
  /** Number of measurement samples to draw, if any. */
  shots?: number;
  /** PRNG seed for reproducible sampling, 0..2^32-1. */
  seed?: number;
};

/** Outcome of {@link parseCircuit}: either a circuit or every problem found. */
export type ParseCircuitResult =
  | { ok: true; circuit: Circuit }
  | { ok: false; issues: ValidationIssue[] };

/** Per-call overrides for {@link simulateCircuit}; they win over the circuit's own values. */
export type SimulateOptions = {
  /** Number of measurement samples; omitted means no sampling unless the circuit has shots. */
  shots?: number;
  /** Seed for sampling; omitted means the circuit's seed, else a random one. */
  seed?: number;
};

/** Result of {@link simulateCircuit}. */
export type SimulationResult = {
  /** Outcome probabilities keyed by bitstring q(n-1)…q0; negligible outcomes omitted. */
  probabilities: Record<string, number>;
  /** Sampled counts (only observed outcomes), present when shots were requested. */
  counts?: Record<string, number>;
  /** Final amplitudes, indexed by basis state (qubit 0 = least significant bit). */
  statevector: { re: number; im: number }[];
};

const GATE_BY_SPELLING: ReadonlyMap<string, GateSpec> = new Map(
  SUPPORTED_GATES.flatMap((spec): [string, GateSpec][] => [
    [spec.name, spec],
    ...spec.aliases.map((alias): [string, GateSpec] => [alias, spec]),
  ]),
);

const SUPPORTED_NAMES_TEXT = SUPPORTED_GATES.map((spec) =>
  spec.aliases.length > 0 ? `${spec.name} (${spec.aliases.join(', ')})` : spec.name,
).join(', ');


function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return String(value);
  return `a ${typeof value}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

const DECIMAL_ANGLE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
// Only `[±][k*]pi[/d]`: enough for the angles people actually write, small
// enough to parse without an expression evaluator (never eval client input).
const PI_ANGLE = /^([+-])?(?:(\d+(?:\.\d+)?)\s*\*\s*)?(?:pi|π)(?:\s*\/\s*(\d+(?:\.\d+)?))?$/i;

/**
 * Parses an angle written as a decimal number of radians or as a multiple of
 * pi (`pi`, `-pi`, `pi/2`, `2*pi`, `3*pi/4`, `-pi/4`).
 *
 * @returns the angle in radians, or `null` if the text is not of that form or
 *   does not denote a finite number.
 */
export function parseAngle(text: string): number | null {
  const trimmed = text.trim();
  if (DECIMAL_ANGLE.test(trimmed)) {
    const value = Number(trimmed);
    return Number.isFinite(value) ? value : null;
  }
  const match = PI_ANGLE.exec(trimmed);
  if (match === null) return null;
  const sign = match[1] === '-' ? -1 : 1;
  const factor = match[2] === undefined ? 1 : Number(match[2]);
  const divisor = match[3] === undefined ? 1 : Number(match[3]);
  if (divisor === 0) return null;
  const value = (sign * factor * Math.PI) / divisor;
  return Number.isFinite(value) ? value : null;
}

/**
 * Parses one gate string. `qubitCount` is undefined when the circuit's own
 * qubit count was invalid, in which case range checks are skipped rather than
 * reported against a number the client never meant.
 */
function parseGate(
  raw: string,
  field: string,
  qubitCount: number | undefined,
): { gate: Gate | null; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const fail = (message: string) => {
    issues.push({ field, message });
    return { gate: null, issues };
  };

  const text = raw.trim();
  const head = /^([A-Za-z][A-Za-z0-9]*)([\s\S]*)$/.exec(text);
  if (head === null || head[1] === undefined) {
    return fail(
      text === ''
        ? 'gate must not be empty'
        : `malformed gate ${JSON.stringify(raw)}: expected "NAME", "NAME q", "NAME q1 q2" or "NAME(angle) q"`,
    );
  }
  const spelledName = head[1];
  let rest = (head[2] ?? '').trim();

  const spec = GATE_BY_SPELLING.get(spelledName.toUpperCase());
  if (spec === undefined) {
    return fail(`unknown gate "${spelledName}"; supported gates: ${SUPPORTED_NAMES_TEXT}`);
  }

  let angleText: string | undefined;
  if (rest.startsWith('(')) {
    const close = rest.indexOf(')');
    if (close === -1) return fail(`missing ")" after the angle of ${spec.name}`);
    angleText = rest.slice(1, close);
    rest = rest.slice(close + 1).trim();
  }

  let parameter: number | undefined;
  if (spec.parametric) {
    if (angleText === undefined) {
      issues.push({
        field,
        message: `${spec.name} needs an angle in radians, e.g. "${spec.name}(pi/2) 0"`,
      });
    } else {
      const angle = parseAngle(angleText);
      if (angle === null) {
        issues.push({
          field,
          message: `malformed angle "${angleText.trim()}" for ${spec.name}: expected a finite number of radians or a multiple of pi such as pi/2, -pi/4, 3*pi/4`,
        });
      } else {
        parameter = angle;
      }
    }
  } else if (angleText !== undefined) {
    issues.push({ field, message: `${spec.name} takes no angle, but "(${angleText})" was given` });
  }

  const tokens = rest === '' ? [] : rest.split(/\s*,\s*|\s+/);
  let qubits: number[] | null = null;

  if (tokens.includes('')) {
    issues.push({ field, message: 'empty operand: separate qubit indices with spaces or a single comma' });
  } else if (tokens.length === 0) {
    // Bare names are the legacy body format: ["H", "CNOT"] is a Bell circuit.
    if (spec.arity === 1) {
      qubits = [0];
    } else if (qubitCount !== undefined && qubitCount < 2) {
      issues.push({
        field,
        message: `${spec.name} without operands acts on qubits 0 and 1, which needs a circuit of at least 2 qubits (this one has ${qubitCount})`,
      });
    } else {
      qubits = [0, 1];
    }
  } else if (tokens.length !== spec.arity) {
    const expected =
      spec.arity === 1 ? '1 qubit' : spec.name === 'SWAP' ? '2 qubits' : '2 qubits (control, target)';
    issues.push({
      field,
      message: `${spec.name} acts on ${expected} but ${plural(tokens.length, 'operand')} ${tokens.length === 1 ? 'was' : 'were'} given`,
    });
  } else {
    const parsed: number[] = [];
    for (const token of tokens) {
      const index = /^\d+$/.test(token) ? Number(token) : Number.NaN;
      if (!Number.isSafeInteger(index)) {
        issues.push({
          field,
          message: `operand "${token}" is not a qubit index (expected a non-negative integer)`,
        });
        continue;
      }
      if (qubitCount !== undefined && index >= qubitCount) {
        issues.push({
          field,
          message: `qubit ${index} is out of range for a ${qubitCount}-qubit circuit (valid: 0..${qubitCount - 1})`,
        });
        continue;
      }
      parsed.push(index);
    }
    if (parsed.length === spec.arity) {
      if (spec.arity === 2 && parsed[0] === parsed[1]) {
        issues.push({
          field,
          message: `${spec.name} needs two different qubits, but qubit ${parsed[0]} was given twice`,
        });
      } else {
        qubits = parsed;
      }
    }
  }

  if (issues.length > 0 || qubits === null) return { gate: null, issues };
  const gate: Gate = { name: spec.name, qubits };
  if (parameter !== undefined) gate.parameter = parameter;
  return { gate, issues };
}

function isIntegerInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
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
    };
  }
  const body: { qubits?: unknown; gates?: unknown; shots?: unknown; seed?: unknown } = input;
  const issues: ValidationIssue[] = [];
  const { maxQubits, maxGates, maxShots } = CIRCUIT_LIMITS;

  let qubitCount: number | undefined;
  if (body.qubits === undefined) {
    issues.push({ field: 'qubits', message: `qubits is required (an integer from 1 to ${maxQubits})` });
  } else if (!isIntegerInRange(body.qubits, 1, maxQubits)) {
    issues.push({
      field: 'qubits',
      message: `qubits must be an integer from 1 to ${maxQubits}, got ${describeValue(body.qubits)}`,
    });
  } else {
    qubitCount = body.qubits;
  }

  const gates: Gate[] = [];
  if (body.gates === undefined) {
    issues.push({ field: 'gates', message: 'gates is required (an array of gate strings, may be empty)' });
  } else if (!Array.isArray(body.gates)) {
    issues.push({ field: 'gates', message: `gates must be an array of strings, got ${describeValue(body.gates)}` });
  } else if (body.gates.length > maxGates) {
    // Per-item issues for an oversized list would only produce an oversized response.
    issues.push({
      field: 'gates',
      message: `at most ${maxGates} gates are allowed, got ${body.gates.length}`,
    });
  } else {
    body.gates.forEach((item: unknown, index) => {
      const field = `gates[${index}]`;
      if (typeof item !== 'string') {
        issues.push({ field, message: `gate must be a string such as "H 0" or "CNOT 0 1", got ${describeValue(item)}` });
        return;
      }
      const result = parseGate(item, field, qubitCount);
      issues.push(...result.issues);
      if (result.gate !== null) gates.push(result.gate);
    });
  }

  let shots: number | undefined;
  if (body.shots !== undefined && body.shots !== null) {
    if (isIntegerInRange(body.shots, 1, maxShots)) {
      shots = body.shots;
    } else {
      issues.push({
        field: 'shots',
        message: `shots must be an integer from 1 to ${maxShots}, got ${describeValue(body.shots)}`,
      });
    }
  }

  let seed: number | undefined;
  if (body.seed !== undefined && body.seed !== null) {
    if (isIntegerInRange(body.seed, 0, MAX_SEED)) {
      seed = body.seed;
    } else {
      issues.push({
        field: 'seed',
        message: `seed must be an integer from 0 to ${MAX_SEED}, got ${describeValue(body.seed)}`,
      });
    }
  }

  if (issues.length > 0 || qubitCount === undefined) return { ok: false, issues };
  const circuit: Circuit = { qubits: qubitCount, gates };
  if (shots !== undefined) circuit.shots = shots;
  if (seed !== undefined) circuit.seed = seed;
  return { ok: true, circuit };
}

// ---------------------------------------------------------------------------
// Simulation
// ---------------------------------------------------------------------------

/** A 2×2 complex matrix, row-major, as [re, im] of m00, m01, m10, m11. */
type Matrix2 = readonly [number, number, number, number, number, number, number, number];

const INV_SQRT2 = Math.SQRT1_2;
const HADAMARD: Matrix2 = [INV_SQRT2, 0, INV_SQRT2, 0, INV_SQRT2, 0, -INV_SQRT2, 0];
const PAULI_Y: Matrix2 = [0, 0, 0, -1, 0, 1, 0, 0];

/** Applies a general single-qubit unitary to every amplitude pair differing in `target`. */
function applyMatrix(re: Float64Array, im: Float64Array, target: number, m: Matrix2): void {
  const [ar, ai, br, bi, cr, ci, dr, di] = m;
  const stride = 1 << target;
  const dim = re.length;
  // Walking blocks of 2·stride visits each (|…0…⟩, |…1…⟩) pair once without bit tests.
  for (let base = 0; base < dim; base += stride << 1) {
    for (let i0 = base; i0 < base + stride; i0++) {
      const i1 = i0 + stride;
      const xr = re[i0]!;
      const xi = im[i0]!;
      const yr = re[i1]!;
      const yi = im[i1]!;
      re[i0] = ar * xr - ai * xi + br * yr - bi * yi;
      im[i0] = ar * xi + ai * xr + br * yi + bi * yr;
      re[i1] = cr * xr - ci * xi + dr * yr - di * yi;
      im[i1] = cr * xi + ci * xr + dr * yi + di * yr;
    }
  }
}

/** Applies diag(d0, d1) on `target`; diagonal gates need no pairing, only a scale. */
function applyDiagonal(
  re: Float64Array,
  im: Float64Array,
  target: number,
  d0r: number,
  d0i: number,
  d1r: number,
  d1i: number,
): void {
  const mask = 1 << target;
  // Phase-type gates leave |0⟩ alone; skipping those halves the work.
  const touchZero = d0r !== 1 || d0i !== 0;
  for (let i = 0; i < re.length; i++) {
    const isOne = (i & mask) !== 0;
    if (!isOne && !touchZero) continue;
    const dr = isOne ? d1r : d0r;
    const di = isOne ? d1i : d0i;
    const xr = re[i]!;
    const xi = im[i]!;
    re[i] = dr * xr - di * xi;
    im[i] = dr * xi + di * xr;
  }
}

function swapAmplitudes(re: Float64Array, im: Float64Array, a: number, b: number): void {
  const tr = re[a]!;
  const ti = im[a]!;
  re[a] = re[b]!;
  im[a] = im[b]!;
  re[b] = tr;
  im[b] = ti;
}

function applyX(re: Float64Array, im: Float64Array, target: number): void {
  const mask = 1 << target;
  for (let i = 0; i < re.length; i++) {
    if ((i & mask) === 0) swapAmplitudes(re, im, i, i | mask);
  }
}

function applyCnot(re: Float64Array, im: Float64Array, control: number, target: number): void {
  const controlMask = 1 << control;
  const targetMask = 1 << target;
  for (let i = 0; i < re.length; i++) {
    if ((i & controlMask) !== 0 && (i & targetMask) === 0) swapAmplitudes(re, im, i, i | targetMask);
  }
}

function applyCz(re: Float64Array, im: Float64Array, a: number, b: number): void {
  const both = (1 << a) | (1 << b);
  for (let i = 0; i < re.length; i++) {
    if ((i & both) === both) {
      re[i] = -re[i]!;
      im[i] = -im[i]!;
    }
  }
}

function applySwap(re: Float64Array, im: Float64Array, a: number, b: number): void {
  const maskA = 1 << a;
  const maskB = 1 << b;
  for (let i = 0; i < re.length; i++) {
    // Only the |…1_a…0_b…⟩ ↔ |…0_a…1_b…⟩ pairs change; visit each pair from one side.
    if ((i & maskA) !== 0 && (i & maskB) === 0) swapAmplitudes(re, im, i, (i & ~maskA) | maskB);
  }
}

function applyPhase(re: Float64Array, im: Float64Array, target: number, theta: number): void {
  applyDiagonal(re, im, target, 1, 0, Math.cos(theta), Math.sin(theta));
}

function applyGate(re: Float64Array, im: Float64Array, gate: Gate): void {
  const q = gate.qubits[0]!;
  const theta = gate.parameter ?? 0;
  switch (gate.name) {
    case 'I':
      return;
    case 'H':
      return applyMatrix(re, im, q, HADAMARD);
    case 'X':
      return applyX(re, im, q);
    case 'Y':
      return applyMatrix(re, im, q, PAULI_Y);
    case 'Z':
      return applyDiagonal(re, im, q, 1, 0, -1, 0);
    case 'S':
      return applyDiagonal(re, im, q, 1, 0, 0, 1);
    case 'SDG':
      return applyDiagonal(re, im, q, 1, 0, 0, -1);
    case 'T':
      return applyPhase(re, im, q, Math.PI / 4);
    case 'TDG':
      return applyPhase(re, im, q, -Math.PI / 4);
    case 'P':
      return applyPhase(re, im, q, theta);
    case 'RX': {
      const c = Math.cos(theta / 2);
      const s = Math.sin(theta / 2);
      return applyMatrix(re, im, q, [c, 0, 0, -s, 0, -s, c, 0]);
    }
    case 'RY': {
      const c = Math.cos(theta / 2);
      const s = Math.sin(theta / 2);
      return applyMatrix(re, im, q, [c, 0, -s, 0, s, 0, c, 0]);
    }
    case 'RZ': {
      const c = Math.cos(theta / 2);
      const s = Math.sin(theta / 2);
      return applyDiagonal(re, im, q, c, -s, c, s);
    }
    case 'CNOT':
      return applyCnot(re, im, q, gate.qubits[1]!);
    case 'CZ':
      return applyCz(re, im, q, gate.qubits[1]!);
    case 'SWAP':
      return applySwap(re, im, q, gate.qubits[1]!);
    default: {
      const unreachable: never = gate.name;
      throw new Error(`unsupported gate ${String(unreachable)}`);
    }
  }
}

/**
 * Small seeded PRNG (a Weyl sequence through a 32-bit avalanche mix) returning
 * floats in [0, 1). Not cryptographic; only needs reproducibility per seed.
 */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z ^= z >>> 16;
    return (z >>> 0) / 4294967296;
  };
}

/** Rejects circuits that did not come through {@link parseCircuit} and would misbehave. */
function assertSimulatable(circuit: Circuit, shots: number | undefined, seed: number | undefined): void {
  const n = circuit.qubits;
  if (!isIntegerInRange(n, 1, CIRCUIT_LIMITS.maxQubits)) {
    throw new RangeError(`qubits must be an integer from 1 to ${CIRCUIT_LIMITS.maxQubits}`);
  }
  if (circuit.gates.length > CIRCUIT_LIMITS.maxGates) {
    throw new RangeError(`at most ${CIRCUIT_LIMITS.maxGates} gates are allowed`);
  }
  for (const gate of circuit.gates) {
    const spec = GATE_BY_SPELLING.get(gate.name);
    if (spec === undefined || spec.name !== gate.name) throw new RangeError(`unknown gate ${String(gate.name)}`);
    if (gate.qubits.length !== spec.arity || gate.qubits.some((q) => !isIntegerInRange(q, 0, n - 1))) {
      throw new RangeError(`${gate.name} has invalid qubits [${gate.qubits.join(', ')}] for ${n} qubits`);
    }
    if (spec.arity === 2 && gate.qubits[0] === gate.qubits[1]) {
      throw new RangeError(`${gate.name} needs two different qubits`);
    }
    if (spec.parametric && !Number.isFinite(gate.parameter)) {
      throw new RangeError(`${gate.name} needs a finite angle`);
    }
  }
  if (shots !== undefined && !isIntegerInRange(shots, 1, CIRCUIT_LIMITS.maxShots)) {
    throw new RangeError(`shots must be an integer from 1 to ${CIRCUIT_LIMITS.maxShots}`);
  }
  if (seed !== undefined && !isIntegerInRange(seed, 0, MAX_SEED)) {
    throw new RangeError(`seed must be an integer from 0 to ${MAX_SEED}`);
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
  const shots = options.shots ?? circuit.shots;
  const seed = options.seed ?? circuit.seed;
  assertSimulatable(circuit, shots, seed);

  const n = circuit.qubits;
  const dim = 2 ** n;
  const re = new Float64Array(dim);
  const im = new Float64Array(dim);
  re[0] = 1;
  for (const gate of circuit.gates) applyGate(re, im, gate);

  const label = (index: number) => index.toString(2).padStart(n, '0');
  const probabilities: Record<string, number> = {};
  // Sampling uses the unrounded values so rounding never biases the counts.
  const outcomes: number[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < dim; i++) {
    const p = re[i]! * re[i]! + im[i]! * im[i]!;
    if (p < PROBABILITY_EPSILON) continue;
    probabilities[label(i)] = Math.round(p * 1e12) / 1e12;
    total += p;
    outcomes.push(i);
    cumulative.push(total);
  }

  const statevector = Array.from({ length: dim }, (_, i) => ({ re: re[i]!, im: im[i]! }));
  if (shots === undefined) return { probabilities, statevector };

  const random = createRandom(seed ?? Math.floor(Math.random() * (MAX_SEED + 1)));
  const tally = new Uint32Array(outcomes.length);
  for (let shot = 0; shot < shots; shot++) {
    const u = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    tally[lo] = tally[lo]! + 1;
  }
  const counts: Record<string, number> = {};
  outcomes.forEach((index, k) => {
    if (tally[k]! > 0) counts[label(index)] = tally[k]!;
  });
  return { probabilities, counts, statevector };
}
