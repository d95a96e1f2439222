// The reference query against `portico serve` processes, as an operator runs them (metrics served, rate limits
// counting; the peer comparison of issue 44 measured one), on PostgreSQL: each checkout of BENCH_SERVED_CHECKOUTS in rounds that alternate between them,
// so that another commit's worktree runs beside this one and a regression is bisected in one machine's run.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { REFERENCE_QUERY } from '../test/support/data/transactions.ts';
import { cpuSnapshot } from './cpu.ts';
import { runLoad } from './load.ts';
import { cpuMsOf, demoFactsOf, ROOT, servedSchema, startServer, type Server } from './served-process.ts';
import { median, printMarkdownTable } from './table.ts';

export interface ServedSettings {
  /** The checkouts to serve from (worktrees of other commits; this one when empty). */
  checkouts: string[];
  warmupSeconds: number;
  measureSeconds: number;
  rounds: number;
  connections: number;
}

/** One measured round of one checkout. */
interface Round {
  requestsPerSecond: number;
  /** The served process's CPU (every thread) per answer, in ms; undefined off Linux. */
  serverCpuMs: number | undefined;
  /** PostgreSQL's CPU (every `postgres` process of the machine) per answer, in ms. */
  postgresCpuMs: number;
}

export interface ServedReport {
  settings: ServedSettings;
  checkouts: { root: string; commit: string; rounds: Round[] }[];
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

/**
 * Serves each checkout on a PostgreSQL schema of its own (its own migrations and demo), then measures the
 * reference query on each in `rounds` rounds, the order turning each round so that a drift of the machine weighs
 * on all alike.
 */
export async function benchServed(
  settings: ServedSettings,
  defer: (cleanup: () => Promise<unknown>) => void,
): Promise<ServedReport> {
  const roots = settings.checkouts.length === 0 ? [ROOT] : settings.checkouts.map((root) => resolve(root));
  const base = await mkdtemp(join(tmpdir(), 'portico-bench-served-'));
  defer(() => rm(base, { recursive: true, force: true }));
  const served: { root: string; server: Server; body: string; apiKey: string }[] = [];
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
    served.push({
      root,
      server,
      apiKey: facts.transactions.apiKey,
      body: JSON.stringify({ query: REFERENCE_QUERY, variables: { id: facts.transactions.transactionId } }),
    });
  }
  const run = async (index: number, seconds: number): Promise<Round> => {
    const { server, body, apiKey } = served[index] ?? {};
    if (!server || body === undefined || apiKey === undefined)
      throw new Error(`no checkout ${String(index)}`);
    const cpuBefore = cpuMsOf(server.pid);
    const postgresBefore = cpuSnapshot().postgres;
    const result = await runLoad({
      url: `https://127.0.0.1:${String(server.transactionsPort)}/beta`,
      body,
      headers: { authorization: `Bearer ${apiKey}` },
      connections: settings.connections,
      seconds,
    });
    const cpuAfter = cpuMsOf(server.pid);
    const postgresAfter = cpuSnapshot().postgres;
    if (result.failures > 0) throw new Error(`${served[index]?.root ?? ''}: ${result.failureDetail}`);
    const requests = Math.max(result.requests, 1);
    return {
      requestsPerSecond: result.requestsPerSecond,
      serverCpuMs:
        cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / requests,
      // Ticks of 10 ms.
      postgresCpuMs: ((postgresAfter - postgresBefore) * 10) / requests,
    };
  };
  for (const index of served.keys()) await run(index, settings.warmupSeconds);
  const rounds: Round[][] = served.map(() => []);
  for (let round = 0; round < settings.rounds; round++) {
    const order = [...served.keys()];
    for (let turn = 0; turn < round % served.length; turn++) order.push(order.shift() ?? 0);
    for (const index of order) rounds[index]?.push(await run(index, settings.measureSeconds));
  }
  return {
    settings,
    checkouts: served.map(({ root }, index) => ({
      root,
      commit: commitOf(root),
      rounds: rounds[index] ?? [],
    })),
  };
}

const ms = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(3));

/** Per checkout: the medians of its rounds, and its throughput and CPU beside the first checkout's. */
export function printServedReport(report: ServedReport): void {
  const { settings } = report;
  console.log(
    `\nThe reference query against \`portico serve\` on PostgreSQL, ${String(settings.connections)} connections, ` +
      `${String(settings.rounds)} turning rounds of ${String(settings.measureSeconds)} s per checkout`,
  );
  const medians = report.checkouts.map(({ rounds }) => ({
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    serverCpuMs: rounds.every((round) => round.serverCpuMs !== undefined)
      ? median(rounds.map((round) => round.serverCpuMs ?? 0))
      : undefined,
    postgresCpuMs: median(rounds.map((round) => round.postgresCpuMs)),
  }));
  const first = medians[0];
  printMarkdownTable(
    [
      'checkout',
      'commit',
      'req/s (median; rounds)',
      'server CPU ms/answer',
      'PostgreSQL CPU ms/answer',
      'req/s vs the first',
    ],
    report.checkouts.map(({ root, commit, rounds }, index) => {
      const own = medians[index];
      return [
        root,
        commit,
        `${String(Math.round(own?.requestsPerSecond ?? 0))} (${rounds.map((round) => Math.round(round.requestsPerSecond)).join(', ')})`,
        ms(own?.serverCpuMs),
        ms(own?.postgresCpuMs),
        first && own ? `${((own.requestsPerSecond / first.requestsPerSecond) * 100).toFixed(1)}%` : '',
      ];
    }),
  );
}
