import { describe, expect, it } from 'vitest'
import type { Column, Row } from '../connectors/connector.js'
import {
  MAX_TRANSFORMATIONS,
  TransformError,
  planTransformations,
  validateTransformations,
  type Transformation,
  type TransformationPlan,
} from './transformations.js'

const COLUMNS: Column[] = [
  { name: 'id', type: 'integer', nullable: false },
  { name: 'name', type: 'string', nullable: true },
  { name: 'amount', type: 'number', nullable: true },
  { name: 'active', type: 'boolean', nullable: false },
  { name: 'created', type: 'timestamp', nullable: true },
]

function issuesOf(input: unknown) {
  const result = validateTransformations(input)
  return result.ok ? [] : result.issues
}

function plan(transformations: Transformation[], columns: Column[] = COLUMNS): TransformationPlan {
  const result = planTransformations(transformations, columns)
  if (!result.ok) throw new Error(`did not plan: ${JSON.stringify(result.issues)}`)
  return result
}

function planIssues(transformations: Transformation[], columns: Column[] = COLUMNS) {
  const result = planTransformations(transformations, columns)
  return result.ok ? [] : result.issues
}

describe('validateTransformations', () => {
  it('accepts every kind and returns copies holding only the known fields', () => {
    const input = [
      { type: 'rename', from: 'First Name', to: 'first_name' },
      { type: 'filter', condition: "amount > 0 AND name LIKE 'A%'" },
      { type: 'cast', column: 'amount', to: 'integer' },
      { type: 'drop', columns: ['a', 'b'] },
    ]
    const result = validateTransformations(input)
    expect(result).toEqual({ ok: true, transformations: input })
    if (result.ok) expect(result.transformations[3]).not.toBe(input[3])
  })

  it('accepts an empty list', () => {
    expect(validateTransformations([])).toEqual({ ok: true, transformations: [] })
  })

  it('wants an array of at most 100 items', () => {
    expect(issuesOf({ type: 'rename' })).toEqual([{ field: 'transformations', message: 'must be an array' }])
    const many = Array.from({ length: MAX_TRANSFORMATIONS + 1 }, () => ({ type: 'filter', condition: 'a' }))
    expect(issuesOf(many)).toEqual([{ field: 'transformations', message: 'must have at most 100 items' }])
    expect(validateTransformations(many.slice(1)).ok).toBe(true)
  })

  it('names an unknown or missing type and lists the kinds', () => {
    expect(issuesOf([{ type: 'uppercase' }, {}, { type: 7 }, 'rename', null])).toEqual([
      { field: 'transformations[0].type', message: 'must be one of rename, filter, cast, drop' },
      { field: 'transformations[1].type', message: 'is required: one of rename, filter, cast, drop' },
      { field: 'transformations[2].type', message: 'must be one of rename, filter, cast, drop' },
      { field: 'transformations[3]', message: 'must be an object with a type' },
      { field: 'transformations[4]', message: 'must be an object with a type' },
    ])
  })

  it('checks rename fields', () => {
    expect(
      issuesOf([
        { type: 'rename' },
        { type: 'rename', from: '', to: 'x' },
        { type: 'rename', from: 'a', to: '1abc' },
        { type: 'rename', from: 'a', to: 'has space' },
        { type: 'rename', from: 'a', to: 'x'.repeat(64) },
        { type: 'rename', from: 'a', to: 'a' },
        { type: 'rename', from: 'tab\there', to: 'b' },
        { type: 'rename', from: 5, to: null },
      ]),
    ).toEqual([
      { field: 'transformations[0].from', message: 'is required: a column name' },
      { field: 'transformations[0].to', message: 'is required: a column name' },
      { field: 'transformations[1].from', message: 'is required: a column name' },
      { field: 'transformations[2].to', message: 'must start with a letter or _ and contain only letters, digits and _' },
      { field: 'transformations[3].to', message: 'must start with a letter or _ and contain only letters, digits and _' },
      { field: 'transformations[4].to', message: 'must be at most 63 characters' },
      { field: 'transformations[5].to', message: "must differ from 'from'" },
      { field: 'transformations[6].from', message: 'must not contain control characters' },
      { field: 'transformations[7].from', message: 'is required: a column name' },
      { field: 'transformations[7].to', message: 'is required: a column name' },
    ])
  })

  it('accepts a 63-character new name', () => {
    expect(validateTransformations([{ type: 'rename', from: 'a', to: `_${'x'.repeat(62)}` }]).ok).toBe(true)
  })

  it('checks filter conditions with the parser and reports its message', () => {
    expect(
      issuesOf([
        { type: 'filter' },
        { type: 'filter', condition: '   ' },
        { type: 'filter', condition: 42 },
        { type: 'filter', condition: '(amount > 10' },
        { type: 'filter', condition: "name = 'x" },
      ]),
    ).toEqual([
      { field: 'transformations[0].condition', message: 'is required: a condition such as amount > 0' },
      { field: 'transformations[1].condition', message: 'is required: a condition such as amount > 0' },
      { field: 'transformations[2].condition', message: 'is required: a condition such as amount > 0' },
      { field: 'transformations[3].condition', message: "expected ')' at position 12" },
      { field: 'transformations[4].condition', message: 'unterminated string starting at position 7' },
    ])
  })

  it('checks cast fields', () => {
    expect(
      issuesOf([
        { type: 'cast', column: 'a' },
        { type: 'cast', column: 'a', to: 'varchar' },
        { type: 'cast', to: 'string' },
      ]),
    ).toEqual([
      { field: 'transformations[0].to', message: 'is required: one of string, integer, number, boolean, timestamp, json' },
      { field: 'transformations[1].to', message: 'must be one of string, integer, number, boolean, timestamp, json' },
      { field: 'transformations[2].column', message: 'is required: a column name' },
    ])
  })

  it('checks drop columns', () => {
    expect(issuesOf([{ type: 'drop' }, { type: 'drop', columns: [] }, { type: 'drop', columns: 'a' }, { type: 'drop', columns: ['a', '', 'a', 3] }])).toEqual([
      { field: 'transformations[0].columns', message: 'is required: an array of one or more column names' },
      { field: 'transformations[1].columns', message: 'is required: an array of one or more column names' },
      { field: 'transformations[2].columns', message: 'is required: an array of one or more column names' },
      { field: 'transformations[3].columns[1]', message: 'is required: a column name' },
      { field: 'transformations[3].columns[2]', message: 'lists a twice' },
      { field: 'transformations[3].columns[3]', message: 'is required: a column name' },
    ])
  })

  it('reports fields a kind does not take', () => {
    expect(issuesOf([{ type: 'drop', column: 'a', columns: ['a'] }])).toEqual([
      { field: 'transformations[0].column', message: 'is not a field of drop; it takes columns' },
    ])
  })

  it('reports the problems of every item at once', () => {
    const issues = issuesOf([{ type: 'rename', from: 'a', to: 'b' }, { type: 'x' }, { type: 'filter', condition: 'AND' }])
    expect(issues.map((i) => i.field)).toEqual(['transformations[1].type', 'transformations[2].condition'])
  })
})

