/**
 * The mutation suite of `npm run bench`: createTransaction and triggerTransactionEvent through the Transactions
 * GraphQL endpoint over HTTPS, on PostgreSQL, with 1 and 10 concurrent clients. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { seedTransactionsDemo, type TransactionsDemo } from '../src/demo/seed.ts';
import type { FileStore } from '../src/files/file-store.ts';
import type { TlsMaterial } from '../src/http/tls.ts';
import { buildTransactionsApp, GRAPHQL_PATH } from '../src/transactions/app.ts';
import { createTransaction } from '../src/transactions/create-transaction.ts';
import { cpuPerRequest, cpuSnapshot, describeCpu, type CpuPerRequest } from './cpu.ts';
import { openBenchDatabase } from './database.ts';
import { post } from './https-client.ts';
import { countingQueries } from '../test/support/db/database.ts';
import { LOAD_HOOKS as hooks } from './load-hooks.ts';
import { runLoad, type LoadOptions, type LoadResult } from './load.ts';
import { profiled } from './profile.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';
import { CREATE_TRANSACTION, TRIGGER_TRANSACTION_EVENT } from '../test/support/data/transactions.ts';
import { isUuid } from '../src/validation/uuid.ts';

export type Mutation = 'createTransaction' | 'triggerTransactionEvent';

export interface MutationSettings {
  warmupSeconds: number;
  measureSeconds: number;
  /** Concurrent clients (keep-alive connections), one measurement per number and mutation. */
  clients: number[];
}

export interface MutationMeasurement {
  mutation: Mutation;
  clients: number;
  result: LoadResult;
  /** SQL statements one request sends to the database, BEGIN and COMMIT included. */
  statements: number;
  cpu: CpuPerRequest | undefined;
}

/** The event the suite sends: in the example template it moves `draft` to `in_progress`. */
const EVENT = 'send';
const TRIGGER_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

const inputData = { subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } } };

/**
 * How many draft transactions to prepare for a triggerTransactionEvent run, per second of it, per
 * createTransaction request per second measured with as many clients (for the warm-up, the first run with that
 * number of clients), and well beyond the rate the warm-up reached (for the measurement: a cold warm-up runs
 * slower than the measurement).
 */
const WARMUP_DRAFTS_PER_CREATE_RATE = 4;
const MEASUREMENT_DRAFT_MARGIN = 2.5;

interface GraphQLAnswer {
  data?: Record<string, Record<string, unknown> | null> | null;
  errors?: unknown;
}

function parse(text: string): GraphQLAnswer {
  try {
    return JSON.parse(text) as GraphQLAnswer;
  } catch {
    return {};
  }
}

