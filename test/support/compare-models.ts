// Proves hand-written migration SQL against the Prisma models. The schema engine that
// `prisma migrate diff` needs cannot run here, so this reads the models itself and compares
// them with the catalog of a migrated database.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { SqlExecutor } from '../../platform/db/database.js'

/** A model field and, unless it is a relation, the column it maps to. */
export interface FieldModel {
  name: string
  kind: 'scalar' | 'enum' | 'object' | 'unsupported'
  /** Prisma type: a scalar, enum or model name. */
  type: string
  isRequired: boolean
  isList: boolean
  /** Null for relation fields, which have no column. */
  column: string | null
  /** The column's type as Postgres' `format_type` renders it (`enum <schema>.<name>` for enums, `[]` for lists). */
  dbType: string | null
}

/** A foreign key a relation field with `fields:` asks for. */
export interface ForeignKeyModel {
  columns: string[]
  refSchema: string
  refTable: string
  refColumns: string[]
  onDelete: string
  onUpdate: string
}

/** What the migrations must have created for one model. */
export interface TableModel {
  model: string
  schema: string
  table: string
  fields: FieldModel[]
  primaryKey: string[] | null
  uniques: string[][]
  indexes: string[][]
  foreignKeys: ForeignKeyModel[]
}

/** A Prisma enum as a Postgres enum type. */
export interface EnumModel {
  name: string
  schema: string
  dbName: string
  values: string[]
}

/** Everything one Prisma schema describes, in database terms. */
export interface PrismaModels {
  /** The schemas the datasource owns; tables in them that no model maps to are drift. */
  schemas: string[]
  tables: TableModel[]
  enums: EnumModel[]
  /**
   * Partial indexes, which Prisma cannot express, declared in a schema comment
   * (`/// partial index <name>: …`) so the migration that creates one is not drift.
   */
  partialIndexes: string[]
}

/** A generated Prisma client and the schema.prisma it belongs to. */
export interface GeneratedClient {
  name: string
  /** The generated client folder (the one holding `client.ts`). */
  dir: string
  schemaFile: string
}

interface Args {
  positional: string[]
  named: Record<string, string>
}

interface Attribute {
  name: string
  args: Args
}

interface RawField {
  name: string
  type: string
  modifier: '' | '?' | '[]'
  attributes: Attribute[]
}

interface RawBlock {
  name: string
  lines: string[]
}

/**
 * Finds the platform client and the client of every folder under `subgraphs/` that has one,
 * so a new service is checked as soon as its client is generated.
 */
export function findGeneratedClients(root: string): GeneratedClient[] {
  const candidates = [
    { name: 'platform', base: path.join(root, 'platform') },
    ...readdirSync(path.join(root, 'subgraphs'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => ({ name: e.name, base: path.join(root, 'subgraphs', e.name) })),
  ]
  return candidates
    .map((c) => ({ name: c.name, dir: path.join(c.base, 'generated/prisma'), schemaFile: path.join(c.base, 'prisma/schema.prisma') }))
    .filter((c) => existsSync(path.join(c.dir, 'internal/class.ts')))
}

/**
 * Reads the models of a generated client. The runtime data model Prisma 7 embeds in
 * `internal/class.ts` keeps only names, kinds, types and database names: no optionality, no
 * lists, no native types, no keys or indexes. The same file embeds the schema text the client
 * was generated from (`inlineSchema`), so that text supplies the rest, and every model, field,
 * kind, type and database name read from it must agree with the runtime data model, which
 * is what the client actually queries with. A disagreement throws, since it means this reader
 * (not the migrations) is wrong.
 */
export function loadGeneratedModels(clientDir: string): PrismaModels {
  const file = path.join(clientDir, 'internal/class.ts')
  const source = readFileSync(file, 'utf8')
  // Both values are JSON string literals in the generated code; reading them as text avoids
  // importing a file Prisma marks as internal and constructing a client just to look inside.
  const inline = /"inlineSchema":\s*("(?:[^"\\]|\\.)*")/.exec(source)
  const runtime = /config\.runtimeDataModel\s*=\s*JSON\.parse\(("(?:[^"\\]|\\.)*")\)/.exec(source)
  if (!inline?.[1] || !runtime?.[1]) throw new Error(`${file}: inlineSchema or runtimeDataModel not found; has Prisma's generated layout changed?`)
  const models = parsePrismaSchema(JSON.parse(inline[1]) as string)
  const dataModel = JSON.parse(JSON.parse(runtime[1]) as string) as RuntimeDataModel
  const disagreements = crossCheck(models, dataModel)
  if (disagreements.length) throw new Error(`${file}: the schema reader disagrees with the runtime data model:\n${disagreements.join('\n')}`)
  return models
}

