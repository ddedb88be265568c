import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import { Cron } from 'croner'
import type { SecretBox } from '../../platform/auth/secrets.js'
import type { ValidationIssue } from '../../platform/errors.js'
import type { ConnectorDefinition, WriteMode } from './connectors/connector.js'
import { CONNECTORS, findConnector } from './connectors/index.js'
import { validateTransformations, type Transformation } from './transform/transformations.js'

/** How runs read and write. */
export interface SyncSettings {
  /** `full_refresh` reads everything each run; `incremental` only rows past the saved cursor. */
  mode: 'full_refresh' | 'incremental'
  /** Column whose increasing values mark new rows (incremental mode). */
  cursorColumn: string | null
  writeMode: WriteMode
  /** Key for `merge`; empty means "the source's primary key". */
  primaryKey: string[]
  batchSize: number
}

/** A connector endpoint as stored: its type and settings (secrets sealed). */
export interface EndpointConfig {
  type: string
  settings: Record<string, unknown>
}

/** A validated pipeline definition. */
export interface PipelineConfig {
  name: string
  source: EndpointConfig
  destination: EndpointConfig
  transformations: Transformation[]
  schedule: string | null
  sync: SyncSettings
}

const NAME_MAX = 200
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/
export const BATCH_SIZE = { default: 10_000, min: 100, max: 100_000 }

const ajv = new Ajv.default({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false })
const validators = new Map<string, ValidateFunction>()
function settingsValidator(connector: ConnectorDefinition): ValidateFunction {
  let v = validators.get(connector.id)
  if (!v) {
    v = ajv.compile({ ...connector.settingsSchema, type: 'object' })
    validators.set(connector.id, v)
  }
  return v
}

/**
 * Validates a pipeline body (`POST /v1/pipelines`, the GraphQL `createPipeline` input) and
 * returns every problem with its field: missing parts, unknown connector types, settings that
 * break the connector's schema, transformations, the cron schedule and the sync options.
 */
export function parsePipelineConfig(body: unknown): { ok: true; config: PipelineConfig } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, issues: [{ field: 'body', message: 'must be an object' }] }
  const b = body as Record<string, unknown>
  if (typeof b.name !== 'string' || !b.name.trim()) issues.push({ field: 'name', message: 'is required: a non-empty string' })
  else if (b.name.length > NAME_MAX) issues.push({ field: 'name', message: `must be at most ${NAME_MAX} characters` })
  const source = parseEndpoint('source', b.source, 'source', issues)
  const destination = parseEndpoint('destination', b.destination, 'destination', issues)

  let transformations: Transformation[] = []
  if (b.transformations !== undefined && b.transformations !== null) {
    const t = validateTransformations(b.transformations)
    if (t.ok) transformations = t.transformations
    else issues.push(...t.issues)
  }

  let schedule: string | null = null
  if (b.schedule !== undefined && b.schedule !== null) {
    const cron = parseSchedule(b.schedule)
    if (cron.ok) schedule = cron.schedule
    else issues.push({ field: 'schedule', message: cron.message })
  }

  const sync = parseSync(b.sync, issues)
  const writeModes = destination ? findConnector(destination.type)?.writeModes : undefined
  if (sync && writeModes && !writeModes.includes(sync.writeMode)) {
    issues.push({ field: 'sync.write_mode', message: `${destination!.type} destinations support ${writeModes.join(', ')}` })
  }
  if (issues.length || !source || !destination || !sync) return { ok: false, issues }
  return { ok: true, config: { name: (b.name as string).trim(), source, destination, transformations, schedule, sync } }
}

function parseEndpoint(field: string, value: unknown, role: 'source' | 'destination', issues: ValidationIssue[]): EndpointConfig | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ field, message: 'is required: an object with a connector type and its settings' })
    return null
  }
  const { type, ...settings } = value as Record<string, unknown>
  if (typeof type !== 'string' || !type) {
    issues.push({ field: `${field}.type`, message: `is required; one of: ${connectorTypes(role)}` })
    return null
  }
  const connector = findConnector(type)
  if (!connector || (connector.role !== 'both' && connector.role !== role)) {
    issues.push({ field: `${field}.type`, message: `unknown ${role} connector "${type}"; one of: ${connectorTypes(role)}` })
    return null
  }
  const validate = settingsValidator(connector)
  const copy = structuredClone(settings)
  if (!validate(copy)) {
    for (const e of validate.errors ?? []) issues.push(settingsIssue(field, e))
    return null
  }
  return { type: connector.id, settings: copy }
}

function connectorTypes(role: 'source' | 'destination'): string {
  return CONNECTORS.filter((c) => c.role === 'both' || c.role === role)
    .map((c) => c.id)
    .join(', ')
}

function settingsIssue(prefix: string, e: ErrorObject): ValidationIssue {
  const path = e.instancePath.split('/').slice(1).join('.')
  const at = (name: unknown) => [prefix, path, String(name)].filter(Boolean).join('.')
  if (e.keyword === 'required') return { field: at(e.params.missingProperty), message: 'is required' }
  if (e.keyword === 'additionalProperties') return { field: at(e.params.additionalProperty), message: 'is not a setting of this connector' }
  if (e.keyword === 'enum')
    return { field: [prefix, path].filter(Boolean).join('.'), message: `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}` }
  return { field: [prefix, path].filter(Boolean).join('.'), message: e.message ?? 'is invalid' }
}

