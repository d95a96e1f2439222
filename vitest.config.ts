import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node resolves graphql to its CommonJS build (package "main"), which Mercurius also requires; Vite would
    // pick the ESM build ("module") for our code and give us a second GraphQLError class.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Migrates one PGlite template that each test file's database copies (test/support/pglite-template.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file opens its own database; two workers match the two cores of our machines.
    maxWorkers: 2,
  },
});