interface RuntimeDataModel {
  models: Record<string, { dbName?: string | null; schema?: string | null; fields: { name: string; kind: string; type: string; dbName?: string | null }[] }>
  enums: Record<string, { dbName?: string | null; values: { name: string; dbName?: string | null }[] }>
}

function crossCheck(models: PrismaModels, dataModel: RuntimeDataModel): string[] {
  const out: string[] = []
  const parsed = new Map(models.tables.map((t) => [t.model, t]))
  const same = (a: readonly unknown[], b: readonly unknown[]) => JSON.stringify(a) === JSON.stringify(b)
  if (!same([...parsed.keys()].sort(), Object.keys(dataModel.models).sort())) {
    out.push(`models: read ${[...parsed.keys()].join(', ')}, runtime has ${Object.keys(dataModel.models).join(', ')}`)
  }
  for (const [name, model] of Object.entries(dataModel.models)) {
    const table = parsed.get(name)
    if (!table) continue
    if ((model.dbName ?? name) !== table.table) out.push(`${name}: read table ${table.table}, runtime has ${model.dbName ?? name}`)
    if (model.schema && model.schema !== table.schema) out.push(`${name}: read schema ${table.schema}, runtime has ${model.schema}`)
    const readFields = table.fields.filter((f) => f.kind !== 'unsupported').map((f) => `${f.name} ${f.kind} ${f.type} ${f.column ?? '-'}`)
    const runtimeFields = model.fields.map((f) => `${f.name} ${f.kind} ${f.type} ${f.kind === 'object' ? '-' : (f.dbName ?? f.name)}`)
    if (!same(readFields, runtimeFields)) out.push(`${name}: read fields [${readFields.join('; ')}], runtime has [${runtimeFields.join('; ')}]`)
  }
  const enums = new Map(models.enums.map((e) => [e.name, e]))
  if (!same([...enums.keys()].sort(), Object.keys(dataModel.enums).sort())) {
    out.push(`enums: read ${[...enums.keys()].join(', ')}, runtime has ${Object.keys(dataModel.enums).join(', ')}`)
  }
  for (const [name, e] of Object.entries(dataModel.enums)) {
    const read = enums.get(name)
    const values = e.values.map((v) => v.dbName ?? v.name)
    if (read && (read.dbName !== (e.dbName ?? name) || !same(read.values, values))) {
      out.push(`enum ${name}: read ${read.dbName} (${read.values.join(', ')}), runtime has ${e.dbName ?? name} (${values.join(', ')})`)
    }
  }
  return out
}

/**
 * Reads the models and enums of a Prisma schema (PostgreSQL provider) into what the database
 * must hold: tables, columns with their Postgres types, keys, indexes and foreign keys.
 * Covers the schema language Tessera uses plus every PostgreSQL native type; anything it
 * cannot place throws instead of being skipped.
 */
