import { createRequire } from 'node:module'
import { defineConfig } from 'vitest/config'

const require = createRequire(import.meta.url)

export default defineConfig({
  // Node loads graphql's CommonJS entry (the Apollo packages require it); Vite would pick its
  // ESM build for our own imports, and two graphql copies reject each other's schemas.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  // The config lives in test/, the project root stays the repository.
  root: new URL('..', import.meta.url).pathname,
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'data/**'],
    globalSetup: ['test/global-setup.ts'],
    // PGlite and pg-boss start in a second or two; a few suites start several processes.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers only queue behind each other.
    maxWorkers: 2,
    reporters: ['default'],
  },
})
