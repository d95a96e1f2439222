// The cost of metrics: two `portico serve` processes, one with `PORTICO_METRICS_PORT` (scraped every 15 s while
// measured, as Prometheus would) and one without, answering the same requests in alternating rounds: a by-id GraphQL read and a
// Portfolio list. Issue 26: serving metrics costs at most 3% of throughput.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REFERENCE_QUERY } from '../test/support/data/transactions.ts';
import type { Dialect } from './database.ts';
import { runLoad, type LoadResult } from './load.ts';
import { cpuMsOf, demoFactsOf, servedSchema, startServer, type Server } from './served-process.ts';
import { median, printMarkdownTable, targetResult, type TargetResult } from './table.ts';

/** Throughput with metrics as a share of throughput without: at least this (issue 26). */
export const METRICS_TARGET = 0.97;

/** How often the process with metrics is scraped while measured. */
const SCRAPE_INTERVAL_MS = 15_000;
/** Scrapes in a row whose CPU gives the cost of one. */
const SCRAPES = 20;

export interface MetricsCostSettings {
  dialect: Dialect;
  warmupSeconds: number;
  measureSeconds: number;
  rounds: number;
  connections: number;
}

type Endpoint = 'graphql by id' | 'portfolio list';
type Mode = 'off' | 'on';

/** One measured round: the load's result, and the server process's CPU milliseconds per answer (Linux). */
interface Round {
  result: LoadResult;
  cpuMs: number | undefined;
}

export interface MetricsCostReport {
  settings: MetricsCostSettings;
  /** Each round, by endpoint and mode. */
  rounds: Record<Endpoint, Record<Mode, Round[]>>;
  /** Requests the metrics counted, as the last scrape read them (proves the "on" process counted). */
  counted: number;
  /** CPU milliseconds one scrape costs the server (Linux). */
  scrapeCpuMs: number | undefined;
}

