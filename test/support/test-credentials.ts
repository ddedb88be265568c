/** Fixed development credentials of every test process (registered by the snapshot). */
export const TEST_CREDENTIALS = {
  apiKey: 'tsr_test_development_key_0123456789abcdef',
  clientId: 'tessera-test-client',
  clientSecret: 'tss_test_development_secret_0123456789',
} as const

/** The environment a test process starts with. */
export function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    LOG_LEVEL: 'silent',
    TESSERA_API_KEY: TEST_CREDENTIALS.apiKey,
    TESSERA_CLIENT_ID: TEST_CREDENTIALS.clientId,
    TESSERA_CLIENT_SECRET: TEST_CREDENTIALS.clientSecret,
    TESSERA_SECRET_KEY: 'a'.repeat(64),
    ...extra,
  }
}
