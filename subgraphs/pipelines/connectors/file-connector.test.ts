import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { ConnectorConfigError, type Column, type Row, type WriteTarget } from './connector.js'
import { csvConnector as csv, INFERENCE_ROWS, ndjsonConnector as ndjson, type CsvSettings } from './file-connector.js'
import { STRESS_COLUMNS, stressRows } from './stress-rows.js'

const root = mkdtempSync(path.join(tmpdir(), 'tessera-files-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let context: { dataDir: string }
let files: string
let counter = 0
beforeEach(() => {
  context = { dataDir: path.join(root, `case-${++counter}`) }
  files = path.join(context.dataDir, 'files')
  mkdirSync(files, { recursive: true })
})

const put = (name: string, text: string) => {
  mkdirSync(path.dirname(path.join(files, name)), { recursive: true })
  writeFileSync(path.join(files, name), text)
}
const contents = (name: string) => readFileSync(path.join(files, name), 'utf8')

type FileConnector = typeof csv | typeof ndjson

async function readAll(
  connector: FileConnector,
  s: CsvSettings,
  batchSize = 1000,
  cursor?: { column: string; after: unknown },
): Promise<{ rows: Row[]; sizes: number[] }> {
  const rows: Row[] = []
  const sizes: number[] = []
  for await (const batch of connector.read(s, context, { batchSize, ...(cursor ? { cursor } : {}) })) {
    sizes.push(batch.length)
    rows.push(...batch)
  }
  return { rows, sizes }
}

async function write(connector: FileConnector, s: CsvSettings, target: WriteTarget, ...batches: Row[][]): Promise<void> {
  const writer = await connector.openWriter(s, context, target)
  for (const batch of batches) await writer.write(batch)
  await writer.commit()
}

const SIMPLE: Column[] = [
  { name: 'id', type: 'integer', nullable: false },
  { name: 'name', type: 'string', nullable: true },
]

describe('file connectors: paths', () => {
  it('refuses absolute paths, .. that climbs out, and symlinks that lead outside', async () => {
    const outside = mkdtempSync(path.join(root, 'outside-'))
    writeFileSync(path.join(outside, 'secret.csv'), 'a\n1\n')
    symlinkSync(outside, path.join(files, 'linked-dir'))
    symlinkSync(path.join(outside, 'secret.csv'), path.join(files, 'linked.csv'))
    for (const bad of ['/etc/passwd', '../x.csv', 'a/../../x.csv', '..', '.', 'linked-dir/secret.csv', 'linked-dir/new.csv', 'linked.csv', 'nul\0.csv']) {
      for (const attempt of [
        () => csv.check({ path: bad }, context, 'source'),
        () => csv.check({ path: bad }, context, 'destination'),
        () => csv.discover({ path: bad }, context),
        () => ndjson.openWriter({ path: bad }, context, { columns: SIMPLE, mode: 'replace', primaryKey: [] }),
      ]) {
        const error = await attempt().catch((e: unknown) => e)
        expect(error, bad).toBeInstanceOf(ConnectorConfigError)
        expect(error).toMatchObject({ field: 'path' })
      }
    }
    expect(readdirSync(outside)).toEqual(['secret.csv'])
  })

  it('accepts symlinks that stay inside, and creates missing folders inside', async () => {
    put('real/data.csv', 'id\n1\n')
    symlinkSync(path.join(files, 'real'), path.join(files, 'alias'))
    expect((await readAll(csv, { path: 'alias/data.csv' })).rows).toEqual([{ id: 1 }])
    await write(csv, { path: 'deep/er/out.csv' }, { columns: SIMPLE, mode: 'replace', primaryKey: [] }, [{ id: 1, name: 'a' }])
    expect(contents('deep/er/out.csv')).toBe('id,name\n1,a\n')
  })

  it('checks a source: the file must exist and be a file', async () => {
    expect(await csv.check({ path: 'missing.csv' }, context, 'source').catch((e: unknown) => e)).toMatchObject({ field: 'path' })
    mkdirSync(path.join(files, 'folder.csv'))
    expect(await csv.check({ path: 'folder.csv' }, context, 'source').catch((e: unknown) => e)).toMatchObject({ field: 'path' })
    expect(await csv.check({ path: 'folder.csv' }, context, 'destination').catch((e: unknown) => e)).toMatchObject({ field: 'path' })
    await csv.check({ path: 'missing.csv' }, context, 'destination')
    // Without the files folder at all, a destination is still fine (the writer makes it).
    await csv.check({ path: 'x.csv' }, { dataDir: path.join(root, 'no-such-data-dir') })
    expect(await csv.check({ path: '../x.csv' }, { dataDir: path.join(root, 'no-such-data-dir') }).catch((e: unknown) => e)).toMatchObject({ field: 'path' })
  })

  it('refuses a delimiter that cannot separate fields', async () => {
    put('d.csv', 'a\n1\n')
    for (const delimiter of ['"', '\n', ';;']) {
      expect(await csv.check({ path: 'd.csv', delimiter }, context).catch((e: unknown) => e)).toMatchObject({ field: 'delimiter' })
    }
  })
})

describe('file connectors: discover and read', () => {
  it('infers CSV column types from the first rows; an unquoted empty field is NULL, "" the empty string', async () => {
    put(
      'typed.csv',
      [
        'int,num,bool,ts,day,zip,text,mixed,empty',
        '1,1.5,true,2024-05-01T12:30:00Z,2024-05-01,00123,hello,1,',
        '-2,2,FALSE,2024-05-01 12:30:00.250+02:00,2024-05-02,00456,"",x,',
        ',,,,,,,,',
        '9007199254740993,-1e3,false,2024-05-01T12:30,2024-05-03,07,"quoted, with comma",2.5,',
      ].join('\n'),
    )
    const schema = await csv.discover({ path: 'typed.csv' }, context)
    expect(schema).toEqual({
      name: 'typed.csv',
      primaryKey: [],
      columns: [
        { name: 'int', type: 'integer', nullable: true },
        { name: 'num', type: 'number', nullable: true },
        { name: 'bool', type: 'boolean', nullable: true },
        { name: 'ts', type: 'timestamp', nullable: true },
        { name: 'day', type: 'timestamp', nullable: true },
        { name: 'zip', type: 'string', nullable: true },
        { name: 'text', type: 'string', nullable: true },
        { name: 'mixed', type: 'string', nullable: true },
        { name: 'empty', type: 'string', nullable: true },
      ],
    })
    const { rows } = await readAll(csv, { path: 'typed.csv' })
    expect(rows).toEqual([
      {
        int: 1,
        num: 1.5,
        bool: true,
        ts: new Date('2024-05-01T12:30:00Z'),
        day: new Date('2024-05-01T00:00:00Z'),
        zip: '00123',
        text: 'hello',
        mixed: '1',
        empty: null,
      },
      {
        int: -2,
        num: 2,
        bool: false,
        ts: new Date('2024-05-01T10:30:00.250Z'),
        day: new Date('2024-05-02T00:00:00Z'),
        zip: '00456',
        text: '',
        mixed: 'x',
        empty: null,
      },
      { int: null, num: null, bool: null, ts: null, day: null, zip: null, text: null, mixed: null, empty: null },
      {
        int: '9007199254740993',
        num: -1000,
        bool: false,
        ts: new Date('2024-05-01T12:30:00Z'),
        day: new Date('2024-05-03T00:00:00Z'),
        zip: '07',
        text: 'quoted, with comma',
        mixed: '2.5',
        empty: null,
      },
    ])
  })

  it('tells quoted empty fields from bare ones, also after a BOM, doubled quotes and line breaks in quotes', async () => {
    put('quotes.csv', '\uFEFFa,b,c,d\r\n"x""y",,"","multi\r\nline"\r\n"",,"""",\r\n')
    expect((await readAll(csv, { path: 'quotes.csv' })).rows).toEqual([
      { a: 'x"y', b: null, c: '', d: 'multi\r\nline' },
      { a: '', b: null, c: '"', d: null },
    ])
  })

  it('infers NDJSON types, and keeps integers beyond 2^53 exact', async () => {
    put(
      'typed.ndjson',
      [
        '{"i": 1, "n": 1, "b": true, "t": "2024-05-01T00:00:00Z", "s": "x", "o": {"k": [1, 2]}, "mix": 1, "big": 9007199254740993}',
        '',
        '{"i": 2, "n": 2.5, "b": false, "t": null, "s": "2024-05-01", "o": [1], "mix": "one", "big": -12345678901234567890, "late": "x"}',
        '{"i": 3, "note": "a \\"quoted\\" 12345678901234567890 inside a string", "o": {"deep": 12345678901234567890}}',
      ].join('\n'),
    )
    const schema = await ndjson.discover({ path: 'typed.ndjson' }, context)
    expect(Object.fromEntries(schema.columns.map((c) => [c.name, c.type]))).toEqual({
      i: 'integer',
      n: 'number',
      b: 'boolean',
      t: 'timestamp',
      s: 'string',
      o: 'json',
      mix: 'json',
      big: 'integer',
      late: 'string',
      note: 'string',
    })
    const { rows } = await readAll(ndjson, { path: 'typed.ndjson' })
    expect(rows[0]).toMatchObject({ i: 1, n: 1, b: true, t: new Date('2024-05-01T00:00:00Z'), o: { k: [1, 2] }, mix: 1, big: '9007199254740993', late: null })
    expect(rows[1]).toMatchObject({ n: 2.5, s: '2024-05-01', o: [1], mix: 'one', big: '-12345678901234567890', late: 'x' })
    expect(rows[2]).toMatchObject({ i: 3, note: 'a "quoted" 12345678901234567890 inside a string', o: { deep: '12345678901234567890' } })
  })

  it('names columns column_1… without a header, and honours the delimiter', async () => {
    put('plain.csv', '1;a;x\n2;"b;c";\n')
    const { rows } = await readAll(csv, { path: 'plain.csv', header: false, delimiter: ';' })
    expect(rows).toEqual([
      { column_1: 1, column_2: 'a', column_3: 'x' },
      { column_1: 2, column_2: 'b;c', column_3: null },
    ])
  })

  it('reports malformed files and values that break the inferred type as configuration errors on `path`', async () => {
    put('ragged.csv', 'a,b\n1,2\n3\n')
    expect(await readAll(csv, { path: 'ragged.csv' }).catch((e: unknown) => e)).toMatchObject({ field: 'path' })
    put('broken.ndjson', '{"a": 1}\n{"a": \n')
    expect(await readAll(ndjson, { path: 'broken.ndjson' }).catch((e: unknown) => e)).toMatchObject({
      field: 'path',
      message: expect.stringContaining('line 2'),
    })
    put('late.csv', `n\n${'1\n'.repeat(INFERENCE_ROWS)}oops\n`)
    const error = await readAll(csv, { path: 'late.csv' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ field: 'path', message: expect.stringContaining('"oops" is not integer') })
  })

  it('streams 25k rows in batches of at most batchSize', async () => {
    put('many.csv', `id,label\n${Array.from({ length: 25_000 }, (_, i) => `${i + 1},row ${i + 1}`).join('\n')}\n`)
    const { rows, sizes } = await readAll(csv, { path: 'many.csv' }, 1000)
    expect(sizes).toEqual(Array.from({ length: 25 }, () => 1000))
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 25_000 }, (_, i) => i + 1))
    put('many.ndjson', Array.from({ length: 25_000 }, (_, i) => JSON.stringify({ id: i + 1 })).join('\n'))
    const nd = await readAll(ndjson, { path: 'many.ndjson' }, 999)
    expect(Math.max(...nd.sizes)).toBe(999)
    expect(nd.rows).toHaveLength(25_000)
  })

  it('reads incrementally by scanning: rows past the cursor; a file out of cursor order is refused', async () => {
    put('log.csv', 'id,at\n1,2024-01-01T00:00:00Z\n2,\n3,2024-01-02T00:00:00Z\n4,2024-01-03T00:00:00Z\n')
    expect((await readAll(csv, { path: 'log.csv' }, 10, { column: 'at', after: null })).rows.map((r) => r.id)).toEqual([1, 3, 4])
    expect((await readAll(csv, { path: 'log.csv' }, 10, { column: 'at', after: new Date('2024-01-01T00:00:00Z') })).rows.map((r) => r.id)).toEqual([3, 4])
    expect((await readAll(csv, { path: 'log.csv' }, 10, { column: 'at', after: '2024-01-02T00:00:00.000Z' })).rows.map((r) => r.id)).toEqual([4])
    expect((await readAll(csv, { path: 'log.csv' }, 10, { column: 'id', after: 2 })).rows.map((r) => r.id)).toEqual([3, 4])
    put('shuffled.csv', 'id\n1\n3\n2\n')
    expect(await readAll(csv, { path: 'shuffled.csv' }, 10, { column: 'id', after: null }).catch((e: unknown) => e)).toMatchObject({ field: 'cursor' })
    // Rows at or below the cursor may sit anywhere: only the rows read must be in order.
    expect((await readAll(csv, { path: 'shuffled.csv' }, 10, { column: 'id', after: 2 })).rows).toEqual([{ id: 3 }])
    expect(await readAll(csv, { path: 'log.csv' }, 10, { column: 'nope', after: null }).catch((e: unknown) => e)).toMatchObject({ field: 'cursor' })
  })
})

