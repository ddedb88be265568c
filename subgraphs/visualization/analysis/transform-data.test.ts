import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_TRANSFORMATIONS, transformData, type TransformResult } from './transform-data.js'

const SALES = [
  { id: 1, region: 'north', product: 'apple', units: 10, price: 1.5 },
  { id: 2, region: 'south', product: 'apple', units: 4, price: 1.25 },
  { id: 3, region: 'north', product: 'pear', units: 7, price: 2 },
  { id: 4, region: 'east', product: 'plum', units: null, price: 3 },
  { id: 5, region: 'south', product: 'pear', units: 12, price: 2 },
  { id: 6, region: 'north', product: 'apple', units: 1, price: 1.5 },
]

function run(transformations: unknown[], data: unknown[] = SALES): TransformResult {
  const outcome = transformData({ data, transformations })
  if (!outcome.ok) throw new Error(`rejected: ${JSON.stringify(outcome.issues)}`)
  return outcome.result
}

function issues(transformations: unknown, data: unknown = SALES) {
  const outcome = transformData({ data, transformations })
  return outcome.ok ? [] : outcome.issues
}

function ids(result: TransformResult): unknown[] {
  return result.data.map((row) => row.id)
}

const filter = (field: string, operator: string, value?: unknown) => ({ type: 'filter', field, operator, value })

describe('transformData: filters', () => {
  it.each([
    ['=', 'region', 'north', [1, 3, 6]],
    ['==', 'units', 4, [2]],
    ['!=', 'region', 'north', [2, 4, 5]],
    ['>', 'units', 7, [1, 5]],
    ['>=', 'units', 7, [1, 3, 5]],
    ['<', 'price', 2, [1, 2, 6]],
    ['<=', 'price', 2, [1, 2, 3, 5, 6]],
    ['in', 'product', ['pear', 'plum'], [3, 4, 5]],
    ['not_in', 'product', ['pear', 'plum'], [1, 2, 6]],
    ['contains', 'product', 'ea', [3, 5]],
    ['starts_with', 'product', 'p', [3, 4, 5]],
    ['is_null', 'units', undefined, [4]],
    ['not_null', 'units', undefined, [1, 2, 3, 5, 6]],
  ] as const)('%s keeps the matching rows', (operator, field, value, expected) => {
    expect(ids(run([filter(field, operator, value)]))).toEqual(expected)
  })

  it('compares strictly: text is not a number, and only like types are ordered', () => {
    const data = [{ id: 1, v: 5 }, { id: 2, v: '5' }, { id: 3, v: '10' }, { id: 4, v: 10 }, { id: 5, v: null }, { id: 6 }]
    expect(ids(run([filter('v', '=', 5)], data))).toEqual([1])
    expect(ids(run([filter('v', '=', '5')], data))).toEqual([2])
    expect(ids(run([filter('v', '>', 6)], data))).toEqual([4])
    // Strings compare as strings: '5' > '10'.
    expect(ids(run([filter('v', '>', '4')], data))).toEqual([2])
    expect(ids(run([filter('v', '=', null)], data))).toEqual([5, 6])
    expect(ids(run([filter('v', '!=', 5)], data))).toEqual([2, 3, 4, 5, 6])
    expect(ids(run([filter('v', 'in', [10, null])], data))).toEqual([4, 5, 6])
  })

  it('orders ISO dates as dates', () => {
    const data = [
      { id: 1, day: '2024-01-31' },
      { id: 2, day: '2024-02-01' },
      { id: 3, day: '2023-12-31T23:59:59Z' },
    ]
    expect(ids(run([filter('day', '>=', '2024-01-01')], data))).toEqual([1, 2])
  })

  it('returns every column for every row, missing cells as null', () => {
    const result = run([filter('a', 'not_null')], [{ a: 1, b: 'x' }, { a: 2 }, { b: 'y' }])
    expect(result).toEqual({
      data: [
        { a: 1, b: 'x' },
        { a: 2, b: null },
      ],
      row_count: 2,
      columns: ['a', 'b'],
      applied: [{ index: 0, type: 'filter', rows_before: 3, rows_after: 2 }],
    })
  })
})

