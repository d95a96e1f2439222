// Webhook delivery workers as an operator runs them: `node bin/portico.js worker` child processes on the
// database this file seeds, sending to a real HTTP receiver on loopback. A worker killed with SIGKILL after
// claiming a delivery and before recording its attempt; and two workers sharing 1,000 events.
//
// The child processes reach this file's database through their environment: under TEST_DATABASE_URL a
// PostgreSQL schema of its own (DATABASE_URL and PGOPTIONS); on PGlite, which one process at a time can open, an
// embedded database in a data dir (PORTICO_DATA_DIR) that the test opens only while no worker holds it.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { safeDispatcher } from '../../src/webhooks/safe-dispatcher.ts';
import { startWebhookWorker } from '../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { exited, launch, sleep } from '../support/cli.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db/database.ts';
import { seedEmbeddedDatabase } from '../support/db/pglite-template.ts';
import { organizationStory } from '../support/data/stories.ts';
import { createTestFileStore } from '../support/data/transactions.ts';

interface Arrival {
  /** The webhook-id header. */
  id: string;
  /** Date.now() when the whole request had arrived. */
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The sender's end of the connection. */
  remotePort: number;
}

/**
 * A real HTTP receiver on loopback. It answers 200 (after `delayMs`), except the requests `hold` picks: those
 * it never answers. `onArrival` runs as soon as a request has arrived, before any answer; `onConnection` for
 * each new connection.
 */
function receiver(
  options: {
    hold?: (index: number) => boolean;
    delayMs?: number;
    onArrival?: (arrival: Arrival) => void;
    onConnection?: (socket: Socket) => void;
  } = {},
) {
  const arrivals: Arrival[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const arrival = {
        id: String(request.headers['webhook-id']),
        at: Date.now(),
        headers: request.headers,
        body,
        remotePort: request.socket.remotePort ?? 0,
      };
      const index = arrivals.push(arrival) - 1;
      options.onArrival?.(arrival);
      if (options.hold?.(index) === true) return;
      const answer = () => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('ok');
      };
      if (options.delayMs === undefined) answer();
      else setTimeout(answer, options.delayMs);
    });
  });
  server.on('connection', (socket: Socket) => options.onConnection?.(socket));
  return {
    arrivals,
    port: () => (server.address() as AddressInfo).port,
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The headers a Standard Webhooks receiver verifies. */
const signedHeaders = (arrival: Arrival) => ({
  'webhook-id': String(arrival.headers['webhook-id']),
  'webhook-timestamp': String(arrival.headers['webhook-timestamp']),
  'webhook-signature': String(arrival.headers['webhook-signature']),
});

interface WorkerProcess {
  child: ChildProcess;
  /** What it printed so far: its JSON log on stdout, anything on stderr. */
  output(): string;
  /** Whether it logged that its delivery loop runs. */
  started(): boolean;
}

const children = new Set<ChildProcess>();

/** Starts `portico worker`; it logs at info, so a failure can show what it said. */
function startWorker(env: Record<string, string>): WorkerProcess {
  const child = launch(['worker'], {
    PORTICO_WEBHOOKS_ALLOW_INSECURE: 'true',
    PORTICO_LOG_LEVEL: 'info',
    ...env,
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return { child, output: () => output, started: () => output.includes('webhook worker started') };
}

const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Stops a worker as an operator does (SIGTERM) and expects a clean exit. */
async function stopWorker(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  expect(await exited(worker.child, 15_000), worker.output()).toEqual({ code: 0, signal: null });
}

/** Waits until `condition` holds; fails after `timeoutMs`, or as soon as one of `workers` has exited. */
async function until(
  what: string,
  condition: () => boolean,
  timeoutMs: number,
  workers: WorkerProcess[] = [],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const outputs = () =>
    workers.map((worker) => `worker ${worker.child.pid ?? '?'}:\n${worker.output()}`).join('\n');
  while (!condition()) {
    const gone = workers.find((worker) => ended(worker.child));
    if (gone) throw new Error(`a worker exited while waiting for ${what}\n${outputs()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms\n${outputs()}`);
    await sleep(20);
  }
}

/**
 * Which of `pids` holds the client end of the loopback connection from `clientPort` to `serverPort`: the
 * connection's inode from /proc/net/tcp, then the process with a descriptor on it (Linux only).
 */
async function ownerOf(clientPort: number, serverPort: number, pids: number[]): Promise<number | undefined> {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  const table = await readFile('/proc/net/tcp', 'utf8');
  const inode = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find(
      (fields) => fields[1] === `0100007F:${hex(clientPort)}` && fields[2] === `0100007F:${hex(serverPort)}`,
    )?.[9];
  if (inode === undefined) return undefined;
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds) {
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === `socket:[${inode}]`) return pid;
    }
  }
  return undefined;
}

