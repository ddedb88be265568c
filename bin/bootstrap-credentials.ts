import type { CredentialStore } from '../platform/auth/credential-store.js'
import type { PlatformConfig } from '../platform/config.js'

/**
 * On the first start (no credential at all), registers the development API key and OAuth
 * client with every scope: the ones given in the environment, or new ones printed once.
 */
export async function bootstrapCredentials(store: CredentialStore, config: PlatformConfig, announce: (text: string) => void) {
  if (!(await store.isEmpty())) return
  const { apiKey, clientId, clientSecret } = config.bootstrap
  const key = await store.createApiKey({ name: 'development', scopes: ['*'], key: apiKey })
  const client = await store.createClient({ name: 'development', scopes: ['*'], clientId, clientSecret })
  if (apiKey && clientId) {
    announce('Tessera: registered TESSERA_API_KEY and TESSERA_CLIENT_ID/SECRET as the development credentials (all scopes).')
    return
  }
  announce(
    [
      '',
      'Tessera development credentials — shown once, stored only as hashes:',
      `  API key        ${apiKey ? '(TESSERA_API_KEY)' : key.key}`,
      `  OAuth client   ${client.clientId}`,
      `  client secret  ${clientId ? '(TESSERA_CLIENT_SECRET)' : client.clientSecret}`,
      '  Use the key as "Authorization: Bearer <key>", or get a token with POST /oauth/token',
      '  (grant_type=client_credentials). Manage credentials with `npm run tessera -- --help`.',
      '',
    ].join('\n'),
  )
}
