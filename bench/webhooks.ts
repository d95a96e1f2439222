/**
 * The webhook suite of `npm run bench`: messages delivered per second from the outbox to a local receiver with 1
 * and 4 workers, and completion-to-delivery latency, on PostgreSQL. See bench/README.md.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import type { Database } from '../src/db/database.ts';
import { createPostgresDatabase } from '../src/db/postgres-database.ts';
import { seedTransactionsDemo, type TransactionsDemo } from '../src/demo/seed.ts';
import type { FileStore } from '../src/files/file-store.ts';
import { createTransaction } from '../src/transactions/create-transaction.ts';
import { applyEvent, lockTransaction } from '../src/transactions/transitions.ts';
import {
  primaryRecipient,
  recipientOf,
  saveItem,
  signDocument,
  submitRevision,
} from '../src/transactions/recipients/actions.ts';
import { startWebhookWorker } from '../src/webhooks/delivery.ts';
import { createEndpoint } from '../src/webhooks/endpoints.ts';
import { cpuPerRequest, cpuSnapshot, type CpuPerRequest } from './cpu.ts';
import { BENCH_DATABASE_URL, openBenchDatabase } from './database.ts';
import { profiled } from './profile.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';

export interface WebhookSettings {
  /** Outbox events of each throughput run, inserted in one statement. */
  events: number;
  /** Numbers of workers, one throughput run and one latency run each. */
  workers: number[];
  /** The workers' sleep when they find no work. */
  pollMs: number;
  /** Deliveries one worker claims at a time. */
  batchSize: number;
  /** Completions per second of the latency runs. */
  rate: number;
  /** Seconds each latency run completes transactions for. */
  latencySeconds: number;
}

export interface ThroughputMeasurement {
  workers: number;
  events: number;
  seconds: number;
  messagesPerSecond: number;
  cpu: CpuPerRequest | undefined;
  /** Workers' database connections, sampled: on average how many were in a statement, and how many waited on a lock. */
  busyConnections: number;
  lockWaiting: number;
  /** The lock wait seen most often (wait_event of pg_stat_activity), if any. */
  topLockWait: string | undefined;
}

export interface LatencyMeasurement {
  /** Where the workers and the completions ran. */
  database: 'postgres' | 'pglite';
  workers: number;
  completions: number;
  /** Completions per second reached (the writer completes one transaction at a time). */
  rate: number;
  /** Milliseconds one completing database transaction took (median). */
  completionMs: number;
  /** Commit to arrival at the receiver, milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Outbox row written to delivery row made (fan-out), from PostgreSQL's clock: the wait for a worker to look. */
  fanOutP50: number;
  fanOutP99: number;
}

export interface WebhookReport {
  settings: WebhookSettings;
  throughput: ThroughputMeasurement[];
  latency: LatencyMeasurement[];
}

/** Milliseconds on one monotonic clock shared by every thread of the process. */
const clock = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

