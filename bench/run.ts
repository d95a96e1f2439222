/**
 * `npm run bench`: eleven suites, each beside its floor. The spec's reference query through the Transactions
 * GraphQL endpoint, side by side with one hand-written SQL statement behind a bare route on the same TLS setup,
 * on PostgreSQL and on PGlite (here); then, on PostgreSQL, the createTransaction and triggerTransactionEvent
 * mutations (mutations.ts), the Portfolio API's companies list over 1,000,000 companies (portfolio.ts), webhook
 * delivery from the outbox to a local receiver (webhooks.ts), the console's queue (console-queue.ts) and its live
 * updates (console-live.ts); then, on each database, the console's export of its queue (console-export.ts), and on
 * PostgreSQL a closing of 1,000 investors checked and made (console-closings.ts); then
 * start-up (startup.ts), the cost of metrics (metrics-cost.ts) and what hostile input costs the server
 * (hostile-input.ts). See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { seedTransactionsDemo } from '../src/demo/seed.ts';
import type { FileStore } from '../src/files/file-store.ts';
import { createLocalFileStore } from '../src/files/local-file-store.ts';
import { loadTlsMaterial, type TlsMaterial } from '../src/http/tls.ts';
import { buildTransactionsApp, GRAPHQL_PATH } from '../src/transactions/app.ts';
import { countingQueries } from '../test/support/db/database.ts';
import { REFERENCE_QUERY } from '../test/support/data/transactions.ts';
import { cpuPerRequest, cpuSnapshot, describeCpu, type CpuPerRequest } from './cpu.ts';
import { openBenchDatabase, type Dialect } from './database.ts';
import { buildFloorApp, FLOOR_SHAPES, floorPath, type FloorShape } from './floor.ts';
import { post } from './https-client.ts';
import { runLoad, type LoadResult } from './load.ts';
import { benchMutations, printMutationTable } from './mutations.ts';
import { benchPortfolio, printPortfolioReport } from './portfolio.ts';
import { profiled } from './profile.ts';
import { seedLargeTransaction } from './seed.ts';
import { median, printMarkdownTable, printTargetSummary, targetResult, type TargetResult } from './table.ts';
import { benchWebhooks, printWebhookReport } from './webhooks.ts';
import { benchStartup, printStartupReport } from './startup.ts';
import { benchConsoleQueue, printQueueReport } from './console-queue.ts';
import { benchConsoleLive, printLiveReport } from './console-live.ts';
import { benchConsoleExport, printExportReport } from './console-export.ts';
import { benchConsoleClosings, printClosingsReport } from './console-closings.ts';
import { benchConsoleBulk, printBulkReport, type BulkReport } from './console-bulk.ts';
import { benchSeal, printSealReport } from './seal.ts';
import { benchEvidenceBundle, printEvidenceBundleReport } from './evidence-bundle.ts';
import { benchMetricsCost, printMetricsCostReport } from './metrics-cost.ts';
import { benchServed, printServedReport, SERVED_CASES, type ServedCase } from './served.ts';
import { benchHostileInput, printHostileReport } from './hostile-input.ts';

type Shape = 'demo' | 'large';
/**
 * The Transactions app as served (`graphql`: the reference query answered by a direct read), the same app with
 * direct reads off (`engine`: the general engine, the query's graphql-jit code run before Mercurius), with
 * compiled reads off too (`mercurius`: Mercurius runs it), or the floor of one shape.
 */
type App = 'graphql' | 'engine' | 'mercurius';
type Endpoint = App | FloorShape;
const APPS: readonly App[] = ['graphql', 'engine', 'mercurius'];
const isApp = (endpoint: Endpoint): endpoint is App => (APPS as readonly string[]).includes(endpoint);

/**
 * The targets of issue 14 for the reference query on PostgreSQL, by transaction shape: GraphQL's throughput as a
 * share of the cheapest floor that gives the same bytes, and PostgreSQL's CPU per GraphQL request at most this
 * share of what it was before (the median of three `npm run bench` runs on 2026-11-25 at commit 470dd64, on the
 * 2-vCPU "Intel Xeon" VM recorded in RESULTS.md: 0.47 ms on demo, 0.90 ms on large).
 */
const TARGETS: Record<Shape, { ratio: number; postgresMsBefore: number; postgresShare: number }> = {
  demo: { ratio: 0.85, postgresMsBefore: 0.47, postgresShare: 2 / 3 },
  large: { ratio: 0.8, postgresMsBefore: 0.9, postgresShare: 2 / 3 },
};

/**
 * Issue 44's "3× the peer" as a share of the floor: on 2026-11-25, when the reference query was measured at 3.05×
 * a well-known peer GraphQL server, this suite had it at 85.8–88.1% of its floor.
 */
const ENGINE_TARGET = 0.86;