describe('planTransformations: issues', () => {
  it('reports a rename of a column that does not exist, listing the columns', () => {
    expect(planIssues([{ type: 'rename', from: 'nmae', to: 'full_name' }])).toEqual([
      { field: 'transformations[0].from', message: 'no column nmae at this step; columns: id, name, amount, active, created' },
    ])
  })

  it('reports a rename onto an existing column', () => {
    expect(planIssues([{ type: 'rename', from: 'name', to: 'amount' }])).toEqual([{ field: 'transformations[0].to', message: 'column amount already exists' }])
  })

  it('reports a filter on unknown columns', () => {
    expect(planIssues([{ type: 'filter', condition: 'amout > 1 AND nam IS NULL AND id > 0' }])).toEqual([
      { field: 'transformations[0].condition', message: 'no column amout, nam at this step; columns: id, name, amount, active, created' },
    ])
  })

  it('reports a filter whose literal no value of the column type can equal', () => {
    expect(
      planIssues([
        { type: 'filter', condition: "id = 'abc'" },
        { type: 'filter', condition: "active IN (TRUE, 'maybe')" },
        { type: 'filter', condition: 'active = 2' },
        { type: 'filter', condition: "created BETWEEN 'last week' AND '2024-01-01'" },
        { type: 'filter', condition: "id LIKE '4%'" },
        { type: 'filter', condition: "id = '42' AND amount > '1.5' AND active = 'yes' AND created > '2024-01-01' AND name > 5" },
      ]).map((i) => i.message),
    ).toEqual([
      "column id is integer and 'abc' is not a number, so the comparison is never true",
      "column active is boolean and 'maybe' is not a boolean, so the comparison is never true",
      'column active is boolean and 2 is not a boolean (only 1 and 0 are), so the comparison is never true',
      "column created is timestamp and 'last week' is not an ISO 8601 timestamp, so the comparison is never true",
      'column id is integer; LIKE applies to strings (cast it to string first)',
    ])
  })

  it('reports a cast of an unknown column', () => {
    expect(planIssues([{ type: 'cast', column: 'price', to: 'number' }])).toEqual([
      { field: 'transformations[0].column', message: 'no column price at this step; columns: id, name, amount, active, created' },
    ])
  })

  it('reports a drop of unknown columns, each by index', () => {
    expect(planIssues([{ type: 'drop', columns: ['name', 'x', 'y'] }])).toEqual([
      { field: 'transformations[0].columns[1]', message: 'no column x at this step; columns: id, name, amount, active, created' },
      { field: 'transformations[0].columns[2]', message: 'no column y at this step; columns: id, name, amount, active, created' },
    ])
  })

  it('reports a drop of every column', () => {
    expect(planIssues([{ type: 'drop', columns: ['id', 'name', 'amount', 'active', 'created'] }])).toEqual([
      { field: 'transformations[0].columns', message: 'would drop every column' },
    ])
  })

  it('checks each step against the columns the earlier steps left', () => {
    expect(
      planIssues([
        { type: 'rename', from: 'name', to: 'full_name' },
        { type: 'filter', condition: "name = 'x'" },
        { type: 'drop', columns: ['amount'] },
        { type: 'cast', column: 'amount', to: 'string' },
        { type: 'rename', from: 'full_name', to: 'name' },
      ]),
    ).toEqual([
      { field: 'transformations[1].condition', message: 'no column name at this step; columns: id, full_name, amount, active, created' },
      { field: 'transformations[3].column', message: 'no column amount at this step; columns: id, full_name, active, created' },
    ])
  })

  it('lets a rename reuse the name of a dropped column', () => {
    expect(
      planIssues([
        { type: 'drop', columns: ['name'] },
        { type: 'rename', from: 'id', to: 'name' },
      ]),
    ).toEqual([])
  })

  it('checks a filter literal against the type a cast gave the column', () => {
    const issues = planIssues([
      { type: 'filter', condition: "name LIKE 'a%'" },
      { type: 'cast', column: 'name', to: 'integer' },
      { type: 'filter', condition: "name LIKE 'a%'" },
    ])
    expect(issues).toEqual([{ field: 'transformations[2].condition', message: 'column name is integer; LIKE applies to strings (cast it to string first)' }])
  })

  it('reports duplicate source columns', () => {
    const id = COLUMNS[0] as Column
    expect(planIssues([], [id, id])).toEqual([{ field: 'columns', message: 'the source has two columns named id' }])
  })
})