/** Marks every event so far dispatched, creates an endpoint for `url` and leaves it the only enabled one. */
async function soleEndpoint(db: Database, organizationId: string, url: string) {
  await db.query('update outbox_events set dispatched_at = clock_timestamp() where dispatched_at is null');
  await db.query('update webhook_endpoints set disabled_at = clock_timestamp() where disabled_at is null');
  return createEndpoint(db, {
    organizationId,
    url,
    eventTypes: ['transaction.completed'],
    allowInsecure: true,
  });
}

/** Adds `count` transaction.completed events to the outbox in one statement. */
async function addEvents(
  db: Database,
  story: { organizationId: string; transactionId: string },
  count: number,
) {
  await db.query(
    `insert into outbox_events (organization_id, type, transaction_id, payload)
     select $1::uuid, 'transaction.completed', $2::uuid, jsonb_build_object('transactionId', $2::uuid, 'n', n)
     from generate_series(1, $3::int) n`,
    [story.organizationId, story.transactionId, count],
  );
}

let root: string;
let files: FileStore;
let cleanupFiles: () => Promise<void>;
let testDb: TestDatabase;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-worker-processes-'));
  const store = await createTestFileStore();
  files = store.files;
  cleanupFiles = store.cleanup;
  // PostgreSQL: the schema the worker processes share with the test. PGlite: the in-process workers' database.
  testDb = await createTestDatabase();
});

afterEach(async () => {
  // A failed test leaves no worker behind (only the processes this file started).
  for (const child of children) {
    if (!ended(child)) child.kill('SIGKILL');
    await exited(child, 5_000).catch(() => undefined);
  }
  children.clear();
});

afterAll(async () => {
  await testDb.close();
  await cleanupFiles();
  await rm(root, { recursive: true, force: true });
});

