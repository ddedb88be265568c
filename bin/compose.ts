// Composes schema/<service>.graphql into schema/supergraph.graphql (Federation 2).
// `--check` exits non-zero when the checked-in supergraph is stale instead of writing it.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { composeServices } from '@apollo/composition'
import { parse } from 'graphql'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const schemaDir = path.join(root, 'schema')

/** Composes every subgraph SDL in schema/ and returns the supergraph SDL. */
export function composeSupergraph(): string {
  const services = readdirSync(schemaDir)
    .filter((f) => f.endsWith('.graphql') && f !== 'supergraph.graphql')
    .sort()
    .map((f) => {
      const name = f.replace(/\.graphql$/, '')
      // The URL is a placeholder: the gateway is told where each subgraph is at start.
      return { name, url: `http://${name}.subgraph.tessera/graphql`, typeDefs: parse(readFileSync(path.join(schemaDir, f), 'utf8')) }
    })
  const result = composeServices(services)
  if (result.errors) throw new Error(`Composition failed:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`)
  return `# Composed by \`npm run compose\` from schema/*.graphql. Do not edit.\n${result.supergraphSdl}\n`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const target = path.join(schemaDir, 'supergraph.graphql')
  const sdl = composeSupergraph()
  if (process.argv.includes('--check')) {
    const current = readFileSync(target, 'utf8')
    if (current !== sdl) {
      console.error('schema/supergraph.graphql is stale: run `npm run compose`')
      process.exit(1)
    }
    console.log('schema/supergraph.graphql is up to date')
  } else {
    writeFileSync(target, sdl)
    console.log(`wrote ${path.relative(root, target)}`)
  }
}
