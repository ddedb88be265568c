import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findWrongImports } from '../bin/check-imports.js'

describe('the import-direction lint', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'tessera-imports-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const file = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    writeFileSync(path.join(root, rel), text)
  }

  it('accepts rest-adapters → subgraphs → platform and flags every wrong direction', () => {
    file('platform/errors.ts', 'export const x = 1\n')
    file('subgraphs/devices/index.ts', "import { x } from '../../platform/errors.js'\nexport const y = x\n")
    file('subgraphs/charts/index.ts', "import { y } from '../devices/index.js'\nexport const z = y\n")
    file('rest-adapters/devices/index.ts', "import { y } from '../../subgraphs/devices/index.js'\nimport { x } from '../../platform/errors.js'\n")
    file('rest-adapters/charts/index.ts', "import { y } from '../../subgraphs/devices/index.js'\n")
    file('gateway/index.ts', "import { y } from '../subgraphs/devices/index.js'\nimport { x } from '../platform/errors.js'\n")
    file('platform/http.ts', "import { y } from '../rest-adapters/devices/index.js'\n")
    file('platform/http.test.ts', "import { s } from '../test/support/server.js'\n")
    file('platform/jobs.ts', "import { s } from '../test/support/server.js'\n")
    expect(findWrongImports(root).sort()).toEqual([
      'gateway/index.ts: must not import ../subgraphs/devices/index.js',
      'platform/http.ts: must not import ../rest-adapters/devices/index.js',
      'platform/jobs.ts: imports ../test/support/server.js, outside the layers',
      'rest-adapters/charts/index.ts: must not import ../../subgraphs/devices/index.js',
      'subgraphs/charts/index.ts: must not import ../devices/index.js',
    ])
  })

  it('finds nothing wrong in this repository', () => {
    expect(findWrongImports(path.resolve('.'))).toEqual([])
  })
})
