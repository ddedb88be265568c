import { afterAll, beforeAll, describe, it } from 'vitest'
import { expectError } from '../support/standard-error.js'
import { build, type TestTessera } from '../helper.js'
import { ALL, keyFor, restClient } from './fixtures.js'

// Without TESSERA_WEBHOOKS_ALLOW_PRIVATE, as in production.
describe('esports webhooks refuse internal addresses', () => {
  let t: TestTessera
  let api: ReturnType<typeof restClient>
  beforeAll(async () => {
    t = await build({ services: ['esports'] })
    api = restClient(t, (await keyFor(t, ALL)).authorization)
  })
  afterAll(() => t.close())

  it('refuses loopback, private, link-local and metadata URLs with 422 on url', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.0.0.5/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/hook',
      'http://[fd00:ec2::254]/hook',
      'http://0.0.0.0/hook',
      'gopher://example.com/',
    ]) {
      expectError(await api.post('/webhooks', { url, events: ['team.updated'], secret: 'whsec-test-0123456789abcdef' }), 422, 'VALIDATION_ERROR', 'url')
    }
  })
})
