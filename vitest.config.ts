import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const require = createRequire(import.meta.url);

/**
 * Files that assert how the service behaves under load (event-loop delay, answers within 100 ms while abuse is
 * refused) or compare times (a sign-in's, whatever the address): they run after every other file, alone, so that
 * another worker's work on our two cores is not counted against them.
 */
const RUN_ALONE = [
  'test/transactions/abuse.test.ts',
  'test/accounts/sign-in-timing.test.ts',
  'test/transactions/documents/document-load.test.ts',
];
/**
 * Files that drive Chromium: they run after the suite, two at a time, so that a browser on our two cores is not
 * starved by the other files (the GraphiQL test timed out in CI while the suite ran beside it). Their subject is
 * the pages, whose JSON routes the suite tests on every database, so CI runs them once, in its PostgreSQL pass
 * (a second pass on PGlite took more than a minute of CI's five).
 */
const BROWSER = [
  'test/web/dashboard.test.ts',
  'test/web/dashboard-portfolio.test.ts',
  'test/web/key-delivery.test.ts',
  'test/web/recipient-portal.test.ts',
  'test/web/graphiql.test.ts',
  'test/web/console-story.test.ts',
  'test/web/closing-story.test.ts',
  'test/web/evidence-story.test.ts',
  'test/web/sign-in-story.test.ts',
  'test/web/client-in-browser.test.ts',
];
/**
 * Files that run Portico as processes (two `portico serve` nodes and a worker behind nginx, on PostgreSQL; servers
 * on embedded databases stopped with signals): like the browser files they mostly wait (on processes starting, on
 * nginx, on a drain), so they run in the same phase, beside ESLint. The nginx file skips itself without
 * TEST_DATABASE_URL or nginx.
 */
const DEPLOYMENTS = ['test/operations/behind-nginx.test.ts', 'test/operations/stopping.test.ts'];
/**
 * Files whose subject is the same on every database, so CI runs them once, in its PostgreSQL pass: the CLI files
 * that always use an embedded database in a data dir (the admin socket and a data dir no server holds exist only
 * there, under TEST_DATABASE_URL too), backup and migrate-to (an embedded deployment, moved into the PostgreSQL
 * server of TEST_DATABASE_URL), the rate limits, the sign-in timing (the time of a password check, argon2id,
 * against which a lookup by address on either database is small), and the files that always use a PostgreSQL
 * server, whichever database the suite is given (its connections' faults, its prepared statements). `npm test`
 * runs them on whichever database it is given. Part of project `suite` (the sign-in timing of `alone`);
 * `PORTICO_TESTS_LEAVE_OUT=once` leaves them out.
 */
const ONCE = [
  'test/cli/cli.test.ts',
  'test/cli/served.test.ts',
  'test/http/rate-limits.test.ts',
  'test/accounts/sign-in-timing.test.ts',
  'test/admin/backup-and-move.test.ts',
  'test/db/database-faults.test.ts',
  'test/db/prepared-statements.test.ts',
];

/**
 * Files whose subject no database touches: pure functions (formats, money, the workflow engine, retry
 * schedules, the pages' pure modules, the CLI's columns and its Node.js check), the docs and the error catalogue, the pages' contracts, the
 * TypeScript client's package, generated files and compile-time types, and HTTP itself,
 * whose answers come before or apart from any query (connection limits, closing a listener, CORS, security
 * headers, the GraphiQL and OpenAPI documents, what GraphQL tools make of the schema, and the fuzzing of both
 * services' edges: malformed requests, refused by the HTTP, GraphQL and REST layers, whose few queries, a key's
 * lookup, other files test on every database). CI runs them once, in its PGlite pass, so that its two passes
 * take about as long; `npm test` runs them with the rest. Part of project `suite`; `PORTICO_TESTS_LEAVE_OUT=pure`
 * leaves them out.
 */
const PURE = [
  'test/web-unit/**/*.test.ts',
  'test/cli/output.test.ts',
  'test/cli/node-support.test.ts',
  'test/docs/**/*.test.ts',
  'test/errors/**/*.test.ts',
  'test/http/contracts.test.ts',
  'test/http/connection-limits.test.ts',
  'test/http/closing.test.ts',
  'test/http/fuzz.test.ts',
  'test/http/cors.test.ts',
  'test/http/security-headers.test.ts',
  'test/web/graphiql-route.test.ts',
  'test/portfolio/openapi.test.ts',
  'test/transactions/graphql/graphql-tooling.test.ts',
  'test/keys/api-key.test.ts',
  'test/keys/api-key-cache.test.ts',
  'test/transactions/money.test.ts',
  'test/transactions/workflow.test.ts',
  'test/transactions/review/revision-diff.test.ts',
  'test/transactions/documents/pdf-writer.test.ts',
  'test/transactions/graphql/schema-relations.test.ts',
  'test/webhooks/retry-schedule.test.ts',
  'test/webhooks/address-safety.test.ts',
  'test/files/file-links.test.ts',
  'test/operations/systemd-units.test.ts',
  'test/clients/package.test.ts',
  'test/clients/generated-files.test.ts',
  'test/clients/typed-operations.test.ts',
];