describe('transformData: sorting', () => {
  it('sorts ascending by default and descending on request', () => {
    expect(ids(run([{ type: 'sort', field: 'price' }]))).toEqual([2, 1, 6, 3, 5, 4])
    expect(ids(run([{ type: 'sort', field: 'price', order: 'desc' }]))).toEqual([4, 3, 5, 1, 6, 2])
  })

  it('is stable: ties keep their order, so a later sort keeps the earlier one within ties', () => {
    expect(ids(run([{ type: 'sort', field: 'region', order: 'asc' }]))).toEqual([4, 1, 3, 6, 2, 5])
    expect(
      ids(
        run([
          { type: 'sort', field: 'units', order: 'desc' },
          { type: 'sort', field: 'region' },
        ]),
      ),
    ).toEqual([4, 1, 3, 6, 5, 2])
  })

  it('groups values by type and puts nulls last in both orders', () => {
    const data = [{ v: 'b' }, { v: null }, { v: 3 }, { v: 'a' }, {}, { v: true }, { v: 1 }]
    expect(run([{ type: 'sort', field: 'v' }], data).data.map((r) => r.v)).toEqual([1, 3, 'a', 'b', true, null, null])
    expect(run([{ type: 'sort', field: 'v', order: 'desc' }], data).data.map((r) => r.v)).toEqual([3, 1, 'b', 'a', true, null, null])
  })
})

describe('transformData: aggregation', () => {
  it('computes every aggregate per group, in first-seen group order, ignoring nulls', () => {
    const result = run([
      {
        type: 'aggregation',
        group_by: ['region'],
        operations: [
          { field: 'units', op: 'sum' },
          { field: 'units', op: 'mean' },
          { field: 'units', op: 'median' },
          { field: 'price', op: 'min' },
          { field: 'price', op: 'max' },
          { op: 'count' },
          { field: 'units', op: 'count', as: 'with_units' },
          { field: 'product', op: 'distinct', as: 'products' },
        ],
      },
    ])
    expect(result.columns).toEqual(['region', 'sum_units', 'mean_units', 'median_units', 'min_price', 'max_price', 'count', 'with_units', 'products'])
    expect(result.data).toEqual([
      { region: 'north', sum_units: 18, mean_units: 6, median_units: 7, min_price: 1.5, max_price: 2, count: 3, with_units: 3, products: 2 },
      { region: 'south', sum_units: 16, mean_units: 8, median_units: 8, min_price: 1.25, max_price: 2, count: 2, with_units: 2, products: 2 },
      { region: 'east', sum_units: null, mean_units: null, median_units: null, min_price: 3, max_price: 3, count: 1, with_units: 0, products: 1 },
    ])
    expect(result.applied).toEqual([{ index: 0, type: 'aggregation', rows_before: 6, rows_after: 3 }])
  })

  it('aggregates all rows into one when group_by is empty, even with no rows', () => {
    const operations = [{ field: 'units', op: 'sum', as: 'total' }, { op: 'count' }, { field: 'product', op: 'distinct' }]
    expect(run([{ type: 'aggregation', group_by: [], operations }]).data).toEqual([{ total: 34, count: 6, distinct_product: 3 }])
    expect(run([filter('id', '>', 100), { type: 'aggregation', operations }]).data).toEqual([{ total: null, count: 0, distinct_product: 0 }])
  })

  it('groups by several fields, keeping null apart from text', () => {
    const data = [{ a: 'x', b: null }, { a: 'x', b: 'null' }, { a: 'x' }, { a: 'y', b: 1 }, { a: 'y', b: '1' }]
    const result = run([{ type: 'aggregation', group_by: ['a', 'b'], operations: [{ op: 'count', as: 'n' }] }], data)
    expect(result.data).toEqual([
      { a: 'x', b: null, n: 2 },
      { a: 'x', b: 'null', n: 1 },
      { a: 'y', b: 1, n: 1 },
      { a: 'y', b: '1', n: 1 },
    ])
  })

  it('applies transformations in order: filtering before aggregating is not aggregating before filtering', () => {
    const filterUnits = filter('units', '>=', 5)
    const sumByRegion = { type: 'aggregation', group_by: ['region'], operations: [{ field: 'units', op: 'sum', as: 'units' }] }
    const filterFirst = run([filterUnits, sumByRegion])
    const aggregateFirst = run([sumByRegion, filterUnits])
    expect(filterFirst.data).toEqual([
      { region: 'north', units: 17 },
      { region: 'south', units: 12 },
    ])
    expect(aggregateFirst.data).toEqual([
      { region: 'north', units: 18 },
      { region: 'south', units: 16 },
    ])
    expect(aggregateFirst.applied.map((a) => [a.rows_before, a.rows_after])).toEqual([
      [6, 3],
      [3, 2],
    ])
  })

  it('sorts on an aggregate output', () => {
    const result = run([
      { type: 'aggregation', group_by: ['product'], operations: [{ field: 'units', op: 'sum', as: 'total' }] },
      { type: 'sort', field: 'total', order: 'desc' },
    ])
    expect(result.data).toEqual([
      { product: 'pear', total: 19 },
      { product: 'apple', total: 15 },
      { product: 'plum', total: null },
    ])
  })

  it('refuses to sum text, naming the operation', () => {
    expect(issues([{ type: 'aggregation', group_by: ['region'], operations: [{ op: 'count' }, { field: 'product', op: 'sum' }] }])).toEqual([
      { field: 'transformations[0].operations[1].field', message: '\'product\' must hold numbers for sum; it holds "apple"' },
    ])
    const data = [{ v: 1 }, { v: 'a' }]
    expect(issues([{ type: 'aggregation', operations: [{ field: 'v', op: 'max' }] }], data)).toEqual([
      { field: 'transformations[0].operations[0].field', message: "'v' must hold only numbers or only strings for max" },
    ])
  })
})

