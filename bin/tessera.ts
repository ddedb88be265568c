// The Tessera command line.
//   tessera start                         everything in one process (embedded database by default)
//   tessera start --service <name>        one service: its REST adapter and subgraph
//   tessera start --gateway --subgraph <name>=<url> …   the gateway alone
//   tessera migrate                       apply migrations and exit
//   tessera keys create|list|revoke …     API keys
//   tessera clients create|list|revoke …  OAuth clients
import { parseArgs } from 'node:util'
import { PrismaClient as PlatformPrisma } from '../platform/generated/prisma/client.js'
import { checkCredentialScopes, checkCredentialShape, createCredentialStore, CredentialError } from '../platform/auth/credential-store.js'
import type { Environment } from '../platform/auth/scopes.js'
import { ConfigError, loadPlatformConfig, type PlatformConfig } from '../platform/config.js'
import { createDatabase, type Database } from '../platform/db/database.js'
import { applyMigrations } from '../platform/db/migrate.js'
import { allMigrations, createTesseraProcess, lockDataDir, type ProcessMode } from './create-process.js'
import { KNOWN_SCOPES, SERVICES } from './services.js'

const HELP = `Usage: tessera <command> [options]

Commands:
  start                              run everything on one port (PORT, default 4000)
  start --service <name>             run one service (${Object.keys(SERVICES).join(', ')})
  start --gateway --subgraph <name>=<url> [--subgraph …]
                                     run the gateway over subgraph URLs
                                     (or TESSERA_SUBGRAPH_<NAME>_URL variables)
  migrate                            apply database migrations and exit
  keys create --name <n> --scopes <s,…> [shape]   create an API key (printed once)
  keys list | keys revoke <id>
  clients create --name <n> --scopes <s,…> [--client-id <id>] [shape]
  clients list | clients revoke <client_id>

Shape of a credential (optional):
  --environment production|sandbox   the data it acts on (default production)
  --tier free|pro|enterprise         rate-limit tier, where an interface limits by tier
  --rate-limit <n>                   its own limit in requests per hour (overrides the tier)

Scopes: "*" (everything), "<service>:*", or "<service>:read" / "<service>:write".
Environment: PORT, HOST, DATA_DIR, DATABASE_URL, LOG_LEVEL and TESSERA_* (see README).`

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      service: { type: 'string' },
      gateway: { type: 'boolean' },
      subgraph: { type: 'string', multiple: true },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'client-id': { type: 'string' },
      environment: { type: 'string' },
      tier: { type: 'string' },
      'rate-limit': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command, sub, arg] = positionals
  if (values.help || !command) {
    console.log(HELP)
    return command || values.help ? 0 : 1
  }
  const config = loadPlatformConfig()
  switch (command) {
    case 'start':
      return start(config, modeFrom(values))
    case 'migrate':
      return withDatabase(config, async (db) => {
        for (const report of await applyMigrations(db, allMigrations())) {
          console.log(`${report.schema}: ${report.applied.length ? `applied ${report.applied.join(', ')}` : 'up to date'}`)
        }
      })
    case 'keys':
    case 'clients':
      // Bad arguments are refused before the database is opened (which takes seconds).
      if (sub === 'create') {
        if (!values.name?.trim()) throw new CredentialError('A name is required: --name <name>')
        checkCredentialScopes(scopesOf(values), KNOWN_SCOPES)
        checkCredentialShape(shapeOf(values))
      }
      return withDatabase(config, async (db) => {
        await applyMigrations(db, allMigrations())
        const prisma = new PlatformPrisma(db.prismaOptions())
        try {
          await manageCredentials(
            createCredentialStore(prisma, { tokenTtlSeconds: config.tokenTtlSeconds, knownScopes: KNOWN_SCOPES }),
            command,
            sub,
            arg,
            values,
          )
        } finally {
          await prisma.$disconnect()
        }
      })
    default:
      console.error(`Unknown command "${command}"\n\n${HELP}`)
      return 1
  }
}

function modeFrom(values: { service?: string; gateway?: boolean; subgraph?: string[] }): ProcessMode {
  if (values.service && values.gateway) throw new ConfigError('Choose --service or --gateway, not both')
  if (values.service) return { kind: 'service', service: values.service }
  if (!values.gateway) return { kind: 'all' }
  const subgraphUrls: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    const match = /^TESSERA_SUBGRAPH_([A-Z0-9_]+)_URL$/.exec(key)
    if (match?.[1] && value) subgraphUrls[match[1].toLowerCase()] = value
  }
  for (const pair of values.subgraph ?? []) {
    const [name, url] = pair.split(/=(.*)/s)
    if (!name || !url) throw new ConfigError(`--subgraph takes <name>=<url>, got "${pair}"`)
    subgraphUrls[name] = url
  }
  for (const [name, url] of Object.entries(subgraphUrls)) {
    if (!/^https?:\/\//.test(url)) throw new ConfigError(`Subgraph ${name}: "${url}" is not an http(s) URL`)
  }
  if (!Object.keys(subgraphUrls).length) throw new ConfigError('The gateway needs subgraph URLs: --subgraph <name>=<url> or TESSERA_SUBGRAPH_<NAME>_URL')
  return { kind: 'gateway', subgraphUrls }
}

