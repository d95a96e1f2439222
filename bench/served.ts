// Reads against `portico serve` processes, as an operator runs them (metrics served, rate limits counting; the
// peer comparison of issue 44 measured one), on PostgreSQL, beside the floor served by a process of its own:
// each checkout of BENCH_SERVED_CHECKOUTS and the floor in rounds that turn between them, so that another
// commit's worktree runs beside this one and a regression is bisected in one machine's run.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPostgresDatabase } from '../src/db/postgres-database.ts';
import { loadTlsMaterial } from '../src/http/tls.ts';
import { FRAGMENT_REFERENCE_QUERY, REFERENCE_QUERY } from '../test/support/data/transactions.ts';
import { cpuSnapshot } from './cpu.ts';
import { post } from './https-client.ts';
import { runLoad } from './load.ts';
import { seedLargeTransaction } from './seed.ts';
import { cpuMsOf, demoFactsOf, ROOT, servedSchema, spawnAnswering, startServer } from './served-process.ts';
import { freePort } from './startup.ts';
import { median, printMarkdownTable } from './table.ts';

/**
 * What is read: the reference query on the demo transaction (`demo`) and on one of 2 recipients x 5 revisions x
 * 20 items (`large`), and the demo's selection spread from a fragment under a directive (`fragment`), as clients
 * spell it.
 */
export const SERVED_CASES = ['demo', 'large', 'fragment'] as const;
export type ServedCase = (typeof SERVED_CASES)[number];

const LARGE = { revisions: 5, items: 20 };

export interface ServedSettings {
  /** The checkouts to serve from (worktrees of other commits; this one when empty). */
  checkouts: string[];
  cases: ServedCase[];
  warmupSeconds: number;
  measureSeconds: number;
  rounds: number;
  connections: number;
}

/** One measured round of one process on one case. */
interface Round {
  requestsPerSecond: number;
  /** The process's CPU (every thread) per answer, in ms; undefined off Linux. */
  serverCpuMs: number | undefined;
  /** PostgreSQL's CPU (every `postgres` process of the machine) per answer, in ms. */
  postgresCpuMs: number;
}

/** A process measured: the floor, or `portico serve` of a checkout. */
interface Measured {
  name: string;
  commit: string;
  rounds: Record<ServedCase, Round[]>;
}

export interface ServedReport {
  settings: ServedSettings;
  /** The floor first, then each checkout. */
  measured: Measured[];
}

/** The checkout's commit, short, with `+` when it has changes not committed. */
function commitOf(root: string): string {
  try {
    const hash = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? hash : `${hash}+`;
  } catch {
    return 'unknown';
  }
}

/** The floor ([served-floor.ts](served-floor.ts)) on `databaseUrl`, with the certificate of `dataDir`. */
async function startFloor(
  databaseUrl: string,
  dataDir: string,
): Promise<{ pid: number | undefined; port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const { pid, stop } = await spawnAnswering(['bin/run-ts.js', 'bench/served-floor.ts'], {
    what: 'the served floor',
    cwd: ROOT,
    port,
    timeoutMs: 60_000,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORTICO_DATA_DIR: dataDir, PORT: String(port) },
  });
  return { pid, port, stop };
}

/** What one process is loaded with, per case. */
interface Target {
  name: string;
  commit: string;
  pid: number | undefined;
  url: string;
  headers: Record<string, string>;
  bodies: Record<ServedCase, string>;
  expected: Record<ServedCase, string>;
  /** The certificate it serves (each data dir makes its own). */
  ca: string;
}

/**
 * Serves each checkout on a PostgreSQL schema of its own (its own migrations and demo, and the large
 * transaction), and the floor on the first one's; checks that every process gives the very same bytes for a
 * case (the checkouts their own ids), then measures each case on each in `rounds` rounds, the order turning
 * each round so that a drift of the machine weighs on all alike.
 */
