// How `portico serve` stops, as a supervisor stops it: `npm start` (what the README runs) and `node
// bin/portico.js serve` (what the systemd unit runs) in processes of their own on an embedded database, sent
// SIGTERM while a request is in flight. The request is held open by sending its body slowly, over real TLS.
// And the order of the steps of a stop, from serve()'s own log in this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { serve } from '../../src/serve.ts';
import { cliEnv, exited, launch, ROOT, sleep } from '../support/cli.ts';
import { request } from '../support/http-client.ts';
import { seedEmbeddedDatabase } from '../support/db/pglite-template.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map((child) => exited(child, 10_000).catch(() => undefined)));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function settings(extra: Record<string, string>): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-stop-'));
  dirs.push(dir);
  return {
    PORTICO_DATA_DIR: dir,
    PORTICO_TRANSACTIONS_PORT: '0',
    PORTICO_PORTFOLIO_PORT: '0',
    PORTICO_LOG_LEVEL: 'info',
    ...extra,
  };
}

/** A started server: its Node process id, the Transactions port, and what it wrote. */
interface Started {
  pid: number;
  port: number;
  output: () => string;
}

/** Resolves once the process has logged that Portico is running; rejects if it exits first, or after 100 s. */
async function running(child: ChildProcess): Promise<Started> {
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const deadline = Date.now() + 100_000;
  while (!output.includes('Portico is running')) {
    if (child.exitCode !== null) throw new Error(`the server exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
    await sleep(50);
  }
  const line = output.split('\n').find((text) => text.includes('"service":"transactions"'));
  const pid = /"pid":(\d+)/.exec(line ?? '')?.[1];
  const port = /Server listening at https:\/\/[^"]*:(\d+)"/.exec(output)?.[1];
  if (pid === undefined || port === undefined) throw new Error(`no pid or port in:\n${output}`);
  return { pid: Number(pid), port: Number(port), output: () => output };
}

/**
 * A GraphQL request whose body is sent in two halves: in flight between them. `finish` sends the rest and
 * resolves with the status line of the answer.
 */
async function heldRequest(port: number): Promise<{ finish: () => Promise<string>; socket: TLSSocket }> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  await new Promise((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  const body = JSON.stringify({ query: '{ __typename }' });
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /beta HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${String(body.length)}\r\n\r\n${body.slice(0, half)}`,
  );
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  // Written once the server has read the headers and waits for the body.
  await sleep(200);
  return {
    socket,
    async finish() {
      socket.write(body.slice(half));
      const deadline = Date.now() + 10_000;
      while (!answer.includes('\r\n')) {
        if (Date.now() > deadline) throw new Error('no answer to the held request');
        await sleep(20);
      }
      return answer.split('\r\n')[0] ?? '';
    },
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('stopping portico serve', () => {
  // Each test starts servers of its own (about 2 s each on a quiet machine, far more on a busy one).
  vi.setConfig({ testTimeout: 120_000 });
  it('npm start hands SIGTERM to Portico, which drops readiness, finishes the request in flight and exits 0', async () => {
    const env = await settings({ PORTICO_SHUTDOWN_DELAY: '1' });
    const npm = spawn('npm', ['start', '--silent', '--', '--no-demo'], {
      cwd: ROOT,
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = await running(npm);
    // `exec`: npm's child is Portico's Node itself, not a shell that would keep the signal from it.
    expect(server.pid).not.toBe(npm.pid);
    const held = await heldRequest(server.port);

    const ca = await readFile(join(env.PORTICO_DATA_DIR ?? '', 'tls/localhost-cert.pem'), 'utf8');
    const readiness = () =>
      request(`https://127.0.0.1:${String(server.port)}/readyz`, { ca }).then((answer) => answer.text);
    expect(JSON.parse(await readiness())).toMatchObject({ status: 'ok' });

    npm.kill('SIGTERM');
    // Readiness drops at once (once the signal has gone through npm), for the delay before the services close.
    let ready = await readiness();
    for (let tries = 0; ready !== '{"status":"draining"}' && tries < 20; tries += 1) {
      await sleep(25);
      ready = await readiness();
    }
    expect(ready).toBe('{"status":"draining"}');
    expect(await held.finish()).toMatch(/^HTTP\/1\.1 (200|401)/);
    expect(await exited(npm, 20_000)).toEqual({ code: 0, signal: null });
    expect(alive(server.pid)).toBe(false);
    expect(server.output()).toContain('"msg":"stopped"');
  });

  it('closes the services before it stops the webhook worker, whose claimed deliveries do not keep the node accepting, and closes the database last', async () => {
    const { PORTICO_DATA_DIR: dataDir = '' } = await settings({});
    await seedEmbeddedDatabase(dataDir);
    const logged: { msg?: string; step?: string }[] = [];
    const logger = createLogger('debug', {
      write: (line: string) => {
        logged.push(JSON.parse(line) as { msg?: string; step?: string });
      },
    });
    const config = loadConfig({}, { dataDir, transactionsPort: '0', portfolioPort: '0', logLevel: 'debug' });
    expect(config.webhookWorker).toBe('in-process');
    const running = await serve(config, { logger, print: () => undefined, demo: false });
    await running.close();

    const steps = logged.filter((entry) => entry.msg === 'stopping').map((entry) => entry.step);
    expect(steps).toContain('the webhook worker');
    expect(steps.indexOf('requests in flight')).toBeLessThan(steps.indexOf('the webhook worker'));
    expect(steps.at(-1)).toBe('the database');
  });

  it('exits 1 naming what was still running when the stop takes longer than PORTICO_SHUTDOWN_TIMEOUT, and at once on a second signal', async () => {
    // Each process named as it is launched: which of two starting at once is listed first is chance.
    const [slowEnv, impatientEnv] = await Promise.all([
      settings({ PORTICO_SHUTDOWN_TIMEOUT: '1' }),
      settings({}),
    ]);
    const slowChild = launch(['serve', '--no-demo'], slowEnv);
    const impatientChild = launch(['serve', '--no-demo'], impatientEnv);
    const [slow, impatient] = await Promise.all([running(slowChild), running(impatientChild)]);
    const heldSlow = await heldRequest(slow.port);
    const heldImpatient = await heldRequest(impatient.port);

    const stoppedAt = Date.now();
    slowChild.kill('SIGTERM');
    impatientChild.kill('SIGTERM');
    // The second signal once the first has started the stop (two sent at once could arrive as one).
    while (!impatient.output().includes('shutting down')) await sleep(20);
    impatientChild.kill('SIGTERM');
    // Held by its request in flight, it would wait out PORTICO_SHUTDOWN_TIMEOUT (25 s): the second signal ends it.
    expect(await exited(impatientChild, 15_000)).toEqual({ code: 1, signal: null });
    expect(impatient.output(), impatient.output()).toContain('stopping at once, on a second signal');
    expect(impatient.output()).not.toContain('did not finish in time');

    expect(await exited(slowChild, 10_000)).toEqual({ code: 1, signal: null });
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1_000);
    expect(slow.output()).toMatch(/"still":"requests in flight \(transactions\)".*did not finish in time/);
    heldSlow.socket.destroy();
    heldImpatient.socket.destroy();
  });
});