describe('transformData: request problems', () => {
  it('names unknown kinds and unknown keys', () => {
    expect(issues([{ type: 'pivot', field: 'a' }, { field: 'a' }])).toEqual([
      { field: 'transformations[0].type', message: 'unknown transformation type "pivot"; use one of filter, filtering, sort, sorting, aggregate, aggregation' },
      {
        field: 'transformations[1].type',
        message: 'unknown transformation type undefined; use one of filter, filtering, sort, sorting, aggregate, aggregation',
      },
    ])
    expect(issues([{ type: 'sort', field: 'id', direction: 'desc' }])).toEqual([
      { field: 'transformations[0].direction', message: 'is not a sort key; allowed: type, field, order' },
    ])
  })

  it('names fields that do not exist at that step', () => {
    const found = issues([
      filter('colour', '=', 'red'),
      {
        type: 'aggregation',
        group_by: ['region', 'regin'],
        operations: [
          { field: 'units', op: 'sum' },
          { field: 'weight', op: 'mean' },
        ],
      },
      { type: 'sort', field: 'product' },
    ])
    expect(found).toEqual([
      { field: 'transformations[0].field', message: "unknown field 'colour'; columns at this step: 'id', 'region', 'product', 'units', 'price'" },
      { field: 'transformations[1].group_by[1]', message: "unknown field 'regin'; columns at this step: 'id', 'region', 'product', 'units', 'price'" },
      { field: 'transformations[1].operations[1].field', message: "unknown field 'weight'; columns at this step: 'id', 'region', 'product', 'units', 'price'" },
      // The aggregation replaced the columns: product is gone by the third step.
      { field: 'transformations[2].field', message: "unknown field 'product'; columns at this step: 'region', 'regin', 'sum_units', 'mean_weight'" },
    ])
  })

  it('names unknown operators, orders and aggregates', () => {
    expect(
      issues([filter('id', '~=', 1), { type: 'sort', field: 'id', order: 'up' }, { type: 'aggregation', operations: [{ field: 'id', op: 'avg' }] }]),
    ).toEqual([
      { field: 'transformations[0].operator', message: 'unknown operator "~="; use one of = == != > >= < <= in not_in contains starts_with is_null not_null' },
      { field: 'transformations[1].order', message: 'unknown order "up"; use asc or desc' },
      { field: 'transformations[2].operations[0].op', message: 'unknown aggregate "avg"; use one of sum, mean, median, min, max, count, distinct' },
    ])
  })

  it('names values an operator cannot use', () => {
    const found = issues([
      filter('id', 'in', 3),
      filter('id', '>', { gt: 1 }),
      filter('id', 'is_null', 0),
      filter('product', 'contains', 1),
      filter('id', '=', [1]),
      filter('id', 'not_in', [1, [2]]),
    ])
    expect(found.map((i) => i.field)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `transformations[${i}].value`))
    expect(found[0]?.message).toBe('is required for in: an array of values')
  })

  it('rejects clashing output names and an aggregation with nothing to do', () => {
    const found = issues([
      {
        type: 'aggregation',
        group_by: ['region'],
        operations: [{ field: 'units', op: 'sum', as: 'region' }, { op: 'count' }, { field: 'id', op: 'count', as: 'count' }],
      },
      { type: 'aggregation', group_by: [], operations: [] },
    ])
    expect(found).toEqual([
      { field: 'transformations[0].operations[0].as', message: "output column 'region' already exists; give a different as" },
      { field: 'transformations[0].operations[2].as', message: "output column 'count' already exists; give a different as" },
      { field: 'transformations[1].operations', message: 'is required when group_by is empty: at least one { field, op, as? }' },
    ])
  })

  it('wants arrays of rows and of at most 50 transformations', () => {
    expect(issues('sort')).toEqual([{ field: 'transformations', message: 'is required: an array of transformations' }])
    expect(issues([], 'rows')).toEqual([{ field: 'data', message: 'is required: an array of row objects' }])
    const many = Array.from({ length: MAX_TRANSFORMATIONS + 1 }, () => ({ type: 'sort', field: 'id' }))
    expect(issues(many)).toEqual([{ field: 'transformations', message: `must have at most ${MAX_TRANSFORMATIONS} items` }])
    expect(transformData({ data: SALES, transformations: many.slice(1) }).ok).toBe(true)
  })

  it('accepts the noun and verb spellings of each kind and echoes the one sent', () => {
    const result = run([
      filter('id', '>', 1),
      { type: 'filtering', field: 'id', operator: '<', value: 6 },
      { type: 'sorting', field: 'id', order: 'desc' },
      { type: 'aggregate', operations: [{ op: 'count' }] },
    ])
    expect(result.applied.map((a) => a.type)).toEqual(['filter', 'filtering', 'sorting', 'aggregate'])
    expect(result.data).toEqual([{ count: 4 }])
  })
})