export function parsePrismaSchema(text: string): PrismaModels {
  const blocks = readBlocks(stripComments(text))
  const datasource = blocks.find((b) => b.keyword === 'datasource')
  const schemasLine = datasource?.block.lines.find((l) => /^schemas\s*=/.test(l))
  const schemas = schemasLine ? (JSON.parse(schemasLine.replace(/^schemas\s*=\s*/, '')) as string[]) : ['public']
  const relationMode = /^relationMode\s*=\s*"(\w+)"/.exec(datasource?.block.lines.find((l) => l.startsWith('relationMode')) ?? '')?.[1]
  const schemaOf = (where: string, attributes: Attribute[]) => {
    const named = attributes.find((a) => a.name === 'schema')
    if (named) return stringArg(named, where)
    if (schemas.length === 1) return schemas[0]!
    throw new Error(`${where}: no @@schema and the datasource has several schemas`)
  }

  const enums = blocks
    .filter((b) => b.keyword === 'enum')
    .map(({ block }): EnumModel => {
      const attributes = block.lines.filter((l) => l.startsWith('@@')).flatMap((l) => parseAttributes(l, block.name))
      const values = block.lines
        .filter((l) => !l.startsWith('@@'))
        .map((line) => {
          const m = /^(\w+)\s*(.*)$/.exec(line)
          if (!m) throw new Error(`enum ${block.name}: cannot read "${line}"`)
          const map = parseAttributes(m[2]!, `${block.name}.${m[1]}`).find((a) => a.name === 'map')
          return map ? stringArg(map, `${block.name}.${m[1]}`) : m[1]!
        })
      const map = attributes.find((a) => a.name === 'map')
      return { name: block.name, schema: schemaOf(`enum ${block.name}`, attributes), dbName: map ? stringArg(map, block.name) : block.name, values }
    })
  const enumByName = new Map(enums.map((e) => [e.name, e]))

  const rawModels = blocks
    .filter((b) => b.keyword === 'model')
    .map(({ block }) => {
      const attributes = block.lines.filter((l) => l.startsWith('@@')).flatMap((l) => parseAttributes(l, block.name))
      const fields = block.lines.filter((l) => !l.startsWith('@@')).map((l) => parseField(l, block.name))
      const map = attributes.find((a) => a.name === 'map')
      return { name: block.name, attributes, fields, schema: schemaOf(`model ${block.name}`, attributes), table: map ? stringArg(map, block.name) : block.name }
    })
  const modelByName = new Map(rawModels.map((m) => [m.name, m]))
  const columnOf = (model: (typeof rawModels)[number], field: string) => {
    const f = model.fields.find((x) => x.name === field)
    if (!f) throw new Error(`${model.name}: no field ${field}`)
    const map = f.attributes.find((a) => a.name === 'map')
    return map ? stringArg(map, `${model.name}.${field}`) : field
  }

  const tables = rawModels.map((model): TableModel => {
    const where = (f: RawField) => `${model.name}.${f.name}`
    const fields = model.fields.map((f): FieldModel => {
      const isList = f.modifier === '[]'
      const isRequired = f.modifier === ''
      if (modelByName.has(f.type)) return { name: f.name, kind: 'object', type: f.type, isRequired, isList, column: null, dbType: null }
      const column = columnOf(model, f.name)
      const enumType = enumByName.get(f.type)
      const unsupported = /^Unsupported\(("(?:[^"\\]|\\.)*")\)$/.exec(f.type)
      const kind = enumType ? 'enum' : unsupported ? 'unsupported' : 'scalar'
      const base = enumType
        ? `enum ${enumType.schema}.${enumType.dbName}`
        : unsupported
          ? (JSON.parse(unsupported[1]!) as string)
          : postgresType(
              f.type,
              f.attributes.find((a) => a.name.startsWith('db.')),
              where(f),
            )
      return { name: f.name, kind, type: f.type, isRequired, isList, column, dbType: isList ? `${base}[]` : base }
    })
    const fieldList = (a: Attribute) => listArg(a.args.named.fields ?? a.args.positional[0], `${model.name} @@${a.name}`).map((n) => columnOf(model, n))
    const idAttribute = model.attributes.find((a) => a.name === 'id')
    const idFields = model.fields.filter((f) => f.attributes.some((a) => a.name === 'id'))
    const primaryKey = idAttribute ? fieldList(idAttribute) : idFields.length ? idFields.map((f) => columnOf(model, f.name)) : null
    const uniques = [
      ...model.fields.filter((f) => f.attributes.some((a) => a.name === 'unique')).map((f) => [columnOf(model, f.name)]),
      ...model.attributes.filter((a) => a.name === 'unique').map(fieldList),
    ]
    const indexes = model.attributes.filter((a) => a.name === 'index').map(fieldList)
    const foreignKeys =
      relationMode === 'prisma'
        ? []
        : model.fields.flatMap((f): ForeignKeyModel[] => {
            const relation = f.attributes.find((a) => a.name === 'relation')
            if (!relation?.args.named.fields) return []
            const target = modelByName.get(f.type)
            if (!target) throw new Error(`${where(f)}: @relation to unknown model ${f.type}`)
            const localFields = listArg(relation.args.named.fields, where(f))
            const references = listArg(relation.args.named.references, where(f))
            // Prisma's defaults: a required relation restricts deletes, an optional one nulls.
            const onDelete = relation.args.named.onDelete ?? (f.modifier === '' ? 'Restrict' : 'SetNull')
            const onUpdate = relation.args.named.onUpdate ?? 'Cascade'
            return [
              {
                columns: localFields.map((n) => columnOf(model, n)),
                refSchema: target.schema,
                refTable: target.table,
                refColumns: references.map((n) => columnOf(target, n)),
                onDelete: referentialAction(onDelete, where(f)),
                onUpdate: referentialAction(onUpdate, where(f)),
              },
            ]
          })
    return { model: model.name, schema: model.schema, table: model.table, fields, primaryKey, uniques, indexes, foreignKeys }
  })
  const partialIndexes = [...text.matchAll(/\/\/[^\n]*\bpartial index (\w+)/g)].map((m) => m[1]!)
  return { schemas, tables, enums, partialIndexes }
}