// The receiver: a node:http server on 127.0.0.1 in a thread of its own (as a receiver elsewhere would be, its
// work is not on the workers' event loop). It answers 204 as soon as a request has arrived and records the
// webhook-id and the arrival time on the shared monotonic clock; the first few requests it keeps whole, for the
// signature check. Counters (requests, distinct ids) are shared memory, the rest comes back on request.
const RECEIVER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createServer } = require('node:http');
const counters = new Int32Array(workerData.counters);
const KEEP_WHOLE = 3;
let ids = [];
let times = [];
let seen = new Set();
let whole = [];
const server = createServer((request, response) => {
  const at = Number(process.hrtime.bigint()) / 1e6;
  const id = String(request.headers['webhook-id']);
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    response.writeHead(204);
    response.end();
    ids.push(id);
    times.push(at);
    if (whole.length < KEEP_WHOLE) whole.push({ headers: request.headers, body });
    if (!seen.has(id)) {
      seen.add(id);
      Atomics.add(counters, 1, 1);
    }
    Atomics.add(counters, 0, 1);
  });
});
server.keepAliveTimeout = 60000;
parentPort.on('message', (message) => {
  if (message === 'reset') {
    ids = [];
    times = [];
    seen = new Set();
    whole = [];
    Atomics.store(counters, 0, 0);
    Atomics.store(counters, 1, 0);
    parentPort.postMessage({ reset: true });
  } else if (message === 'collect') {
    parentPort.postMessage({ ids, times, whole });
  } else if (message === 'close') {
    server.closeAllConnections();
    server.close(() => parentPort.postMessage({ closed: true }));
  }
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

interface Arrivals {
  ids: string[];
  /** Arrival of each request, on `clock()`. */
  times: number[];
  whole: { headers: Record<string, string | string[] | undefined>; body: string }[];
}

interface Receiver {
  url: string;
  requests(): number;
  distinct(): number;
  reset(): Promise<void>;
  collect(): Promise<Arrivals>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const shared = new SharedArrayBuffer(8);
  const counters = new Int32Array(shared);
  const worker = new Worker(RECEIVER_SOURCE, { eval: true, workerData: { counters: shared } });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onError = (error: Error) => {
        reject(error);
      };
      worker.once('error', onError);
      worker.once('message', (message: Record<string, unknown>) => {
        worker.off('error', onError);
        resolve(message);
      });
    });
  const { port } = (await next()) as { port: number };
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests: () => Atomics.load(counters, 0),
    distinct: () => Atomics.load(counters, 1),
    async reset() {
      const answer = next();
      worker.postMessage('reset');
      await answer;
    },
    async collect() {
      const answer = next();
      worker.postMessage('collect');
      return (await answer) as unknown as Arrivals;
    },
    async close() {
      if (closed) return;
      closed = true;
      const answer = next();
      worker.postMessage('close');
      await answer;
      await worker.terminate();
    },
  };
}

/** W workers, each on its own pool (10 connections) and its own HTTP connection pool, as W processes would be. */
interface Workers {
  count: number;
  stop(): Promise<void>;
  errors: unknown[];
}

/**
 * `count` workers, each on a pool of its own in `schema`; or, with `shared` (PGlite: one process), on that
 * database, as `portico serve` runs its in-process worker.
 */
function startWorkers(
  count: number,
  options: { schema: string; pollMs: number; batchSize: number; tag: string; shared?: Database },
): Workers {
  const errors: unknown[] = [];
  const running = Array.from({ length: count }, (_, index) => {
    const db =
      options.shared ??
      createPostgresDatabase({
        connectionString: BENCH_DATABASE_URL,
        connectionOptions: `-c search_path=${options.schema} -c application_name=${options.tag}_w${index + 1}`,
      });
    // What `allowInsecure` gives by default (safeDispatcher({ allowPrivate: true })), one per worker.
    const dispatcher = new Agent();
    const worker = startWebhookWorker(db, {
      allowInsecure: true,
      pollMs: options.pollMs,
      batchSize: options.batchSize,
      dispatcher,
      onError: (error) => errors.push(error),
    });
    return { db, dispatcher, worker };
  });
  let stopped = false;
  return {
    count,
    errors,
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(running.map((w) => w.worker.stop()));
      await Promise.all(
        running.map((w) => Promise.all([options.shared ? undefined : w.db.close(), w.dispatcher.close()])),
      );
    },
  };
}

/**
 * Samples the workers' connections in pg_stat_activity (by application_name) every 25 ms: how many are in a
 * statement (or a transaction), and how many of those wait on a lock.
 */
type ConnectionSamples = Pick<ThroughputMeasurement, 'busyConnections' | 'lockWaiting' | 'topLockWait'>;

function sampleConnections(tag: string): { stop(): Promise<ConnectionSamples> } {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  let samples = 0;
  let busy = 0;
  let waiting = 0;
  const waits = new Map<string, number>();
  // An object: `stop()` changes it between the loop's awaits.
  const state = { running: true };
  const loop = (async () => {
    await client.connect();
    while (state.running) {
      const { rows } = await client.query<{
        state: string | null;
        type: string | null;
        event: string | null;
      }>(
        `select state, wait_event_type as type, wait_event as event from pg_stat_activity
         where application_name like $1 and state is not null and state <> 'idle'`,
        [`${tag}\\_w%`],
      );
      samples += 1;
      busy += rows.length;
      for (const row of rows) {
        if (row.type !== 'Lock') continue;
        waiting += 1;
        const key = `Lock:${row.event ?? '?'}`;
        waits.set(key, (waits.get(key) ?? 0) + 1);
      }
      await sleep(25);
    }
  })();
  return {
    async stop() {
      state.running = false;
      try {
        await loop;
      } finally {
        await client.end().catch(() => undefined);
      }
      const top = [...waits.entries()].sort((a, b) => b[1] - a[1])[0];
      return {
        busyConnections: samples === 0 ? 0 : busy / samples,
        lockWaiting: samples === 0 ? 0 : waiting / samples,
        topLockWait: top?.[0],
      };
    },
  };
}

