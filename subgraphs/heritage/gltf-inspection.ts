import { getBounds, WebIO, type Document } from '@gltf-transform/core'
import { validateBytes, type ValidationReport } from 'gltf-validator'

/** How the model's bytes are packed. */
export type GltfContainer = 'glb' | 'gltf'

/** What the first bytes say a file is. */
export function sniffContainer(head: Buffer): GltfContainer | undefined {
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'glTF') return 'glb'
  // glTF JSON starts with an object, possibly after a byte-order mark and whitespace.
  const text = head
    .toString('utf8', 0, Math.min(head.length, 1024))
    .replace(/^\uFEFF/, '')
    .trimStart()
  if (text.startsWith('{') && /"asset"\s*:|^\{\s*"/.test(text)) return 'gltf'
  return undefined
}

/** The validator's verdict, as stored with a model and shown in its metadata. */
export interface ValidationSummary {
  validator: string
  version: string
  errors: number
  warnings: number
  infos: number
  hints: number
  truncated: boolean
}

/** One of the validator's messages. */
export interface ValidationMessage {
  code: string
  severity: 'error' | 'warning' | 'info' | 'hint'
  message: string
  pointer?: string
}

/** Facts about a model, read from its file. */
export interface ModelInspection {
  generator: string | null
  scenes: number
  nodes: number
  meshes: number
  primitives: number
  vertexCount: number
  triangleCount: number
  materials: { count: number; names: string[] }
  textures: { count: number; items: Array<{ name: string | null; mimeType: string; width: number | null; height: number | null; byteLength: number }> }
  animations: number
  /** Axis-aligned bounds of the default scene in metres (glTF's unit), or null for an empty scene. */
  boundingBox: { min: [number, number, number]; max: [number, number, number]; size: [number, number, number]; unit: 'm' } | null
  extensionsUsed: string[]
  extensionsRequired: string[]
}

/** The outcome of checking a file. */
export type InspectionResult =
  | { ok: true; container: GltfContainer; summary: ValidationSummary; messages: ValidationMessage[]; inspection: ModelInspection }
  | { ok: false; kind: 'not-gltf'; reason: string }
  | { ok: false; kind: 'invalid'; summary: ValidationSummary; messages: ValidationMessage[] }

/** Most validator messages kept and shown. */
export const MAX_VALIDATOR_MESSAGES = 100
const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const

function summarize(report: ValidationReport): { summary: ValidationSummary; messages: ValidationMessage[] } {
  return {
    summary: {
      validator: 'Khronos glTF Validator',
      version: report.validatorVersion,
      errors: report.issues.numErrors,
      warnings: report.issues.numWarnings,
      infos: report.issues.numInfos,
      hints: report.issues.numHints,
      truncated: report.issues.truncated,
    },
    messages: report.issues.messages.map((m) => ({
      code: m.code,
      severity: SEVERITIES[m.severity] ?? 'error',
      message: m.message,
      ...(m.pointer ? { pointer: m.pointer } : {}),
    })),
  }
}

const round = (n: number) => Math.round(n * 1e6) / 1e6

function describe(document: Document, json: { extensionsUsed?: string[]; extensionsRequired?: string[] }): ModelInspection {
  const root = document.getRoot()
  const primitives = root.listMeshes().flatMap((m) => m.listPrimitives())
  let vertexCount = 0
  let triangleCount = 0
  for (const primitive of primitives) {
    const vertices = primitive.getAttribute('POSITION')?.getCount() ?? 0
    const elements = primitive.getIndices()?.getCount() ?? vertices
    vertexCount += vertices
    switch (primitive.getMode()) {
      case 4: // TRIANGLES
        triangleCount += Math.floor(elements / 3)
        break
      case 5: // TRIANGLE_STRIP
      case 6: // TRIANGLE_FAN
        triangleCount += Math.max(0, elements - 2)
        break
      default: // points and lines draw no triangles
        break
    }
  }
  const scene = root.getDefaultScene() ?? root.listScenes()[0]
  let boundingBox: ModelInspection['boundingBox'] = null
  if (scene && scene.listChildren().length) {
    const { min, max } = getBounds(scene)
    if (min.every(Number.isFinite) && max.every(Number.isFinite)) {
      const lo = min.map(round) as [number, number, number]
      const hi = max.map(round) as [number, number, number]
      boundingBox = { min: lo, max: hi, size: hi.map((v, i) => round(v - lo[i]!)) as [number, number, number], unit: 'm' }
    }
  }
  const textures = root.listTextures().map((t) => {
    const size = t.getSize()
    return {
      name: t.getName() || null,
      mimeType: t.getMimeType(),
      width: size?.[0] ?? null,
      height: size?.[1] ?? null,
      byteLength: t.getImage()?.byteLength ?? 0,
    }
  })
  return {
    generator: root.getAsset().generator ?? null,
    scenes: root.listScenes().length,
    nodes: root.listNodes().length,
    meshes: root.listMeshes().length,
    primitives: primitives.length,
    vertexCount,
    triangleCount,
    materials: {
      count: root.listMaterials().length,
      names: root
        .listMaterials()
        .map((m) => m.getName())
        .filter((n) => n),
    },
    textures: { count: textures.length, items: textures },
    animations: root.listAnimations().length,
    boundingBox,
    extensionsUsed: json.extensionsUsed ?? [],
    extensionsRequired: json.extensionsRequired ?? [],
  }
}

/** The JSON part of a model (the JSON chunk of a GLB). */
function readJsonPart(bytes: Buffer, container: GltfContainer): Record<string, unknown> {
  if (container === 'gltf') return JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>
  const length = bytes.readUInt32LE(12)
  return JSON.parse(bytes.toString('utf8', 20, 20 + length)) as Record<string, unknown>
}

/**
 * Validates a model with the Khronos glTF Validator and, when it has no errors, reads it with
 * glTF-Transform. GLB and glTF JSON whose buffers and images are embedded (`data:` URIs) are
 * accepted; a file that refers to other files cannot be checked alone and is refused.
 */
export async function inspectModel(bytes: Buffer, container: GltfContainer): Promise<InspectionResult> {
  if (container === 'gltf') {
    // JSON that is not a glTF document (no `asset`) is another kind of file, not a broken model.
    let parsed: unknown
    try {
      parsed = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''))
    } catch (error) {
      return { ok: false, kind: 'not-gltf', reason: `is not glTF: not a GLB and not valid JSON (${error instanceof Error ? error.message : String(error)})` }
    }
    if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { asset?: unknown }).asset !== 'object') {
      return { ok: false, kind: 'not-gltf', reason: 'is JSON but not glTF: it has no asset object' }
    }
  }
  let report: ValidationReport
  try {
    report = await validateBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      format: container,
      maxIssues: MAX_VALIDATOR_MESSAGES,
      externalResourceFunction: (uri) => Promise.reject(new Error(`external resource ${uri} is not part of the upload`)),
    })
  } catch (error) {
    return { ok: false, kind: 'not-gltf', reason: `is not glTF 2.0 (${error instanceof Error ? error.message : String(error)})` }
  }
  const { summary, messages } = summarize(report)
  if (summary.errors > 0) return { ok: false, kind: 'invalid', summary, messages }
  let json: Record<string, unknown>
  let document: Document
  try {
    json = readJsonPart(bytes, container)
    const io = new WebIO()
    document =
      container === 'glb'
        ? await io.readBinary(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))
        : await io.readJSON({ json: json as never, resources: {} })
  } catch (error) {
    // The validator accepted it, so what is left is a feature glTF-Transform cannot decode
    // without its extension packages (e.g. a required compression extension).
    const reason = error instanceof Error ? error.message : String(error)
    return {
      ok: false,
      kind: 'invalid',
      summary: { ...summary, errors: summary.errors + 1 },
      messages: [...messages, { code: 'UNREADABLE', severity: 'error', message: reason }],
    }
  }
  return { ok: true, container, summary, messages, inspection: describe(document, json as { extensionsUsed?: string[]; extensionsRequired?: string[] }) }
}