async function start(config: PlatformConfig, mode: ProcessMode): Promise<number> {
  console.log(`Tessera: starting ${mode.kind === 'all' ? 'every service' : mode.kind === 'service' ? `service ${mode.service}` : 'the gateway'}`)
  const tessera = await createTesseraProcess({ mode, config, progress: (step) => console.log(`  ${step}`) })
  const address = await tessera.listen()
  const what = mode.kind === 'all' ? 'Tessera' : mode.kind === 'service' ? `Tessera service ${mode.service}` : 'Tessera gateway'
  console.log(`${what} listening on ${address}${mode.kind === 'service' ? ' (REST and /graphql subgraph)' : ' (GraphQL at /graphql)'}`)
  await new Promise<void>((resolve) => {
    let stoppingAt = 0
    const stop = (signal: string) => {
      if (stoppingAt) {
        // Ctrl-C reaches every process of the terminal's group, and npm and tsx pass it on as
        // well, so one keypress can arrive more than once; only a later one forces the exit.
        if (Date.now() - stoppingAt < 1000) return
        console.log('Forced exit')
        process.exit(1)
      }
      stoppingAt = Date.now()
      console.log(`${signal}: shutting down (in-flight requests and jobs finish; press Ctrl-C again to force)`)
      const timer = setTimeout(() => {
        console.error('Shutdown took too long; exiting')
        process.exit(1)
      }, config.shutdownGraceMs + 5000)
      timer.unref()
      tessera.close().then(resolve, (error: unknown) => {
        console.error(error)
        resolve()
      })
    }
    process.on('SIGINT', () => stop('SIGINT'))
    process.on('SIGTERM', () => stop('SIGTERM'))
  })
  return 0
}

async function withDatabase(config: PlatformConfig, work: (db: Database) => Promise<void>): Promise<number> {
  // A running server keeps the embedded database in its memory: a key written beside it would
  // never reach it and be lost when it stops. The server's lock says whether one is running.
  const unlock: Array<() => Promise<void>> = []
  if (!config.databaseUrl) {
    await lockDataDir(
      config.dataDir,
      unlock,
      (pid) =>
        `DATA_DIR ${config.dataDir} is in use by a running Tessera (process ${pid}). Stop the server first and run this again; ` +
        'credentials written beside a running embedded server would never reach it. (With DATABASE_URL, this command works while servers run.)',
    )
  }
  const db = config.databaseUrl
    ? await createDatabase({ kind: 'postgres', url: config.databaseUrl })
    : await createDatabase({ kind: 'embedded', dataDir: config.dataDir })
  try {
    await work(db)
    return 0
  } finally {
    await db.close()
    for (const release of unlock) await release()
  }
}

const scopesOf = (values: { scopes?: string }) => (values.scopes ?? '').split(/[\s,]+/).filter(Boolean)

function shapeOf(values: { environment?: string; tier?: string; 'rate-limit'?: string }) {
  const rateLimit = values['rate-limit']
  if (rateLimit !== undefined && !/^\d+$/.test(rateLimit)) throw new CredentialError('--rate-limit takes a whole number of requests per hour')
  return {
    environment: values.environment as Environment | undefined,
    tier: values.tier,
    rateLimitPerHour: rateLimit === undefined ? undefined : Number(rateLimit),
  }
}

async function manageCredentials(
  store: ReturnType<typeof createCredentialStore>,
  kind: 'keys' | 'clients',
  action: string | undefined,
  arg: string | undefined,
  values: { name?: string; scopes?: string; 'client-id'?: string; environment?: string; tier?: string; 'rate-limit'?: string },
) {
  const scopes = scopesOf(values)
  const shape = shapeOf(values)
  const describe = (c: { scopes: string[]; environment: string; tier: string | null; rateLimitPerHour: number | null }) =>
    `[${c.scopes.join(' ')}] ${c.environment}${c.tier ? ` tier=${c.tier}` : ''}${c.rateLimitPerHour ? ` limit=${c.rateLimitPerHour}/h` : ''}`
  if (kind === 'keys') {
    if (action === 'create') {
      const { key, info } = await store.createApiKey({ name: values.name ?? '', scopes, ...shape })
      console.log(`API key ${info.id} ${describe(info)}\n  ${key}\nStore it now: it is not shown again.`)
    } else if (action === 'list') {
      for (const k of await store.listApiKeys()) console.log(`${k.id}  ${k.prefix}…  ${k.name}  ${describe(k)}${k.revokedAt ? '  revoked' : ''}`)
    } else if (action === 'revoke' && arg) {
      console.log((await store.revokeApiKey(arg)) ? `revoked ${arg}` : `no live key ${arg}`)
    } else throw new CredentialError('keys create --name <n> --scopes <s,…> | keys list | keys revoke <id>')
  } else {
    if (action === 'create') {
      const c = await store.createClient({ name: values.name ?? '', scopes, clientId: values['client-id'], ...shape })
      console.log(`OAuth client ${c.clientId} ${describe(c.info)}\n  client_secret ${c.clientSecret}\nStore it now: it is not shown again.`)
    } else if (action === 'list') {
      for (const c of await store.listClients()) console.log(`${c.clientId}  ${c.name}  ${describe(c)}${c.revokedAt ? '  revoked' : ''}`)
    } else if (action === 'revoke' && arg) {
      console.log((await store.revokeClient(arg)) ? `revoked ${arg}` : `no live client ${arg}`)
    } else throw new CredentialError('clients create --name <n> --scopes <s,…> | clients list | clients revoke <client_id>')
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof CredentialError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error((error as Error).message)
      process.exit(2)
    }
    console.error(error)
    process.exit(1)
  },
)