/** The floors that answer with GraphQL's exact bytes: the ratio is taken to the fastest of them. */
const SAME_BYTES: readonly FloorShape[] = ['keyed', 'positional'];
/** The suites, in the order they run; all of them unless BENCH_SUITES names some. */
const SUITES = [
  'reference',
  'mutations',
  'portfolio',
  'webhooks',
  'queue',
  'live',
  'export',
  'closings',
  'bulk',
  'seal',
  'bundle',
  'startup',
  'metrics',
  'hostile',
  'served',
] as const;
type Suite = (typeof SUITES)[number];

const SHAPES: Record<Shape, { revisions: number; items: number; label: string }> = {
  demo: { revisions: 3, items: 4, label: 'demo (2 recipients, 3 revisions x 4 items)' },
  large: { revisions: 5, items: 20, label: 'large (2 recipients, 5 revisions x 20 items)' },
};

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

function list<T extends string>(name: string, fallback: T[], allowed: readonly T[]): T[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((value) => value.trim());
  for (const value of values) {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new Error(`${name}: unknown value ${value} (expected some of ${allowed.join(', ')})`);
    }
  }
  return values as T[];
}

function clientCounts(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((value) => {
    const count = Number(value.trim());
    if (!Number.isInteger(count) || count <= 0)
      throw new Error(`${name}: ${value} is not a positive integer`);
    return count;
  });
}

const settings = {
  measureSeconds: positiveNumber('BENCH_DURATION', 10),
  warmupSeconds: positiveNumber('BENCH_WARMUP', 2),
  connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 10)),
  dialects: list<Dialect>('BENCH_DIALECTS', ['postgres', 'pglite'], ['postgres', 'pglite']),
  shapes: list<Shape>('BENCH_SHAPES', ['demo'], ['demo', 'large']),
  rounds: Math.round(positiveNumber('BENCH_ROUNDS', 3)),
  floors: list<FloorShape>('BENCH_FLOORS', ['positional'], Object.keys(FLOOR_SHAPES) as FloorShape[]),
  apps: list<App>('BENCH_REFERENCE_APPS', ['graphql', 'engine'], APPS),
  suites: list<Suite>('BENCH_SUITES', [...SUITES], SUITES),
  startupRuns: Math.round(positiveNumber('BENCH_STARTUP_RUNS', 5)),
  servedCases: list<ServedCase>('BENCH_SERVED_CASES', ['demo'], SERVED_CASES),
  servedCheckouts: (process.env.BENCH_SERVED_CHECKOUTS ?? '')
    .split(',')
    .map((path) => path.trim())
    .filter(Boolean),
  mutationClients: clientCounts('BENCH_MUTATION_CLIENTS', [1, 10]),
  portfolioCompanies: Math.round(positiveNumber('BENCH_PORTFOLIO_COMPANIES', 1_000_000)),
  portfolioSchema: process.env.BENCH_PORTFOLIO_SCHEMA ?? 'bench_portfolio',
  portfolioReseed: ['1', 'true', 'yes'].includes(process.env.BENCH_PORTFOLIO_RESEED ?? ''),
  webhookEvents: Math.round(positiveNumber('BENCH_WEBHOOK_EVENTS', 5000)),
  webhookWorkers: clientCounts('BENCH_WEBHOOK_WORKERS', [1, 4]),
  webhookPollMs: Math.round(positiveNumber('BENCH_WEBHOOK_POLL_MS', 1000)),
  webhookBatchSize: Math.round(positiveNumber('BENCH_WEBHOOK_BATCH', 10)),
  webhookRate: positiveNumber('BENCH_WEBHOOK_RATE', 50),
  queueTransactions: Math.round(positiveNumber('BENCH_QUEUE_TRANSACTIONS', 1_000_000)),
  queueIterations: Math.round(positiveNumber('BENCH_QUEUE_ITERATIONS', 200)),
  liveChanges: Math.round(positiveNumber('BENCH_LIVE_CHANGES', 300)),
  exportTransactions: Math.round(positiveNumber('BENCH_EXPORT_TRANSACTIONS', 20_000)),
  closingRows: Math.round(positiveNumber('BENCH_CLOSING_ROWS', 1000)),
  bulkRows: Math.round(positiveNumber('BENCH_BULK_ROWS', 10_000)),
  sealDocuments: Math.round(positiveNumber('BENCH_SEAL_DOCUMENTS', 40)),
  bundleTransactions: Math.round(positiveNumber('BENCH_BUNDLE_TRANSACTIONS', 500)),
  hostileCharacters: clientCounts('BENCH_HOSTILE_CHARACTERS', [2000, 8000, 1_048_576]),
  hostileBombMegabytes: Math.round(positiveNumber('BENCH_HOSTILE_BOMB_MB', 100)),
};

/** Seconds the console queue suite may spend: seeding 1,000,000 transactions (about 2 minutes here) and reading. */
const QUEUE_BUDGET_SECONDS = 900;

/** Seconds the Portfolio suite may spend seeding its 1,000,000 companies when it has to (about 30 s here). */
const PORTFOLIO_SEED_BUDGET_SECONDS = 1200;

