export { CIRCUIT_LIMITS, SUPPORTED_GATES, type Circuit, type Gate, type GateName, type GateSpec, type ValidationIssue } from './gates.js'
export { parseAngle, parseCircuit, type ParseCircuitResult } from './parse-circuit.js'
export { simulateCircuit, type SimulateOptions, type SimulationResult } from './simulate-circuit.js'
