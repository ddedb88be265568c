import type { ValidationIssue } from '../../platform/errors.js'
import { isRecord, isUuid } from '../../platform/validation/json-shapes.js'
import { parseDublinCore, type DublinCoreRecord } from './dublin-core.js'
import { DIMENSION_UNITS, type DimensionUnit } from './linked-art.js'
import { parsePeriod, type YearRange } from './period-grammar.js'

/** Limits of a catalogue entry. */
export const ARTIFACT_LIMITS = { text: 500, description: 20_000, materials: 50, technicalBytes: 16 * 1024 } as const

/** Dimensions as stored: at least one measure, all positive, one unit. */
export interface Dimensions {
  height?: number
  width?: number
  depth?: number
  unit: DimensionUnit
}

/** What the catalogue records about an artifact itself. */
export interface ArtifactFacts {
  spectrumId: string | null
  title: string
  culture: string
  description: string | null
  period: string | null
  periodRange: YearRange | null
  materials: string[]
  dimensions: Dimensions | null
  location: { current?: string; origin?: string } | null
}

/** A checked new artifact. */
export interface ArtifactInput extends ArtifactFacts {
  dublinCore: DublinCoreRecord | null
  technical: Record<string, unknown> | null
}

/** A new artifact as either face hands it over (field names as the REST document spells them). */
export interface ArtifactDraft {
  spectrumId?: unknown
  title?: unknown
  culture?: unknown
  description?: unknown
  period?: unknown
  materials?: unknown
  dimensions?: unknown
  location?: unknown
  metadata?: unknown
}

function text(value: unknown, field: string, issues: ValidationIssue[], options: { required?: boolean; max?: number } = {}): string | null {
  if (value === undefined || value === null) {
    if (options.required) issues.push({ field, message: 'is required' })
    return null
  }
  if (typeof value !== 'string') {
    issues.push({ field, message: 'must be a string' })
    return null
  }
  const trimmed = value.trim()
  const max = options.max ?? ARTIFACT_LIMITS.text
  if (!trimmed) {
    if (options.required) issues.push({ field, message: 'must not be empty' })
    return null
  }
  if (trimmed.length > max) issues.push({ field, message: `must be at most ${max} characters` })
  return trimmed
}

/**
 * Checks a new artifact: title and culture required; the period written in the period
 * grammar; materials a list of names; dimensions positive numbers in one of the units; the
 * standard id unique is checked by the store. Every problem is reported, not only the first.
 */