describe('planTransformations: output columns', () => {
  it('keeps the input columns when there are no transformations', () => {
    expect(plan([]).columns).toEqual(COLUMNS)
  })

  it('renames in place, casts keeping nullability, and drops', () => {
    const p = plan([
      { type: 'rename', from: 'name', to: 'full_name' },
      { type: 'cast', column: 'id', to: 'string' },
      { type: 'cast', column: 'amount', to: 'integer' },
      { type: 'drop', columns: ['created'] },
      { type: 'filter', condition: 'active' },
    ])
    expect(p.columns).toEqual([
      { name: 'id', type: 'string', nullable: false },
      { name: 'full_name', type: 'string', nullable: true },
      { name: 'amount', type: 'integer', nullable: true },
      { name: 'active', type: 'boolean', nullable: false },
    ])
  })

  it('does not share column objects with the input', () => {
    const input: Column[] = [{ name: 'a', type: 'string', nullable: true }]
    const p = plan([{ type: 'cast', column: 'a', to: 'integer' }], input)
    expect(input[0]?.type).toBe('string')
    expect(p.columns[0]).not.toBe(input[0])
  })
})

describe('planTransformations: apply', () => {
  const rows: Row[] = [
    { id: 1, name: 'Ada', amount: 10.5, active: true, created: new Date('2024-01-01T00:00:00Z') },
    { id: 2, name: 'Brian', amount: null, active: false, created: null },
    { id: 3, name: 'Alan', amount: 99, active: true, created: new Date('2024-06-01T00:00:00Z') },
  ]

  it('returns new rows with exactly the output columns, in order', () => {
    const p = plan([{ type: 'drop', columns: ['created', 'active'] }])
    const out = p.apply(rows)
    expect(out).toEqual([
      { id: 1, name: 'Ada', amount: 10.5 },
      { id: 2, name: 'Brian', amount: null },
      { id: 3, name: 'Alan', amount: 99 },
    ])
    expect(Object.keys(out[0] as Row)).toEqual(['id', 'name', 'amount'])
    expect(rows[0]).toHaveProperty('created')
    expect(out[0]).not.toBe(rows[0])
  })

  it('turns missing values into null and leaves out keys that are not columns', () => {
    const p = plan([], [{ name: 'a', type: 'string', nullable: true }])
    expect(p.apply([{ extra: 1 }, { a: undefined }])).toEqual([{ a: null }, { a: null }])
  })

  it('applies steps in order: a filter after a rename uses the new name', () => {
    const p = plan([
      { type: 'rename', from: 'name', to: 'customer' },
      { type: 'filter', condition: "customer LIKE 'A%'" },
    ])
    expect(p.apply(rows).map((r) => r.customer)).toEqual(['Ada', 'Alan'])
  })

  it('applies a filter to the value as it was at that step', () => {
    // The first filter sees amount as a number, the second as text after the cast.
    const p = plan([
      { type: 'filter', condition: 'amount > 50' },
      { type: 'cast', column: 'amount', to: 'string' },
      { type: 'filter', condition: "amount LIKE '9%'" },
    ])
    expect(p.apply(rows)).toEqual([{ id: 3, name: 'Alan', amount: '99', active: true, created: rows[2]?.created }])
  })

  it('applies a filter that read a column before a later rename or drop', () => {
    const p = plan([
      { type: 'filter', condition: 'active AND created IS NOT NULL' },
      { type: 'rename', from: 'active', to: 'enabled' },
      { type: 'drop', columns: ['created'] },
    ])
    expect(p.apply(rows).map((r) => [r.id, r.enabled, 'created' in r])).toEqual([
      [1, true, false],
      [3, true, false],
    ])
  })

  it('keeps the rows whose condition is true, and drops false and unknown', () => {
    const p = plan([{ type: 'filter', condition: 'amount > 10' }])
    expect(p.apply(rows).map((r) => r.id)).toEqual([1, 3])
    const q = plan([{ type: 'filter', condition: 'NOT amount > 10' }])
    expect(q.apply(rows).map((r) => r.id)).toEqual([])
  })

  it('casts values', () => {
    const columns: Column[] = [
      { name: 'n', type: 'string', nullable: true },
      { name: 'flag', type: 'string', nullable: true },
      { name: 'when', type: 'string', nullable: true },
      { name: 'doc', type: 'string', nullable: true },
    ]
    const p = plan(
      [
        { type: 'cast', column: 'n', to: 'integer' },
        { type: 'cast', column: 'flag', to: 'boolean' },
        { type: 'cast', column: 'when', to: 'timestamp' },
        { type: 'cast', column: 'doc', to: 'json' },
      ],
      columns,
    )
    const [row] = p.apply([{ n: '9007199254740993', flag: 'Yes', when: '2024-05-01T12:00:00+02:00', doc: '{"a":1}' }])
    expect(row).toEqual({ n: '9007199254740993', flag: true, when: new Date('2024-05-01T10:00:00Z'), doc: { a: 1 } })
    expect(p.apply([{ n: null, flag: null, when: null, doc: null }])).toEqual([{ n: null, flag: null, when: null, doc: null }])
  })

  it('throws a TransformError naming the row, column, value and type when a cast fails', () => {
    const p = plan([
      { type: 'rename', from: 'name', to: 'label' },
      { type: 'cast', column: 'label', to: 'integer' },
    ])
    const batch: Row[] = [
      { id: 1, name: '10', amount: 1, active: true, created: null },
      { id: 2, name: '4.5', amount: 1, active: true, created: null },
    ]
    let error: unknown
    try {
      p.apply(batch)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(TransformError)
    expect(error).toMatchObject({ name: 'TransformError', rowIndex: 1, column: 'label', value: '4.5', to: 'integer', step: 1 })
    expect((error as Error).message).toBe('transformations[1]: cannot cast "4.5" (string) in column label (row 1 of the batch) to integer')
  })

  it('counts the row index in the batch given, including rows filtered out', () => {
    const p = plan([
      { type: 'filter', condition: 'id > 1' },
      { type: 'cast', column: 'name', to: 'boolean' },
    ])
    expect(() => p.apply(rows)).toThrow(/cannot cast "Brian" \(string\) in column name \(row 1 of the batch\) to boolean/)
  })

  it('does not cast rows an earlier filter removed', () => {
    const p = plan([
      { type: 'filter', condition: "name = 'Ada'" },
      { type: 'cast', column: 'name', to: 'integer' },
    ])
    expect(() => p.apply(rows)).toThrow(TransformError)
    const q = plan([
      { type: 'filter', condition: "name = '7'" },
      { type: 'cast', column: 'name', to: 'integer' },
    ])
    expect(q.apply([...rows, { id: 4, name: '7', amount: 0, active: true, created: null }])).toEqual([
      { id: 4, name: 7, amount: 0, active: true, created: null },
    ])
  })

  it('reads a column named like an Object.prototype property only from the row itself', () => {
    const p = plan(
      [],
      [
        { name: 'constructor', type: 'string', nullable: true },
        { name: '__proto__', type: 'string', nullable: true },
      ],
    )
    const [out] = p.apply([{}])
    expect(out?.constructor).toBeNull()
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.hasOwn(out as Row, '__proto__')).toBe(true)
  })

  it('transforms a 10,000-row batch', () => {
    const p = plan([
      { type: 'rename', from: 'name', to: 'customer' },
      { type: 'filter', condition: "active AND (amount >= 10 OR customer LIKE 'A%') AND id NOT IN (5, 7)" },
      { type: 'cast', column: 'amount', to: 'string' },
      { type: 'cast', column: 'id', to: 'string' },
      { type: 'drop', columns: ['created'] },
    ])
    const batch: Row[] = Array.from({ length: 10_000 }, (_, i) => ({
      id: i,
      name: i % 3 === 0 ? `Ann ${i}` : `Bob ${i}`,
      amount: i % 4 === 0 ? null : i % 20,
      active: i % 2 === 0,
      created: new Date(1_700_000_000_000 + i),
    }))
    const out = p.apply(batch)
    const expected = batch.filter((r) => {
      const id = r.id as number
      const amount = r.amount as number | null
      return (r.active as boolean) && ((amount !== null && amount >= 10) || (r.name as string).startsWith('A')) && id !== 5 && id !== 7
    })
    expect(out).toHaveLength(expected.length)
    expect(out.length).toBeGreaterThan(1000)
    const first = expected[0] as Row
    expect(out[0]).toEqual({
      id: String(first.id),
      customer: first.name,
      amount: first.amount === null ? null : String(first.amount),
      active: true,
    })
    // The plan is reusable: a second batch gives the same result.
    expect(p.apply(batch)).toEqual(out)
  })
})
