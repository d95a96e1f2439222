import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';
import type { Database } from '../../src/db/database.ts';
import { demoFactsPath, type DemoFacts } from '../../src/demo/demo-facts.ts';
import { createTestDatabase, type TestDatabase } from './db/database.ts';
import { request } from './http-client.ts';

/** The repository root, where `bin/portico.js` is. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Any free ports for both services. */
export const PORTS = { PORTICO_TRANSACTIONS_PORT: '0', PORTICO_PORTFOLIO_PORT: '0' };

/** How a run of `portico` ended and what it wrote: `code` is null for a process killed on its time-out. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `portico <args>` in this process, as `bin/portico.js` runs it in its own: the same program, the same exit
 * codes and the same `portico: <message>` on stderr, but no Node start-up and nothing exits. The environment is
 * `env` alone (no variable of this process leaks in), with `PORTICO_LOG_LEVEL=silent` and a data dir of the
 * worker's own ({@link scratchDataDir}) unless it says otherwise.
 * With `database`, commands that would open the configured database use that one instead, and leave it open: a
 * test file's own database (see `createTestDatabase`), so that no command boots one.
 *
 * @example
 * const ran = await runPortico(['org', 'create', '--handle', handle, '--name', 'Acme'], { database: db });
 * expect(ran).toMatchObject({ code: 0, stderr: '' });
 */
export async function runPortico(
  args: string[],
  options: { env?: Record<string, string>; database?: Database } = {},
): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const { database } = options;
  const code = await runCli(
    args,
    {
      env: { PORTICO_LOG_LEVEL: 'silent', PORTICO_DATA_DIR: scratchDataDir(), ...options.env },
      out: (text) => (stdout += `${text}\n`),
      err: (text) => (stderr += `${text}\n`),
      ...(database && {
        openDatabase: () =>
          Promise.resolve({
            db: database,
            applied: [],
            announce: () => Promise.resolve(),
            close: () => Promise.resolve(),
          }),
      }),
    },
    { from: 'user' },
  );
  return { code, stdout, stderr };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let scratch: string | undefined;
/**
 * The data dir of a CLI run that names none: one of this test worker's own, never `./.portico`, where `npm start`
 * may be serving the demo (a command would reach its admin socket and write into its database).
 */
export function scratchDataDir(): string {
  if (scratch === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'portico-cli-'));
    process.once('exit', () => {
      rmSync(made, { recursive: true, force: true });
    });
    scratch = made;
  }
  return scratch;
}

/**
 * The environment of a CLI run: this process's, without any Portico setting or database connection setting
 * (DATABASE_URL, PGOPTIONS), with a data dir of the worker's own ({@link scratchDataDir}), plus `env`.
 */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PORTICO_') && name !== 'DATABASE_URL' && name !== 'PGOPTIONS',
    ),
  );
  return { ...inherited, PORTICO_LOG_LEVEL: 'silent', PORTICO_DATA_DIR: scratchDataDir(), ...env };
}

/**
 * A database of the calling test file's own for in-process runs (made before its tests, closed after them), and
 * `portico` to run commands on it.
 */
export function cliOnTestDatabase(): {
  database: () => Database;
  portico: (args: string[], env?: Record<string, string>) => Promise<Ran>;
} {
  let test: TestDatabase | undefined;
  beforeAll(async () => {
    test = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await test?.close();
  });
  const database = () => {
    if (!test) throw new Error('the test database is made before the tests run');
    return test.db;
  };
  return { database, portico: (args, env = {}) => runPortico(args, { env, database: database() }) };
}

/** Starts `portico <args>` and leaves it running. */
export function launch(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['bin/portico.js', ...args], {
    cwd: ROOT,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs `portico <args>` in a process of its own to its end (killed after `timeoutMs`, then `code` is null): for
 * tests of the process boundary; others use `runPortico`.
 */
export function spawnPortico(args: string[], env: Record<string, string>, timeoutMs = 25_000): Promise<Ran> {
  const child = launch(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * How a process ended, once it has and the output a test reads from it has arrived (rejects after `timeoutMs`).
 * Node emits 'exit' before the last of a process's output has come through its pipes, so a test that read the
 * output at 'exit' could miss the line written just before `process.exit`.
 */
export async function exited(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`process ${child.pid ?? '?'} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const exit = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else
      child.once('exit', () => {
        resolve();
      });
  });
  // The pipes someone reads (a 'data' listener makes them flow): read to their end.
  const read = [child.stdout, child.stderr].map((stream) =>
    stream === null || stream.readableFlowing !== true || stream.readableEnded || stream.destroyed
      ? undefined
      : new Promise<void>((resolve) => {
          stream.once('end', resolve);
          stream.once('close', resolve);
        }),
  );
  try {
    await Promise.race([Promise.all([exit, ...read]), deadline]);
  } finally {
    clearTimeout(timer);
  }
  return { code: child.exitCode, signal: child.signalCode };
}

export interface RunningServer {
  process: ChildProcess;
  facts: DemoFacts;
  /** The CA certificate that the services' certificate chains to. */
  ca: string;
  /** What the server printed so far (its banner). */
  stdout(): string;
  /** Stops the server (SIGTERM, then SIGKILL if it lingers). */
  stop(): Promise<void>;
}

/**
 * Starts `portico serve` on a data dir and waits until both services answer and the banner is printed (demo.json
 * is written by then).
 */
export async function startServer(
  env: Record<string, string> & { PORTICO_DATA_DIR: string },
): Promise<RunningServer> {
  const server = launch(['serve'], env);
  let stdout = '';
  let stderr = '';
  server.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  server.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const deadline = Date.now() + 80_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`portico serve exited early: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`portico serve did not start: ${stderr}`);
    // Looked at before demo.json is read: a restart finds the last start's there until its banner is printed.
    const printed = stdout.includes('Portico is running');
    try {
      const facts = JSON.parse(await readFile(demoFactsPath(env.PORTICO_DATA_DIR), 'utf8')) as DemoFacts;
      const ca = await readFile(facts.caCertPath, 'utf8');
      const answers = await Promise.all(
        [facts.transactions.url, facts.portfolio.url].map((url) => request(new URL('/healthz', url), { ca })),
      );
      if (printed && answers.every((answer) => answer.status === 200)) {
        return {
          process: server,
          facts,
          ca,
          stdout: () => stdout,
          async stop() {
            if (server.exitCode !== null || server.signalCode !== null) return;
            server.kill('SIGTERM');
            await exited(server, 15_000).catch(() => server.kill('SIGKILL'));
          },
        };
      }
    } catch {
      // Not written or not listening yet.
    }
    await sleep(200);
  }
}

/**
 * The arguments of `portico keys issue` for the organization `handle`: a key of `environment` delivered to
 * each of `emails`, printed as JSON when `json` is true, with any `extra` arguments at the end.
 */
export function keysIssueArgs(
  handle: string,
  options: { environment: string; emails: string[]; json?: boolean; extra?: string[] },
): string[] {
  return [
    'keys',
    'issue',
    '--org',
    handle,
    '--environment',
    options.environment,
    ...options.emails.flatMap((email) => ['--email', email]),
    ...(options.json === true ? ['--json'] : []),
    ...(options.extra ?? []),
  ];
}