export function parseArtifactDraft(draft: ArtifactDraft): { ok: true; input: ArtifactInput } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  const title = text(draft.title, 'title', issues, { required: true })
  const culture = text(draft.culture, 'culture', issues, { required: true })
  const spectrumId = text(draft.spectrumId, 'spectrumId', issues, { max: 100 })
  const description = text(draft.description, 'description', issues, { max: ARTIFACT_LIMITS.description })
  const period = text(draft.period, 'period', issues, { max: 200 })
  let periodRange: YearRange | null = null
  if (period) {
    const parsed = parsePeriod(period)
    if (parsed.ok) periodRange = parsed.range
    else issues.push({ field: 'period', message: parsed.reason })
  }
  let materials: string[] = []
  if (draft.materials !== undefined && draft.materials !== null) {
    if (!Array.isArray(draft.materials)) issues.push({ field: 'materials', message: 'must be an array of strings' })
    else {
      if (draft.materials.length > ARTIFACT_LIMITS.materials)
        issues.push({ field: 'materials', message: `must have at most ${ARTIFACT_LIMITS.materials} entries` })
      materials = draft.materials.flatMap((m: unknown, i) => {
        const value = text(m, `materials[${i}]`, issues, { required: true, max: 200 })
        return value ? [value] : []
      })
    }
  }
  let dimensions: Dimensions | null = null
  if (draft.dimensions !== undefined && draft.dimensions !== null) {
    if (!isRecord(draft.dimensions)) issues.push({ field: 'dimensions', message: 'must be an object { height, width, depth, unit }' })
    else {
      const d = draft.dimensions
      const units = Object.keys(DIMENSION_UNITS)
      for (const key of Object.keys(d))
        if (!['height', 'width', 'depth', 'unit'].includes(key)) issues.push({ field: `dimensions.${key}`, message: 'is not allowed' })
      if (typeof d.unit !== 'string' || !units.includes(d.unit)) issues.push({ field: 'dimensions.unit', message: `must be one of: ${units.join(', ')}` })
      const measures: Partial<Record<'height' | 'width' | 'depth', number>> = {}
      for (const axis of ['height', 'width', 'depth'] as const) {
        const v = d[axis]
        if (v === undefined || v === null) continue
        if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) issues.push({ field: `dimensions.${axis}`, message: 'must be a positive number' })
        else if (v > 1e6) issues.push({ field: `dimensions.${axis}`, message: 'must be at most 1000000' })
        else measures[axis] = v
      }
      if (!['height', 'width', 'depth'].some((a) => d[a] !== undefined && d[a] !== null))
        issues.push({ field: 'dimensions', message: 'must give at least one of height, width, depth' })
      dimensions = { ...measures, unit: d.unit as DimensionUnit }
    }
  }
  let location: ArtifactInput['location'] = null
  if (draft.location !== undefined && draft.location !== null) {
    if (!isRecord(draft.location)) issues.push({ field: 'location', message: 'must be an object { current, origin }' })
    else {
      for (const key of Object.keys(draft.location))
        if (key !== 'current' && key !== 'origin') issues.push({ field: `location.${key}`, message: 'is not allowed' })
      const current = text(draft.location.current, 'location.current', issues)
      const origin = text(draft.location.origin, 'location.origin', issues)
      location = { ...(current ? { current } : {}), ...(origin ? { origin } : {}) }
    }
  }
  let dublinCore: DublinCoreRecord | null = null
  let technical: Record<string, unknown> | null = null
  if (draft.metadata !== undefined && draft.metadata !== null) {
    if (!isRecord(draft.metadata)) issues.push({ field: 'metadata', message: 'must be an object { dublinCore, technical }' })
    else {
      for (const key of Object.keys(draft.metadata)) {
        if (key === 'cidocCrm') issues.push({ field: 'metadata.cidocCrm', message: 'is derived from the artifact and cannot be set' })
        else if (key !== 'dublinCore' && key !== 'technical') issues.push({ field: `metadata.${key}`, message: 'is not allowed' })
      }
      if (draft.metadata.dublinCore !== undefined && draft.metadata.dublinCore !== null) {
        const dc = parseDublinCore(draft.metadata.dublinCore, 'metadata.dublinCore')
        if (dc.ok) dublinCore = dc.record
        else issues.push(...dc.issues)
      }
      const t = draft.metadata.technical
      if (t !== undefined && t !== null) {
        if (!isRecord(t)) issues.push({ field: 'metadata.technical', message: 'must be an object' })
        else if (Buffer.byteLength(JSON.stringify(t)) > ARTIFACT_LIMITS.technicalBytes)
          issues.push({ field: 'metadata.technical', message: `must be at most ${ARTIFACT_LIMITS.technicalBytes} bytes of JSON` })
        else if ('models' in t) issues.push({ field: 'metadata.technical.models', message: 'is filled in from uploaded models and cannot be set' })
        else technical = t
      }
    }
  }
  if (issues.length || !title || !culture) return { ok: false, issues }
  return { ok: true, input: { spectrumId, title, culture, description, period, periodRange, materials, dimensions, location, dublinCore, technical } }
}

/** Tour kinds: immersive (`vr`, `ar`) or in a browser page (`web`), or led by a guide (`guided`). */
export const TOUR_TYPES = ['vr', 'ar', 'web', 'guided'] as const
export type TourType = (typeof TOUR_TYPES)[number]

/** A point or a rotation (degrees) or a scale per axis. */
export interface Vector3 {
  x: number
  y: number
  z: number
}

/** A point of interest on a scene's model. */
export interface Hotspot {
  label: string
  text: string | null
  /** On the model, in metres in the model's own frame. */
  position: Vector3
  /** The surface normal at the point, for viewers that orient the marker. */
  normal: Vector3 | null
}

/** One stop of a tour: an artifact placed in the scene, its narration and hotspots. */
export interface Scene {
  artifactId: string
  title: string | null
  position: Vector3
  /** Degrees about each axis. */
  rotation: Vector3
  scale: Vector3
  narration: string | null
  hotspots: Hotspot[]
}

/** A checked new tour. */
export interface TourInput {
  name: string
  type: TourType
  artifactIds: string[]
  scenes: Scene[]
}

export const TOUR_LIMITS = { artifacts: 50, scenes: 100, hotspots: 20, narration: 5000 } as const

function vector(value: unknown, field: string, issues: ValidationIssue[], fallback: Vector3, options: { positive?: boolean } = {}): Vector3 {
  if (value === undefined || value === null) return fallback
  if (typeof value === 'number' && options.positive) value = { x: value, y: value, z: value }
  if (!isRecord(value)) {
    issues.push({ field, message: options.positive ? 'must be a positive number or { x, y, z }' : 'must be an object { x, y, z }' })
    return fallback
  }
  const out = { ...fallback }
  for (const key of Object.keys(value)) if (!['x', 'y', 'z'].includes(key)) issues.push({ field: `${field}.${key}`, message: 'is not allowed' })
  for (const axis of ['x', 'y', 'z'] as const) {
    const v = value[axis]
    if (v === undefined) continue
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > 1e6) issues.push({ field: `${field}.${axis}`, message: 'must be a finite number' })
    else if (options.positive && v <= 0) issues.push({ field: `${field}.${axis}`, message: 'must be positive' })
    else out[axis] = v
  }
  return out
}

