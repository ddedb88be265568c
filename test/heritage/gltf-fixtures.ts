// Small glTF assets built byte by byte, so tests need no downloaded samples.

/** The one-triangle mesh every fixture uses: three vertices in metres, one material. */
export const TRIANGLE = {
  positions: [0, 0, 0, 0.5, 0, 0, 0, 0.25, 0.1],
  min: [0, 0, 0],
  max: [0.5, 0.25, 0.1],
} as const

const pad4 = (n: number) => (n + 3) & ~3

function triangleJson(bufferUri?: string, extra: { brokenIndex?: boolean } = {}) {
  const positionBytes = TRIANGLE.positions.length * 4
  const indexBytes = 3 * 2
  return {
    json: {
      asset: { version: '2.0', generator: 'Tessera test fixtures' },
      scene: 0,
      scenes: [{ nodes: [0] }],
      nodes: [{ mesh: 0, name: 'triangle' }],
      meshes: [{ name: 'triangle', primitives: [{ attributes: { POSITION: 0 }, indices: 1, material: 0 }] }],
      materials: [{ name: 'terracotta', pbrMetallicRoughness: { baseColorFactor: [0.8, 0.4, 0.2, 1], metallicFactor: 0, roughnessFactor: 0.9 } }],
      accessors: [
        { bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [...TRIANGLE.min], max: [...TRIANGLE.max] },
        // A broken model points its indices at a vertex that does not exist.
        { bufferView: 1, componentType: 5123, count: 3, type: 'SCALAR', ...(extra.brokenIndex ? {} : {}) },
      ],
      bufferViews: [
        { buffer: 0, byteOffset: 0, byteLength: positionBytes, target: 34962 },
        { buffer: 0, byteOffset: positionBytes, byteLength: indexBytes, target: 34963 },
      ],
      buffers: [{ byteLength: positionBytes + indexBytes, ...(bufferUri ? { uri: bufferUri } : {}) }],
    },
    bin: (() => {
      const bin = Buffer.alloc(pad4(positionBytes + indexBytes))
      TRIANGLE.positions.forEach((v, i) => bin.writeFloatLE(v, i * 4))
      const indices = extra.brokenIndex ? [0, 1, 7] : [0, 1, 2]
      indices.forEach((v, i) => bin.writeUInt16LE(v, positionBytes + i * 2))
      return bin.subarray(0, positionBytes + indexBytes)
    })(),
  }
}

/** Packs glTF JSON and a binary chunk into a GLB container (glTF 2.0 §4.4). */
export function packGlb(json: object, bin?: Buffer): Buffer {
  const jsonText = Buffer.from(JSON.stringify(json))
  const jsonChunk = Buffer.concat([jsonText, Buffer.alloc(pad4(jsonText.length) - jsonText.length, 0x20)])
  const binChunk = bin ? Buffer.concat([bin, Buffer.alloc(pad4(bin.length) - bin.length)]) : undefined
  const header = Buffer.alloc(12)
  const total = 12 + 8 + jsonChunk.length + (binChunk ? 8 + binChunk.length : 0)
  header.write('glTF', 0, 'ascii')
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(total, 8)
  const chunkHeader = (length: number, type: number) => {
    const h = Buffer.alloc(8)
    h.writeUInt32LE(length, 0)
    h.writeUInt32LE(type, 4)
    return h
  }
  return Buffer.concat([
    header,
    chunkHeader(jsonChunk.length, 0x4e4f534a),
    jsonChunk,
    ...(binChunk ? [chunkHeader(binChunk.length, 0x004e4942), binChunk] : []),
  ])
}

/** A valid GLB holding one triangle. */
export function triangleGlb(): Buffer {
  const { json, bin } = triangleJson()
  return packGlb(json, bin)
}

/** A GLB whose index buffer names vertex 7 of a three-vertex mesh: the validator reports an error. */
export function brokenGlb(): Buffer {
  const { json, bin } = triangleJson(undefined, { brokenIndex: true })
  return packGlb(json, bin)
}

/** The same triangle as glTF JSON with its buffer embedded as a data: URI. */
export function triangleGltfJson(): Buffer {
  const { bin } = triangleJson()
  const { json } = triangleJson(`data:application/octet-stream;base64,${bin.toString('base64')}`)
  return Buffer.from(JSON.stringify(json))
}

/**
 * A valid GLB of `bytes` bytes or a little more: the triangle plus an unused padding buffer view,
 * generated in slices so the test never holds it whole.
 */
export function largeGlbStream(bytes: number): { size: number; stream: () => AsyncGenerator<Buffer> } {
  const { json, bin } = triangleJson()
  const padding = pad4(Math.max(0, bytes - 2048))
  const binLength = pad4(bin.length) + padding
  const big = {
    ...json,
    bufferViews: [...json.bufferViews, { buffer: 0, byteOffset: pad4(bin.length), byteLength: padding }],
    buffers: [{ byteLength: binLength }],
  }
  const jsonText = Buffer.from(JSON.stringify(big))
  const jsonChunk = Buffer.concat([jsonText, Buffer.alloc(pad4(jsonText.length) - jsonText.length, 0x20)])
  const total = 12 + 8 + jsonChunk.length + 8 + binLength
  return {
    size: total,
    async *stream() {
      const header = Buffer.alloc(20)
      header.write('glTF', 0, 'ascii')
      header.writeUInt32LE(2, 4)
      header.writeUInt32LE(total, 8)
      header.writeUInt32LE(jsonChunk.length, 12)
      header.writeUInt32LE(0x4e4f534a, 16)
      yield header
      yield jsonChunk
      const binHeader = Buffer.alloc(8)
      binHeader.writeUInt32LE(binLength, 0)
      binHeader.writeUInt32LE(0x004e4942, 4)
      yield binHeader
      yield Buffer.concat([bin, Buffer.alloc(pad4(bin.length) - bin.length)])
      const slice = Buffer.alloc(64 * 1024)
      for (let left = padding; left > 0; left -= slice.length) yield left >= slice.length ? slice : slice.subarray(0, left)
    },
  }
}
