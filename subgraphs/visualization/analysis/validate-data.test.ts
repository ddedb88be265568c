import { describe, expect, it } from 'vitest'
import { MAX_ROWS } from './read-rows.js'
import { MAX_ERRORS, validateData, type DataValidationReport } from './validate-data.js'

const SCHEMA = { type: 'tabular', columns: ['name', 'age'], types: ['string', 'integer'] }

function report(data: unknown[], expected_schema: unknown = SCHEMA): DataValidationReport {
  const outcome = validateData({ data, expected_schema })
  if (!outcome.ok) throw new Error(`rejected: ${JSON.stringify(outcome.issues)}`)
  return outcome.report
}

function issues(input: unknown) {
  const outcome = validateData(input)
  return outcome.ok ? [] : outcome.issues
}

function fields(input: unknown): string[] {
  return issues(input).map((i) => i.field)
}

describe('validateData: malformed requests', () => {
  it('wants a body object with a row array', () => {
    expect(fields(null)).toEqual(['body'])
    expect(fields({ data: 'rows', expected_schema: SCHEMA })).toEqual(['data'])
    expect(fields({ data: [{ name: 'a' }, 3, null, ['x']], expected_schema: SCHEMA })).toEqual(['data[1]', 'data[2]', 'data[3]'])
  })

  it('caps the rows at 100,000', () => {
    const rows = Array.from({ length: MAX_ROWS + 1 }, () => ({ name: 'a', age: 1 }))
    expect(issues({ data: rows, expected_schema: SCHEMA })).toEqual([{ field: 'data', message: `must have at most ${MAX_ROWS} rows (got ${MAX_ROWS + 1})` }])
    expect(validateData({ data: rows.slice(1), expected_schema: SCHEMA }).ok).toBe(true)
  })

  it('wants an expected_schema object', () => {
    expect(fields({ data: [] })).toEqual(['expected_schema'])
    expect(fields({ data: [], expected_schema: [] })).toEqual(['expected_schema'])
  })

  it('knows only the tabular schema type', () => {
    const found = issues({ data: [], expected_schema: { ...SCHEMA, type: 'graph' } })
    expect(found).toHaveLength(1)
    expect(found[0]?.field).toBe('expected_schema.type')
    expect(found[0]?.message).toContain('tabular')
  })

  it('wants one type per column', () => {
    const found = issues({ data: [], expected_schema: { type: 'tabular', columns: ['a', 'b'], types: ['string'] } })
    expect(found).toEqual([{ field: 'expected_schema.types', message: 'has 1 types for 2 columns; give one type per column' }])
  })

  it('names each unknown type name and lists the known ones', () => {
    const found = issues({ data: [], expected_schema: { type: 'tabular', columns: ['a', 'b', 'c'], types: ['string', 'float', 7] } })
    expect(found.map((i) => i.field)).toEqual(['expected_schema.types[1]', 'expected_schema.types[2]'])
    expect(found[0]?.message).toBe('unknown type "float"; use one of string, number, integer, boolean, date, any')
  })

  it('wants distinct, non-empty column names', () => {
    expect(fields({ data: [], expected_schema: { type: 'tabular', columns: [], types: [] } })).toEqual(['expected_schema.columns'])
    expect(fields({ data: [], expected_schema: { type: 'tabular', columns: ['a', 'a', ''], types: ['any', 'any', 'any'] } })).toEqual([
      'expected_schema.columns[1]',
      'expected_schema.columns[2]',
    ])
  })

  it('reports problems with the data and the schema together', () => {
    expect(fields({ data: 5, expected_schema: { type: 'x', columns: ['a'], types: ['string'] } })).toEqual(['data', 'expected_schema.type'])
  })
})

