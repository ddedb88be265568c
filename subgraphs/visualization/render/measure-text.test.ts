import * as vega from 'vega'
import { describe, expect, it } from 'vitest'
import { installVegaTextMetrics, measureText } from './measure-text.js'

describe('measureText', () => {
  it('uses the DejaVu Sans glyph advances', () => {
    // DejaVu Sans digits advance 1303 of 2048 units per em.
    expect(measureText('0', 10)).toBeCloseTo((1303 / 2048) * 10, 3)
    expect(measureText('0000', 20)).toBeCloseTo(4 * (1303 / 2048) * 20, 3)
    expect(measureText('WWW', 10)).toBeGreaterThan(measureText('iii', 10) * 2)
    expect(measureText('Title', 16, true)).toBeGreaterThan(measureText('Title', 16))
    expect(measureText('', 10)).toBe(0)
    expect(measureText('abc', 0)).toBe(0)
  })
})

describe('installVegaTextMetrics', () => {
  const metrics = (vega as unknown as { textMetrics: { width: (item: object, text: unknown) => number } }).textMetrics

  it('replaces the estimate with measured widths, capped at the limit', () => {
    installVegaTextMetrics()
    expect(metrics.width({ fontSize: 10 }, ' 0 ')).toBeCloseTo(measureText('0', 10), 5)
    expect(metrics.width({}, 'ab')).toBeCloseTo(measureText('ab', 11), 5)
    expect(metrics.width({ fontSize: 13, fontWeight: 'bold' }, 'Title')).toBeCloseTo(measureText('Title', 13, true), 5)
    expect(metrics.width({ fontSize: 10, limit: 20 }, 'a long axis label')).toBe(20)
    expect(metrics.width({ fontSize: 10, limit: 200 }, 'short')).toBeCloseTo(measureText('short', 10), 5)
  })
})