describe('file connectors: writes', () => {
  for (const [format, connector, file] of [
    ['csv', csv, 'out/data.csv'],
    ['ndjson', ndjson, 'out/data.ndjson'],
  ] as const) {
    describe(format, () => {
      const read = async () => (await readAll(connector, { path: file })).rows

      it('replace leaves exactly the new rows; append adds', async () => {
        await write(connector, { path: file }, { columns: SIMPLE, mode: 'replace', primaryKey: [] }, [
          { id: 1, name: 'old' },
          { id: 2, name: 'old' },
        ])
        await write(connector, { path: file }, { columns: SIMPLE, mode: 'replace', primaryKey: [] }, [{ id: 3, name: 'new' }], [{ id: 4, name: 'newer' }])
        expect(await read()).toEqual([
          { id: 3, name: 'new' },
          { id: 4, name: 'newer' },
        ])
        await write(connector, { path: file }, { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 5, name: 'appended' }])
        expect((await read()).map((r) => r.id)).toEqual([3, 4, 5])
        await write(connector, { path: 'out/fresh' + path.extname(file) }, { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 1, name: 'first' }])
        expect((await readAll(connector, { path: 'out/fresh' + path.extname(file) })).rows).toEqual([{ id: 1, name: 'first' }])
      })

      it('refuses merge: a file cannot be upserted without loading all of it', async () => {
        const error = await connector.openWriter({ path: file }, context, { columns: SIMPLE, mode: 'merge', primaryKey: ['id'] }).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(ConnectorConfigError)
        expect(error).toMatchObject({ field: 'mode' })
      })

      it('abort leaves the original file, for replace and append, and no temporary file behind', async () => {
        await write(connector, { path: file }, { columns: SIMPLE, mode: 'replace', primaryKey: [] }, [{ id: 1, name: 'keep' }])
        const before = contents(file)
        for (const mode of ['replace', 'append'] as const) {
          const writer = await connector.openWriter({ path: file }, context, { columns: SIMPLE, mode, primaryKey: [] })
          await writer.write([{ id: 2, name: 'discard' }])
          expect(contents(file)).toBe(before)
          await writer.abort()
          expect(contents(file)).toBe(before)
        }
        const never = await connector.openWriter({ path: 'out/never' + path.extname(file) }, context, { columns: SIMPLE, mode: 'replace', primaryKey: [] })
        await never.write([{ id: 1, name: 'x' }])
        await never.abort()
        expect(readdirSync(path.join(files, 'out'))).toEqual([path.basename(file)])
      })

      it('writes values that stress quoting and reads them back', async () => {
        await write(
          connector,
          { path: file },
          { columns: [...STRESS_COLUMNS], mode: 'replace', primaryKey: [] },
          stressRows().slice(0, 6),
          stressRows().slice(6),
        )
        // CSV has no JSON type: JSON values come back as their JSON text.
        const expected = format === 'csv' ? stressRows().map((r) => ({ ...r, doc: r.doc === null ? null : JSON.stringify(r.doc) })) : stressRows()
        expect(await read()).toEqual(expected)
      })
    })
  }

  it('CSV appends line up with the existing header, which is written once', async () => {
    put('h.csv', 'id,name\n1,a')
    await write(csv, { path: 'h.csv' }, { columns: SIMPLE, mode: 'append', primaryKey: [] }, [{ id: 2, name: 'b' }])
    expect(contents('h.csv')).toBe('id,name\n1,a\n2,b\n')
    const error = await csv.openWriter({ path: 'h.csv' }, context, { columns: [...SIMPLE].reverse(), mode: 'append', primaryKey: [] }).catch((e: unknown) => e)
    expect(error).toMatchObject({ field: 'path', message: expect.stringContaining('has columns (id, name)') })
    await write(csv, { path: 'nh.csv', header: false, delimiter: '\t' }, { columns: SIMPLE, mode: 'replace', primaryKey: [] }, [{ id: 1, name: 'a\tb' }])
    expect(contents('nh.csv')).toBe('1\t"a\tb"\n')
  })

  it('round-trips CSV → NDJSON → CSV → NDJSON without losing a value', async () => {
    await write(csv, { path: 'trip/1.csv' }, { columns: [...STRESS_COLUMNS], mode: 'replace', primaryKey: [] }, stressRows())
    const fromCsv = await csv.discover({ path: 'trip/1.csv' }, context)
    const first = (await readAll(csv, { path: 'trip/1.csv' })).rows
    await write(ndjson, { path: 'trip/2.ndjson' }, { columns: fromCsv.columns, mode: 'replace', primaryKey: [] }, first)
    const second = (await readAll(ndjson, { path: 'trip/2.ndjson' })).rows
    expect(second).toEqual(first)
    const fromNdjson = await ndjson.discover({ path: 'trip/2.ndjson' }, context)
    expect(fromNdjson.columns).toEqual(fromCsv.columns)
    await write(csv, { path: 'trip/3.csv' }, { columns: fromNdjson.columns, mode: 'replace', primaryKey: [] }, second)
    expect(contents('trip/3.csv')).toBe(contents('trip/1.csv'))
    await write(ndjson, { path: 'trip/4.ndjson' }, { columns: [...STRESS_COLUMNS], mode: 'replace', primaryKey: [] }, stressRows())
    await write(
      csv,
      { path: 'trip/5.csv' },
      { columns: [...STRESS_COLUMNS], mode: 'replace', primaryKey: [] },
      (await readAll(ndjson, { path: 'trip/4.ndjson' })).rows,
    )
    expect(contents('trip/5.csv')).toBe(contents('trip/1.csv'))
  })
})