describe('transformData: user input stays data', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('treats field names that look like code as plain column names', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation(() => undefined as never)
    const evil = "x') || process.exit(1) || ('"
    const quote = 'q"]; process.exit(2); //\\'
    const data = [
      { [evil]: 3, [quote]: 'a' },
      { [evil]: 1, [quote]: 'b' },
      { [evil]: 2, [quote]: 'a' },
    ]
    const result = run(
      [
        { type: 'filter', field: evil, operator: '>=', value: 2 },
        { type: 'sort', field: evil, order: 'desc' },
        {
          type: 'aggregation',
          group_by: [quote],
          operations: [
            { field: evil, op: 'sum', as: evil },
            { field: evil, op: 'max', as: "'); process.exit(3); ('" },
          ],
        },
        { type: 'sort', field: evil },
        { type: 'filter', field: quote, operator: 'starts_with', value: "') || process.exit(4) || ('" },
      ],
      data,
    )
    expect(exit).not.toHaveBeenCalled()
    expect(result.columns).toEqual([quote, evil, "'); process.exit(3); ('"])
    expect(result.applied.map((a) => a.rows_after)).toEqual([2, 2, 1, 1, 0])
    expect(run([{ type: 'aggregation', group_by: [quote], operations: [{ field: evil, op: 'sum', as: evil }] }], data).data).toEqual([
      { [quote]: 'a', [evil]: 5 },
      { [quote]: 'b', [evil]: 1 },
    ])
  })

  it('compares filter values that look like code as text', () => {
    const data = [{ name: "') || true || ('" }, { name: 'plain' }]
    expect(run([filter('name', '=', "') || true || ('")], data).data).toEqual([{ name: "') || true || ('" }])
    expect(run([filter('name', 'in', ['d => true'])], data).data).toEqual([])
  })

  it('refuses __proto__ as a column or output name', () => {
    const data = JSON.parse('[{"__proto__": 1, "a": 2}]') as unknown[]
    expect(issues([], data)).toEqual([{ field: 'data', message: "'__proto__' cannot name a column" }])
    expect(issues([{ type: 'aggregation', operations: [{ op: 'count', as: '__proto__' }] }])).toEqual([
      { field: 'transformations[0].operations[0].as', message: "'__proto__' cannot name a column" },
    ])
  })
})