async function until(what: string, condition: () => boolean, timeoutMs: number, workers?: Workers) {
  const deadline = clock() + timeoutMs;
  while (!condition()) {
    if (workers && workers.errors.length > 0) {
      throw new Error(`a worker step failed while waiting for ${what}: ${String(workers.errors[0])}`);
    }
    if (clock() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(5);
  }
}

const messageId = (eventId: string) => `msg_${eventId.replaceAll('-', '')}`;

/** Adds `count` transaction.completed events to the outbox in one statement; returns their message ids. */
async function addEvents(
  db: Database,
  demo: TransactionsDemo,
  count: number,
  run: string,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `insert into outbox_events (organization_id, type, transaction_id, payload)
     select $1::uuid, 'transaction.completed', $2::uuid,
       jsonb_build_object('transactionId', $2::uuid::text, 'organizationId', $1::uuid::text, 'state', 'completed',
         'completedAt', clock_timestamp(), 'benchRun', $3::text, 'n', n)
     from generate_series(1, $4::int) n
     returning id`,
    [demo.organizationId, demo.transactionId, run, count],
  );
  return rows.map((row) => messageId(row.id));
}

/** Fails unless the receiver got exactly `expected` (each once, nothing else) and the database agrees. */
async function checkDelivered(
  db: Database,
  receiver: Receiver,
  expected: string[],
  label: string,
  secret: string,
  settleMs: number,
): Promise<Arrivals> {
  // Longer than a poll interval: a message sent twice would arrive meanwhile.
  await sleep(settleMs);
  const arrivals = await receiver.collect();
  const want = new Set(expected);
  const got = new Set(arrivals.ids);
  const missing = expected.filter((id) => !got.has(id));
  const unexpected = [...got].filter((id) => !want.has(id));
  if (
    arrivals.ids.length !== expected.length ||
    got.size !== expected.length ||
    missing.length + unexpected.length > 0
  ) {
    throw new Error(
      `${label}: ${expected.length} messages expected, ${arrivals.ids.length} requests with ${got.size} distinct ids ` +
        `(${missing.length} missing, ${unexpected.length} unexpected)`,
    );
  }
  for (const request of arrivals.whole) {
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    new Webhook(secret).verify(request.body, headers);
  }
  const [row] = await db.query<{ deliveries: number; delivered: number; attempts: number }>(
    `select count(*)::int as deliveries,
       count(*) filter (where d.status = 'delivered' and d.attempts = 1)::int as delivered,
       coalesce(sum((select count(*) from webhook_attempts a where a.delivery_id = d.id and a.status_code = 204)), 0)::int
         as attempts
     from webhook_deliveries d where d.message_id = any ($1::text[])`,
    [expected],
  );
  if (
    row?.deliveries !== expected.length ||
    row.delivered !== expected.length ||
    row.attempts !== expected.length
  ) {
    throw new Error(`${label}: the database shows ${JSON.stringify(row)} for ${expected.length} messages`);
  }
  return arrivals;
}

/**
 * Transactions of the example subscription template brought through the real lifecycle to the last step:
 * sent, filled in, signed by the investor, submitted and approved; only the countersigner's signature is
 * missing, and it completes them.
 */