/**
 * Checks a new tour. `artifacts` lists the tour's artifacts (ids, no repeats); each scene shows
 * one of them. Without scenes the tour gets one scene per artifact, in order, unrotated at
 * scale 1. Whether the artifacts exist is checked by the store.
 */
export function parseTourDraft(draft: {
  name?: unknown
  type?: unknown
  artifacts?: unknown
  scenes?: unknown
}): { ok: true; input: TourInput } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  const name = text(draft.name, 'name', issues, { required: true, max: 200 })
  if (typeof draft.type !== 'string' || !(TOUR_TYPES as readonly string[]).includes(draft.type))
    issues.push({ field: 'type', message: `must be one of: ${TOUR_TYPES.join(', ')}` })
  const artifactIds: string[] = []
  if (!Array.isArray(draft.artifacts) || draft.artifacts.length === 0) issues.push({ field: 'artifacts', message: 'must be a non-empty array of artifact ids' })
  else if (draft.artifacts.length > TOUR_LIMITS.artifacts) issues.push({ field: 'artifacts', message: `must have at most ${TOUR_LIMITS.artifacts} entries` })
  else {
    draft.artifacts.forEach((id: unknown, i) => {
      if (typeof id !== 'string' || !isUuid(id)) issues.push({ field: `artifacts[${i}]`, message: 'must be an artifact id' })
      else if (artifactIds.includes(id.toLowerCase())) issues.push({ field: `artifacts[${i}]`, message: 'is listed twice' })
      else artifactIds.push(id.toLowerCase())
    })
  }
  const zero = { x: 0, y: 0, z: 0 }
  const one = { x: 1, y: 1, z: 1 }
  let scenes: Scene[] = []
  if (draft.scenes === undefined || draft.scenes === null || (Array.isArray(draft.scenes) && draft.scenes.length === 0)) {
    scenes = artifactIds.map((artifactId) => ({ artifactId, title: null, position: zero, rotation: zero, scale: one, narration: null, hotspots: [] }))
  } else if (!Array.isArray(draft.scenes)) issues.push({ field: 'scenes', message: 'must be an array of scenes' })
  else if (draft.scenes.length > TOUR_LIMITS.scenes) issues.push({ field: 'scenes', message: `must have at most ${TOUR_LIMITS.scenes} entries` })
  else {
    draft.scenes.forEach((raw: unknown, i) => {
      const field = `scenes[${i}]`
      if (!isRecord(raw)) return issues.push({ field, message: 'must be an object' })
      for (const key of Object.keys(raw)) {
        if (!['artifactId', 'title', 'position', 'rotation', 'scale', 'narration', 'hotspots'].includes(key))
          issues.push({ field: `${field}.${key}`, message: 'is not allowed' })
      }
      const artifactId = typeof raw.artifactId === 'string' ? raw.artifactId.toLowerCase() : ''
      if (!artifactIds.includes(artifactId)) issues.push({ field: `${field}.artifactId`, message: "must be one of the tour's artifacts" })
      const hotspots: Hotspot[] = []
      if (raw.hotspots !== undefined && raw.hotspots !== null) {
        if (!Array.isArray(raw.hotspots)) issues.push({ field: `${field}.hotspots`, message: 'must be an array' })
        else if (raw.hotspots.length > TOUR_LIMITS.hotspots)
          issues.push({ field: `${field}.hotspots`, message: `must have at most ${TOUR_LIMITS.hotspots} entries` })
        else {
          raw.hotspots.forEach((h: unknown, j) => {
            const hf = `${field}.hotspots[${j}]`
            if (!isRecord(h)) return issues.push({ field: hf, message: 'must be an object { label, text, position, normal }' })
            for (const key of Object.keys(h))
              if (!['label', 'text', 'position', 'normal'].includes(key)) issues.push({ field: `${hf}.${key}`, message: 'is not allowed' })
            const label = text(h.label, `${hf}.label`, issues, { required: true, max: 200 })
            if (h.position === undefined) issues.push({ field: `${hf}.position`, message: 'is required' })
            hotspots.push({
              label: label ?? '',
              text: text(h.text, `${hf}.text`, issues, { max: TOUR_LIMITS.narration }),
              position: vector(h.position, `${hf}.position`, issues, zero),
              normal: h.normal === undefined || h.normal === null ? null : vector(h.normal, `${hf}.normal`, issues, zero),
            })
          })
        }
      }
      scenes.push({
        artifactId,
        title: text(raw.title, `${field}.title`, issues, { max: 200 }),
        position: vector(raw.position, `${field}.position`, issues, zero),
        rotation: vector(raw.rotation, `${field}.rotation`, issues, zero),
        scale: vector(raw.scale, `${field}.scale`, issues, one, { positive: true }),
        narration: text(raw.narration, `${field}.narration`, issues, { max: TOUR_LIMITS.narration }),
        hotspots,
      })
    })
  }
  if (issues.length || !name) return { ok: false, issues }
  return { ok: true, input: { name, type: draft.type as TourType, artifactIds, scenes } }
}