function referentialAction(action: string, where: string) {
  const sql: Record<string, string> = { Cascade: 'CASCADE', Restrict: 'RESTRICT', NoAction: 'NO ACTION', SetNull: 'SET NULL', SetDefault: 'SET DEFAULT' }
  const out = sql[action]
  if (!out) throw new Error(`${where}: unknown referential action ${action}`)
  return out
}

// Prisma's defaults for PostgreSQL (DateTime is TIMESTAMP(3), Decimal is DECIMAL(65,30)),
// written the way `format_type` prints them so the two sides compare as strings.
const DEFAULT_TYPES: Record<string, string> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
}

function postgresType(scalar: string, native: Attribute | undefined, where: string): string {
  if (!native) {
    const type = DEFAULT_TYPES[scalar]
    if (!type) throw new Error(`${where}: unknown type ${scalar}`)
    return type
  }
  const [a, b] = native.args.positional
  const withArgs = (name: string, suffix = '') =>
    a === undefined ? `${name}${suffix}` : `${name}(${[a, b].filter((x) => x !== undefined).join(',')})${suffix}`
  const types: Record<string, () => string> = {
    Text: () => 'text',
    Char: () => `character(${a ?? 1})`,
    VarChar: () => withArgs('character varying'),
    Bit: () => `bit(${a ?? 1})`,
    VarBit: () => withArgs('bit varying'),
    Uuid: () => 'uuid',
    Xml: () => 'xml',
    Inet: () => 'inet',
    Citext: () => 'citext',
    Boolean: () => 'boolean',
    Integer: () => 'integer',
    SmallInt: () => 'smallint',
    Oid: () => 'oid',
    BigInt: () => 'bigint',
    DoublePrecision: () => 'double precision',
    Real: () => 'real',
    Decimal: () => withArgs('numeric'),
    Money: () => 'money',
    Timestamp: () => withArgs('timestamp', ' without time zone'),
    Timestamptz: () => withArgs('timestamp', ' with time zone'),
    Date: () => 'date',
    Time: () => withArgs('time', ' without time zone'),
    Timetz: () => withArgs('time', ' with time zone'),
    Json: () => 'json',
    JsonB: () => 'jsonb',
    ByteA: () => 'bytea',
  }
  const type = types[native.name.slice('db.'.length)]
  if (!type) throw new Error(`${where}: no Postgres mapping for @${native.name}; add it to compare-models.ts`)
  return type()
}

