// gltf-validator ships no type declarations; these cover the part Tessera calls.
declare module 'gltf-validator' {
  export interface ValidatorMessage {
    code: string
    message: string
    /** 0 error, 1 warning, 2 information, 3 hint. */
    severity: 0 | 1 | 2 | 3
    pointer?: string
    offset?: number
  }
  export interface ValidationReport {
    validatorVersion: string
    mimeType?: string
    issues: { numErrors: number; numWarnings: number; numInfos: number; numHints: number; messages: ValidatorMessage[]; truncated: boolean }
    info?: {
      version?: string
      generator?: string
      extensionsUsed?: string[]
      extensionsRequired?: string[]
      animationCount?: number
      materialCount?: number
      drawCallCount?: number
      totalVertexCount?: number
      totalTriangleCount?: number
      hasTextures?: boolean
    }
  }
  export interface ValidationOptions {
    uri?: string
    format?: 'glb' | 'gltf'
    maxIssues?: number
    ignoredIssues?: string[]
    externalResourceFunction?: (uri: string) => Promise<Uint8Array>
  }
  export function validateBytes(data: Uint8Array, options?: ValidationOptions): Promise<ValidationReport>
  export function version(): string
}
