import { readFileSync, readdirSync } from 'node:fs'
import { composeServices } from '@apollo/composition'
import { parse } from 'graphql'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { addToCatalog, serviceFiles } from '../bin/new-service.js'

// The scaffold writes files into the repository; here its output is checked without writing:
// it parses, its SDL composes with today's graph, and the catalog gains exactly one entry.
describe('npm run new-service', () => {
  const files = serviceFiles('field-trips', new Date('2026-11-24T10:00:00Z'))

  it('writes the whole service: domain, subgraph, REST face, migration, model and a test', () => {
    expect(Object.keys(files).sort()).toEqual([
      'rest-adapters/field-trips/README.md',
      'rest-adapters/field-trips/index.ts',
      'schema/field-trips.graphql',
      'subgraphs/field-trips/errors.ts',
      'subgraphs/field-trips/field-trips-service.ts',
      'subgraphs/field-trips/graphql-mappers.ts',
      'subgraphs/field-trips/index.ts',
      'subgraphs/field-trips/prisma/migrations/20261124100000_init/migration.sql',
      'subgraphs/field-trips/prisma/migrations/migration_lock.toml',
      'subgraphs/field-trips/prisma/schema.prisma',
      'subgraphs/field-trips/resolvers.ts',
      'subgraphs/field-trips/scopes.ts',
      'test/field-trips/field-trips.test.ts',
    ])
    for (const [file, text] of Object.entries(files).filter(([f]) => f.endsWith('.ts'))) {
      const out = ts.transpileModule(text, {
        fileName: file,
        reportDiagnostics: true,
        compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
      })
      expect(
        out.diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
        file,
      ).toEqual([])
    }
    expect(files['subgraphs/field-trips/prisma/schema.prisma']).toContain('schemas  = ["field_trips"]')
    expect(files['subgraphs/field-trips/prisma/migrations/20261124100000_init/migration.sql']).toContain('CREATE TABLE "field_trips"."items"')
  })

  it('gives a subgraph that composes with the existing graph', () => {
    const existing = readdirSync('schema')
      .filter((f) => f.endsWith('.graphql') && f !== 'supergraph.graphql')
      .map((f) => ({ name: f.replace('.graphql', ''), url: `http://${f}`, typeDefs: parse(readFileSync(`schema/${f}`, 'utf8')) }))
    const added = { name: 'field-trips', url: 'http://field-trips', typeDefs: parse(files['schema/field-trips.graphql']!) }
    const result = composeServices([...existing, added])
    expect(result.errors?.map((e) => e.message)).toBeUndefined()
    expect(result.supergraphSdl).toContain('fieldTripsItems')
  })

  it('adds one catalog entry, with its scopes import, to bin/services.ts', () => {
    const before = readFileSync('bin/services.ts', 'utf8')
    const after = addToCatalog(before, 'field-trips')
    expect(after).toContain("import { FIELD_TRIPS_SCOPES } from '../subgraphs/field-trips/scopes.js'")
    expect(after).toContain(
      "  'field-trips': { scopes: FIELD_TRIPS_SCOPES, load: async () => (await import('../rest-adapters/field-trips/index.js')).fieldTripsService as Service },",
    )
    expect(after.split('\n').length).toBe(before.split('\n').length + 2)
  })
})
