import Ajv from 'ajv'
import { describe, expect, it } from 'vitest'
import { CONNECTORS, findConnector } from './index.js'

const ajv = new Ajv.default({ allErrors: true, useDefaults: true, strict: true, strictRequired: false })

function validator(id: string) {
  const connector = findConnector(id)
  if (!connector) throw new Error(`no connector ${id}`)
  return ajv.compile({ ...connector.settingsSchema, type: 'object' })
}

describe('the connector registry', () => {
  it('finds connectors by id or alias, ignoring case', () => {
    expect(findConnector('postgresql')?.id).toBe('postgres')
    expect(findConnector('PostgreSQL')?.id).toBe('postgres')
    expect(findConnector('postgres')?.id).toBe('postgres')
    expect(findConnector('duckdb')?.id).toBe('warehouse')
    expect(findConnector('Warehouse')?.id).toBe('warehouse')
    expect(findConnector('CSV')?.id).toBe('csv')
    expect(findConnector('ndjson')?.id).toBe('ndjson')
    expect(findConnector('mysql')).toBeUndefined()
    expect(findConnector('')).toBeUndefined()
  })

  it('lists each connector once, with the fields GET /connectors shows', () => {
    expect(CONNECTORS.map((c) => [c.id, c.role, c.category])).toEqual([
      ['postgres', 'both', 'database'],
      ['warehouse', 'both', 'warehouse'],
      ['csv', 'both', 'warehouse'],
      ['ndjson', 'both', 'warehouse'],
      ['redis_stream', 'both', 'streaming'],
    ])
    expect(findConnector('postgres')?.supportedVersions).toEqual(['12', '13', '14', '15', '16', '17'])
    for (const c of CONNECTORS) {
      expect(c.name).toBeTruthy()
      expect(typeof c.read).toBe('function')
      expect(typeof c.openWriter).toBe('function')
    }
  })

  it('declares every settings schema closed, with its required fields and secrets', () => {
    for (const c of CONNECTORS) {
      const schema = c.settingsSchema as { additionalProperties: unknown; required: string[]; properties: Record<string, unknown> }
      expect(schema.additionalProperties, c.id).toBe(false)
      expect(Array.isArray(schema.required), c.id).toBe(true)
      for (const field of [...schema.required, ...c.secretFields]) expect(Object.keys(schema.properties), c.id).toContain(field)
      // Strict mode compiles only schemas whose keywords Ajv knows.
      expect(() => ajv.compile({ ...c.settingsSchema, type: 'object' })).not.toThrow()
    }
    expect((findConnector('postgres')?.settingsSchema as { required: string[] }).required).toEqual(['host', 'database', 'table', 'user'])
    expect(findConnector('postgres')?.secretFields).toEqual(['password'])
    expect((findConnector('warehouse')?.settingsSchema as { required: string[] }).required).toEqual(['warehouse', 'database', 'table'])
    expect((findConnector('csv')?.settingsSchema as { required: string[] }).required).toEqual(['path'])
  })

  it('validates the relational source and warehouse destination shapes of the document, filling defaults', () => {
    const source = { host: 'db.example.com', port: 5432, database: 'sales', schema: 'public', table: 'orders', user: 'reader', password: 'x' }
    expect(validator('postgres')(source)).toBe(true)
    const minimal: Record<string, unknown> = { host: 'h', database: 'd', table: 't', user: 'u' }
    expect(validator('postgres')(minimal)).toBe(true)
    expect(minimal).toMatchObject({ port: 5432, schema: 'public', ssl: false, connect_timeout_seconds: 10 })
    expect(validator('postgres')({ ...source, port: '5432' })).toBe(false)
    expect(validator('postgres')({ ...source, port: 5432.5 })).toBe(false)
    expect(validator('postgres')({ ...source, extra: 1 })).toBe(false)
    expect(validator('postgres')({ ...source, host: undefined })).toBe(false)

    const destination: Record<string, unknown> = { account: 'local', warehouse: 'analytics', database: 'sales', table: 'orders' }
    expect(validator('warehouse')(destination)).toBe(true)
    expect(destination.schema).toBe('main')
    expect(validator('warehouse')({ ...destination, warehouse: '../up' })).toBe(false)
    expect(validator('warehouse')({ ...destination, database: 'a.b' })).toBe(false)

    const csv: Record<string, unknown> = { path: 'in/orders.csv' }
    expect(validator('csv')(csv)).toBe(true)
    expect(csv).toEqual({ path: 'in/orders.csv', delimiter: ',', header: true })
    expect(validator('csv')({ path: 'x.csv', delimiter: ';;' })).toBe(false)
    expect(validator('ndjson')({ path: 'x.ndjson', delimiter: ',' })).toBe(false)
  })
})