describe('portico worker processes', () => {
  it(
    'delivers a message after a worker is killed with SIGKILL between claiming and finishing',
    // Hang guards: processes start in seconds alone, but CI runs this file beside a full load on two cores.
    { timeout: 120_000 },
    async () => {
      // The database the workers open: this file's schema, or an embedded one in a data dir of its own.
      let env: Record<string, string>;
      let withDatabase: <T>(work: (db: Database) => Promise<T>) => Promise<T>;
      if (testDb.connection) {
        env = { DATABASE_URL: testDb.connection.url, PGOPTIONS: testDb.connection.options };
        withDatabase = (work) => work(testDb.db);
      } else {
        const dir = await mkdtemp(join(root, 'data-'));
        // Migrated already, so that neither the test nor a worker spends its time on initdb.
        await seedEmbeddedDatabase(dir);
        env = { PORTICO_DATA_DIR: dir };
        // Opened only while no worker runs: PGlite allows one process, and the data-dir lock says so.
        withDatabase = async (work) => {
          const opened = await openDatabase(loadConfig({ PORTICO_DATA_DIR: dir }));
          try {
            return await work(opened.db);
          } finally {
            await opened.close();
          }
        };
      }
      env = {
        ...env,
        // A 5 s timeout, so that the kill comes within it even on a loaded machine: the lease is 5 s + 15 s.
        PORTICO_WEBHOOK_TIMEOUT: '5',
        PORTICO_WEBHOOK_RETRY_SCHEDULE: '0,0,0',
      };

      let first: WorkerProcess | undefined;
      // The first request is never answered, and its worker is killed the moment it arrives: its claim is
      // committed, its attempt not recorded (the kill comes well within the 5 s timeout).
      const hook = receiver({
        hold: (index) => index === 0,
        onArrival: () => {
          if (first && !ended(first.child)) first.child.kill('SIGKILL');
        },
      });
      const url = await hook.start();
      try {
        const { secret } = await withDatabase(async (db) => {
          const story = await organizationStory(db, files);
          const created = await soleEndpoint(db, story.organizationId, url);
          await addEvents(db, story, 1);
          return created;
        });

        first = startWorker(env);
        await until('first request', () => hook.arrivals.length >= 1, 60_000, [first]);
        expect(await exited(first.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
        const [held] = hook.arrivals;
        if (!held) throw new Error('nothing arrived');

        // What the killed worker left: a claimed delivery with no attempt, its lease running 5 s + 15 s.
        const claim = await withDatabase(async (db) => {
          const [row] = await db.query<{
            status: string;
            attempts: number;
            claimedUntil: Date;
            logged: number;
          }>(
            `select d.status, d.attempts, d.claimed_until as "claimedUntil",
             (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as logged
           from webhook_deliveries d where d.message_id = $1`,
            [held.id],
          );
          return row;
        });
        expect(claim).toMatchObject({ status: 'pending', attempts: 0, logged: 0 });
        const leaseEnd = claim?.claimedUntil.getTime() ?? 0;
        expect(leaseEnd - held.at).toBeGreaterThan(14_000);
        expect(leaseEnd - held.at).toBeLessThanOrEqual(20_000);

        // A new worker sends the message again once the lease has run out, with the same webhook-id.
        const second = startWorker(env);
        await until('second request', () => hook.arrivals.length >= 2, 60_000, [second]);
        await stopWorker(second);
        const [, again] = hook.arrivals;
        if (!again) throw new Error('nothing arrived again');
        expect(again.id).toBe(held.id);
        expect(again.body).toBe(held.body);
        // Not before the lease ran out (same clock; a few ms for timestamp rounding).
        expect(again.at).toBeGreaterThanOrEqual(leaseEnd - 5);
        for (const arrival of [held, again]) {
          expect(() => new Webhook(secret).verify(arrival.body, signedHeaders(arrival))).not.toThrow();
        }
        expect(hook.arrivals).toHaveLength(2);

        const after = await withDatabase(async (db) => {
          const [delivery] = await db.query<{ status: string; attempts: number; claimedUntil: Date | null }>(
            `select status, attempts, claimed_until as "claimedUntil" from webhook_deliveries where message_id = $1`,
            [held.id],
          );
          const logged = await db.query<{ statusCode: number | null; error: string | null }>(
            `select a.status_code as "statusCode", a.error from webhook_attempts a
           join webhook_deliveries d on d.id = a.delivery_id where d.message_id = $1 order by a.sequence`,
            [held.id],
          );
          return { delivery, logged };
        });
        // One recorded attempt: the killed worker's send left no trace but its (expired) claim.
        expect(after).toEqual({
          delivery: { status: 'delivered', attempts: 1, claimedUntil: null },
          logged: [{ statusCode: 200, error: null }],
        });
      } finally {
        await hook.close();
      }
    },
  );

  // PGlite allows one process per database: there the two workers are two delivery loops in this process on one
  // database; on PostgreSQL, two `portico worker` processes. The same assertions either way.
  it(
    TEST_DATABASE_URL === undefined
      ? 'two worker loops on one PGlite database deliver 1,000 events with none lost and none sent twice'
      : 'two worker processes on one PostgreSQL deliver 1,000 events with none lost and none sent twice',
    // Hang guards: processes start in seconds alone, but CI runs this file beside a full load on two cores.
    { timeout: 120_000 },
    async () => {
      const EVENTS = 1000;
      /** How often an idle worker looks for work: a process's default, and what the in-process loops are given. */
      const PROCESS_POLL_MS = 1000;
      const LOOP_POLL_MS = 200;
      const db = testDb.db;
      /** Requests per worker: counted by the in-process loops' dispatchers, or by connection owner (Linux). */
      const served = new Map([
        ['loop 1', 0],
        ['loop 2', 0],
      ]);
      const owners = new Map<number, Promise<number | undefined>>();
      let pids: number[] = [];
      const hook = receiver({
        // Each batch of 10 takes a moment, so that the second worker joins in before the first is through.
        delayMs: 20,
        onConnection: (socket) => {
          const clientPort = socket.remotePort ?? 0;
          if (pids.length > 0 && existsSync('/proc/net/tcp')) {
            owners.set(clientPort, ownerOf(clientPort, hook.port(), pids));
          }
        },
      });
      const url = await hook.start();
      try {
        const story = await organizationStory(db, files);
        const { secret, endpoint } = await soleEndpoint(db, story.organizationId, url);

        let stop: () => Promise<void>;
        let processes: WorkerProcess[] = [];
        if (testDb.connection) {
          const env = {
            DATABASE_URL: testDb.connection.url,
            PGOPTIONS: testDb.connection.options,
            PORTICO_WEBHOOK_RETRY_SCHEDULE: '0,0,0',
          };
          processes = [startWorker(env), startWorker(env)];
          pids = processes.map((worker) => worker.child.pid ?? 0);
          // Both loops run before there is work, so that both can take part.
          await until('worker start', () => processes.every((worker) => worker.started()), 60_000, processes);
          stop = async () => {
            await Promise.all(processes.map(stopWorker));
          };
        } else {
          const loops = ['loop 1', 'loop 2'].map((name) => {
            const dispatcher = safeDispatcher({ allowPrivate: true }).compose(
              (dispatch) => (options, handler) => {
                served.set(name, (served.get(name) ?? 0) + 1);
                return dispatch(options, handler);
              },
            );
            const errors: unknown[] = [];
            const worker = startWebhookWorker(db, {
              allowInsecure: true,
              delaysMs: [0, 0, 0],
              pollMs: LOOP_POLL_MS,
              dispatcher,
              onError: (error) => errors.push(error),
            });
            return { worker, errors };
          });
          stop = async () => {
            await Promise.all(loops.map((loop) => loop.worker.stop()));
            expect(loops.flatMap((loop) => loop.errors)).toEqual([]);
          };
        }

        const started = Date.now();
        await addEvents(db, story, EVENTS);
        try {
          await until(
            `${EVENTS} distinct webhook-ids`,
            () => new Set(hook.arrivals.map((arrival) => arrival.id)).size >= EVENTS,
            45_000,
            processes,
          );
          console.info(`${EVENTS} webhooks delivered by two workers in ${Date.now() - started} ms`);
          // A moment longer (more than a poll interval): nothing more may arrive.
          await sleep((testDb.connection ? PROCESS_POLL_MS : LOOP_POLL_MS) + 500);
        } finally {
          await stop();
        }

        const ids = hook.arrivals.map((arrival) => arrival.id);
        expect(hook.arrivals).toHaveLength(EVENTS);
        expect(new Set(ids).size).toBe(EVENTS);
        const unverified = hook.arrivals.filter((arrival) => {
          try {
            new Webhook(secret).verify(arrival.body, signedHeaders(arrival));
            return false;
          } catch {
            return true;
          }
        });
        expect(unverified).toEqual([]);

        const deliveries = await db.query<{
          messageId: string;
          status: string;
          attempts: number;
          logged: number;
        }>(
          `select d.message_id as "messageId", d.status, d.attempts,
             (select count(*)::int from webhook_attempts a where a.delivery_id = d.id and a.status_code = 200) as logged
           from webhook_deliveries d where d.endpoint_id = $1`,
          [endpoint.id],
        );
        expect(deliveries).toHaveLength(EVENTS);
        expect(new Set(deliveries.map((delivery) => delivery.messageId))).toEqual(new Set(ids));
        expect(
          deliveries.filter((d) => d.status !== 'delivered' || d.attempts !== 1 || d.logged !== 1),
        ).toEqual([]);
        const [attempts] = await db.query<{ count: number }>(
          `select count(*)::int as count from webhook_attempts a
           join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = $1`,
          [endpoint.id],
        );
        expect(attempts?.count).toBe(EVENTS);

        // Both workers took part: counted by the loops' dispatchers, or (processes, Linux) by which process
        // held the connection each request came over.
        let perWorker: number[] | undefined;
        if (testDb.connection === undefined) {
          perWorker = [...served.values()];
        } else if (owners.size > 0) {
          const ownerByPort = new Map(
            await Promise.all([...owners].map(async ([port, owner]) => [port, await owner] as const)),
          );
          const counts = new Map<number | undefined, number>();
          for (const arrival of hook.arrivals) {
            const owner = ownerByPort.get(arrival.remotePort);
            counts.set(owner, (counts.get(owner) ?? 0) + 1);
          }
          expect(counts.get(undefined) ?? 0, 'requests over a connection of neither worker').toBe(0);
          perWorker = pids.map((pid) => counts.get(pid) ?? 0);
        }
        if (perWorker) {
          console.info(`requests per worker: ${perWorker.join(', ')}`);
          expect(perWorker).toHaveLength(2);
          expect(perWorker.reduce((sum, count) => sum + count, 0)).toBe(EVENTS);
          expect(perWorker.every((count) => count > 0)).toBe(true);
        }
      } finally {
        await hook.close();
      }
    },
  );
});