/** Waits until `read` gives the same number twice 100 ms apart (requests still in flight when a run stops). */
async function settled(read: () => Promise<number>): Promise<number> {
  let last = await read();
  for (let attempt = 0; attempt < 30; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

async function countOf(db: Database, sql: string, params: unknown[]): Promise<number> {
  const [row] = await db.query<{ count: number }>(sql, params);
  return row?.count ?? 0;
}

export async function benchMutations(options: {
  tls: TlsMaterial;
  files: FileStore;
  settings: MutationSettings;
  /** Registers a cleanup, run at the end, on failure and on Ctrl-C. */
  defer: (cleanup: () => Promise<unknown>) => void;
}): Promise<MutationMeasurement[]> {
  const { tls, files, settings } = options;
  const database = await openBenchDatabase('postgres');
  options.defer(() => database.close());
  const { db } = database;
  console.log(`\nmutations on ${database.description}`);

  const demo: TransactionsDemo = await seedTransactionsDemo(db, files, 'staging', {
    handle: `bench-${randomBytes(4).toString('hex')}`,
    name: 'Bench Capital',
  });
  const org = demo.organizationId;
  const counted = countingQueries(db);
  const app: FastifyInstance = await buildTransactionsApp({
    db: counted.db,
    files,
    environment: 'staging',
    tls,
  });
  options.defer(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}${GRAPHQL_PATH}`;
  const headers = { authorization: `Bearer ${demo.apiKey}` };

  const transactions = () =>
    countOf(db, 'select count(*)::int as count from transactions where organization_id = $1', [org]);
  const sent = () =>
    countOf(
      db,
      'select count(*)::int as count from transaction_events where organization_id = $1 and event_key = $2',
      [org, EVENT],
    );
  const drafts = (limit: number) =>
    db
      .query<{ id: string }>(
        `select id from transactions where organization_id = $1 and state = 'draft'
         order by created_at, sequence limit $2`,
        [org, limit],
      )
      .then((rows) => rows.map((row) => row.id));

  /** One request, checked, and the statements it sent (the API key lookup is cached by then). */
  const once = async (body: string, check: (answer: GraphQLAnswer) => boolean) => {
    counted.reset();
    const answer = await post(url, body, headers, tls.cert);
    const statements = counted.count();
    if (answer.status !== 200 || !check(parse(answer.text))) {
      throw new Error(`unexpected answer ${answer.status}: ${answer.text}`);
    }
    return { text: answer.text, statements };
  };

  /** A load run that must have no failure, and must have written what its responses say. */
  const measure = async (
    mutation: Mutation,
    clients: number,
    phase: 'warm-up' | 'measurement',
    load: Omit<LoadOptions, 'url' | 'headers' | 'connections' | 'seconds'>,
    written: () => Promise<number>,
  ) => {
    const seconds = phase === 'warm-up' ? settings.warmupSeconds : settings.measureSeconds;
    const before = await written();
    const cpuBefore = cpuSnapshot();
    const run = () => runLoad({ ...load, url, headers, connections: clients, seconds });
    const result = phase === 'warm-up' ? await run() : await profiled(`postgres-${mutation}-${clients}`, run);
    const cpu = cpuPerRequest(cpuBefore, cpuSnapshot(), result.requests);
    const label = `${mutation} with ${clients} client${clients === 1 ? '' : 's'}, ${phase}`;
    if (result.failures > 0 || result.requests === 0) {
      const hint =
        mutation === 'triggerTransactionEvent'
          ? ' (refused bodies may mean the prepared drafts ran out)'
          : '';
      throw new Error(`${label}: ${result.requests} requests; ${result.failureDetail}${hint}`);
    }
    // Every counted response was checked; requests still in flight when the run stopped may add one each.
    const delta = (await settled(written)) - before;
    if (delta < result.requests || delta > result.requests + clients) {
      throw new Error(`${label}: ${result.requests} successful responses, but ${delta} rows written`);
    }
    return { result, cpu };
  };

  const report = (m: MutationMeasurement) => {
    const { result, cpu } = m;
    console.log(
      `  ${m.mutation} ${String(m.clients).padStart(2)} client${m.clients === 1 ? ' ' : 's'} ` +
        `${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  ` +
        `(${result.requests} requests in ${result.seconds} s, ${result.failures} errors)` +
        describeCpu(cpu),
    );
  };

  const measurements: MutationMeasurement[] = [];

  // createTransaction: a new investor (a new e-mail, so a new entity) per request.
  const createBody = (email: string) =>
    JSON.stringify({
      query: CREATE_TRANSACTION,
      variables: {
        input: {
          templateId: demo.templateId,
          senderEntityId: demo.senderEntityId,
          noticeName: 'Bench Investor',
          noticeEmail: email,
          inputData,
        },
      },
    });
  const created = (answer: GraphQLAnswer) => {
    const payload = answer.data?.createTransaction;
    return (
      answer.errors === undefined &&
      isUuid(String(payload?.transactionId)) &&
      isUuid(String(payload?.transmitToken))
    );
  };
  await once(createBody(`investor-check-1@bench.example`), created);
  const createStatements = (await once(createBody(`investor-check-2@bench.example`), created)).statements;
  console.log(`  createTransaction: answers with ids; SQL statements per request: ${createStatements}`);
  // autocannon puts a new unique id in place of [<id>] in every request.
  const createLoad = { body: createBody('investor-[<id>]@bench.example'), idReplacement: true };
  const createRate = new Map<number, number>();
  for (const clients of settings.clients) {
    const load = { ...createLoad, verifyBodyModule: hooks.verifyCreateTransaction };
    await measure('createTransaction', clients, 'warm-up', load, transactions);
    const { result, cpu } = await measure('createTransaction', clients, 'measurement', load, transactions);
    createRate.set(clients, result.requestsPerSecond);
    const measurement = {
      mutation: 'createTransaction' as const,
      clients,
      result,
      statements: createStatements,
      cpu,
    };
    report(measurement);
    measurements.push(measurement);
  }

  // triggerTransactionEvent: `send` to a different draft transaction per request.
  const triggerBody = (transactionId: string) =>
    JSON.stringify({
      query: TRIGGER_TRANSACTION_EVENT,
      variables: { input: { transactionId, eventKey: EVENT } },
    });
  /** At least `count` drafts: those the createTransaction runs left, and more through the lifecycle if needed. */
  const prepareDrafts = async (count: number): Promise<string[]> => {
    const have = (await drafts(count)).length;
    if (have < count) {
      const started = performance.now();
      let remaining = count - have;
      const worker = async () => {
        while (remaining > 0) {
          remaining -= 1;
          await db.transaction((tx) =>
            createTransaction(tx, {
              organizationId: org,
              actor: { type: 'system', id: null },
              input: {
                templateId: demo.templateId,
                senderEntityId: demo.senderEntityId,
                noticeName: 'Bench Investor',
                noticeEmail: `investor-${randomBytes(6).toString('hex')}@bench.example`,
                inputData,
              },
            }),
          );
        }
      };
      await Promise.all(Array.from({ length: 10 }, worker));
      console.log(
        `  (${count - have} more draft transactions made with the lifecycle's createTransaction in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
    const ids = await drafts(count);
    if (ids.length < count) throw new Error(`expected ${count} draft transactions, found ${ids.length}`);
    return ids;
  };
  const [first, second] = await prepareDrafts(2);
  const moved = (answer: GraphQLAnswer) => {
    const payload = answer.data?.triggerTransactionEvent;
    return (
      answer.errors === undefined &&
      payload?.sourceStateKey === 'draft' &&
      payload.targetStateKey === 'in_progress'
    );
  };
  const expected = (await once(triggerBody(first!), moved)).text;
  const trigger = await once(triggerBody(second!), moved);
  if (trigger.text !== expected) throw new Error(`two answers differ: ${expected} and ${trigger.text}`);
  console.log(
    `  triggerTransactionEvent: moves draft to in_progress; SQL statements per request: ${trigger.statements}`,
  );
  if (
    expected !==
    '{"data":{"triggerTransactionEvent":{"sourceStateKey":"draft","targetStateKey":"in_progress"}}}'
  ) {
    throw new Error(`unexpected answer to send: ${expected}`);
  }
  const verifyTrigger = hooks.verifyTrigger;
  for (const clients of settings.clients) {
    // Each request takes the next id of the list; a draft is never sent twice, and running out fails the run.
    const load = async (count: number) => ({
      body: triggerBody(TRIGGER_PLACEHOLDER),
      verifyBodyModule: verifyTrigger,
      setupRequest: {
        module: hooks.nextValue,
        fields: {
          values: await prepareDrafts(count),
          placeholder: TRIGGER_PLACEHOLDER,
          bodyTemplate: triggerBody(TRIGGER_PLACEHOLDER),
        },
      },
    });
    const rate = createRate.get(clients) ?? 200;
    const warmup = await measure(
      'triggerTransactionEvent',
      clients,
      'warm-up',
      await load(Math.ceil(rate * WARMUP_DRAFTS_PER_CREATE_RATE * settings.warmupSeconds) + 50),
      sent,
    );
    const { result, cpu } = await measure(
      'triggerTransactionEvent',
      clients,
      'measurement',
      await load(
        Math.ceil(warmup.result.requestsPerSecond * MEASUREMENT_DRAFT_MARGIN * settings.measureSeconds) + 50,
      ),
      sent,
    );
    const measurement = {
      mutation: 'triggerTransactionEvent' as const,
      clients,
      result,
      statements: trigger.statements,
      cpu,
    };
    report(measurement);
    measurements.push(measurement);
  }
  return measurements;
}

export function printMutationTable(measurements: MutationMeasurement[]): TargetResult[] {
  const header = [
    'mutation',
    'clients',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'SQL/req',
    'CPU ms/req node main/other/postgres',
  ];
  const rows = measurements.map((m) => [
    m.mutation,
    String(m.clients),
    m.result.requestsPerSecond.toFixed(0),
    String(m.result.p50),
    String(m.result.p99),
    String(m.result.failures),
    String(m.statements),
    m.cpu
      ? [m.cpu.mainThreadMs, m.cpu.otherThreadsMs, m.cpu.postgresMs].map((ms) => ms.toFixed(2)).join(' / ')
      : 'n/a',
  ]);
  printMarkdownTable(header, rows);
  console.log('\nTargets (mutations, PostgreSQL):');
  return measurements
    .filter((measured) => measured.clients === TARGET_CLIENTS)
    .map((m) => {
      const target = TARGET_REQUESTS_PER_SECOND[m.mutation];
      return targetResult(
        `${m.mutation} >= ${String(target)} req/s with ${String(TARGET_CLIENTS)} clients`,
        `${m.result.requestsPerSecond.toFixed(0)} req/s`,
        m.result.requestsPerSecond / target,
      );
    });
}

/** Issue 14's targets for the mutations on PostgreSQL, with this many clients. */
const TARGET_CLIENTS = 10;
const TARGET_REQUESTS_PER_SECOND: Record<Mutation, number> = {
  createTransaction: 600,
  triggerTransactionEvent: 900,
};
