// `portico serve` in a process of its own, as an operator runs it: what the metrics suite and the served suite
// measure (their peers: the same requests to another process, or to another checkout's).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TransactionsDemo } from '../src/demo/seed.ts';
import { BENCH_DATABASE_URL } from './database.ts';
import { answers, freePort } from './startup.ts';

/** This checkout. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Server {
  pid: number | undefined;
  transactionsPort: number;
  portfolioPort: number;
  metricsPort: number | undefined;
  dataDir: string;
  stop(): Promise<void>;
}

/** A per-minute limit that counts every request, as the default of 6,000 does, and that no load reaches. */
const UNREACHED_LIMIT = '1000000000';

/**
 * `portico serve` of the checkout at `root` (this one by default) in a process of its own, without a webhook
 * worker, once it answers. Its rate limits are off, or (`rateLimits: 'counting'`, as a deployment runs) count
 * every request against a limit the load never reaches.
 */
export async function startServer(options: {
  dataDir: string;
  metrics: boolean;
  databaseUrl: string | undefined;
  demo: boolean;
  root?: string;
  rateLimits?: 'off' | 'counting';
}): Promise<Server> {
  const limit = options.rateLimits === 'counting' ? UNREACHED_LIMIT : '0';
  const [transactionsPort, portfolioPort] = [await freePort(), await freePort()];
  const metricsPort = options.metrics ? await freePort() : undefined;
  // Both listen before the banner, Portfolio last.
  const { pid, stop } = await spawnAnswering(
    ['bin/portico.js', 'serve', ...(options.demo ? ['--demo'] : ['--no-demo'])],
    {
      what: 'portico serve',
      cwd: options.root ?? ROOT,
      port: portfolioPort,
      timeoutMs: 120_000,
      env: {
        ...process.env,
        PORTICO_DATA_DIR: options.dataDir,
        PORTICO_TRANSACTIONS_PORT: String(transactionsPort),
        PORTICO_PORTFOLIO_PORT: String(portfolioPort),
        PORTICO_LOG_LEVEL: 'silent',
        PORTICO_RATE_LIMIT: limit,
        PORTICO_RATE_LIMIT_PER_ADDRESS: limit,
        PORTICO_WEBHOOK_WORKER: 'off',
        // Two nodes on one PostgreSQL schema, each with files of its own: a node refuses that unless told (the
        // requests measured read no file).
        PORTICO_FILE_STORAGE: 'local',
        ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
        ...(metricsPort === undefined ? {} : { PORTICO_METRICS_PORT: String(metricsPort) }),
      },
    },
  );
  return { pid, transactionsPort, portfolioPort, metricsPort, dataDir: options.dataDir, stop };
}

/**
 * `node <args>` in a process of its own, once it answers HTTPS on `port` (stopped, and an error, when it exits
 * or does not answer within `timeoutMs`), and how to stop it.
 */
export async function spawnAnswering(
  args: string[],
  options: { what: string; cwd: string; port: number; timeoutMs: number; env: NodeJS.ProcessEnv },
): Promise<{ pid: number | undefined; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: options.cwd,
    stdio: 'ignore',
    env: options.env,
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  const started = performance.now();
  try {
    while (!(await answers(options.port))) {
      if (child.exitCode !== null) throw new Error(`${options.what} exited with ${String(child.exitCode)}`);
      if (performance.now() - started > options.timeoutMs) {
        throw new Error(`${options.what} did not answer in ${String(options.timeoutMs / 1000)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid: child.pid, stop };
}

/** The demo's facts a served process wrote into its data dir. */
export interface ServedDemoFacts {
  transactions: TransactionsDemo;
  portfolio: { apiKey: string };
}

/**
 * The demo's facts of a served process: `serve` writes them after it listens, so they are waited for (up to 60 s)
 * once it answers.
 */
export async function demoFactsOf(dataDir: string): Promise<ServedDemoFacts> {
  const started = performance.now();
  for (;;) {
    try {
      return JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as ServedDemoFacts;
    } catch (error) {
      // Not yet written, or written part way.
      if (performance.now() - started > 60_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * A schema of its own on BENCH_DATABASE_URL (dropped by `defer`'s cleanup), and the URL a served process reaches
 * it with (`options=-c search_path=…`).
 */
export async function servedSchema(
  name: string,
  defer: (cleanup: () => Promise<unknown>) => void,
): Promise<string> {
  const run = async (sql: string) => {
    const admin = new pg.Client({ connectionString: BENCH_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await run(`drop schema if exists ${name} cascade; create schema ${name}`);
  defer(() => run(`drop schema if exists ${name} cascade`));
  const url = new URL(BENCH_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return url.toString();
}

/**
 * CPU time a process has used, in ms (utime + stime of /proc/<pid>/stat, ticks of 10 ms); undefined off Linux.
 * On a busy machine this is the steadier measure: throughput moves with everything else that runs, while the CPU
 * an answer costs the server moves little.
 */
export function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
  } catch {
    return undefined;
  }
}
