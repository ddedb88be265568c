// Generates the Prisma clients of the platform and every service. `prisma generate` needs no
// engine binary in Prisma 7, but its CLI still checks that a schema-engine path exists, and
// that binary would have to be downloaded from outside the npm registry; any file satisfies
// the check because generate never runs it. CHECKPOINT_DISABLE stops the CLI's update check,
// which would otherwise call out to Prisma's servers.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const schemas = [
  'platform/prisma/schema.prisma',
  ...readdirSync(path.join(root, 'subgraphs'))
    .map((s) => `subgraphs/${s}/prisma/schema.prisma`)
    .filter((p) => existsSync(path.join(root, p))),
]
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url) }
for (const schema of schemas) {
  execFileSync(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'generate', '--schema', schema], {
    cwd: root,
    env: { ...env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  console.log(`prisma client generated for ${schema}`)
}