async function prepareTransactions(db: Database, files: FileStore, demo: TransactionsDemo, count: number) {
  const system = { type: 'system' as const, id: null };
  const context = { ipAddress: '127.0.0.1', userAgent: 'Portico bench' };
  const ids: string[] = [];
  let next = 0;
  const prepareOne = () =>
    db.transaction(async (tx) => {
      const email = `investor-${randomBytes(6).toString('hex')}@bench.example`;
      const { transactionId: id } = await createTransaction(tx, {
        organizationId: demo.organizationId,
        actor: system,
        input: {
          templateId: demo.templateId,
          senderEntityId: demo.senderEntityId,
          noticeName: 'Bench Investor',
          noticeEmail: email,
          inputData: { subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } } },
        },
      });
      const subject = await lockTransaction(tx, { id, organizationId: demo.organizationId });
      if (!subject) throw new Error('the new transaction is gone');
      const investor = await primaryRecipient(tx, subject);
      await applyEvent(tx, subject, 'send', system);
      await saveItem(tx, subject, {
        vulcanKey: 'investor_details',
        data: { legalName: 'Bench Investor', email, address: '1 Bench Street' },
      });
      // The W-9 as an upload leaves it: a file of the transaction, for this field.
      const storageKey = `${demo.organizationId}/${randomUUID()}.pdf`;
      const content = new TextEncoder().encode('%PDF-1.4 bench W-9');
      await files.put(storageKey, content);
      const [w9] = await tx.query<{ id: string }>(
        `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size,
           uploaded_at)
         values ($1, 'application/pdf', 'pdf', 'W-9.pdf', $2, $3, clock_timestamp()) returning id`,
        [demo.organizationId, storageKey, content.byteLength],
      );
      if (!w9) throw new Error('the W-9 file row is missing');
      await tx.query(
        `insert into transaction_files (organization_id, transaction_id, file_id, transaction_recipient_id,
           vulcan_key)
         values ($1, $2, $3, $4, 'tax_forms.w9FileId')`,
        [demo.organizationId, id, w9.id, investor.recipientId],
      );
      await saveItem(tx, subject, {
        vulcanKey: 'tax_forms',
        data: { taxResidency: 'US', w9FileId: w9.id },
      });
      await saveItem(tx, subject, {
        vulcanKey: 'accreditation',
        data: { basis: ['net_worth'], confirmed: true },
      });
      await signDocument(tx, subject, {
        signer: investor,
        documentKey: 'subscription_agreement',
        signedName: 'Bench Investor',
        consent: true,
        context,
        files,
      });
      await submitRevision(tx, subject, {
        processKey: 'subscription',
        actor: { type: 'recipient', id: investor.recipientId },
      });
      await applyEvent(tx, subject, 'approve', system);
      return id;
    });
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        next += 1;
        ids.push(await prepareOne());
      }
    }),
  );
  return ids;
}

/** The countersigner signs: the document is complete, so is the transaction, and its outbox row is written. */
async function complete(db: Database, files: FileStore, organizationId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const subject = await lockTransaction(tx, { id, organizationId });
    if (!subject) throw new Error(`transaction ${id} is gone`);
    const countersigner = await recipientOf(tx, id, 'countersigner');
    if (!countersigner) throw new Error(`transaction ${id} has no countersigner`);
    const signed = await signDocument(tx, subject, {
      signer: countersigner,
      documentKey: 'subscription_agreement',
      signedName: 'Bench Capital',
      consent: true,
      context: { ipAddress: '127.0.0.1', userAgent: 'Portico bench' },
      files,
    });
    if (signed.state !== 'COMPLETED')
      throw new Error(`transaction ${id}: the document is still ${signed.state}`);
  });
}

async function vacuum(db: Database): Promise<void> {
  await db.query('vacuum (analyze) outbox_events, webhook_deliveries, webhook_attempts, webhook_endpoints');
}

