/**
 * The console live suite (issue 25): how long a change committed by another process takes to reach an open
 * console, on PostgreSQL. The Transactions service listens over TLS with the demo organization; a person of its
 * console signs in and opens the event stream (`GET /console/api/live`); another process
 * (console-live-writer.ts) commits changes to one transaction, one at a time, and prints when each committed.
 * Beside it, in the same run and for the same commits, the floor: a bare `LISTEN portico_console` on a
 * connection of its own, which is how soon PostgreSQL itself tells anyone. See bench/README.md.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { seedTransactionsDemo } from '../src/demo/seed.ts';
import { createLocalFileStore } from '../src/files/local-file-store.ts';
import { loadTlsMaterial } from '../src/http/tls.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { buildTransactionsApp } from '../src/transactions/app.ts';
import { CONSOLE_SESSION_COOKIE } from '../src/transactions/console/console.ts';
import { CONSOLE_API_PATH } from '../src/transactions/console/links.ts';
import { CONSOLE_CHANNEL } from '../src/transactions/console/live.ts';
import type { BenchDatabase } from './database.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';

/** The target: a change reaches an open console within a second, at p99. */
const TARGET_P99_MS = 1000;

export interface LiveReport {
  changes: number;
  /** Milliseconds from each commit to its event on the console's stream, and to the bare LISTEN's notification. */
  console: number[];
  floor: number[];
}

const percentile = (values: readonly number[], share: number): number => {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
};

/** The session cookie of the demo's console admin, signed in through the app (as behind a TLS proxy). */
async function signIn(
  app: Awaited<ReturnType<typeof buildTransactionsApp>>,
  person: { email: string; password: string },
): Promise<string> {
  const headers = { 'x-forwarded-proto': 'https' };
  const cookieOf = (setCookie: string | string[] | undefined) =>
    ([setCookie].flat().find((line) => line?.startsWith(`${CONSOLE_SESSION_COOKIE}=`)) ?? '').split(';')[0] ??
    '';
  const session = await app.inject({ method: 'GET', url: `${CONSOLE_API_PATH}/session`, headers });
  const { csrfToken } = session.json<{ csrfToken: string }>();
  const signedIn = await app.inject({
    method: 'POST',
    url: `${CONSOLE_API_PATH}/session`,
    headers: { ...headers, cookie: cookieOf(session.headers['set-cookie']), 'x-csrf-token': csrfToken },
    payload: person,
  });
  if (signedIn.statusCode !== 200) throw new Error(`the console sign-in answered ${signedIn.body}`);
  return cookieOf(signedIn.headers['set-cookie']);
}

/**
 * Measures `changes` commits by another process to one transaction of the demo organization: the time each took
 * to reach the console's event stream, and a bare LISTEN (the floor). PostgreSQL only: an embedded database
 * belongs to one process.
 */
export async function benchConsoleLive(bench: BenchDatabase, changes: number): Promise<LiveReport> {
  if (!bench.connection) throw new Error('the console live suite runs on PostgreSQL only');
  const { db, connection } = bench;
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-live-'));
  const closers: (() => Promise<unknown>)[] = [() => rm(dataDir, { recursive: true, force: true })];
  try {
    const files = createLocalFileStore(join(dataDir, 'files'));
    const demo = await seedTransactionsDemo(db, files, 'staging', { handle: 'bench-live' });
    const tls = await loadTlsMaterial({ dataDir, tlsCert: undefined, tlsKey: undefined });
    const mailer = createMailer(
      { smtpUrl: undefined, mailFrom: 'Portico <no-reply@localhost>', dataDir },
      pino({ level: 'silent' }),
    );
    closers.push(() => {
      mailer.close();
      return Promise.resolve();
    });
    const app = await buildTransactionsApp({
      db,
      files,
      environment: 'staging',
      tls,
      trustProxy: true,
      console: { mailer, transactionsUrl: () => 'https://localhost' },
    });
    closers.unshift(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const cookie = await signIn(app, demo.consoleSignIn);

    const arrivals: number[] = [];
    const floorArrivals: number[] = [];
    const streaming = new Promise<() => void>((resolve, reject) => {
      const outgoing = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: `${CONSOLE_API_PATH}/live`,
          ca: tls.cert,
          servername: 'localhost',
          headers: { cookie },
        },
        (response) => {
          if (response.statusCode !== 200)
            reject(new Error(`the live stream answered ${String(response.statusCode)}`));
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            const at = performance.timeOrigin + performance.now();
            for (const event of chunk.split('\n\n')) {
              if (event.includes(demo.transactionId)) arrivals.push(at);
            }
          });
          resolve(() => {
            outgoing.destroy();
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    closers.unshift(async () => {
      (await streaming)();
    });
    await streaming;

    const floor = new pg.Client({ connectionString: connection.url, options: connection.options });
    await floor.connect();
    closers.unshift(() => floor.end());
    floor.on('notification', (message) => {
      if (message.payload?.includes(demo.transactionId))
        floorArrivals.push(performance.timeOrigin + performance.now());
    });
    await floor.query(`listen ${CONSOLE_CHANNEL}`);

    const commits: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const writer = spawn(process.execPath, ['bin/run-ts.js', 'bench/console-live-writer.ts'], {
        env: {
          ...process.env,
          BENCH_LIVE_URL: connection.url,
          BENCH_LIVE_OPTIONS: connection.options,
          BENCH_LIVE_TRANSACTION: demo.transactionId,
          BENCH_LIVE_CHANGES: String(changes),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let pending = '';
      writer.stdout.setEncoding('utf8');
      writer.stdout.on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const [word, , at] = line.split(' ');
          if (word === 'committed') commits.push(Number(at));
        }
      });
      writer.on('error', reject);
      writer.on('exit', (code) => {
        if (code === 0) resolve();
        else reject(new Error(`the writer exited with ${String(code)}`));
      });
    });
    // The last notifications may still be on their way.
    const deadline = Date.now() + 5000;
    while (
      (arrivals.length < commits.length || floorArrivals.length < commits.length) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const latencies = (seen: number[]) =>
      commits.map((committed, n) => (seen[n] ?? Number.POSITIVE_INFINITY) - committed);
    return { changes: commits.length, console: latencies(arrivals), floor: latencies(floorArrivals) };
  } finally {
    for (const close of closers) await close().catch(() => undefined);
  }
}

/** Prints the suite's table and answers its target. */
export function printLiveReport(report: LiveReport): TargetResult[] {
  const row = (name: string, values: number[]) => [
    name,
    String(values.length),
    ...[0.5, 0.95, 0.99].map((share) => percentile(values, share).toFixed(1)),
    Math.max(...values).toFixed(1),
  ];
  printMarkdownTable(
    ['from a commit by another process to', 'changes', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    [row('the console (event stream over HTTPS)', report.console), row('floor: a bare LISTEN', report.floor)],
  );
  const p99 = percentile(report.console, 0.99);
  const floorP99 = percentile(report.floor, 0.99);
  console.log(`\nThe console's p99 is ${(p99 / floorP99).toFixed(1)}x the floor's.`);
  return [
    targetResult(
      `a change reaches an open console: p99 <= ${String(TARGET_P99_MS)} ms`,
      `${p99.toFixed(1)} ms`,
      TARGET_P99_MS / p99,
    ),
  ];
}
