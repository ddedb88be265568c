import { describe, expect, it } from 'vitest'
import { CAST_FAILED, castValue, parseBooleanText, parseNumericText, parseTimestampText } from './cast-value.js'

describe('castValue', () => {
  it('keeps null (and a missing value) null whatever the target', () => {
    for (const to of ['string', 'integer', 'number', 'boolean', 'timestamp', 'json'] as const) {
      expect(castValue(null, to)).toBeNull()
      expect(castValue(undefined, to)).toBeNull()
    }
  })

  describe('to string', () => {
    it.each([
      ['abc', 'abc'],
      [42, '42'],
      [-1.5, '-1.5'],
      [true, 'true'],
      [10n, '10'],
      [new Date('2024-05-01T12:00:00Z'), '2024-05-01T12:00:00.000Z'],
      [{ a: [1, 'x'] }, '{"a":[1,"x"]}'],
      [[1, 2], '[1,2]'],
    ])('%o → %j', (value, expected) => {
      expect(castValue(value, 'string')).toBe(expected)
    })

    it('fails on an invalid Date and on objects JSON cannot write', () => {
      expect(castValue(new Date(Number.NaN), 'string')).toBe(CAST_FAILED)
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      expect(castValue(cyclic, 'string')).toBe(CAST_FAILED)
    })
  })

  describe('to integer', () => {
    it.each([
      [42, 42],
      [-0, 0],
      ['42', 42],
      [' -7 ', -7],
      ['+5', 5],
      ['007', 7],
      ['42.000', 42],
      ['4.2e1', 42],
      ['1e3', 1000],
      ['12300e-2', 123],
      ['0.0', 0],
      [10n, 10],
      ['9007199254740991', 9007199254740991],
      ['9007199254740993', '9007199254740993'],
      ['-123456789012345678901234567890', '-123456789012345678901234567890'],
      ['1.5e20', '150000000000000000000'],
      [2 ** 60, '1152921504606846976'],
      [12345678901234567890n, '12345678901234567890'],
    ])('%o → %o', (value, expected) => {
      expect(castValue(value, 'integer')).toBe(expected)
    })

    it.each([4.5, '4.5', '1e-1', 'abc', '', '0x10', Number.NaN, Number.POSITIVE_INFINITY, true, new Date(0), {}, '1'.repeat(39), '1e38', '1e999999'])(
      'fails on %o',
      (value) => {
        expect(castValue(value, 'integer')).toBe(CAST_FAILED)
      },
    )

    it('accepts up to 38 digits', () => {
      expect(castValue('9'.repeat(38), 'integer')).toBe('9'.repeat(38))
    })
  })

  describe('to number', () => {
    it.each([
      [1.5, 1.5],
      ['1.5', 1.5],
      [' -2e3 ', -2000],
      ['.5', 0.5],
      [7n, 7],
      ['9007199254740993', 9007199254740992],
    ])('%o → %o', (value, expected) => {
      expect(castValue(value, 'number')).toBe(expected)
    })

    it.each(['abc', '', 'NaN', 'Infinity', '1e999', Number.NaN, true, {}])('fails on %o', (value) => {
      expect(castValue(value, 'number')).toBe(CAST_FAILED)
    })
  })

  describe('to boolean', () => {
    it.each([
      [true, true],
      [false, false],
      [1, true],
      [0, false],
      ['true', true],
      ['FALSE', false],
      ['Yes', true],
      ['no', false],
      [' 1 ', true],
      ['0', false],
    ])('%o → %o', (value, expected) => {
      expect(castValue(value, 'boolean')).toBe(expected)
    })

    it.each([2, -1, 'maybe', 't', '', {}, new Date(0)])('fails on %o', (value) => {
      expect(castValue(value, 'boolean')).toBe(CAST_FAILED)
    })
  })

  describe('to timestamp', () => {
    it('passes valid Dates through', () => {
      const d = new Date('2024-01-01T00:00:00Z')
      expect(castValue(d, 'timestamp')).toBe(d)
    })

    it.each([
      ['2024-05-01', '2024-05-01T00:00:00.000Z'],
      ['2024-05-01T12:30', '2024-05-01T12:30:00.000Z'],
      ['2024-05-01 12:30:15.25', '2024-05-01T12:30:15.250Z'],
      ['2024-05-01T12:30:15.123456Z', '2024-05-01T12:30:15.123Z'],
      ['2024-05-01T12:30:15+02:00', '2024-05-01T10:30:15.000Z'],
      ['2024-05-01T12:30:15-0530', '2024-05-01T18:00:15.000Z'],
      ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
      ['0050-01-01', '0050-01-01T00:00:00.000Z'],
      [0, '1970-01-01T00:00:00.000Z'],
      [1714566600000, '2024-05-01T12:30:00.000Z'],
    ])('%o → %s', (value, iso) => {
      const result = castValue(value, 'timestamp')
      expect(result).toBeInstanceOf(Date)
      expect((result as Date).toISOString()).toBe(iso)
    })

    const invalid = ['2023-02-29', '2024-13-01', '2024-04-31', '2024-05-01T24:00', '2024-05-01T12:60', 'yesterday', '05/01/2024', '']
    it.each([...invalid, true, Number.NaN, 1e16, new Date(Number.NaN)])('fails on %o', (value) => {
      expect(castValue(value, 'timestamp')).toBe(CAST_FAILED)
    })
  })

  describe('to json', () => {
    it('parses JSON text', () => {
      expect(castValue('{"a":[1,2]}', 'json')).toEqual({ a: [1, 2] })
      expect(castValue('"text"', 'json')).toBe('text')
      expect(castValue('null', 'json')).toBeNull()
    })

    it('passes objects, arrays, booleans and numbers through', () => {
      const o = { a: 1 }
      expect(castValue(o, 'json')).toBe(o)
      expect(castValue([1], 'json')).toEqual([1])
      expect(castValue(true, 'json')).toBe(true)
      expect(castValue(3, 'json')).toBe(3)
    })

    it.each(['{a:1}', 'text', '', Number.NaN, new Date(0)])('fails on %o', (value) => {
      expect(castValue(value, 'json')).toBe(CAST_FAILED)
    })
  })
})

describe('text parsers', () => {
  it('parseNumericText returns bigints only beyond 2^53', () => {
    expect(parseNumericText('12')).toBe(12)
    expect(parseNumericText('-0')).toBe(0)
    expect(parseNumericText('9007199254740993')).toBe(9007199254740993n)
    expect(parseNumericText('1.25e2')).toBe(125)
    expect(parseNumericText('.')).toBeUndefined()
    expect(parseNumericText('1_000')).toBeUndefined()
  })

  it('parseBooleanText knows six words', () => {
    expect(['true', 'yes', '1', 'false', 'no', '0', 'on'].map(parseBooleanText)).toEqual([true, true, true, false, false, false, undefined])
  })

  it('parseTimestampText reads times without an offset as UTC', () => {
    expect(parseTimestampText('1970-01-01T00:00:01')).toBe(1000)
    expect(parseTimestampText('1970-01-01T01:00:00+01:00')).toBe(0)
  })
})