/** Accepts standard five-field cron expressions (UTC) and the @hourly-style nicknames. */
export function parseSchedule(value: unknown): { ok: true; schedule: string } | { ok: false; message: string } {
  if (typeof value !== 'string' || !value.trim()) return { ok: false, message: 'must be a cron expression, e.g. "0 * * * *"' }
  const schedule = value.trim().replace(/\s+/g, ' ')
  if (!schedule.startsWith('@') && schedule.split(' ').length !== 5) {
    return { ok: false, message: `"${schedule}" is not a five-field cron expression (minute hour day-of-month month day-of-week)` }
  }
  try {
    const next = new Cron(schedule, { paused: true, timezone: 'UTC' }).nextRun()
    if (!next) return { ok: false, message: `"${schedule}" never fires` }
    return { ok: true, schedule }
  } catch (error) {
    return { ok: false, message: `"${schedule}" is not a valid cron expression: ${(error as Error).message}` }
  }
}

/** When a schedule fires next after `after`, or null. */
export function nextRunOf(schedule: string | null, after: Date): Date | null {
  if (!schedule) return null
  return new Cron(schedule, { paused: true, timezone: 'UTC' }).nextRun(after)
}

function parseSync(value: unknown, issues: ValidationIssue[]): SyncSettings | null {
  if (value === undefined || value === null) value = {}
  if (typeof value !== 'object' || Array.isArray(value)) {
    issues.push({ field: 'sync', message: 'must be an object' })
    return null
  }
  const v = value as Record<string, unknown>
  const before = issues.length
  for (const key of Object.keys(v)) {
    if (!['mode', 'cursor_column', 'write_mode', 'primary_key', 'batch_size'].includes(key))
      issues.push({ field: `sync.${key}`, message: 'is not a sync option' })
  }
  const mode = v.mode ?? 'full_refresh'
  if (mode !== 'full_refresh' && mode !== 'incremental') issues.push({ field: 'sync.mode', message: 'must be full_refresh or incremental' })
  const cursorColumn = v.cursor_column ?? null
  if (cursorColumn !== null && (typeof cursorColumn !== 'string' || !COLUMN.test(cursorColumn))) {
    issues.push({ field: 'sync.cursor_column', message: 'must be a column name' })
  }
  if (mode === 'incremental' && cursorColumn === null) issues.push({ field: 'sync.cursor_column', message: 'is required for incremental mode' })
  const writeMode = v.write_mode ?? (mode === 'incremental' ? 'append' : 'replace')
  if (writeMode !== 'replace' && writeMode !== 'append' && writeMode !== 'merge')
    issues.push({ field: 'sync.write_mode', message: 'must be replace, append or merge' })
  if (mode === 'incremental' && writeMode === 'replace') {
    issues.push({ field: 'sync.write_mode', message: 'replace would drop the rows earlier incremental runs wrote; use append or merge' })
  }
  const primaryKey = v.primary_key ?? []
  if (!Array.isArray(primaryKey) || primaryKey.some((c) => typeof c !== 'string' || !COLUMN.test(c)) || primaryKey.length > 16) {
    issues.push({ field: 'sync.primary_key', message: 'must be a list of up to 16 column names' })
  }
  const batchSize = v.batch_size ?? BATCH_SIZE.default
  if (!Number.isInteger(batchSize) || (batchSize as number) < BATCH_SIZE.min || (batchSize as number) > BATCH_SIZE.max) {
    issues.push({ field: 'sync.batch_size', message: `must be an integer from ${BATCH_SIZE.min} to ${BATCH_SIZE.max}` })
  }
  if (issues.length > before) return null
  return {
    mode: mode as SyncSettings['mode'],
    cursorColumn: cursorColumn as string | null,
    writeMode: writeMode as WriteMode,
    primaryKey: primaryKey as string[],
    batchSize: batchSize as number,
  }
}

const SEALED = '$sealed'
export const REDACTED = '********'

/** Seals the connector's secret settings in place, for storage. */
export function sealSecrets(endpoint: EndpointConfig, box: SecretBox): EndpointConfig {
  return mapSecrets(endpoint, (value) => (typeof value === 'string' ? { [SEALED]: box.seal(value) } : value))
}

/** Opens sealed settings, for a run. */
export function openSecrets(endpoint: EndpointConfig, box: SecretBox): EndpointConfig {
  return mapSecrets(endpoint, (value) =>
    value && typeof value === 'object' && SEALED in value ? box.open((value as Record<string, string>)[SEALED] as string) : value,
  )
}

/** Replaces secret settings with a fixed mask, for every response. */
export function redactSecrets(endpoint: EndpointConfig): EndpointConfig {
  return mapSecrets(endpoint, (value) => (value === undefined ? value : REDACTED))
}

function mapSecrets(endpoint: EndpointConfig, map: (value: unknown) => unknown): EndpointConfig {
  const connector = findConnector(endpoint.type)
  const settings = { ...endpoint.settings }
  for (const field of connector?.secretFields ?? []) if (field in settings) settings[field] = map(settings[field])
  return { type: endpoint.type, settings }
}
