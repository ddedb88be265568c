import { describe, expect, it } from 'vitest'
import { overlaps, parsePeriod } from './period-grammar.js'

const years = (text: string) => {
  const parsed = parsePeriod(text)
  return parsed.ok ? [parsed.range.start, parsed.range.end] : parsed.reason
}

describe('period grammar', () => {
  it('reads years and ranges of years with eras', () => {
    expect(years('1200-1400')).toEqual([1200, 1400])
    expect(years('1200 CE to 1400 CE')).toEqual([1200, 1400])
    expect(years('500 BCE-200 CE')).toEqual([-500, 200])
    expect(years('500–200 BC')).toEqual([-500, -200])
    expect(years('AD 1450')).toEqual([1450, 1450])
    expect(years('c. 1450')).toEqual([1450, 1450])
  })

  it('reads centuries, their thirds and millennia', () => {
    expect(years('5th century BCE')).toEqual([-500, -401])
    expect(years('early 15th century')).toEqual([1401, 1433])
    expect(years('mid 15th century')).toEqual([1434, 1466])
    expect(years('late 15th century')).toEqual([1467, 1500])
    expect(years('early 5th century BCE')).toEqual([-500, -468])
    expect(years('15th-16th century')).toEqual([1401, 1600])
    expect(years('2nd millennium BCE')).toEqual([-2000, -1001])
    expect(years('1st century')).toEqual([1, 100])
  })

  it('reads named periods from the gazetteer', () => {
    expect(years('Ming dynasty')).toEqual([1368, 1644])
    expect(years('the Bronze Age')).toEqual([-3300, -1200])
    expect(years('Heian period')).toEqual([794, 1185])
  })

  it('refuses what it cannot read, backwards ranges and year 0', () => {
    expect(years('sometime long ago')).toMatch(/not a period/)
    expect(years('1400-1200')).toMatch(/runs backwards/)
    expect(years('0')).toMatch(/not a period/)
    expect(years('')).toBe('is empty')
    expect(years('200 CE-500 BCE')).toMatch(/runs backwards/)
  })

  it('matches ranges that share a year', () => {
    expect(overlaps({ start: 1368, end: 1644 }, { start: 1401, end: 1433 })).toBe(true)
    expect(overlaps({ start: 1368, end: 1644 }, { start: 1645, end: 1700 })).toBe(false)
    expect(overlaps({ start: -500, end: -401 }, { start: -401, end: 0 })).toBe(true)
  })
})
