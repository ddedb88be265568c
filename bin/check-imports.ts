// Fails when an import points the wrong way. Dependencies run one way only:
//   rest-adapters/<s> → subgraphs/<s> → platform
// a subgraph never imports another service, REST adapter or gateway; the gateway imports
// platform only (it sees SDL and URLs, never service code); platform imports no layer above
// it; only bin/ and test/ may know every part. Tests beside the code may use test/support.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const LAYERS = ['platform', 'subgraphs', 'rest-adapters', 'gateway'] as const

function* files(dir: string): Generator<string> {
  if (!existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'generated') continue
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) yield* files(full)
    else if (full.endsWith('.ts')) yield full
  }
}

/** Layer and service of a path inside the repository, e.g. ['subgraphs', 'devices']. */
function locate(root: string, file: string): [string, string | undefined] {
  const [layer, service] = path.relative(root, file).split(path.sep)
  return [layer ?? '', layer === 'subgraphs' || layer === 'rest-adapters' ? service : undefined]
}

function allowed(from: [string, string | undefined], to: [string, string | undefined]): boolean {
  const [fromLayer, fromService] = from
  const [toLayer, toService] = to
  if (fromLayer === toLayer) return fromService === toService
  switch (fromLayer) {
    case 'platform':
      return false
    case 'subgraphs':
      return toLayer === 'platform'
    case 'rest-adapters':
      return toLayer === 'platform' || (toLayer === 'subgraphs' && toService === fromService)
    case 'gateway':
      return toLayer === 'platform'
    default:
      return true
  }
}

/** Every import under `root` that points the wrong way, as `file: must not import …` lines. */
export function findWrongImports(root: string): string[] {
  const problems: string[] = []
  for (const layer of LAYERS) {
    for (const file of files(path.join(root, layer))) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
      for (const ref of info.importedFiles) {
        if (!ref.fileName.startsWith('.')) continue
        const target = path.resolve(path.dirname(file), ref.fileName)
        const to = locate(root, target)
        if (file.endsWith('.test.ts') && to[0] === 'test') continue
        if (!(LAYERS as readonly string[]).includes(to[0])) {
          problems.push(`${path.relative(root, file)}: imports ${ref.fileName}, outside the layers`)
        } else if (!allowed(locate(root, file), to)) {
          problems.push(`${path.relative(root, file)}: must not import ${ref.fileName}`)
        }
      }
    }
  }
  return problems
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const problems = findWrongImports(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'))
  if (problems.length) {
    console.error(`Wrong-direction imports:\n  ${problems.join('\n  ')}`)
    process.exit(1)
  }
  console.log('imports: every dependency points the right way')
}
