// Start-up: `npm start` (`node bin/portico.js serve`) to the first HTTPS answer, on a fresh data dir and on one
// initialised by an earlier start, in interleaved rounds, beside the floors of the initialised start
// (startup-floor.ts): a bare Node HTTPS server with the same certificate, and the same after PGlite alone opened
// the same data dir.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, printMarkdownTable, targetResult, verdict, type TargetResult } from './table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The targets, in seconds to the first answer (medians). */
export const STARTUP_TARGETS = { fresh: 4, initialised: 1.5 } as const;

export type StartupCase = keyof typeof STARTUP_TARGETS;

/**
 * The floors of a start on the initialised data dir, timed the same way: `https`, a bare Node HTTPS server with
 * the data dir's certificate; `pglite`, the same once it has opened the data dir's embedded database alone, as
 * Portico opens it. What Portico takes beyond `pglite` is its own: modules, apps, workers.
 */
export type StartupFloor = 'https' | 'pglite';

const FLOOR_NAMES: Record<StartupFloor, string> = {
  https: 'bare Node HTTPS server, same certificate',
  pglite: 'PGlite alone opens the data dir, then the same server',
};

export interface StartupReport {
  runs: number;
  /** Seconds to the first answer of each run, in the order run. */
  seconds: Record<StartupCase, number[]>;
  /** Seconds to the first answer of each floor's run, in the order run. */
  floors: Record<StartupFloor, number[]>;
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Whether an HTTPS server on `port` of loopback answers `/healthz` at all, within a second. */
export function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: 1000 },
      (res) => {
        res.resume();
        resolve(true);
      },
    );
    req.on('error', () => {
      resolve(false);
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

/**
 * Seconds from spawning `portico serve` (or the floor `floor`) on `dataDir` to its first HTTPS answer; stops it
 * before answering.
 */
async function timeStart(dataDir: string, timeoutSeconds: number, floor?: StartupFloor): Promise<number> {
  const [transactionsPort, portfolioPort] = [await freePort(), await freePort()];
  // The floors run without tsx, and PGlite's with the tiering budget bin/portico.js sets.
  const args =
    floor === undefined
      ? ['bin/portico.js', 'serve']
      : ['--wasm-tiering-budget=18000000', 'bench/startup-floor.ts', floor];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORTICO_DATA_DIR: dataDir,
      PORTICO_TRANSACTIONS_PORT: String(transactionsPort),
      PORTICO_PORTFOLIO_PORT: String(portfolioPort),
      PORTICO_LOG_LEVEL: 'silent',
    },
  });
  const exited = once(child, 'exit');
  try {
    for (;;) {
      const what = floor === undefined ? 'portico serve' : `the ${floor} floor`;
      if (child.exitCode !== null) throw new Error(`${what} exited with ${String(child.exitCode)}`);
      if (await answers(transactionsPort)) return (performance.now() - started) / 1000;
      if (performance.now() - started > timeoutSeconds * 1000) throw new Error(`${what} did not answer`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    // Once it has printed its banner it stops on SIGTERM; before that SIGTERM ends it at once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * `runs` interleaved rounds: a start on a fresh data dir, then one on a data dir an earlier start initialised
 * (made by one start before the rounds), then each floor on that data dir.
 */
export async function benchStartup(runs: number): Promise<StartupReport> {
  const base = await mkdtemp(join(tmpdir(), 'portico-bench-startup-'));
  const seconds: StartupReport['seconds'] = { fresh: [], initialised: [] };
  const floors: StartupReport['floors'] = { https: [], pglite: [] };
  try {
    const initialised = join(base, 'initialised');
    await timeStart(initialised, 60);
    for (let round = 0; round < runs; round++) {
      const fresh = join(base, `fresh-${String(round)}`);
      seconds.fresh.push(await timeStart(fresh, 60));
      await rm(fresh, { recursive: true, force: true });
      seconds.initialised.push(await timeStart(initialised, 60));
      for (const floor of ['https', 'pglite'] as const)
        floors[floor].push(await timeStart(initialised, 60, floor));
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  return { runs, seconds, floors };
}

/** One line per case: the runs, their median, the target and the verdict. */
export function printStartupReport(report: StartupReport): TargetResult[] {
  console.log('\n| data dir | runs (s) | median (s) | target (s) | verdict |');
  console.log('|---|---|---|---|---|');
  for (const name of ['fresh', 'initialised'] as const) {
    const values = report.seconds[name];
    const value = median(values);
    const target = STARTUP_TARGETS[name];
    console.log(
      `| ${name} | ${values.map((s) => s.toFixed(2)).join(', ')} | ${value.toFixed(2)} | < ${target} | ${verdict(value < target)} |`,
    );
  }
  // The initialised start beside its floors: what Portico's own work costs above them.
  const initialised = median(report.seconds.initialised);
  printMarkdownTable(
    ['initialised data dir, to the first HTTPS answer', 'runs (s)', 'median (s)', 'Portico / it'],
    [
      ...(['https', 'pglite'] as const).map((floor) => {
        const values = report.floors[floor];
        const value = median(values);
        return [
          FLOOR_NAMES[floor],
          values.map((s) => s.toFixed(2)).join(', '),
          value.toFixed(2),
          `${(initialised / value).toFixed(2)}x`,
        ];
      }),
      [
        'Portico (`npm start`)',
        report.seconds.initialised.map((s) => s.toFixed(2)).join(', '),
        initialised.toFixed(2),
        '1.00x',
      ],
    ],
  );
  console.log(
    `Portico above the PGlite floor: ${(initialised - median(report.floors.pglite)).toFixed(2)} s (modules, ` +
      'the apps, the workers, the checks of the data dir)',
  );
  console.log('\nTargets (start-up):');
  return (['fresh', 'initialised'] as const).map((name) => {
    const value = median(report.seconds[name]);
    return targetResult(
      `npm start to the first HTTPS answer < ${STARTUP_TARGETS[name]} s, ${name} data dir (median of ${report.runs})`,
      `${value.toFixed(2)} s`,
      STARTUP_TARGETS[name] / value,
    );
  });
}
