import { describe, expect, it } from 'vitest'
import { hasTemporalName, profileFields } from './profile-fields.js'

describe('profileFields', () => {
  it('infers each measurement type from values and names', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({
      day: `2024-01-${String(i + 1).padStart(2, '0')}`,
      year: 2010 + (i % 4),
      month: ['Jan', 'Feb', 'Mar'][i % 3],
      rating: 1 + (i % 5),
      revenue: 100 + i * 12.5,
      visits: 1000 + i * 37,
      region: ['north', 'south'][i % 2],
      active: i % 2 === 0,
      hours: 7.5 + i / 10,
      mixed: i % 2 ? 'x' : 1,
      nested: { a: i },
      empty: null,
    }))
    const profiles = profileFields(rows, Object.keys(rows[0] ?? {}))
    expect(profiles.map((p) => [p.name, p.type])).toEqual([
      ['day', 'temporal'],
      ['year', 'temporal'],
      ['month', 'temporal'],
      ['rating', 'ordinal'],
      ['revenue', 'quantitative'],
      ['visits', 'quantitative'],
      ['region', 'nominal'],
      ['active', 'nominal'],
      ['hours', 'quantitative'],
      ['mixed', 'nominal'],
    ])
    expect(profiles[0]).toEqual({ name: 'day', type: 'temporal', temporalBy: 'values', count: 12, distinct: 12 })
    expect(profiles[1]).toMatchObject({ name: 'year', temporalBy: 'name', distinct: 4, min: 2010, max: 2013 })
    expect(profiles[3]).toMatchObject({ name: 'rating', distinct: 5, min: 1, max: 5 })
  })

  it('keeps few, non-repeating integers quantitative', () => {
    const rows = [{ units: 3 }, { units: 1 }, { units: 2 }]
    expect(profileFields(rows, ['units'])[0]?.type).toBe('quantitative')
  })

  it('counts nulls out of the distinct values', () => {
    const rows = [{ c: 'a' }, { c: null }, { c: 'a' }, {}, { c: 'b' }]
    expect(profileFields(rows, ['c'])).toEqual([{ name: 'c', type: 'nominal', count: 3, distinct: 2 }])
  })
})

describe('hasTemporalName', () => {
  it.each([
    ['date', true],
    ['order_date', true],
    ['createdAt', true],
    ['Shipped On', true],
    ['fiscalYear', true],
    ['hours', false],
    ['day_count', false],
    ['at', false],
    ['update', false],
  ])('%s → %s', (name, expected) => {
    expect(hasTemporalName(name)).toBe(expected)
  })
})