/** Completes `batch` one at a time at `settings.rate` while `workers` run; commit → arrival at the receiver. */
async function measureLatency(options: {
  database: LatencyMeasurement['database'];
  db: Database;
  files: FileStore;
  demo: TransactionsDemo;
  batch: string[];
  receiver: Receiver;
  secret: string;
  settings: WebhookSettings;
  settleMs: number;
  workers: Workers;
  label: string;
}): Promise<LatencyMeasurement> {
  const { db, files, demo, batch, receiver, secret, settings, settleMs, workers } = options;
  const label = `${options.database}, ${options.label}`;
  await receiver.reset();
  const commits = new Map<string, number>();
  const durations: number[] = [];
  const interval = 1000 / settings.rate;
  const first = clock() + 50;
  for (const [index, id] of batch.entries()) {
    const wait = first + index * interval - clock();
    if (wait > 0) await sleep(wait);
    const begun = clock();
    await complete(db, files, demo.organizationId, id);
    const committed = clock();
    commits.set(id, committed);
    durations.push(committed - begun);
  }
  const lastCommit = clock();
  const events = await db.query<{ transactionId: string; eventId: string }>(
    `select transaction_id as "transactionId", id as "eventId" from outbox_events
     where type = 'transaction.completed' and transaction_id = any ($1::uuid[])`,
    [batch],
  );
  if (events.length !== batch.length) {
    throw new Error(
      `${label} latency: ${batch.length} completions wrote ${events.length} transaction.completed events`,
    );
  }
  const latencyIds = events.map((event) => messageId(event.eventId));
  await until(`${label}: completions delivered`, () => receiver.distinct() >= batch.length, 30_000, workers);
  const received = await checkDelivered(db, receiver, latencyIds, `${label} latency`, secret, settleMs);
  const arrivedAt = new Map(received.ids.map((id, index) => [id, received.times[index] ?? NaN]));
  const latencies = events
    .map(
      (event) => (arrivedAt.get(messageId(event.eventId)) ?? NaN) - (commits.get(event.transactionId) ?? NaN),
    )
    .sort((a, b) => a - b);
  // Outbox row to delivery row, now that every delivery row exists.
  const fanOut = (
    await db.query<{ fanOutMs: number }>(
      `select extract(epoch from d.created_at - e.created_at)::float8 * 1000 as "fanOutMs"
       from outbox_events e join webhook_deliveries d on d.event_id = e.id
       where e.type = 'transaction.completed' and e.transaction_id = any ($1::uuid[])`,
      [batch],
    )
  )
    .map((row) => row.fanOutMs)
    .sort((a, b) => a - b);
  if (latencies.some((value) => !Number.isFinite(value)))
    throw new Error(`${label} latency: a time is missing`);
  const sortedDurations = [...durations].sort((a, b) => a - b);
  const latency: LatencyMeasurement = {
    database: options.database,
    workers: options.workers.count,
    completions: batch.length,
    rate: batch.length / ((lastCommit - first) / 1000),
    completionMs: percentile(sortedDurations, 50),
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    fanOutP50: percentile(fanOut, 50),
    fanOutP99: percentile(fanOut, 99),
  };
  console.log(
    `  ${label}: ${latency.completions} completions at ${latency.rate.toFixed(1)}/s ` +
      `(each ${latency.completionMs.toFixed(1)} ms, median), every message once; ` +
      `commit to arrival p50 ${latency.p50.toFixed(1)} ms, p90 ${latency.p90.toFixed(1)} ms, ` +
      `p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms; ` +
      `outbox row to fan-out p50 ${latency.fanOutP50.toFixed(1)} ms, p99 ${latency.fanOutP99.toFixed(1)} ms`,
  );
  return latency;
}

/** A demo organization of the bench's own with one endpoint at the receiver for `transaction.completed`. */
async function seedBenchOrganization(db: Database, files: FileStore, receiverUrl: string) {
  const demo = await seedTransactionsDemo(db, files, 'staging', {
    handle: `bench-${randomBytes(4).toString('hex')}`,
    name: 'Bench Capital',
  });
  const { secret } = await createEndpoint(db, {
    organizationId: demo.organizationId,
    url: receiverUrl,
    description: 'bench receiver',
    eventTypes: ['transaction.completed'],
    allowInsecure: true,
  });
  return { demo, secret };
}

