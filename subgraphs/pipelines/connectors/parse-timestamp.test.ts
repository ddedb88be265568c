import { describe, expect, it } from 'vitest'
import { parseTimestamp } from './parse-timestamp.js'

describe('parseTimestamp', () => {
  it('reads ISO 8601 dates and date-times, taking a missing zone as UTC', () => {
    expect(parseTimestamp('2024-05-01')).toEqual(new Date('2024-05-01T00:00:00Z'))
    expect(parseTimestamp('2024-05-01T12:30')).toEqual(new Date('2024-05-01T12:30:00Z'))
    expect(parseTimestamp('2024-05-01 12:30:15.5')).toEqual(new Date('2024-05-01T12:30:15.500Z'))
    expect(parseTimestamp('2024-05-01T12:30:15.123456Z')).toEqual(new Date('2024-05-01T12:30:15.123Z'))
    expect(parseTimestamp('2024-05-01T12:30:00+02:00')).toEqual(new Date('2024-05-01T10:30:00Z'))
    expect(parseTimestamp('2024-05-01T12:30:00-0530')).toEqual(new Date('2024-05-01T18:00:00Z'))
    expect(parseTimestamp('2024-05-01 12:30:00+02')).toEqual(new Date('2024-05-01T10:30:00Z'))
    expect(parseTimestamp('0099-01-01')?.getUTCFullYear()).toBe(99)
  })

  it('refuses impossible calendar dates and anything that is not ISO 8601', () => {
    for (const text of [
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
      '2024-05-01T24:00',
      '2024-05-01T12:60',
      '2024-05-01T12:00+25:00',
      '05/01/2024',
      '2024-5-1',
      '20240501',
      'yesterday',
      '',
      ' 2024-05-01',
    ]) {
      expect(parseTimestamp(text), text).toBeUndefined()
    }
    expect(parseTimestamp('2024-02-29')).toEqual(new Date('2024-02-29T00:00:00Z'))
  })
})
