import { describe, expect, it } from 'vitest'
import { isIsoDate, isIsoYearMonth } from './iso-date.js'

describe('isIsoDate', () => {
  it.each([
    '2024-02-29',
    '2024-03-01T00:00',
    '2024-03-01T23:59:59',
    '2024-03-01T12:00:00.123456Z',
    '2024-03-01T12:00:00-05:30',
    '2024-03-01T12:00+0200',
    '2024-03-01 12:00',
  ])('accepts %s', (value) => {
    expect(isIsoDate(value)).toBe(true)
  })

  it.each(['2023-02-29', '2024-04-31', '2024-00-10', '2024-03-01T24:00', '2024-03-01T12:60', '2024-3-1', '20240301', 'March 1, 2024', ''])(
    'rejects %s',
    (value) => {
      expect(isIsoDate(value)).toBe(false)
    },
  )

  it('rejects non-strings', () => {
    expect(isIsoDate(20240301)).toBe(false)
    expect(isIsoDate(new Date(0))).toBe(false)
  })
})

describe('isIsoYearMonth', () => {
  it('accepts a year and a real month only', () => {
    expect(isIsoYearMonth('2024-12')).toBe(true)
    expect(isIsoYearMonth('2024-13')).toBe(false)
    expect(isIsoYearMonth('2024-12-01')).toBe(false)
  })
})