export async function benchWebhooks(options: {
  files: FileStore;
  settings: WebhookSettings;
  /** Registers a cleanup, run at the end, on failure and on Ctrl-C. */
  defer: (cleanup: () => Promise<unknown>) => void;
}): Promise<WebhookReport> {
  const { files, settings } = options;
  const database = await openBenchDatabase('postgres');
  options.defer(() => database.close());
  const { db } = database;
  console.log(`\nwebhooks on ${database.description}`);
  const [{ schema } = { schema: '' }] = await db.query<{ schema: string }>(
    'select current_schema() as schema',
  );
  const receiver = await startReceiver();
  options.defer(() => receiver.close());

  const { demo, secret } = await seedBenchOrganization(db, files, receiver.url);
  console.log(`  receiver ${receiver.url} (answers 204), one endpoint for transaction.completed`);

  const perLatencyRun = Math.max(1, Math.round(settings.rate * settings.latencySeconds));
  let started = clock();
  const prepared = await prepareTransactions(db, files, demo, perLatencyRun * settings.workers.length);
  console.log(
    `  ${prepared.length} transactions brought to their last step (countersignature) through the lifecycle in ` +
      `${((clock() - started) / 1000).toFixed(1)} s`,
  );
  // What the seed and the preparation wrote is not part of any measurement.
  await db.query('update outbox_events set dispatched_at = clock_timestamp() where dispatched_at is null');
  const settleMs = Math.max(1000, 4 * settings.pollMs);
  const workerOptions = { schema, pollMs: settings.pollMs, batchSize: settings.batchSize };

  const report: WebhookReport = { settings, throughput: [], latency: [] };
  let active: Workers | undefined;
  options.defer(() => active?.stop() ?? Promise.resolve());
  for (const count of settings.workers) {
    const label = `${count} worker${count === 1 ? '' : 's'}`;
    const tag = `${schema}_${count}`;

    // Warm-up (not measured): the code paths, PostgreSQL's caches.
    await receiver.reset();
    active = startWorkers(count, { ...workerOptions, tag });
    const warmEvents = Math.min(settings.events, 500);
    const warm = await addEvents(db, demo, warmEvents, `warm-${count}`);
    await until(`${label}: warm-up delivered`, () => receiver.distinct() >= warmEvents, 60_000, active);
    await active.stop();
    await checkDelivered(db, receiver, warm, `${label} warm-up`, secret, 0);
    await vacuum(db);

    // Throughput: N events in one statement, then W fresh workers; until the receiver has N distinct ids.
    await receiver.reset();
    const expected = await addEvents(db, demo, settings.events, `throughput-${count}`);
    const sampler = sampleConnections(tag);
    const cpuBefore = cpuSnapshot();
    started = clock();
    const workers = startWorkers(count, { ...workerOptions, tag });
    active = workers;
    await profiled(`webhooks-${count}`, () =>
      until(
        `${label}: ${settings.events} distinct webhook-ids`,
        () => receiver.distinct() >= settings.events,
        120_000,
        workers,
      ),
    );
    const cpu = cpuPerRequest(cpuBefore, cpuSnapshot(), settings.events);
    const waits = await sampler.stop();
    const arrivals = await checkDelivered(db, receiver, expected, `${label} throughput`, secret, settleMs);
    const last = Math.max(...arrivals.times);
    const seconds = (last - started) / 1000;
    const throughput: ThroughputMeasurement = {
      workers: count,
      events: settings.events,
      seconds,
      messagesPerSecond: settings.events / seconds,
      cpu,
      ...waits,
    };
    report.throughput.push(throughput);
    console.log(
      `  ${label}: ${settings.events} messages in ${seconds.toFixed(2)} s, ` +
        `${throughput.messagesPerSecond.toFixed(0)} messages/s, none lost, none twice` +
        (cpu
          ? `; CPU ms/message: main thread ${cpu.mainThreadMs.toFixed(2)}, other threads ` +
            `${cpu.otherThreadsMs.toFixed(2)}, postgres ${cpu.postgresMs.toFixed(2)}; ` +
            `machine ${(cpu.machineBusy * 100).toFixed(0)}% busy, ` +
            `${(cpu.otherLoad * 100).toFixed(0)}% by other processes`
          : '') +
        `; workers' connections busy ${waits.busyConnections.toFixed(1)} on average, ` +
        `${waits.lockWaiting.toFixed(1)} waiting on a lock${waits.topLockWait ? ` (mostly ${waits.topLockWait})` : ''}`,
    );

    // Latency: the same workers, idle; one transaction completed at a time at a steady rate.
    await vacuum(db);
    const latency = await measureLatency({
      database: 'postgres',
      db,
      files,
      demo,
      batch: prepared.splice(0, perLatencyRun),
      receiver,
      secret,
      settings,
      settleMs,
      workers,
      label,
    });
    report.latency.push(latency);
    await workers.stop();
    active = undefined;
    if (workers.errors.length > 0)
      throw new Error(`${label}: a worker step failed: ${String(workers.errors[0])}`);
  }
  report.latency.push(await latencyOnPGlite({ ...options, receiver, perLatencyRun, settleMs }));
  return report;
}

/**
 * The latency run on the embedded database, as `portico serve` runs by default: one PGlite in this process, the
 * completions and one in-process worker on it.
 */
