import { describe, expect, it } from 'vitest'
import { mergeDataPoints, parseDataPush } from './live-data.js'
import { findChartType } from './render/chart-catalog.js'

const bars = (...pairs: Array<[string, number]>) => pairs.map(([label, value]) => ({ label, value }))
const fieldsOf = (outcome: ReturnType<typeof parseDataPush>) => (outcome.ok ? [] : outcome.issues.map((i) => i.field))

describe('parseDataPush', () => {
  it('defaults to append with no window', () => {
    expect(parseDataPush({ data: [{ label: 'a', value: 1 }] })).toEqual({
      ok: true,
      push: { data: [{ label: 'a', value: 1 }], mode: 'append', window: undefined },
    })
  })

  it('takes replace and a window', () => {
    const outcome = parseDataPush({ data: [{ x: 1, y: 2 }], mode: 'replace', window: 10 })
    expect(outcome).toEqual({ ok: true, push: { data: [{ x: 1, y: 2 }], mode: 'replace', window: 10 } })
  })

  it('refuses a body that is not an object', () => {
    for (const body of [null, undefined, 'data', 42, [{ label: 'a', value: 1 }]]) expect(fieldsOf(parseDataPush(body))).toEqual(['body'])
  })

  it('names data when it is missing, not an array or empty', () => {
    for (const body of [{}, { data: 'a,b' }, { data: { label: 'a' } }, { data: [] }]) expect(fieldsOf(parseDataPush(body))).toEqual(['data'])
    const missing = parseDataPush({})
    expect(!missing.ok && missing.issues[0]?.message).toMatch(/required/)
  })

  it('names mode when it is not append or replace', () => {
    for (const mode of ['prepend', 'APPEND', 1, '']) expect(fieldsOf(parseDataPush({ data: [{}], mode }))).toEqual(['mode'])
  })

  it('names window when it is not a positive integer', () => {
    for (const window of [0, -3, 1.5, '10', Number.NaN, Infinity]) expect(fieldsOf(parseDataPush({ data: [{}], window }))).toEqual(['window'])
  })

  it('names unknown keys', () => {
    expect(fieldsOf(parseDataPush({ data: [{}], chart_type: 'bar' }))).toEqual(['chart_type'])
  })

  it('reports every problem at once', () => {
    expect(fieldsOf(parseDataPush({ mode: 'x', window: 0, extra: true })).sort()).toEqual(['data', 'extra', 'mode', 'window'])
  })
})

describe('mergeDataPoints', () => {
  const append = { mode: 'append' as const, window: undefined }

  it('append updates a bar with the same label in place and adds new labels at the end', () => {
    const merged = mergeDataPoints('bar', bars(['a', 1], ['b', 2], ['c', 3]), bars(['d', 4], ['b', 20]), append)
    expect(merged).toEqual(bars(['a', 1], ['b', 20], ['c', 3], ['d', 4]))
  })

  it('append keeps the last of several incoming points with one new label', () => {
    const merged = mergeDataPoints('line', bars(['2024-01-01', 1]), bars(['2024-01-02', 5], ['2024-01-02', 6]), append)
    expect(merged).toEqual(bars(['2024-01-01', 1], ['2024-01-02', 6]))
  })

  it('treats labels as identity on line, area, pie and donut too', () => {
    for (const type of ['line', 'area', 'pie', 'donut'] as const) {
      expect(mergeDataPoints(type, bars(['a', 1], ['b', 2]), bars(['a', 9]), append)).toEqual(bars(['a', 9], ['b', 2]))
    }
  })

  it('identifies a heatmap cell by (x, y), not by x or y alone', () => {
    const current = [
      { x: 'mon', y: 'am', value: 1 },
      { x: 'mon', y: 'pm', value: 2 },
    ]
    const merged = mergeDataPoints(
      'heatmap',
      current,
      [
        { x: 'mon', y: 'pm', value: 7 },
        { x: 'tue', y: 'am', value: 3 },
      ],
      append,
    )
    expect(merged).toEqual([
      { x: 'mon', y: 'am', value: 1 },
      { x: 'mon', y: 'pm', value: 7 },
      { x: 'tue', y: 'am', value: 3 },
    ])
  })

  it('keeps heatmap cells whose x and y differ only in type apart', () => {
    const merged = mergeDataPoints('heatmap', [{ x: 1, y: 2, value: 1 }], [{ x: '1', y: '2', value: 5 }], append)
    expect(merged).toHaveLength(2)
  })

  it('always appends scatter and histogram points, even repeated ones', () => {
    expect(
      mergeDataPoints(
        'scatter',
        [{ x: 1, y: 1 }],
        [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
        ],
        append,
      ),
    ).toEqual([
      { x: 1, y: 1 },
      { x: 1, y: 1 },
      { x: 2, y: 2 },
    ])
    expect(mergeDataPoints('histogram', [{ value: 3, label: 'a' }], [{ value: 3, label: 'a' }], append)).toEqual([
      { value: 3, label: 'a' },
      { value: 3, label: 'a' },
    ])
  })

  it('replace takes the incoming points as they are', () => {
    expect(mergeDataPoints('bar', bars(['a', 1], ['b', 2]), bars(['z', 9]), { mode: 'replace', window: undefined })).toEqual(bars(['z', 9]))
  })

  it('a window keeps only the newest points', () => {
    const current = bars(['a', 1], ['b', 2], ['c', 3])
    expect(mergeDataPoints('line', current, bars(['d', 4], ['e', 5]), { mode: 'append', window: 3 })).toEqual(bars(['c', 3], ['d', 4], ['e', 5]))
    expect(mergeDataPoints('line', current, bars(['x', 1], ['y', 2], ['z', 3]), { mode: 'replace', window: 2 })).toEqual(bars(['y', 2], ['z', 3]))
  })

  it('an in-place update does not make a point newer', () => {
    // 'a' keeps its position, so it is still the oldest and the first to go.
    const merged = mergeDataPoints('bar', bars(['a', 1], ['b', 2]), bars(['a', 10], ['c', 3]), { mode: 'append', window: 2 })
    expect(merged).toEqual(bars(['b', 2], ['c', 3]))
  })

  it('without a window keeps at most the type’s max_data_points, dropping the oldest', () => {
    const max = findChartType('pie')!.maxDataPoints
    const current = Array.from({ length: max }, (_, i) => ({ label: `s${i}`, value: i + 1 }))
    const merged = mergeDataPoints('pie', current, bars(['new-1', 1], ['new-2', 2]), append)
    expect(merged).toHaveLength(max)
    expect(merged[0]).toEqual({ label: 's2', value: 3 })
    expect(merged.slice(-2)).toEqual(bars(['new-1', 1], ['new-2', 2]))
  })

  it('a window larger than max_data_points is capped at max_data_points', () => {
    const max = findChartType('pie')!.maxDataPoints
    const incoming = Array.from({ length: max + 5 }, (_, i) => ({ label: `p${i}`, value: 1 }))
    const merged = mergeDataPoints('pie', [], incoming, { mode: 'replace', window: max * 10 })
    expect(merged).toHaveLength(max)
    expect(merged[0]).toEqual({ label: 'p5', value: 1 })
  })

  it('does not change the arrays it is given', () => {
    const current = bars(['a', 1])
    const incoming = bars(['a', 2], ['b', 3])
    mergeDataPoints('bar', current, incoming, append)
    expect(current).toEqual(bars(['a', 1]))
    expect(incoming).toEqual(bars(['a', 2], ['b', 3]))
  })
})
