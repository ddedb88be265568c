import { createInputChecker, mergeDeep, TEXT_MAX } from './input-checker.js'

/** Program lifecycle states. */
export const PROGRAM_STATUSES = ['planning', 'active', 'suspended', 'archived'] as const
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number]

/** Institution kinds a program may belong to. */
export const INSTITUTION_TYPES = ['elementary_school', 'middle_school', 'high_school', 'district', 'college', 'university', 'community_organization'] as const
/** Kinds of program. */
export const PROGRAM_TYPES = ['varsity', 'club', 'intramural', 'academic'] as const

/** The record standard a program follows unless it names another. */
export const DEFAULT_STANDARD = 'OneRoster-1.2'

/**
 * Allowed status changes: planning → active or archived; active ⇄ suspended; anything but
 * archived → archived. Archived is final, and an archived program is read-only.
 */
const TRANSITIONS: Record<ProgramStatus, readonly ProgramStatus[]> = {
  planning: ['active', 'archived'],
  active: ['suspended', 'archived'],
  suspended: ['active', 'archived'],
  archived: [],
}

/** Whether a program may go from `from` to `to` (staying put is always allowed). */
export function canTransition(from: ProgramStatus, to: ProgramStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to)
}

/** The institution part of a program. */
export interface Institution {
  id: string
  name: string
  type: string
  location: { country?: string; state?: string; city?: string }
}

/** The program part of a program. */
export interface ProgramDetails {
  name: string
  type: string
  status: ProgramStatus
  games: string[]
  gradeLevels: { min: number; max: number }
  learningObjectives: string[]
}

/** A whole, valid program body. */
export interface ProgramDocument {
  standard: string
  institution: Institution
  program: ProgramDetails
}

/** Grades: 0 (kindergarten) to 12, then 13–16 for college years. */
export const GRADE_RANGE = { min: 0, max: 16 } as const

const STANDARD = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/

/**
 * Checks a whole program document (after defaults or a merge) and returns it in canonical
 * form, or the list of every problem.
 */
export function checkProgram(
  input: Record<string, unknown>,
): { ok: true; value: ProgramDocument } | { ok: false; issues: ReturnType<typeof createInputChecker>['issues'] } {
  const c = createInputChecker()
  const standard = c.string('standard', input.standard, {
    required: true,
    max: 100,
    pattern: STANDARD,
    patternHint: 'must be an identifier such as OneRoster-1.2',
  })
  const inst = c.object('institution', input.institution, { required: true }) ?? {}
  const prog = c.object('program', input.program, { required: true }) ?? {}
  const location = c.object('institution.location', inst.location) ?? {}
  const grades = c.object('program.gradeLevels', prog.gradeLevels) ?? {}
  for (const key of Object.keys(location)) if (!['country', 'state', 'city'].includes(key)) c.fail(`institution.location.${key}`, 'is not allowed')
  const institution: Institution = {
    id: c.string('institution.id', inst.id, { required: true, max: 100 }) ?? '',
    name: c.string('institution.name', inst.name, { required: true }) ?? '',
    type: c.oneOf('institution.type', inst.type, INSTITUTION_TYPES, { required: true }) ?? 'high_school',
    location: {
      ...(location.country !== undefined ? { country: c.string('institution.location.country', location.country, { max: 100 }) } : {}),
      ...(location.state !== undefined ? { state: c.string('institution.location.state', location.state, { max: 100 }) } : {}),
      ...(location.city !== undefined ? { city: c.string('institution.location.city', location.city, { max: 100 }) } : {}),
    },
  }
  const min = c.int('program.gradeLevels.min', grades.min, { required: true, ...GRADE_RANGE })
  const max = c.int('program.gradeLevels.max', grades.max, { required: true, ...GRADE_RANGE })
  if (min !== undefined && max !== undefined && min > max) c.fail('program.gradeLevels', 'min must not be greater than max')
  const program: ProgramDetails = {
    name: c.string('program.name', prog.name, { required: true }) ?? '',
    type: c.oneOf('program.type', prog.type, PROGRAM_TYPES, { required: true }) ?? 'varsity',
    status: c.oneOf('program.status', prog.status, PROGRAM_STATUSES, { required: true }) ?? 'planning',
    games: c.strings('program.games', prog.games, { required: true, maxItems: 50, max: 100 }) ?? [],
    gradeLevels: { min: min ?? 0, max: max ?? 0 },
    learningObjectives: c.strings('program.learningObjectives', prog.learningObjectives, { required: true, maxItems: 50, max: TEXT_MAX.long }) ?? [],
  }
  if (new Set(program.games.map((g) => g.toLowerCase())).size !== program.games.length) c.fail('program.games', 'must not repeat a game')
  if (!c.ok) return { ok: false, issues: c.issues }
  return { ok: true, value: { standard: standard as string, institution, program } }
}

/** A new program's body with Tessera's defaults filled in where the caller sent nothing. */
export function withProgramDefaults(input: Record<string, unknown>): Record<string, unknown> {
  return mergeDeep(
    {
      standard: DEFAULT_STANDARD,
      institution: { type: 'high_school', location: {} },
      program: { type: 'varsity', status: 'planning', games: [], gradeLevels: { min: 9, max: 12 }, learningObjectives: [] },
    },
    input,
  )
}
