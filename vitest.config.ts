import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Files that assert how the service behaves under load (event-loop delay, answers within 100 ms while abuse is
 * refused): they run after every other file, alone, so that another worker's work on our two cores is not
 * counted against them.
 */
const RUN_ALONE = ['test/transactions/abuse.test.ts'];
/**
 * Files whose subject is the same on every database, so CI runs them once: the browser test (it drives the
 * GraphiQL page in Chromium) and the CLI files that always use an embedded database in a data dir (the admin
 * socket and a data dir no server holds exist only there, under TEST_DATABASE_URL too).
 */
const ONCE = ['test/web/graphiql.test.ts', 'test/cli/cli.test.ts', 'test/cli/served.test.ts'];

export default defineConfig({
  resolve: {
    // Node resolves graphql to its CommonJS build (package "main"), which Mercurius also requires; Vite would
    // pick the ESM build ("module") for our code and give us a second GraphQLError class.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // Migrates one PGlite template that each test file's database copies (test/support/pglite-template.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file opens its own database; two workers match the two cores of our machines.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...RUN_ALONE, ...ONCE],
          // Files share their worker's loaded modules (Fastify, Mercurius, graphql-js, PGlite): importing them
          // again for every file cost more than a second each. No file leans on module state: each builds its
          // own database and apps.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'once', include: ONCE } },
      { extends: true, test: { name: 'alone', include: RUN_ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