/**
 * `PORTICO_TESTS_LEAVE_OUT=once` or `=pure`: the files of the suite that CI runs in its other pass (.ci/run). The
 * groups stay in project `suite` rather than being projects of their own: Vitest gives each project its own
 * workers, which import Fastify, Mercurius and PGlite again (a pass took 90 s with `pure` a project, 80 s without).
 */
const LEAVE_OUT: Record<string, string[] | undefined> = { once: ONCE, pure: PURE };
const leftOut = LEAVE_OUT[process.env.PORTICO_TESTS_LEAVE_OUT ?? ''] ?? [];

/**
 * The files that take longest from start to end, most of it waiting (a browser, timeouts, a webhook lease, 2,000
 * requests): they start first, so that the other files fill their waits instead of queueing behind them. Vitest
 * learns this order from the durations it cached on earlier runs, which a fresh clone (CI) does not have. In the
 * browser project the deployments come first: they mostly wait on processes, which ESLint, still running at the
 * start of that phase in CI, fills; the browsers, which compute, then end the phase on both cores.
 */
const LONGEST_FIRST = [
  'test/operations/stopping.test.ts',
  'test/operations/behind-nginx.test.ts',
  'test/web/recipient-portal.test.ts',
  'test/web/dashboard.test.ts',
  'test/web/console-story.test.ts',
  'test/web/closing-story.test.ts',
  'test/web/evidence-story.test.ts',
  'test/web/dashboard-portfolio.test.ts',
  'test/web/key-delivery.test.ts',
  'test/web/graphiql.test.ts',
  'test/admin/backup-and-move.test.ts',
  'test/http/fuzz.test.ts',
  'test/webhooks/worker-processes.test.ts',
  'test/db/database-faults.test.ts',
  'test/transactions/graphql/graphql-tooling.test.ts',
  'test/cli/served.test.ts',
  'test/http/https-only.test.ts',
  'test/http/connection-limits.test.ts',
  'test/portfolio/dashboard/dashboard-people.test.ts',
  'test/transactions/console/console-api.test.ts',
  'test/http/scale-out.test.ts',
  'test/observability/tracing.test.ts',
];

/** Vitest's order (group, then cached durations), with the files of `LONGEST_FIRST` first within a group. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(file));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    const sorted = await super.sort(files);
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => group(a.spec) - group(b.spec) || rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  resolve: {
    // Node resolves graphql to its CommonJS build (package "main"), which Mercurius also requires; Vite would
    // pick the ESM build ("module") for our code and give us a second GraphQLError class.
    // Tests use the client's source, as the root tsconfig's `paths` does: no build between a change and its test.
    alias: [
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      {
        find: /^@portico\/client$/,
        replacement: new URL('clients/typescript/src/index.ts', import.meta.url).pathname,
      },
    ],
  },
  test: {
    // Migrates one PGlite template that each test file's database copies (test/support/db/pglite-template.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file opens its own database; two workers match the two cores of our machines. Processes rather
    // than worker threads, though threads cost about an eighth less CPU, so that V8 can be given a flag: V8 aborts
    // a process now and then as it frees the code of PGlite's WebAssembly (`Check failed:
    // jit_page_->allocations_.erase(addr) == 1` in `ThreadIsolation::UnregisterWasmAllocation`, seen on Node 24.21
    // in CI, in a worker thread and in a child process alike; nodejs/node#64500). Node 24's V8 (13.6) can free an
    // import wrapper twice when its garbage collection of WebAssembly code races a tier-up (fixed in V8 9b8ca54d5a,
    // not in Node 24; Node 22 and 26 do not crash); others measured the abort gone with `--no-wasm-code-gc` and
    // not with `--no-memory-protection-keys`. Each test process keeps the code of the databases it closed until it
    // exits. The flag can go once Node 24 has that fix, or the suite moves to Node 26.
    pool: 'forks',
    execArgv: ['--no-wasm-code-gc'],
    maxWorkers: 2,
    // Files share their worker's loaded modules (Fastify, Mercurius, graphql-js, PGlite): importing them again
    // for every file cost more than a second each. No file leans on module state: each builds its own database
    // and apps.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...RUN_ALONE, ...BROWSER, ...DEPLOYMENTS, ...leftOut],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: [...BROWSER, ...DEPLOYMENTS],
          sequence: { groupOrder: 1 },
          // A page's step takes a few hundred milliseconds alone and several times that beside another browser
          // and ESLint on two slow cores: a story of dozens of steps needs more than the suite's 30 s.
          testTimeout: 60_000,
          // A poll waits for what a page shows after a request: 1 s (vitest's default) is less than a page's
          // data takes to arrive beside another browser and ESLint on two slow cores.
          expect: { poll: { timeout: 15_000 } },
        },
      },
      // One file at a time: each is alone with the machine.
      {
        extends: true,
        test: {
          name: 'alone',
          include: RUN_ALONE,
          exclude: leftOut,
          sequence: { groupOrder: 2 },
          fileParallelism: false,
        },
      },
    ],
  },
});
