import { describe, expect, it } from 'vitest'
import { createDocumentCheck } from '../../gateway/document-cache.js'

const limits = { maxTokens: 200, maxAliases: 2, maxDirectives: 2 }

describe('the document check remembered by operation text', () => {
  it('passes a text within the limits and remembers it, least recently used out first', () => {
    const documents = createDocumentCheck({ limits, maxEntries: 2 })
    expect(documents.check('{ a }')).toBeUndefined()
    expect(documents.check('{ b }')).toBeUndefined()
    expect(documents.size).toBe(2)
    // '{ a }' used again, so '{ b }' is the one a third text pushes out.
    expect(documents.check('{ a }')).toBeUndefined()
    expect(documents.check('{ c }')).toBeUndefined()
    expect(documents.size).toBe(2)
    expect(documents.check('{ a }')).toBeUndefined()
    expect(documents.size).toBe(2)
  })

  it('refuses a text over a limit every time with its own code, and never remembers it', () => {
    const documents = createDocumentCheck({ limits })
    const tooManyAliases = '{ x: a y: a z: a }'
    for (let i = 0; i < 3; i++) {
      expect(documents.check(tooManyAliases)?.extensions.code).toBe('QUERY_TOO_MANY_ALIASES')
    }
    expect(documents.check('{ a ')?.extensions.code).toBe('GRAPHQL_PARSE_FAILED')
    expect(documents.check(`{ ${'a '.repeat(300)}}`)?.extensions.code).toBe('QUERY_TOO_LARGE')
    expect(documents.size).toBe(0)
  })

  it('checks a long text every time rather than keeping it', () => {
    const documents = createDocumentCheck({ limits: { ...limits, maxTokens: 100_000 } })
    expect(documents.check(`{ a ${' '.repeat(20_000)}}`)).toBeUndefined()
    expect(documents.size).toBe(0)
  })
})
