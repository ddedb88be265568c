import { readFileSync } from 'node:fs'
import { generate } from '@graphql-codegen/cli'
import { describe, expect, it } from 'vitest'
import { composeSupergraph } from '../bin/compose.js'
import codegenConfig from '../codegen.js'

describe('generated artifacts are up to date', () => {
  it('schema/supergraph.graphql is the composition of schema/*.graphql (run `npm run compose`)', () => {
    expect(readFileSync('schema/supergraph.graphql', 'utf8')).toBe(composeSupergraph())
  })

  it('resolver types match the subgraph SDL (run `npm run codegen`)', async () => {
    const outputs = (await generate({ ...codegenConfig, silent: true }, false)) as Array<{ filename: string; content: string }>
    expect(outputs.length).toBeGreaterThan(0)
    for (const output of outputs) {
      expect(readFileSync(output.filename, 'utf8'), output.filename).toBe(output.content)
    }
  })
})