/** Reads the metrics port; the number of answers counted, summed over every series. */
async function scrape(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('portico_http_request_duration_seconds_count'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/**
 * Starts both processes (on the embedded database, each its own data dir with the demo; on PostgreSQL, one
 * schema the first seeds), then measures each endpoint in `rounds` rounds, off and on in alternating order.
 */
export async function benchMetricsCost(
  settings: MetricsCostSettings,
  defer: (cleanup: () => Promise<unknown>) => void,
): Promise<MetricsCostReport> {
  const base = await mkdtemp(join(tmpdir(), 'portico-bench-metrics-'));
  defer(() => rm(base, { recursive: true, force: true }));
  const databaseUrl =
    settings.dialect === 'postgres'
      ? await servedSchema(`bench_metrics_${String(process.pid)}`, defer)
      : undefined;
  const off = await startServer({ dataDir: join(base, 'off'), metrics: false, databaseUrl, demo: true });
  defer(() => off.stop());
  const on = await startServer({
    dataDir: join(base, 'on'),
    metrics: true,
    databaseUrl,
    demo: databaseUrl === undefined,
  });
  defer(() => on.stop());

  const offFacts = await demoFactsOf(off.dataDir);
  // On PostgreSQL both read the one demo the first seeded.
  const onFacts = databaseUrl === undefined ? await demoFactsOf(on.dataDir) : offFacts;
  const requestFor = (endpoint: Endpoint, server: Server, facts: typeof offFacts) =>
    endpoint === 'graphql by id'
      ? {
          url: `https://127.0.0.1:${String(server.transactionsPort)}/beta`,
          body: JSON.stringify({
            query: REFERENCE_QUERY,
            variables: { id: facts.transactions.transactionId },
          }),
          headers: { authorization: `Bearer ${facts.transactions.apiKey}` },
        }
      : {
          url: `https://127.0.0.1:${String(server.portfolioPort)}/v1/external/companies?limit=10`,
          headers: { authorization: facts.portfolio.apiKey },
        };

  const metricsPort = on.metricsPort ?? 0;
  const rounds: MetricsCostReport['rounds'] = {
    'graphql by id': { off: [], on: [] },
    'portfolio list': { off: [], on: [] },
  };
  for (const endpoint of Object.keys(rounds) as Endpoint[]) {
    const run = async (mode: Mode, seconds: number) => {
      const [server, facts] = mode === 'on' ? [on, onFacts] : [off, offFacts];
      // Scraped as Prometheus would, every 15 s (its default is a minute); a scrape's own cost is measured apart.
      const scraping =
        mode === 'on' ? setInterval(() => void scrape(metricsPort), SCRAPE_INTERVAL_MS) : undefined;
      try {
        const before = cpuMsOf(server.pid);
        const result = await runLoad({
          ...requestFor(endpoint, server, facts),
          connections: settings.connections,
          seconds,
        });
        const after = cpuMsOf(server.pid);
        if (result.failures > 0) throw new Error(`${endpoint}, metrics ${mode}: ${result.failureDetail}`);
        const cpuMs =
          before === undefined || after === undefined || result.requests === 0
            ? undefined
            : (after - before) / result.requests;
        return { result, cpuMs };
      } finally {
        clearInterval(scraping);
      }
    };
    await run('off', settings.warmupSeconds);
    await run('on', settings.warmupSeconds);
    for (let round = 0; round < settings.rounds; round++) {
      // Alternating which goes first, so that a drift of the machine weighs on both alike.
      const order: Mode[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const mode of order) rounds[endpoint][mode].push(await run(mode, settings.measureSeconds));
    }
  }
  // What one scrape costs the server, idle: CPU over 20 scrapes in a row.
  const before = cpuMsOf(on.pid);
  for (let n = 0; n < SCRAPES; n++) await scrape(metricsPort);
  const after = cpuMsOf(on.pid);
  const scrapeCpuMs = before === undefined || after === undefined ? undefined : (after - before) / SCRAPES;
  return { settings, rounds, counted: await scrape(metricsPort), scrapeCpuMs };
}

/**
 * Per endpoint: the throughput of each round off and on, the median of the paired rounds' ratios (on / off, each
 * pair run one after the other), and the server's CPU per answer off and on. The target is judged on the CPU per
 * answer (off / on: the throughput a CPU-bound server keeps), which a busy machine disturbs far less than the
 * throughput; without /proc, on the paired throughput ratio.
 */
export function printMetricsCostReport(report: MetricsCostReport): TargetResult[] {
  const { settings } = report;
  console.log(
    `\nMetrics on and off (${settings.dialect}), ${settings.connections} connections, ` +
      `${settings.rounds} rounds of ${settings.measureSeconds} s each; the process with metrics counted ` +
      `${report.counted.toLocaleString('en-US')} answers; one scrape costs the server ` +
      `${report.scrapeCpuMs === undefined ? 'n/a' : `${report.scrapeCpuMs.toFixed(1)} ms`} of CPU`,
  );
  const rows: string[][] = [];
  const judged: [Endpoint, number, string][] = [];
  const entries = Object.entries(report.rounds) as [Endpoint, Record<Mode, Round[]>][];
  for (const [endpoint, modes] of entries) {
    const rps = (mode: Mode) => modes[mode].map((round) => round.result.requestsPerSecond);
    const paired = modes.on.map((round, n) => round.result.requestsPerSecond / (rps('off')[n] ?? Number.NaN));
    const cpu = (mode: Mode) => median(modes[mode].map((round) => round.cpuMs ?? Number.NaN));
    const cpuRatio = cpu('off') / cpu('on');
    const throughputRatio = median(paired);
    rows.push([
      endpoint,
      rps('off')
        .map((value) => value.toFixed(0))
        .join(', '),
      rps('on')
        .map((value) => value.toFixed(0))
        .join(', '),
      `${(throughputRatio * 100).toFixed(1)}%`,
      `${cpu('off').toFixed(3)} / ${cpu('on').toFixed(3)}`,
      Number.isFinite(cpuRatio) ? `${(cpuRatio * 100).toFixed(1)}%` : 'n/a',
    ]);
    judged.push(
      Number.isFinite(cpuRatio)
        ? [endpoint, cpuRatio, 'CPU per answer, off / on']
        : [endpoint, throughputRatio, 'throughput, on / off'],
    );
  }
  printMarkdownTable(
    [
      'endpoint',
      'off req/s by round',
      'on req/s by round',
      'on / off req/s (median of pairs)',
      'server CPU ms/answer off / on',
      'off / on CPU',
    ],
    rows,
  );
  console.log('\nTargets (metrics):');
  return judged.map(([endpoint, ratio, how]) =>
    targetResult(
      `metrics cost <= 3% of throughput (${how}), ${endpoint}`,
      `${(ratio * 100).toFixed(1)}%`,
      ratio / METRICS_TARGET,
    ),
  );
}
