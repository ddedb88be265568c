// Writes a new, working service on the service kit: `npm run new-service -- <name>`.
// The service starts with one table (`items`), one REST route (GET /v1/<name>/items, plus
// POST to add one), one query (`<name>Items`), a test of both faces, and its entry in
// bin/services.ts; then the Prisma client, the supergraph and the resolver types are generated.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Every file of a new service, by path relative to the repository. */
export function serviceFiles(name: string, now: Date = new Date()): Record<string, string> {
  const Name = name.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())
  const camel = Name.charAt(0).toLowerCase() + Name.slice(1)
  const schema = name.replaceAll('-', '_')
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14)
  const upper = schema.toUpperCase()
  return {
    [`schema/${name}.graphql`]: `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])

scalar DateTime

"""An item of the ${name} service."""
type ${Name}Item @key(fields: "id") {
  id: ID!
  name: String!
  createdAt: DateTime!
}

type Query {
  """The ${name} service's items, newest first (needs ${name}:read)."""
  ${camel}Items(limit: Int = 20): [${Name}Item!]!
}
`,
    [`subgraphs/${name}/scopes.ts`]: `/** The scopes the ${name} service checks. */
export const ${upper}_SCOPES = ['${name}:read', '${name}:write'] as const
`,
    [`subgraphs/${name}/errors.ts`]: `import { defineErrors } from '../../platform/errors.js'
import { STANDARD_ERRORS, STANDARD_ROLES } from '../../platform/standard-errors.js'

/** The ${name} service's coded errors: Tessera's standard codes and body. */
export const ${camel}Errors = defineErrors(STANDARD_ERRORS, STANDARD_ROLES)
`,
    [`subgraphs/${name}/${name}-service.ts`]: `import { randomUUID } from 'node:crypto'
import { createAuthorizer } from '../../platform/auth/authorize.js'
import type { Principal } from '../../platform/auth/scopes.js'
import { ${camel}Errors as errors } from './errors.js'
import type { PrismaClient } from './generated/prisma/client.js'

/** An item as both faces show it. */
export interface ItemRecord {
  id: string
  name: string
  createdAt: Date
}

/** Page sizes of item listings. */
export const ITEMS_PAGE = { default: 20, max: 100 } as const

/** What the ${name} domain needs. */
export interface ${Name}ServiceDeps {
  prisma: PrismaClient
}

/** The ${name} service's domain: every rule, and who may do what, lives here. */
export function create${Name}Service(deps: ${Name}ServiceDeps) {
  const { prisma } = deps
  const authorize = createAuthorizer(errors, '${name}')
  return {
    async listItems(actor: Principal | null, limit: number = ITEMS_PAGE.default): Promise<ItemRecord[]> {
      authorize(actor, 'read')
      if (!Number.isInteger(limit) || limit < 1 || limit > ITEMS_PAGE.max) {
        throw errors.invalid([{ field: 'limit', message: \`must be an integer from 1 to \${ITEMS_PAGE.max}\` }])
      }
      return prisma.item.findMany({ orderBy: { createdAt: 'desc' }, take: limit })
    },

    async createItem(actor: Principal | null, input: { name: string }): Promise<ItemRecord> {
      authorize(actor, 'write')
      const name = input.name.trim()
      if (!name || name.length > 200) throw errors.invalid([{ field: 'name', message: 'must be 1 to 200 characters' }])
      return prisma.item.create({ data: { id: randomUUID(), name } })
    },
  }
}

/** The ${name} service's domain. */
export type ${Name}Service = ReturnType<typeof create${Name}Service>
`,
    [`subgraphs/${name}/graphql-mappers.ts`]: `import type { Principal } from '../../platform/auth/scopes.js'
import type { ItemRecord } from './${name}-service.js'

/** Per-request context of the ${name} subgraph. */
export interface Context {
  actor: Principal | null
  requestId?: string
}

export type ${Name}ItemModel = ItemRecord
`,
    [`subgraphs/${name}/resolvers.ts`]: `import { DateTimeScalar } from '../../platform/graphql/scalars.js'
import type { Resolvers } from './generated/graphql.js'
import type { ${Name}Service } from './${name}-service.js'

/** GraphQL resolvers of the ${name} subgraph: arguments in, one domain call, the result out. */
export function create${Name}Resolvers(service: ${Name}Service): Resolvers {
  return {
    DateTime: DateTimeScalar,
    Query: {
      ${camel}Items: (_, { limit }, ctx) => service.listItems(ctx.actor, limit ?? undefined),
    },
  }
}
`,
    [`subgraphs/${name}/index.ts`]: `import { defineServiceCore } from '../../platform/service-kit/index.js'
import { ${camel}Errors } from './errors.js'
import { PrismaClient } from './generated/prisma/client.js'
import { create${Name}Service } from './${name}-service.js'
import { create${Name}Resolvers } from './resolvers.js'
import { ${upper}_SCOPES } from './scopes.js'

export { ITEMS_PAGE, type ItemRecord, type ${Name}Service } from './${name}-service.js'

/** The ${name} service. */
export const ${camel}Core = defineServiceCore({
  name: '${name}',
  scopes: ${upper}_SCOPES,
  errors: ${camel}Errors,
  prisma: PrismaClient,
  createDomain: ({ prisma }) => create${Name}Service({ prisma }),
  resolvers: create${Name}Resolvers,
})
`,
    [`subgraphs/${name}/prisma/schema.prisma`]: `// The ${name} service's data, in its own Postgres schema.
generator client {
  provider            = "prisma-client"
  output              = "../generated/prisma"
  moduleFormat        = "esm"
  importFileExtension = "js"
}

datasource db {
  provider = "postgresql"
  schemas  = ["${schema}"]
}

model Item {
  id        String   @id @db.Uuid
  name      String
  createdAt DateTime @default(now()) @map("created_at") @db.Timestamptz(3)

  @@index([createdAt])
  @@map("items")
  @@schema("${schema}")
}
`,
    [`subgraphs/${name}/prisma/migrations/migration_lock.toml`]: `# Please do not edit this file manually
# It should be added in your version-control system (e.g., Git)
provider = "postgresql"
`,
    [`subgraphs/${name}/prisma/migrations/${stamp}_init/migration.sql`]: `CREATE SCHEMA IF NOT EXISTS "${schema}";

CREATE TABLE "${schema}"."items" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "items_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "items_created_at_idx" ON "${schema}"."items"("created_at");
`,
    [`rest-adapters/${name}/index.ts`]: `import { defineService } from '../../platform/service-kit/index.js'
import { ${camel}Core, ITEMS_PAGE, type ItemRecord } from '../../subgraphs/${name}/index.js'

const itemBody = (item: ItemRecord) => ({ id: item.id, name: item.name, created_at: item.createdAt.toISOString() })

/** The ${name} service's v1 REST interface under /v1/${name}. */
export const ${camel}Service = defineService(${camel}Core, {
  prefixes: ['/v1/${name}'],
  openapi: { title: 'Tessera ${name}', description: 'Items of the ${name} service (v1).' },
  realm: 'tessera-${name}',
  routes(app, { domain }) {
    app.get('/v1/${name}/items', {
      schema: {
        summary: 'List items, newest first',
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: ITEMS_PAGE.max } }, additionalProperties: false },
      } as const,
    }, async (request) => ({ items: (await domain.listItems(request.principal, request.query.limit)).map(itemBody) }))

    app.post('/v1/${name}/items', {
      schema: {
        summary: 'Add an item',
        body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false },
      } as const,
    }, async (request, reply) => {
      const item = await domain.createItem(request.principal, request.body)
      return reply.code(201).header('location', \`/v1/${name}/items/\${item.id}\`).send(itemBody(item))
    })
  },
})
`,
    [`rest-adapters/${name}/README.md`]: `# ${name} — REST interface notes

Base path \`/v1/${name}\`; \`Authorization: Bearer <key or token>\` or \`X-API-Key\`; scopes
\`${name}:read\` and \`${name}:write\`. Errors use Tessera's standard body.

| Method | Path | Notes |
|---|---|---|
| GET | /v1/${name}/items | \`limit\` 1–${100}, default 20; newest first |
| POST | /v1/${name}/items | \`{ "name": "…" }\` → 201 with \`Location\` |
`,
    [`test/${name}/${name}.test.ts`]: `import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'

describe('${name} service', () => {
  let t: TestTessera
  beforeAll(async () => {
    t = await build({ services: ['${name}'] })
  })
  afterAll(() => t.close())

  it('adds an item over REST and lists it over REST and GraphQL', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/${name}/items', headers: t.auth, payload: { name: 'first' } })
    expect(created.statusCode).toBe(201)
    expect(created.headers.location).toBe(\`/v1/${name}/items/\${created.json().id}\`)
    const listed = await t.app.inject({ method: 'GET', url: '/v1/${name}/items', headers: t.auth })
    expect(listed.json().items.map((i: { name: string }) => i.name)).toContain('first')
    const graph = await t.app.inject({ method: 'POST', url: '/graphql', headers: t.auth, payload: { query: '{ ${camel}Items { name } }' } })
    expect(graph.json().data.${camel}Items.map((i: { name: string }) => i.name)).toContain('first')
  })

  it('refuses an empty name with the field named, and a missing credential on both faces', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/v1/${name}/items', headers: t.auth, payload: { name: ' ' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.details.issues[0].field).toBe('name')
    expect((await t.app.inject({ method: 'GET', url: '/v1/${name}/items' })).statusCode).toBe(401)
    const graph = await t.app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ ${camel}Items { name } }' } })
    expect(graph.json().errors[0].extensions.code).toBe('UNAUTHORIZED')
  })
})
`,
  }
}