// Strings may contain `//` (URLs in defaults), so comments are cut only outside them.
function stripComments(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (inString) {
      out += ch
      if (ch === '\\') out += text[++i] ?? ''
      else if (ch === '"') inString = false
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
      out += '\n'
    } else {
      if (ch === '"') inString = true
      out += ch
    }
  }
  return out
}

function readBlocks(text: string) {
  // A block ends at the first line that is only `}`: field lines never start with one, and
  // braces inside defaults sit mid-line.
  const re = /^[ \t]*(model|enum|view|type|datasource|generator)\s+(\w+)\s*\{([^]*?)^[ \t]*\}/gm
  return [...text.matchAll(re)].map((m) => ({
    keyword: m[1]!,
    block: {
      name: m[2]!,
      lines: m[3]!
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    } satisfies RawBlock,
  }))
}

function parseField(line: string, model: string): RawField {
  const m = /^(\w+)\s+(Unsupported\("(?:[^"\\]|\\.)*"\)|\w+)(\[\]|\?)?\s*(.*)$/.exec(line)
  if (!m) throw new Error(`model ${model}: cannot read field "${line}"`)
  return { name: m[1]!, type: m[2]!, modifier: (m[3] ?? '') as RawField['modifier'], attributes: parseAttributes(m[4]!, `${model}.${m[1]}`) }
}

function parseAttributes(text: string, where: string): Attribute[] {
  const out: Attribute[] = []
  let i = 0
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++
      continue
    }
    const m = /^@@?([A-Za-z_][\w.]*)/.exec(text.slice(i))
    if (!m) throw new Error(`${where}: cannot read attributes "${text}"`)
    i += m[0].length
    let raw = ''
    if (text[i] === '(') {
      const end = closingParen(text, i)
      raw = text.slice(i + 1, end)
      i = end + 1
    }
    out.push({ name: m[1]!, args: parseArgs(raw) })
  }
  return out
}

function closingParen(text: string, open: number): number {
  let depth = 0
  let inString = false
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === '(' || ch === '[') depth++
    else if (ch === ')' || ch === ']') {
      depth--
      if (depth === 0) return i
    }
  }
  throw new Error(`unbalanced parentheses in "${text}"`)
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let inString = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if ('([{'.includes(ch)) depth++
    else if (')]}'.includes(ch)) depth--
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts.map((p) => p.trim()).filter(Boolean)
}

function parseArgs(raw: string): Args {
  const args: Args = { positional: [], named: {} }
  for (const part of splitTopLevel(raw)) {
    const named = /^(\w+)\s*:\s*([^]*)$/.exec(part)
    if (named) args.named[named[1]!] = named[2]!
    else args.positional.push(part)
  }
  return args
}

function stringArg(attribute: Attribute, where: string): string {
  const value = attribute.args.named.name ?? attribute.args.positional[0]
  if (!value?.startsWith('"')) throw new Error(`${where}: @${attribute.name} needs a string`)
  return JSON.parse(value) as string
}