export async function benchServed(
  settings: ServedSettings,
  defer: (cleanup: () => Promise<unknown>) => void,
): Promise<ServedReport> {
  const roots = settings.checkouts.length === 0 ? [ROOT] : settings.checkouts.map((root) => resolve(root));
  const base = await mkdtemp(join(tmpdir(), 'portico-bench-served-'));
  defer(() => rm(base, { recursive: true, force: true }));
  const targets: Target[] = [];
  let first:
    { databaseUrl: string; dataDir: string; bodies: Record<ServedCase, string>; cert: string } | undefined;
  for (const [index, root] of roots.entries()) {
    const databaseUrl = await servedSchema(`bench_served_${String(process.pid)}_${String(index)}`, defer);
    // As a deployment runs: metrics served, rate limits counting (against a limit the load never reaches).
    const server = await startServer({
      root,
      dataDir: join(base, String(index)),
      metrics: true,
      rateLimits: 'counting',
      databaseUrl,
      demo: true,
    });
    defer(() => server.stop());
    const facts = await demoFactsOf(server.dataDir);
    let largeId = facts.transactions.transactionId;
    if (settings.cases.includes('large')) {
      const db = createPostgresDatabase({ connectionString: databaseUrl });
      try {
        largeId = await seedLargeTransaction(db, facts.transactions, LARGE);
      } finally {
        await db.close();
      }
    }
    const demoId = facts.transactions.transactionId;
    const bodies: Record<ServedCase, string> = {
      demo: JSON.stringify({ query: REFERENCE_QUERY, variables: { id: demoId } }),
      large: JSON.stringify({ query: REFERENCE_QUERY, variables: { id: largeId } }),
      fragment: JSON.stringify({ query: FRAGMENT_REFERENCE_QUERY, variables: { id: demoId } }),
    };
    const { cert } = await loadTlsMaterial({
      dataDir: server.dataDir,
      tlsCert: undefined,
      tlsKey: undefined,
    });
    first ??= { databaseUrl, dataDir: server.dataDir, bodies, cert };
    targets.push({
      ca: cert,
      name: root,
      commit: commitOf(root),
      pid: server.pid,
      url: `https://127.0.0.1:${String(server.transactionsPort)}/beta`,
      headers: { authorization: `Bearer ${facts.transactions.apiKey}` },
      bodies,
      expected: { demo: '', large: '', fragment: '' },
    });
  }
  if (!first) throw new Error('no checkout to serve');
  const floor = await startFloor(first.databaseUrl, first.dataDir);
  defer(() => floor.stop());
  targets.unshift({
    name: 'floor (one statement, no auth, limits or metrics)',
    commit: commitOf(ROOT),
    pid: floor.pid,
    url: `https://127.0.0.1:${String(floor.port)}/floor/positional`,
    headers: {},
    ca: first.cert,
    bodies: first.bodies,
    expected: { demo: '', large: '', fragment: '' },
  });

  // The same bytes from every process: the floor and the first checkout read the same rows; every other
  // checkout its own, whose ids differ but not their lengths. The fragment's answer is the direct read's.
  for (const target of targets) {
    for (const served of settings.cases) {
      const answer = await post(target.url, target.bodies[served], target.headers, target.ca);
      if (answer.status !== 200)
        throw new Error(`${target.name} (${served}): ${String(answer.status)} ${answer.text}`);
      target.expected[served] = answer.text;
    }
  }
  const [floorTarget, firstCheckout] = targets;
  for (const served of settings.cases) {
    if (floorTarget?.expected[served] !== firstCheckout?.expected[served])
      throw new Error(`${served}: the first checkout's bytes differ from the floor's`);
    for (const target of targets) {
      if (target.expected[served].length !== floorTarget?.expected[served].length)
        throw new Error(`${served}: ${target.name} answers ${String(target.expected[served].length)} bytes`);
    }
  }

  const run = async (target: Target, served: ServedCase, seconds: number): Promise<Round> => {
    const cpuBefore = cpuMsOf(target.pid);
    const postgresBefore = cpuSnapshot().postgres;
    const result = await runLoad({
      url: target.url,
      body: target.bodies[served],
      headers: target.headers,
      connections: settings.connections,
      seconds,
      expectBody: target.expected[served],
    });
    const cpuAfter = cpuMsOf(target.pid);
    const postgresAfter = cpuSnapshot().postgres;
    if (result.failures > 0) throw new Error(`${target.name} (${served}): ${result.failureDetail}`);
    const requests = Math.max(result.requests, 1);
    return {
      requestsPerSecond: result.requestsPerSecond,
      serverCpuMs:
        cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / requests,
      // Ticks of 10 ms.
      postgresCpuMs: ((postgresAfter - postgresBefore) * 10) / requests,
    };
  };
  const measured: Measured[] = targets.map(({ name, commit }) => ({
    name,
    commit,
    rounds: { demo: [], large: [], fragment: [] },
  }));
  for (const served of settings.cases) {
    for (const target of targets) await run(target, served, settings.warmupSeconds);
  }
  for (let round = 0; round < settings.rounds; round++) {
    for (const served of settings.cases) {
      const order = [...targets.keys()];
      for (let turn = 0; turn < round % targets.length; turn++) order.push(order.shift() ?? 0);
      for (const index of order) {
        const target = targets[index];
        if (target) measured[index]?.rounds[served].push(await run(target, served, settings.measureSeconds));
      }
    }
  }
  return { settings, measured };
}

const ms = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(3));

/** Per case, per process: the medians of its rounds, and its throughput as a share of the floor's. */
export function printServedReport(report: ServedReport): void {
  const { settings } = report;
  const [floor] = report.measured;
  for (const served of settings.cases) {
    console.log(
      `\n${served}: against \`portico serve\` on PostgreSQL beside the floor, ` +
        `${String(settings.connections)} connections, ${String(settings.rounds)} turning rounds of ` +
        `${String(settings.measureSeconds)} s per process`,
    );
    printMarkdownTable(
      [
        'process',
        'commit',
        'req/s (median; rounds)',
        'server CPU ms/answer',
        'PostgreSQL CPU ms/answer',
        'of the floor',
      ],
      report.measured.map(({ name, commit, rounds }) => {
        const own = rounds[served];
        const cpu = own.every((round) => round.serverCpuMs !== undefined)
          ? median(own.map((round) => round.serverCpuMs ?? 0))
          : undefined;
        // The median of each round's share: a round's floor and checkouts ran minutes apart at most.
        const shares = own.map(
          (round, index) =>
            round.requestsPerSecond / (floor?.rounds[served][index]?.requestsPerSecond ?? Infinity),
        );
        return [
          name,
          commit,
          `${String(Math.round(median(own.map((round) => round.requestsPerSecond))))} (${own.map((round) => Math.round(round.requestsPerSecond)).join(', ')})`,
          ms(cpu),
          ms(median(own.map((round) => round.postgresCpuMs))),
          `${(median(shares) * 100).toFixed(1)}%`,
        ];
      }),
    );
  }
}