/** Adds the service to the catalog in bin/services.ts. */
export function addToCatalog(source: string, name: string): string {
  const Name = name.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())
  const camel = Name.charAt(0).toLowerCase() + Name.slice(1)
  const upper = name.replaceAll('-', '_').toUpperCase()
  const importLine = `import { ${upper}_SCOPES } from '../subgraphs/${name}/scopes.js'\n`
  const key = name.includes('-') ? `'${name}'` : name
  const entry = `  ${key}: { scopes: ${upper}_SCOPES, load: async () => (await import('../rest-adapters/${name}/index.js')).${camel}Service as Service },\n`
  const withImport = source.replace(/(import [^\n]*\/scopes\.js'\n)(?![\s\S]*\/scopes\.js')/, `$1${importLine}`)
  return withImport.replace(/(export const SERVICES: Record<string, CatalogEntry> = \{\n(?:[^\n]*\n)*?)\}/, `$1${entry}}`)
}

function main(argv: string[]) {
  const name = argv[0] ?? ''
  if (!/^[a-z][a-z0-9-]{1,30}$/.test(name)) {
    console.error('Usage: npm run new-service -- <name>   (lower case letters, digits and -)')
    return 2
  }
  const files = serviceFiles(name)
  const taken = Object.keys(files).filter((f) => existsSync(path.join(root, f)))
  if (taken.length || existsSync(path.join(root, 'subgraphs', name))) {
    console.error(`Service ${name} exists already (${taken[0] ?? `subgraphs/${name}`})`)
    return 1
  }
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), content)
    console.log(`wrote ${file}`)
  }
  const catalog = path.join(root, 'bin/services.ts')
  writeFileSync(catalog, addToCatalog(readFileSync(catalog, 'utf8'), name))
  console.log('added it to bin/services.ts')
  for (const script of ['prisma:generate', 'compose', 'codegen']) execFileSync('npm', ['run', '--silent', script], { cwd: root, stdio: 'inherit' })
  console.log(
    `\nService ${name} is ready: npm start serves GET ${`/v1/${name}/items`}; run its test with npx vitest run --config test/vitest.config.ts test/${name}`,
  )
  return 0
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exit(main(process.argv.slice(2)))