// `[a, b(sort: Desc)]` → ['a', 'b']: sort orders and lengths do not change which columns.
function listArg(value: string | undefined, where: string): string[] {
  if (!value?.startsWith('[') || !value.endsWith(']')) throw new Error(`${where}: expected a field list, got ${value}`)
  return splitTopLevel(value.slice(1, -1)).map((item) => {
    const name = /^\w+/.exec(item)?.[0]
    if (!name) throw new Error(`${where}: cannot read field "${item}"`)
    return name
  })
}

interface ActualColumn {
  notNull: boolean
  type: string
}

interface ActualIndex {
  table: string
  name: string
  primary: boolean
  unique: boolean
  partial: boolean
  columns: string[]
}

interface ActualForeignKey {
  table: string
  name: string
  columns: string[]
  refSchema: string
  refTable: string
  refColumns: string[]
  onDelete: string
  onUpdate: string
}

const ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' }

async function readSchema(db: SqlExecutor, schema: string) {
  const tableRows = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
    [schema],
  )
  // format_type carries what information_schema spreads over several columns (precision,
  // length, array element); enums are named by schema so a same-named type elsewhere is no match.
  const columnRows = await db.query<{
    table_name: string
    column_name: string
    is_nullable: string
    formatted: string
    elem_kind: string
    elem_schema: string
    elem_name: string
    is_array: boolean
  }>(
    `SELECT c.table_name, c.column_name, c.is_nullable, format_type(a.atttypid, a.atttypmod) AS formatted,
            e.typtype::text AS elem_kind, en.nspname::text AS elem_schema, e.typname::text AS elem_name,
            c.data_type = 'ARRAY' AS is_array
     FROM information_schema.columns c
     JOIN pg_catalog.pg_namespace n ON n.nspname = c.table_schema
     JOIN pg_catalog.pg_class r ON r.relnamespace = n.oid AND r.relname = c.table_name
     JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attname = c.column_name
     JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
     JOIN pg_catalog.pg_type e ON e.oid = CASE WHEN c.data_type = 'ARRAY' THEN t.typelem ELSE t.oid END
     JOIN pg_catalog.pg_namespace en ON en.oid = e.typnamespace
     WHERE c.table_schema = $1
     ORDER BY c.table_name, c.ordinal_position`,
    [schema],
  )
  const indexRows = await db.query<{ table_name: string; index_name: string; is_primary: boolean; is_unique: boolean; is_partial: boolean; columns: string[] }>(
    `SELECT t.relname::text AS table_name, i.relname::text AS index_name, x.indisprimary AS is_primary,
            x.indisunique AS is_unique, x.indpred IS NOT NULL AS is_partial,
            ARRAY(SELECT coalesce(a.attname::text, '(expression)')
                  FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                  LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                  WHERE k.ord <= x.indnkeyatts
                  ORDER BY k.ord) AS columns
     FROM pg_catalog.pg_index x
     JOIN pg_catalog.pg_class t ON t.oid = x.indrelid
     JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
     JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = $1
     ORDER BY i.relname`,
    [schema],
  )
  const keyColumns = (key: string, rel: string) =>
    `ARRAY(SELECT a.attname::text FROM unnest(c.${key}) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_catalog.pg_attribute a ON a.attrelid = c.${rel} AND a.attnum = k.attnum ORDER BY k.ord)`
  const fkRows = await db.query<{
    table_name: string
    name: string
    columns: string[]
    ref_schema: string
    ref_table: string
    ref_columns: string[]
    on_delete: string
    on_update: string
  }>(
    `SELECT t.relname::text AS table_name, c.conname::text AS name, ${keyColumns('conkey', 'conrelid')} AS columns,
            rn.nspname::text AS ref_schema, r.relname::text AS ref_table, ${keyColumns('confkey', 'confrelid')} AS ref_columns,
            c.confdeltype::text AS on_delete, c.confupdtype::text AS on_update
     FROM pg_catalog.pg_constraint c
     JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
     JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
     JOIN pg_catalog.pg_class r ON r.oid = c.confrelid
     JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
     WHERE c.contype = 'f' AND n.nspname = $1
     ORDER BY c.conname`,
    [schema],
  )
  const enumRows = await db.query<{ name: string; labels: string[] }>(
    `SELECT t.typname::text AS name,
            ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS labels
     FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
     WHERE n.nspname = $1 AND t.typtype = 'e'
     ORDER BY t.typname`,
    [schema],
  )

  const tables = new Map<string, Map<string, ActualColumn>>(tableRows.map((r) => [r.table_name, new Map()]))
  for (const r of columnRows) {
    const base = r.elem_kind === 'e' ? `enum ${r.elem_schema}.${r.elem_name}${r.is_array ? '[]' : ''}` : r.formatted
    tables.get(r.table_name)?.set(r.column_name, { notNull: r.is_nullable === 'NO', type: base })
  }
  const indexes: ActualIndex[] = indexRows.map((r) => ({
    table: r.table_name,
    name: r.index_name,
    primary: r.is_primary,
    unique: r.is_unique,
    partial: r.is_partial,
    columns: r.columns,
  }))
  const foreignKeys: ActualForeignKey[] = fkRows.map((r) => ({
    table: r.table_name,
    name: r.name,
    columns: r.columns,
    refSchema: r.ref_schema,
    refTable: r.ref_table,
    refColumns: r.ref_columns,
    onDelete: ACTIONS[r.on_delete] ?? r.on_delete,
    onUpdate: ACTIONS[r.on_update] ?? r.on_update,
  }))
  const enums = new Map(enumRows.map((r) => [r.name, r.labels]))
  return { tables, indexes, foreignKeys, enums }
}