describe('validateData: errors', () => {
  it('names the row, column, expected and actual type of every bad cell', () => {
    const result = report([{ name: 'Ada', age: 36 }, { name: 42, age: 36.5 }, { age: 'forty' }])
    expect(result.valid).toBe(false)
    expect(result.errors).toEqual([
      {
        code: 'type_mismatch',
        row: 1,
        column: 'name',
        expected: 'string',
        actual: 'integer',
        message: "row 1: column 'name' expected string, got integer (42)",
      },
      {
        code: 'type_mismatch',
        row: 1,
        column: 'age',
        expected: 'integer',
        actual: 'number',
        message: "row 1: column 'age' expected integer, got number (36.5)",
      },
      { code: 'missing_column', row: 2, column: 'name', expected: 'string', actual: 'missing', message: "row 2: column 'name' is missing" },
      {
        code: 'type_mismatch',
        row: 2,
        column: 'age',
        expected: 'integer',
        actual: 'string',
        message: 'row 2: column \'age\' expected integer, got string ("forty")',
      },
    ])
  })

  it('checks every declared type and lets null through', () => {
    const schema = { type: 'tabular', columns: ['s', 'n', 'i', 'b', 'd', 'x'], types: ['string', 'number', 'integer', 'boolean', 'date', 'any'] }
    const good = [
      { s: 'a', n: 1.5, i: 2, b: true, d: '2024-02-29', x: { nested: true } },
      { s: '', n: -3, i: -7, b: false, d: '2024-03-01T12:30:00.250+02:00', x: [1] },
      { s: null, n: null, i: null, b: null, d: null, x: null },
    ]
    expect(report(good, schema).errors).toEqual([])
    const bad = [{ s: 1, n: '1.5', i: 2.5, b: 'true', d: '2023-02-29', x: 0 }]
    expect(report(bad, schema).errors.map((e) => [e.column, e.actual])).toEqual([
      ['s', 'integer'],
      ['n', 'string'],
      ['i', 'number'],
      ['b', 'string'],
      ['d', 'string'],
    ])
  })

  it('accepts ISO dates only when they name a real day and time', () => {
    const schema = { type: 'tabular', columns: ['d'], types: ['date'] }
    const values = ['2024-01-31', '2024-01-31T23:59', '2024-01-31T23:59:59Z', '2024-13-01', '2024-04-31', '2024-01-01T24:00', '01/02/2024', '20240101']
    const result = report(
      values.map((d) => ({ d })),
      schema,
    )
    expect(result.errors.map((e) => e.row)).toEqual([3, 4, 5, 6, 7])
  })

  it(`lists at most ${MAX_ERRORS} errors and says how many more there are`, () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({ name: `n${i}` }))
    const result = report(rows)
    expect(result.valid).toBe(false)
    expect(result.errors).toHaveLength(MAX_ERRORS)
    expect(result.errors.at(-1)?.row).toBe(MAX_ERRORS - 1)
    expect(result.warnings).toContain(`200 more errors were omitted; only the first ${MAX_ERRORS} of 1200 are listed`)
  })
})

describe('validateData: statistics', () => {
  it('counts rows, null cells of the schema columns and observes each column type', () => {
    const schema = {
      type: 'tabular',
      columns: ['id', 'price', 'when', 'label', 'mixed', 'empty'],
      types: ['integer', 'number', 'date', 'string', 'any', 'any'],
    }
    const data = [
      { id: 1, price: 2, when: '2024-01-01', label: 'a', mixed: 1, empty: null, extra: true },
      { id: 2, price: 2.5, when: '2024-01-02', label: '2024-01-03', mixed: 'one', empty: null },
      { id: 3, price: null, when: null, label: 'c', mixed: null },
      { id: 4, label: 'd', mixed: true, empty: null },
    ]
    // Null cells: 'empty' in every row (null, null, missing, null) + row 2 price, when, mixed + row 3 price, when (missing).
    const result = report(data, schema)
    expect(result.statistics).toEqual({
      total_rows: 4,
      null_count: 9,
      data_types: { id: 'integer', price: 'number', when: 'date', label: 'string', mixed: 'mixed', empty: 'null', extra: 'boolean' },
    })
  })

  it('is valid with no warnings for clean data', () => {
    const result = report([
      { name: 'Ada', age: 36 },
      { name: 'Alan', age: 41 },
    ])
    expect(result).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      statistics: { total_rows: 2, null_count: 0, data_types: { name: 'string', age: 'integer' } },
    })
  })

  it('reports an empty data set as valid and empty', () => {
    expect(report([])).toEqual({
      valid: true,
      errors: [],
      warnings: [],
      statistics: { total_rows: 0, null_count: 0, data_types: { name: 'null', age: 'null' } },
    })
  })
})