/**
 * Seconds the webhook suite may spend per number of workers besides its latency run: warm-up, the throughput run
 * (which gives up by itself after 120 s) and the checks; about 15 s here with 5,000 events.
 */
const WEBHOOK_BUDGET_SECONDS_PER_RUN = 150;

interface Measurement {
  dialect: Dialect;
  shape: Shape;
  endpoint: Endpoint;
  /** The round with the median throughput: its req/s, latencies and CPU are the ones shown. */
  result: LoadResult;
  /** SQL statements one request sends to the database. */
  statements: number;
  cpu: CpuPerRequest | undefined;
  /** Requests per second in each round, in order. */
  rounds: number[];
}

/** Cleanups run last-in first-out, at the end, on failure and on Ctrl-C. */
const cleanups: (() => Promise<unknown>)[] = [];
/** The temporary data dir (TLS certificate, files), removed last. */
let dataDir: string | undefined;

async function removeDataDir(): Promise<void> {
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop();
    try {
      await cleanup?.();
    } catch (error) {
      console.error('bench: cleanup failed:', error);
    }
  }
}

async function listen(app: FastifyInstance, path: string): Promise<string> {
  cleanups.push(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return `https://127.0.0.1:${port}${path}`;
}

/** Parses and re-serializes: equal strings mean the same values with the same key and element order. */
function canonical(text: string): { value: unknown; json: string } {
  const value: unknown = JSON.parse(text);
  return { value, json: JSON.stringify(value) };
}

function firstDifference(a: string, b: string): string {
  let index = 0;
  while (index < a.length && a[index] === b[index]) index += 1;
  const from = Math.max(0, index - 80);
  return `at character ${index}:\n  graphql: …${a.slice(from, index + 80)}…\n  floor:   …${b.slice(from, index + 80)}…`;
}

interface TransactionJson {
  data?: {
    transaction?: {
      transactionRecipients?: unknown[];
      transactionProcessRevisions?: { transactionItems?: unknown[] }[];
    } | null;
  };
  errors?: unknown;
}

/**
 * Asks GraphQL and every floor once and fails loudly unless all answer 200 with the same JSON (same values, same
 * key and element order) of the expected size, every floor of {@link SAME_BYTES} with the very same bytes, and
 * unless GraphQL refuses a request without a key. Returns the exact response texts, which every request of the
 * load runs must then reproduce.
 */
async function verify(options: {
  urls: Record<Endpoint, string>;
  body: string;
  apiKey: string;
  ca: string;
  shape: Shape;
}): Promise<Record<Endpoint, string>> {
  const { body, ca, urls } = options;
  const anonymous = await post(urls.graphql, body, {}, ca);
  if (anonymous.status !== 401) {
    throw new Error(
      `GraphQL without an API key answered ${anonymous.status}, expected 401: ${anonymous.text}`,
    );
  }
  const graphql = await post(urls.graphql, body, { authorization: `Bearer ${options.apiKey}` }, ca);
  if (graphql.status !== 200) throw new Error(`GraphQL answered ${graphql.status}: ${graphql.text}`);
  const a = canonical(graphql.text);
  const parsed = a.value as TransactionJson;
  if (parsed.errors !== undefined || !parsed.data?.transaction) {
    throw new Error(`GraphQL did not return the transaction: ${graphql.text}`);
  }
  const { revisions, items } = SHAPES[options.shape];
  const transaction = parsed.data.transaction;
  const revisionList = transaction.transactionProcessRevisions ?? [];
  const itemCount = revisionList.reduce((sum, revision) => sum + (revision.transactionItems?.length ?? 0), 0);
  if (
    transaction.transactionRecipients?.length !== 2 ||
    revisionList.length !== revisions ||
    itemCount !== revisions * items
  ) {
    throw new Error(
      `expected 2 recipients, ${revisions} revisions and ${revisions * items} items, got ${graphql.text}`,
    );
  }
  const texts = { graphql: graphql.text } as Record<Endpoint, string>;
  for (const app of settings.apps.filter((app) => app !== 'graphql')) {
    // Twice: the first time of a text is Mercurius' in every app.
    await post(urls[app], body, { authorization: `Bearer ${options.apiKey}` }, ca);
    const answer = await post(urls[app], body, { authorization: `Bearer ${options.apiKey}` }, ca);
    if (answer.status !== 200 || answer.text !== graphql.text) {
      throw new Error(
        `${app} answered ${answer.status}, not GraphQL's bytes ${firstDifference(graphql.text, answer.text)}`,
      );
    }
    texts[app] = answer.text;
  }
  for (const shape of settings.floors) {
    const floor = await post(urls[shape], body, {}, ca);
    if (floor.status !== 200) throw new Error(`the ${shape} floor answered ${floor.status}: ${floor.text}`);
    const b = canonical(floor.text);
    if (!isDeepStrictEqual(a.value, b.value) || a.json !== b.json) {
      throw new Error(`the ${shape} floor's JSON differs from GraphQL's ${firstDifference(a.json, b.json)}`);
    }
    if (SAME_BYTES.includes(shape) && floor.text !== graphql.text) {
      throw new Error(
        `the ${shape} floor's bytes differ from GraphQL's ${firstDifference(graphql.text, floor.text)}`,
      );
    }
    texts[shape] = floor.text;
  }
  return texts;
}

async function benchDialect(dialect: Dialect, tls: TlsMaterial, files: FileStore): Promise<Measurement[]> {
  const database = await openBenchDatabase(dialect);
  cleanups.push(() => database.close());
  console.log(`\n${dialect}: ${database.description}`);

  const demo = await seedTransactionsDemo(database.db, files, 'staging', {
    handle: `bench-${randomBytes(4).toString('hex')}`,
    name: 'Bench Capital',
  });
  const transactionIds: Record<Shape, () => Promise<string>> = {
    demo: () => Promise.resolve(demo.transactionId),
    large: () => seedLargeTransaction(database.db, demo, SHAPES.large),
  };

  // Each app gets its own statement counter around the same database.
  const counted = {
    graphql: countingQueries(database.db),
    engine: countingQueries(database.db),
    mercurius: countingQueries(database.db),
    floor: countingQueries(database.db),
  };
  const counterOf = (endpoint: Endpoint) => (isApp(endpoint) ? counted[endpoint] : counted.floor);
  const urls = {} as Record<Endpoint, string>;
  // `graphql` is always served: the floors' bytes are checked against it.
  for (const app of new Set<App>(['graphql', ...settings.apps])) {
    const built = await buildTransactionsApp({
      db: counted[app].db,
      files,
      environment: 'staging',
      tls,
      // As serve runs it: every request counted against its key, with a limit the load never reaches.
      rateLimit: { perKey: 1_000_000_000, perAddress: 1_000_000_000 },
      ...(app === 'graphql' ? {} : { directReads: false }),
      ...(app === 'mercurius' ? { compiledReads: false } : {}),
    });
    urls[app] = await listen(built, GRAPHQL_PATH);
  }
  const floorApp = await buildFloorApp({ db: counted.floor.db, tls });
  const floorOrigin = (await listen(floorApp, '')).replace(/\/$/, '');
  for (const shape of settings.floors) urls[shape] = `${floorOrigin}${floorPath(shape)}`;
  const endpoints: Endpoint[] = [...settings.floors, ...settings.apps];
  const headersOf = (endpoint: Endpoint): Record<string, string> =>
    isApp(endpoint) ? { authorization: `Bearer ${demo.apiKey}` } : {};

  const measurements: Measurement[] = [];
  for (const shape of settings.shapes) {
    const id = await transactionIds[shape]();
    const body = JSON.stringify({ query: REFERENCE_QUERY, variables: { id } });
    const expected = await verify({
      urls,
      body,
      apiKey: demo.apiKey,
      ca: tls.cert,
      shape,
    });
    const statements = {} as Record<Endpoint, number>;
    for (const endpoint of endpoints) {
      counterOf(endpoint).reset();
      await post(urls[endpoint], body, headersOf(endpoint), tls.cert);
      statements[endpoint] = counterOf(endpoint).count();
    }
    console.log(
      `  ${SHAPES[shape].label}: every endpoint returns the same JSON (${endpoints
        .map((endpoint) => `${endpoint} ${Buffer.byteLength(expected[endpoint])} bytes`)
        .join(', ')}); SQL statements per request: ${endpoints
        .map((endpoint) => `${endpoint} ${statements[endpoint]}`)
        .join(', ')}`,
    );

    const load = (endpoint: Endpoint, seconds: number) =>
      runLoad({
        url: urls[endpoint],
        body,
        headers: headersOf(endpoint),
        connections: settings.connections,
        seconds,
        expectBody: expected[endpoint],
      });
    const check = (endpoint: Endpoint, result: LoadResult, phase: string) => {
      if (result.failures > 0 || result.requests === 0) {
        throw new Error(
          `${dialect} ${endpoint} ${phase}: ${result.requests} requests; ${result.failureDetail}`,
        );
      }
      return result;
    };
    for (const endpoint of endpoints)
      check(endpoint, await load(endpoint, settings.warmupSeconds), 'warm-up');
    // Interleaved rounds: every endpoint once per round, so that the machine's drift reaches all of them alike.
    const measured = new Map<Endpoint, { result: LoadResult; cpu: CpuPerRequest | undefined }[]>();
    for (let round = 1; round <= settings.rounds; round += 1) {
      for (const endpoint of endpoints) {
        const before = cpuSnapshot();
        const result = check(
          endpoint,
          await profiled(`${dialect}-${shape}-${endpoint}-${round}`, () =>
            load(endpoint, settings.measureSeconds),
          ),
          'measurement',
        );
        const cpu = cpuPerRequest(before, cpuSnapshot(), result.requests);
        console.log(
          `  round ${round} ${endpoint.padEnd(10)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
            `p50 ${result.p50} ms  p99 ${result.p99} ms  (${result.requests} requests in ${result.seconds} s)` +
            describeCpu(cpu),
        );
        measured.set(endpoint, [...(measured.get(endpoint) ?? []), { result, cpu }]);
      }
    }
    for (const endpoint of endpoints) {
      const runs = measured.get(endpoint) ?? [];
      const byThroughput = runs.toSorted((a, b) => a.result.requestsPerSecond - b.result.requestsPerSecond);
      const middle = byThroughput[Math.floor((byThroughput.length - 1) / 2)];
      if (!middle) continue;
      measurements.push({
        dialect,
        shape,
        endpoint,
        result: middle.result,
        statements: statements[endpoint],
        cpu: middle.cpu,
        rounds: runs.map((run) => run.result.requestsPerSecond),
      });
    }
  }
  return measurements;
}

/**
 * GraphQL's throughput as a share of the fastest floor that gives its exact bytes, in each round, and the
 * median of those shares: the bench's measure, since both sides of a round ran under the same conditions.
 */
function ratioOf(
  measurements: Measurement[],
  dialect: Dialect,
  shape: Shape,
  app: App = 'graphql',
): { ratio: number; rounds: number[]; floor: FloorShape } | undefined {
  const here = measurements.filter((m) => m.dialect === dialect && m.shape === shape);
  const graphql = here.find((m) => m.endpoint === app);
  const floors = here.filter(
    (m): m is Measurement & { endpoint: FloorShape } => !isApp(m.endpoint) && SAME_BYTES.includes(m.endpoint),
  );
  const fastest = floors.toSorted((a, b) => b.result.requestsPerSecond - a.result.requestsPerSecond)[0];
  if (!graphql || !fastest) return undefined;
  const rounds = graphql.rounds.map(
    (requestsPerSecond, round) =>
      requestsPerSecond / Math.max(...floors.map((floor) => floor.rounds[round] ?? Number.POSITIVE_INFINITY)),
  );
  return { ratio: median(rounds), rounds, floor: fastest.endpoint };
}

function printTable(measurements: Measurement[]): void {
  const header = [
    'dialect',
    'shape',
    'endpoint',
    'req/s (median of rounds)',
    'p50 ms',
    'p99 ms',
    'SQL/req',
    'CPU ms/req node main/other/postgres',
    'graphql/floor',
  ];
  const rows = measurements.map((m) => {
    const ratio = isApp(m.endpoint) ? ratioOf(measurements, m.dialect, m.shape, m.endpoint) : undefined;
    return [
      m.dialect,
      m.shape,
      isApp(m.endpoint) ? m.endpoint : `floor ${m.endpoint}`,
      m.result.requestsPerSecond.toFixed(0),
      String(m.result.p50),
      String(m.result.p99),
      String(m.statements),
      m.cpu
        ? [m.cpu.mainThreadMs, m.cpu.otherThreadsMs, m.cpu.postgresMs].map((ms) => ms.toFixed(2)).join(' / ')
        : 'n/a',
      ratio === undefined
        ? ''
        : `${(ratio.ratio * 100).toFixed(1)}% of ${ratio.floor} (rounds: ${ratio.rounds
            .map((share) => `${(share * 100).toFixed(1)}%`)
            .join(', ')})`,
    ];
  });
  printMarkdownTable(header, rows);
}

async function main(): Promise<void> {
  const reference = settings.suites.includes('reference');
  // The mutation suite runs on PostgreSQL only: BENCH_DIALECTS=pglite (no PostgreSQL server) leaves it out.
  const mutations = settings.suites.includes('mutations') && settings.dialects.includes('postgres');
  // So does the Portfolio suite.
  const portfolio = settings.suites.includes('portfolio') && settings.dialects.includes('postgres');
  // And the webhook suite (several workers share one database, as separate processes would).
  const webhooks = settings.suites.includes('webhooks') && settings.dialects.includes('postgres');
  // And the console queue suite (its 1,000,000 transactions are seeded by PostgreSQL's SQL).
  const queue = settings.suites.includes('queue') && settings.dialects.includes('postgres');
  // And the console live suite (another process commits: an embedded database belongs to one).
  const live = settings.suites.includes('live') && settings.dialects.includes('postgres');
  // The console export: on each database of BENCH_DIALECTS.
  const exported = settings.suites.includes('export');
  // The console's closings: a list checked, then made by the job while the queue is read (PostgreSQL).
  const closings = settings.suites.includes('closings') && settings.dialects.includes('postgres');
  // The console's bulk actions: a bulk reminder, preflight and job, on each database of BENCH_DIALECTS.
  const bulk = settings.suites.includes('bulk');
  // Sealing signed documents: no database.
  const seal = settings.suites.includes('seal');
  // The evidence bundle of a closing: written, beside the floor of yazl alone, and verified (PostgreSQL).
  const bundle = settings.suites.includes('bundle') && settings.dialects.includes('postgres');
  // Start-up runs `npm start` itself: the embedded database, whatever BENCH_DIALECTS says.
  const startup = settings.suites.includes('startup');
  // Metrics on and off: two `portico serve` processes on the first dialect of BENCH_DIALECTS.
  const metrics = settings.suites.includes('metrics');
  // Hostile input: a `portico serve` process per case, on an embedded database.
  const hostile = settings.suites.includes('hostile');
  // The reference query against `portico serve` of each checkout of BENCH_SERVED_CHECKOUTS (PostgreSQL).
  const servedSuite = settings.suites.includes('served') && settings.dialects.includes('postgres');
  const budgetSeconds =
    (reference
      ? settings.dialects.length *
          settings.shapes.length *
          (settings.floors.length + settings.apps.length) *
          (settings.warmupSeconds + settings.rounds * settings.measureSeconds) +
        90
      : 0) +
    (mutations
      ? 2 * settings.mutationClients.length * (settings.warmupSeconds + settings.measureSeconds) + 120
      : 0) +
    (portfolio
      ? 4 * (settings.warmupSeconds + settings.measureSeconds) + 180 + PORTFOLIO_SEED_BUDGET_SECONDS
      : 0) +
    (webhooks
      ? settings.webhookWorkers.length * (settings.measureSeconds + WEBHOOK_BUDGET_SECONDS_PER_RUN) + 120
      : 0) +
    (queue ? QUEUE_BUDGET_SECONDS : 0) +
    (live ? 60 + settings.liveChanges / 20 : 0) +
    (exported ? settings.dialects.length * (120 + settings.exportTransactions / 100) : 0) +
    (closings ? 60 + settings.closingRows / 10 : 0) +
    (bulk ? settings.dialects.length * (60 + settings.bulkRows / 20) : 0) +
    (seal ? 60 + settings.sealDocuments : 0) +
    (bundle ? 120 + settings.bundleTransactions / 2 : 0) +
    (startup ? (settings.startupRuns + 1) * 2 * 30 : 0) +
    (metrics ? 4 * (settings.warmupSeconds + settings.rounds * settings.measureSeconds) + 300 : 0) +
    (hostile ? (settings.hostileCharacters.length + 1) * 240 : 0) +
    (servedSuite
      ? (Math.max(settings.servedCheckouts.length, 1) + 1) *
        (settings.servedCases.length * (settings.warmupSeconds + settings.rounds * settings.measureSeconds) +
          150)
      : 0);
  const watchdog = setTimeout(() => {
    console.error(`bench: still running after ${budgetSeconds} s; giving up`);
    void cleanUp()
      .then(removeDataDir)
      .finally(() => process.exit(1));
  }, budgetSeconds * 1000);
  const interrupted = () => {
    console.error('bench: interrupted; cleaning up');
    void cleanUp()
      .then(removeDataDir)
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  if (reference) {
    console.log(
      `Portico bench: the reference query, ${settings.connections} connections over HTTPS (loopback), ` +
        `warm-up ${settings.warmupSeconds} s + ${settings.measureSeconds} s per endpoint`,
    );
  }
  if (mutations) {
    console.log(
      `Portico bench: createTransaction and triggerTransactionEvent on PostgreSQL, ` +
        `${settings.mutationClients.join(' and ')} clients over HTTPS (loopback), ` +
        `warm-up ${settings.warmupSeconds} s + ${settings.measureSeconds} s each`,
    );
  } else if (settings.suites.includes('mutations')) {
    console.log('Portico bench: mutations skipped (PostgreSQL only, and BENCH_DIALECTS leaves it out)');
  }
  if (portfolio) {
    console.log(
      `Portico bench: the Portfolio API's GET /companies over ${settings.portfolioCompanies.toLocaleString('en-US')} ` +
        `companies on PostgreSQL, ${settings.connections} connections over HTTPS (loopback), ` +
        `warm-up ${settings.warmupSeconds} s + ${settings.measureSeconds} s each`,
    );
  } else if (settings.suites.includes('portfolio')) {
    console.log('Portico bench: portfolio skipped (PostgreSQL only, and BENCH_DIALECTS leaves it out)');
  }
  if (webhooks) {
    console.log(
      `Portico bench: webhook delivery on PostgreSQL to a receiver on loopback, ` +
        `${settings.webhookEvents.toLocaleString('en-US')} outbox events with ` +
        `${settings.webhookWorkers.join(' and ')} worker(s) (pollMs ${settings.webhookPollMs}, ` +
        `batchSize ${settings.webhookBatchSize}), then ${settings.webhookRate} completions/s for ` +
        `${settings.measureSeconds} s each`,
    );
  } else if (settings.suites.includes('webhooks')) {
    console.log('Portico bench: webhooks skipped (PostgreSQL only, and BENCH_DIALECTS leaves it out)');
  }
  if (queue) {
    console.log(
      `Portico bench: the console's work queue read over ${settings.queueTransactions.toLocaleString('en-US')} ` +
        `transactions of 100 organizations on PostgreSQL, ${settings.queueIterations} reads per case`,
    );
  } else if (settings.suites.includes('queue')) {
    console.log('Portico bench: queue skipped (PostgreSQL only, and BENCH_DIALECTS leaves it out)');
  }
  if (exported) {
    console.log(
      `Portico bench: the console's export of its queue, ${settings.exportTransactions.toLocaleString('en-US')} ` +
        `transactions as CSV and XLSX to a null stream, beside csv-stringify alone, on ${settings.dialects.join(' and ')}`,
    );
  }
  if (metrics) {
    console.log(
      `Portico bench: the cost of metrics, \`portico serve\` with PORTICO_METRICS_PORT (scraped every 15 s) ` +
        `and without, a by-id GraphQL read and a Portfolio list, ${settings.connections} connections over HTTPS ` +
        `(loopback), ${settings.rounds} alternating rounds of ${settings.measureSeconds} s`,
    );
  }
  if (startup) {
    console.log(
      `Portico bench: \`npm start\` to the first HTTPS answer, ${settings.startupRuns} interleaved runs each ` +
        'on a fresh and on an initialised data dir',
    );
  }
  console.log(
    `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );

  const targets: TargetResult[] = [];
  try {
    dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-'));
    const tls = await loadTlsMaterial({ dataDir });
    const files = createLocalFileStore(join(dataDir, 'files'));
    if (reference) {
      const measurements: Measurement[] = [];
      for (const dialect of settings.dialects) {
        try {
          measurements.push(...(await benchDialect(dialect, tls, files)));
        } finally {
          // This dialect's apps and database, before the next dialect's load runs.
          await cleanUp();
        }
      }
      targets.push(...printReference(measurements));
    }
    if (mutations) {
      try {
        const measured = await benchMutations({
          tls,
          files,
          settings: {
            warmupSeconds: settings.warmupSeconds,
            measureSeconds: settings.measureSeconds,
            clients: settings.mutationClients,
          },
          defer: (cleanup) => cleanups.push(cleanup),
        });
        targets.push(...printMutationTable(measured));
      } finally {
        await cleanUp();
      }
    }
    if (portfolio) {
      try {
        const report = await benchPortfolio({
          tls,
          settings: {
            warmupSeconds: settings.warmupSeconds,
            measureSeconds: settings.measureSeconds,
            connections: settings.connections,
            companies: settings.portfolioCompanies,
            schema: settings.portfolioSchema,
            reseed: settings.portfolioReseed,
          },
          defer: (cleanup) => cleanups.push(cleanup),
        });
        targets.push(...printPortfolioReport(report));
      } finally {
        await cleanUp();
      }
    }
    if (webhooks) {
      try {
        const report = await benchWebhooks({
          files,
          settings: {
            events: settings.webhookEvents,
            workers: settings.webhookWorkers,
            pollMs: settings.webhookPollMs,
            batchSize: settings.webhookBatchSize,
            rate: settings.webhookRate,
            latencySeconds: settings.measureSeconds,
          },
          defer: (cleanup) => cleanups.push(cleanup),
        });
        targets.push(...printWebhookReport(report));
      } finally {
        await cleanUp();
      }
    }
    if (queue) {
      try {
        const report = await benchConsoleQueue({
          settings: {
            transactions: settings.queueTransactions,
            organizations: 100,
            largest: Math.round(settings.queueTransactions / 5),
            iterations: settings.queueIterations,
            warmup: 20,
            database: 'portico_bench_queue',
            keep: ['1', 'true', 'yes'].includes(process.env.BENCH_QUEUE_KEEP ?? ''),
          },
          defer: (cleanup) => cleanups.push(cleanup),
        });
        targets.push(...printQueueReport(report));
      } finally {
        await cleanUp();
      }
    }
    if (live) {
      console.log(
        `\nPortico bench: a change committed by another process reaching an open console, ${settings.liveChanges} changes on PostgreSQL`,
      );
      const bench = await openBenchDatabase('postgres');
      try {
        targets.push(...printLiveReport(await benchConsoleLive(bench, settings.liveChanges)));
      } finally {
        await bench.close();
      }
    }
    if (exported) {
      for (const dialect of settings.dialects) {
        const report = await benchConsoleExport(dialect, {
          transactions: settings.exportTransactions,
          rounds: settings.rounds,
        });
        targets.push(...printExportReport(report));
      }
    }
    if (closings) {
      console.log(
        `\nPortico bench: a closing of ${settings.closingRows.toLocaleString('en-US')} investors checked and made on PostgreSQL, ` +
          'beside csv-parse alone and createTransaction in a loop, while the work queue is read',
      );
      const cleanups: (() => Promise<unknown>)[] = [];
      try {
        const report = await benchConsoleClosings({
          settings: { rows: settings.closingRows, preflights: 5, database: 'portico_bench_closings' },
          defer: (cleanup) => cleanups.push(cleanup),
        });
        printClosingsReport(report, settings.closingRows);
        targets.push(...report.targets);
      } finally {
        for (const cleanup of cleanups.reverse()) await cleanup();
      }
    }
    if (bulk) {
      console.log(
        `\nPortico bench: a bulk reminder of ${settings.bulkRows.toLocaleString('en-US')} transactions, preflight and job, ` +
          `on ${settings.dialects.join(' and ')}, beside the floor of a minute`,
      );
      const reports: BulkReport[] = [];
      for (const dialect of settings.dialects) {
        reports.push(await benchConsoleBulk({ dialect, rows: settings.bulkRows }));
      }
      targets.push(...printBulkReport(reports));
    }
    if (seal) {
      console.log(
        `\nPortico bench: what sealing adds to a signed document, ${String(settings.sealDocuments)} documents each way, ` +
          'beside the floor of the same document unsealed',
      );
      targets.push(...printSealReport(await benchSeal(settings.sealDocuments)));
    }
    if (bundle) {
      console.log(
        `\nPortico bench: the evidence bundle of a ${String(settings.bundleTransactions)}-transaction closing, ` +
          'beside the floor of yazl zipping the same files, and its verify',
      );
      targets.push(...printEvidenceBundleReport(await benchEvidenceBundle(settings.bundleTransactions)));
    }
    if (startup) targets.push(...printStartupReport(await benchStartup(settings.startupRuns)));
    if (metrics) {
      try {
        const report = await benchMetricsCost(
          {
            dialect: settings.dialects[0] ?? 'pglite',
            warmupSeconds: settings.warmupSeconds,
            measureSeconds: settings.measureSeconds,
            rounds: settings.rounds,
            connections: settings.connections,
          },
          (cleanup) => cleanups.push(cleanup),
        );
        targets.push(...printMetricsCostReport(report));
      } finally {
        await cleanUp();
      }
    }
    if (servedSuite) {
      try {
        printServedReport(
          await benchServed(
            {
              checkouts: settings.servedCheckouts,
              cases: settings.servedCases,
              warmupSeconds: settings.warmupSeconds,
              measureSeconds: settings.measureSeconds,
              rounds: settings.rounds,
              connections: settings.connections,
            },
            (cleanup) => cleanups.push(cleanup),
          ),
        );
      } finally {
        await cleanUp();
      }
    }
    if (hostile) {
      targets.push(
        ...printHostileReport(
          await benchHostileInput({
            answerCharacters: settings.hostileCharacters,
            bombMegabytes: settings.hostileBombMegabytes,
          }),
        ),
      );
    }
    printTargetSummary(targets);
  } finally {
    await cleanUp();
    await removeDataDir();
    clearTimeout(watchdog);
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

function printReference(measurements: Measurement[]): TargetResult[] {
  printTable(measurements);
  console.log('\nTargets (reference query, PostgreSQL):');
  const results: TargetResult[] = [];
  for (const shape of settings.shapes) {
    const target = TARGETS[shape];
    const ratio = ratioOf(measurements, 'postgres', shape);
    if (ratio === undefined) {
      console.log(`  ${shape}: not evaluated (needs postgres and a floor of ${SAME_BYTES.join(' or ')})`);
      continue;
    }
    results.push(
      targetResult(
        `GraphQL >= ${target.ratio * 100}% of the floor's throughput, ${shape}`,
        `${(ratio.ratio * 100).toFixed(1)}% of the ${ratio.floor} floor`,
        ratio.ratio / target.ratio,
      ),
    );
    const cpu = measurements.find(
      (m) => m.dialect === 'postgres' && m.shape === shape && m.endpoint === 'graphql',
    )?.cpu;
    if (cpu === undefined) continue;
    const limit = target.postgresMsBefore * target.postgresShare;
    results.push(
      targetResult(
        `PostgreSQL CPU per GraphQL request <= ${limit.toFixed(2)} ms (2/3 of ${target.postgresMsBefore}), ${shape}`,
        `${cpu.postgresMs.toFixed(2)} ms, ${((1 - cpu.postgresMs / target.postgresMsBefore) * 100).toFixed(0)}% less`,
        limit / Math.max(cpu.postgresMs, 0.001),
      ),
    );
  }
  // Issue 44: the same selection through the general engine at 3× the peer, for which the direct read's share
  // of this floor on 2026-11-25, when it was measured at 3.05× the peer, stands.
  for (const shape of settings.shapes) {
    const ratio = ratioOf(measurements, 'postgres', shape, 'engine');
    if (ratio === undefined) continue;
    results.push(
      targetResult(
        `the general engine (direct reads off) >= ${ENGINE_TARGET * 100}% of the floor's throughput, ${shape}`,
        `${(ratio.ratio * 100).toFixed(1)}% of the ${ratio.floor} floor`,
        ratio.ratio / ENGINE_TARGET,
      ),
    );
  }
  return results;
}

try {
  await main();
} catch (error) {
  console.error('\nbench failed:', error);
  process.exitCode = 1;
}