const list = (columns: readonly string[]) => `(${columns.join(', ')})`
const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i])
const describeColumn = (notNull: boolean, type: string | null) => `${notNull ? 'NOT NULL' : 'nullable'} ${type}`
const describeFk = (fk: ForeignKeyModel) =>
  `foreign key ${list(fk.columns)} → ${fk.refSchema}.${fk.refTable} ${list(fk.refColumns)} ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate}`

// Prisma's migration history is the one table no model maps to.
const UNMODELLED_TABLES = new Set(['_prisma_migrations'])

/**
 * Compares a migrated database with Prisma models and returns every difference, one line
 * each, worded `<schema>.<table>[.<column>]: model says …, database has …`; empty when the
 * database is exactly what the models describe. Checks tables, columns (name, type,
 * nullability), primary keys, unique and plain indexes, foreign keys and enums, both ways:
 * what a model needs and the database lacks, and what the database has that no model declares.
 * Lists may be nullable or NOT NULL: Prisma's own migrations create them nullable.
 */
export async function compareWithModels(db: SqlExecutor, models: readonly PrismaModels[]): Promise<string[]> {
  const problems: string[] = []
  const schemas = [...new Set(models.flatMap((m) => m.schemas))]
  const partialIndexes = new Set(models.flatMap((m) => m.partialIndexes))
  for (const schema of schemas) {
    const expected = models.flatMap((m) => m.tables).filter((t) => t.schema === schema)
    const expectedEnums = models.flatMap((m) => m.enums).filter((e) => e.schema === schema)
    const actual = await readSchema(db, schema)

    for (const model of expected) {
      const where = `${schema}.${model.table}`
      const columns = actual.tables.get(model.table)
      if (!columns) {
        problems.push(`${where}: model ${model.model} says the table exists, database has no such table`)
        continue
      }
      const mapped = new Set<string>()
      for (const field of model.fields) {
        if (field.column === null) continue
        mapped.add(field.column)
        const column = columns.get(field.column)
        if (!column) {
          problems.push(`${where}.${field.column}: model says ${describeColumn(field.isRequired && !field.isList, field.dbType)}, database has no such column`)
          continue
        }
        const nullabilityOk = field.isList || field.isRequired === column.notNull
        if (!nullabilityOk || column.type !== field.dbType) {
          const expectNotNull = field.isList ? column.notNull : field.isRequired
          problems.push(
            `${where}.${field.column}: model says ${describeColumn(expectNotNull, field.dbType)}, database has ${describeColumn(column.notNull, column.type)}`,
          )
        }
      }
      for (const [name, column] of columns) {
        if (!mapped.has(name))
          problems.push(`${where}.${name}: database has ${describeColumn(column.notNull, column.type)} column that no field of model ${model.model} maps to`)
      }

      const indexes = actual.indexes.filter((i) => i.table === model.table)
      const primary = indexes.find((i) => i.primary)
      if (model.primaryKey && !primary) problems.push(`${where}: model says primary key ${list(model.primaryKey)}, database has no primary key`)
      else if (!model.primaryKey && primary) problems.push(`${where}: model says no primary key, database has primary key ${list(primary.columns)}`)
      else if (model.primaryKey && primary && !sameColumns(model.primaryKey, primary.columns)) {
        problems.push(`${where}: model says primary key ${list(model.primaryKey)}, database has primary key ${list(primary.columns)}`)
      }
      const usable = indexes.filter((i) => !i.primary && !i.partial)
      for (const unique of model.uniques) {
        if (!usable.some((i) => i.unique && sameColumns(i.columns, unique)))
          problems.push(`${where}: model says unique ${list(unique)}, database has no unique index on ${list(unique)}`)
      }
      for (const index of model.indexes) {
        if (!usable.some((i) => !i.unique && sameColumns(i.columns, index)))
          problems.push(`${where}: model says index ${list(index)}, database has no index on ${list(index)}`)
      }
      for (const index of indexes) {
        if (index.primary) continue
        const declared = index.partial
          ? partialIndexes.has(index.name)
          : (index.unique ? model.uniques : model.indexes).some((c) => sameColumns(c, index.columns))
        if (!declared) {
          const kind = `${index.unique ? 'unique ' : ''}${index.partial ? 'partial ' : ''}index`
          problems.push(`${where}: database has ${kind} ${index.name} ${list(index.columns)} that model ${model.model} does not declare`)
        }
      }

      const foreignKeys = actual.foreignKeys.filter((f) => f.table === model.table)
      for (const fk of model.foreignKeys) {
        const match = foreignKeys.find((f) => sameColumns(f.columns, fk.columns))
        if (!match) problems.push(`${where}: model says ${describeFk(fk)}, database has no foreign key on ${list(fk.columns)}`)
        else if (describeFk(match) !== describeFk(fk)) problems.push(`${where}: model says ${describeFk(fk)}, database has ${describeFk(match)}`)
      }
      for (const fk of foreignKeys) {
        if (!model.foreignKeys.some((f) => sameColumns(f.columns, fk.columns)))
          problems.push(`${where}: database has ${fk.name}, a ${describeFk(fk)}, that no relation of model ${model.model} declares`)
      }
    }

    const modelled = new Set(expected.map((t) => t.table))
    for (const table of actual.tables.keys()) {
      if (!modelled.has(table) && !UNMODELLED_TABLES.has(table)) problems.push(`${schema}.${table}: database has a table that no model maps to`)
    }

    for (const e of expectedEnums) {
      const labels = actual.enums.get(e.dbName)
      if (!labels) problems.push(`${schema}.${e.dbName}: enum ${e.name} says values ${list(e.values)}, database has no such enum type`)
      else if (!sameColumns(labels, e.values))
        problems.push(`${schema}.${e.dbName}: enum ${e.name} says values ${list(e.values)}, database has values ${list(labels)}`)
    }
    const modelledEnums = new Set(expectedEnums.map((e) => e.dbName))
    for (const name of actual.enums.keys()) {
      if (!modelledEnums.has(name)) problems.push(`${schema}.${name}: database has an enum type that no Prisma enum maps to`)
    }
  }
  return problems
}