async function latencyOnPGlite(options: {
  files: FileStore;
  settings: WebhookSettings;
  defer: (cleanup: () => Promise<unknown>) => void;
  receiver: Receiver;
  perLatencyRun: number;
  settleMs: number;
}): Promise<LatencyMeasurement> {
  const { files, settings, receiver } = options;
  const database = await openBenchDatabase('pglite');
  options.defer(() => database.close());
  const { db } = database;
  console.log(`\nwebhooks on ${database.description}`);
  const { demo, secret } = await seedBenchOrganization(db, files, receiver.url);
  const started = clock();
  const prepared = await prepareTransactions(db, files, demo, options.perLatencyRun);
  console.log(
    `  ${prepared.length} transactions brought to their last step in ${((clock() - started) / 1000).toFixed(1)} s`,
  );
  await db.query('update outbox_events set dispatched_at = clock_timestamp() where dispatched_at is null');
  const workers = startWorkers(1, {
    schema: '',
    tag: 'pglite',
    pollMs: settings.pollMs,
    batchSize: settings.batchSize,
    shared: db,
  });
  options.defer(() => workers.stop());
  const latency = await measureLatency({
    database: 'pglite',
    db,
    files,
    demo,
    batch: prepared,
    receiver,
    secret,
    settings,
    settleMs: options.settleMs,
    workers,
    label: '1 worker',
  });
  await workers.stop();
  if (workers.errors.length > 0)
    throw new Error(`pglite: a worker step failed: ${String(workers.errors[0])}`);
  return latency;
}

export function printWebhookReport(report: WebhookReport): TargetResult[] {
  const { settings } = report;
  printMarkdownTable(
    [
      'workers',
      'events',
      'seconds',
      'messages/s',
      'CPU ms/msg node main/other/postgres',
      'busy (others)',
      'worker conns busy (lock-waiting)',
    ],
    report.throughput.map((m) => [
      String(m.workers),
      m.events.toLocaleString('en-US'),
      m.seconds.toFixed(2),
      m.messagesPerSecond.toFixed(0),
      m.cpu
        ? [m.cpu.mainThreadMs, m.cpu.otherThreadsMs, m.cpu.postgresMs].map((ms) => ms.toFixed(2)).join(' / ')
        : 'n/a',
      m.cpu ? `${(m.cpu.machineBusy * 100).toFixed(0)}% (${(m.cpu.otherLoad * 100).toFixed(0)}%)` : 'n/a',
      `${m.busyConnections.toFixed(1)} (${m.lockWaiting.toFixed(1)})`,
    ]),
  );
  printMarkdownTable(
    [
      'database',
      'workers',
      'pollMs',
      'completions',
      'rate/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'fan-out wait p50/p99 ms',
    ],
    report.latency.map((m) => [
      m.database,
      String(m.workers),
      String(settings.pollMs),
      String(m.completions),
      m.rate.toFixed(1),
      m.p50.toFixed(1),
      m.p90.toFixed(1),
      m.p99.toFixed(1),
      m.max.toFixed(1),
      `${m.fanOutP50.toFixed(1)} / ${m.fanOutP99.toFixed(1)}`,
    ]),
  );
  return printWebhookTargets(report);
}

/** Issue 14, target 2: completion → delivery p99 with the default settings; messages/s with 1 and 4 workers. */
export const WEBHOOK_TARGETS = {
  p99Ms: 100,
  messagesPerSecond: { 1: 1000, 4: 2000 } as Record<number, number>,
};

function printWebhookTargets(report: WebhookReport): TargetResult[] {
  console.log(`\nTarget 2, webhooks wake on commit (pollMs ${report.settings.pollMs}):`);
  const results: TargetResult[] = [];
  for (const m of report.latency) {
    results.push(
      targetResult(
        `completion → delivery p99 < ${WEBHOOK_TARGETS.p99Ms} ms, ${m.database}, ${m.workers} worker(s)`,
        `${m.p99.toFixed(1)} ms`,
        WEBHOOK_TARGETS.p99Ms / m.p99,
      ),
    );
  }
  for (const m of report.throughput) {
    const target = WEBHOOK_TARGETS.messagesPerSecond[m.workers];
    if (target === undefined) continue;
    results.push(
      targetResult(
        `webhook messages/s >= ${target}, ${m.workers} worker(s)`,
        m.messagesPerSecond.toFixed(0),
        m.messagesPerSecond / target,
      ),
    );
  }
  return results;
}