describe('validateData: warnings', () => {
  it('names columns that are not in the schema', () => {
    const result = report([
      { name: 'a', age: 1, nickname: 'x' },
      { name: 'b', age: 2 },
    ])
    expect(result.valid).toBe(true)
    expect(result.warnings).toEqual(["Column 'nickname' is not in expected_schema (present in 1 row)"])
  })

  it('flags numeric outliers beyond 3 IQR, and only those', () => {
    // Sorted 1..8, 18, 100: Q1 = 3.25, Q3 = 7.75, IQR 4.5, fences -10.25 and 21.25.
    const ages = [1, 2, 3, 4, 100, 5, 6, 7, 8, 18]
    const result = report(ages.map((age, i) => ({ name: `p${i}`, age })))
    expect(result.warnings).toEqual(["Column 'age' has 1 outlier beyond 3×IQR (outside -10.25 to 21.25): row 4 (100)"])
    expect(report(ages.filter((a) => a !== 100).map((age, i) => ({ name: `p${i}`, age }))).warnings).toEqual([])
  })

  it('flags a column that is null in every row', () => {
    const result = report([{ name: 'a', age: null }, { name: 'b' }])
    expect(result.warnings).toEqual(["Column 'age' is null or missing in all 2 rows"])
  })

  it('flags duplicate rows, whatever their key order', () => {
    const result = report([
      { name: 'a', age: 1 },
      { name: 'b', age: 2 },
      { age: 1, name: 'a' },
      { name: 'b', age: 2 },
      { name: 'b', age: 3 },
    ])
    expect(result.warnings).toEqual(['2 duplicate rows: row 2 repeats row 0, row 3 repeats row 1'])
  })

  it('flags columns mixing types, with counts per type', () => {
    const schema = { type: 'tabular', columns: ['v'], types: ['any'] }
    const result = report([{ v: 1 }, { v: 2.5 }, { v: 'three' }, { v: null }], schema)
    expect(result.errors).toEqual([])
    expect(result.warnings).toEqual(["Column 'v' has mixed types: number (2 rows), string (1 row)"])
  })

  it('does not call integers among fractions, or dates among text, mixed', () => {
    const schema = { type: 'tabular', columns: ['n', 's'], types: ['number', 'string'] }
    const result = report(
      [
        { n: 1, s: '2024-01-01' },
        { n: 1.5, s: 'later' },
      ],
      schema,
    )
    expect(result.warnings).toEqual([])
    expect(result.statistics.data_types).toEqual({ n: 'number', s: 'string' })
  })

  it('names the values of a string column that look like numbers', () => {
    const schema = { type: 'tabular', columns: ['zip', 'city'], types: ['string', 'string'] }
    const result = report(
      [
        { zip: '02134', city: 'Boston' },
        { zip: 'N1 9GU', city: 'London' },
        { zip: '1,250.5', city: '10' },
      ],
      schema,
    )
    expect(result.warnings).toEqual([
      'Column \'zip\' is declared string but 2 values look like numbers: row 0 ("02134"), row 2 ("1,250.5"); send numbers if the column holds quantities',
      'Column \'city\' is declared string but 1 value looks like numbers: row 2 ("10"); send numbers if the column holds quantities',
    ])
  })

  it('names at most five rows in one warning', () => {
    const schema = { type: 'tabular', columns: ['code'], types: ['string'] }
    const result = report(
      Array.from({ length: 8 }, (_, i) => ({ code: String(100 + i) })),
      schema,
    )
    expect(result.warnings).toEqual([
      'Column \'code\' is declared string but 8 values look like numbers: row 0 ("100"), row 1 ("101"), row 2 ("102"), row 3 ("103"), row 4 ("104") and 3 more; send numbers if the column holds quantities',
    ])
  })
})
