// Hostile input: what an invited investor's long answer and a fund's compression-bomb PDF cost the server, read
// as the latency of `/healthz` beside them. Each case runs `portico serve` (the checkout of BENCH_HOSTILE_ROOT,
// this one by default, so that an older checkout can be measured by the same file) on a fresh embedded data dir
// with the demo, polls `/healthz` from this process throughout, and ends by stopping the server with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { compressionBombPdf } from '../test/support/data/fund-pdf.ts';
import { freePort } from './startup.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';

const ROOT = resolve(process.env.BENCH_HOSTILE_ROOT ?? new URL('..', import.meta.url).pathname);
/** How long one request of a case may take before the bench gives up on its answer. */
const REQUEST_TIMEOUT_MS = Number(process.env.BENCH_HOSTILE_TIMEOUT_MS ?? 60_000);
/** How long a SIGTERM may take before the bench kills the server. */
const STOP_TIMEOUT_MS = 30_000;
/** `/healthz` is asked every this many milliseconds, one request at a time. */
const POLL_MS = 10;

export interface CaseResult {
  name: string;
  /** What the server answered to each step, with its time. */
  steps: { step: string; status: number | 'no answer'; ms: number }[];
  /** `/healthz` while the server was idle, before the case. */
  idle: Latencies;
  /** `/healthz` while the case's requests ran. */
  during: Latencies;
  /** From SIGTERM, sent while the case's heaviest request runs again, to the process's exit; `undefined` when it had to be killed. */
  stopMs: number | undefined;
}

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function latencies(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

interface Server {
  child: ChildProcess;
  url: string;
  dataDir: string;
  dispatcher: Agent;
  demo: { apiKey: string; senderEntityId: string; recipientUrl: string };
}

async function startServer(): Promise<Server> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-hostile-'));
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bin/portico.js'), 'serve'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORTICO_DATA_DIR: dataDir,
      PORTICO_TRANSACTIONS_PORT: String(port),
      PORTICO_PORTFOLIO_PORT: String(await freePort()),
      PORTICO_LOG_LEVEL: 'silent',
    },
  });
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, pipelining: 0 });
  const url = `https://127.0.0.1:${String(port)}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`portico serve exited with ${String(child.exitCode)}`);
    if (Date.now() - started > 120_000) throw new Error('portico serve did not start within 120 s');
    try {
      const facts = JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as {
        transactions: { apiKey: string; senderEntityId: string; recipientUrl: string };
      };
      const answer = await request(`${url}/healthz`, { dispatcher });
      await answer.body.dump();
      if (answer.statusCode === 200) return { child, url, dataDir, dispatcher, demo: facts.transactions };
    } catch {
      // not yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Stops the server with SIGTERM: the milliseconds it took, or undefined when it had to be killed. */
async function stopServer(server: Server): Promise<number | undefined> {
  const exited = once(server.child, 'exit');
  const started = performance.now();
  server.child.kill('SIGTERM');
  const killer = setTimeout(() => server.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  clearTimeout(killer);
  await server.dispatcher.close();
  await rm(server.dataDir, { recursive: true, force: true });
  return signal === 'SIGKILL' || code === null ? undefined : performance.now() - started;
}

/** `/healthz` asked over and over, one at a time, from this process, until `stop()`. */
function pollHealth(server: Server): { stop: () => Promise<number[]> } {
  const samples: number[] = [];
  const state = { running: true };
  const loop = (async () => {
    // Its own connection, so that the case's slow answers never queue a health check behind them.
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false }, connections: 1 });
    while (state.running) {
      const started = performance.now();
      try {
        const answer = await request(`${server.url}/healthz`, {
          dispatcher,
          headersTimeout: REQUEST_TIMEOUT_MS,
          bodyTimeout: REQUEST_TIMEOUT_MS,
        });
        await answer.body.dump();
      } catch {
        // A health check that got no answer counts with the time it waited.
      }
      samples.push(performance.now() - started);
      await new Promise((done) => setTimeout(done, POLL_MS));
    }
    await dispatcher.close();
  })();
  return {
    stop: async () => {
      state.running = false;
      await loop;
      return samples;
    },
  };
}

async function step(
  server: Server,
  name: string,
  url: string,
  options: { method?: 'GET' | 'PUT' | 'POST'; body?: string; headers?: Record<string, string> } = {},
): Promise<{ step: string; status: number | 'no answer'; ms: number; text: string }> {
  const started = performance.now();
  try {
    const answer = await request(url, {
      dispatcher: server.dispatcher,
      method: options.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const text = await answer.body.text();
    return { step: name, status: answer.statusCode, ms: performance.now() - started, text };
  } catch {
    return { step: name, status: 'no answer', ms: performance.now() - started, text: '' };
  }
}

/** Runs `attack` on a fresh server between an idle and a busy measure of `/healthz`, then stops it. */
async function runCase(
  name: string,
  attack: (server: Server) => Promise<{ steps: CaseResult['steps']; heaviest?: () => Promise<unknown> }>,
): Promise<CaseResult> {
  const server = await startServer();
  try {
    const idlePoll = pollHealth(server);
    await new Promise((done) => setTimeout(done, 2000));
    const idle = latencies(await idlePoll.stop());
    const busyPoll = pollHealth(server);
    const { steps, heaviest } = await attack(server);
    const during = latencies(await busyPoll.stop());
    // The heaviest request again, and SIGTERM while it runs: a stop must not wait for it.
    const again = heaviest?.();
    if (again !== undefined) await new Promise((done) => setTimeout(done, 300));
    const stopMs = await stopServer(server);
    await again;
    return { name, steps, idle, during, stopMs };
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

/** The investor's answer: the address, one word of `characters` letters, saved, then the agreement previewed. */
function hostileAnswer(characters: number) {
  return async (server: Server) => {
    const recipient = server.demo.recipientUrl.replace(/^.*\/r\//, `${server.url}/recipient/`);
    const data = {
      investorType: 'individual',
      legalName: 'Grace Hopper',
      email: 'grace@example.com',
      address: 'x'.repeat(characters),
    };
    const saved = await step(server, 'save', `${recipient}/items/investor_details`, {
      method: 'PUT',
      body: JSON.stringify({ data }),
    });
    const previewUrl = `${recipient}/documents/subscription_agreement/preview`;
    const preview = await step(server, 'preview', previewUrl);
    return {
      steps: [saved, preview].map(({ step: name, status, ms }) => ({ step: name, status, ms })),
      heaviest: () => step(server, 'preview', previewUrl),
    };
  };
}

const BOMB_TEMPLATE = (pdf: string) => `
key: bomb
name: Bomb
recipientRoles:
  - key: investor
    primary: true
  - key: countersigner
    sender: true
processes:
  - key: subscription
    title: Subscription
    items:
      - vulcanKey: investor_details
        title: About you
        schema:
          type: object
          properties:
            legalName: { type: string, title: Legal name }
    documents:
      - key: agreement
        title: Agreement
        signedBy: [investor, countersigner]
        agreement:
          pdf: ${pdf}
          fields:
            InvestorName: investor_details.legalName
          signatures:
            investor: { field: InvestorSignature }
            countersigner: { page: 2, x: 250, y: 525, width: 250, height: 40 }
workflow:
  initialState: in_progress
  states:
    - key: in_progress
      onEnter:
        - createProcess: subscription
    - key: completed
      final: true
  events:
    - key: complete
      from: [in_progress]
      to: completed
      guard: all_processes_complete
`;

/** The import of a template whose PDF is a bomb; then, if it was taken, a transaction's preview of it. */
function bombImport(bomb: Uint8Array) {
  return async (server: Server) => {
    const folder = await mkdtemp(join(tmpdir(), 'portico-bench-bomb-'));
    try {
      await writeFile(join(folder, 'bomb.pdf'), bomb);
      await writeFile(join(folder, 'bomb.yaml'), BOMB_TEMPLATE('bomb.pdf'));
      const started = performance.now();
      const cli = spawn(
        process.execPath,
        [
          join(ROOT, 'bin/portico.js'),
          'templates',
          'import',
          join(folder, 'bomb.yaml'),
          '--org',
          'demo-capital',
          '--json',
        ],
        {
          cwd: ROOT,
          env: { ...process.env, PORTICO_DATA_DIR: server.dataDir },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      cli.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const [code] = (await once(cli, 'exit')) as [number | null];
      const imported = { step: 'import', status: code === 0 ? 200 : 422, ms: performance.now() - started };
      if (code !== 0) return { steps: [imported] };
      const templateId = /"templateId":\s*"([^"]+)"/.exec(out)?.[1] ?? /"id":\s*"([^"]+)"/.exec(out)?.[1];
      const created = await step(server, 'create', `${server.url}/beta`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.demo.apiKey}` },
        body: JSON.stringify({
          query: `mutation ($input: CreateTransactionInput!) { createTransaction(input: $input) { transactionId } }`,
          variables: {
            input: {
              templateId,
              senderEntityId: server.demo.senderEntityId,
              noticeName: 'Grace Hopper',
              noticeEmail: 'grace@example.com',
            },
          },
        }),
      });
      const token = await mailedToken(server.dataDir);
      const previewUrl = `${server.url}/recipient/${token}/documents/agreement/preview`;
      const preview = await step(server, 'preview', previewUrl);
      return {
        steps: [imported, created, preview].map(({ step: name, status, ms }) => ({ step: name, status, ms })),
        heaviest: () => step(server, 'preview', previewUrl),
      };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  };
}

/** The recipient token of the newest invitation written to the data dir's mail folder. */
async function mailedToken(dataDir: string): Promise<string> {
  const started = Date.now();
  while (Date.now() - started < 30_000) {
    const mailDir = join(dataDir, 'mail');
    const names = (await readdir(mailDir).catch(() => [] as string[])).sort();
    for (const name of names.reverse()) {
      const text = (await readFile(join(mailDir, name), 'utf8')).replace(/=\r?\n/g, '');
      const token = /\/r\/([0-9a-f-]{36})/.exec(text)?.[1];
      if (token !== undefined && text.includes('Bomb')) return token;
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return 'no-invitation-found';
}

export async function benchHostileInput(settings: {
  answerCharacters: number[];
  bombMegabytes: number;
}): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const characters of settings.answerCharacters) {
    results.push(
      await runCase(
        `an answer of one ${characters.toLocaleString('en')}-character word`,
        hostileAnswer(characters),
      ),
    );
  }
  // Made before the case: compressing it holds this process's event loop, which would count as the server's.
  const bomb = await compressionBombPdf({ megabytes: settings.bombMegabytes, place: 'page content' });
  results.push(
    await runCase(`a fund PDF of ${settings.bombMegabytes} MB of inflated streams`, bombImport(bomb)),
  );
  return results;
}

/** The bounds: `/healthz` within 100 ms throughout, and a stop within the default shutdown timeout. */
export const HOSTILE_TARGETS = { healthzMs: 100, stopMs: 25_000 } as const;

/** One line per case, then its targets: `/healthz` during the case, and SIGTERM honoured. */
export function printHostileReport(results: CaseResult[]): TargetResult[] {
  const ms = (value: number) => value.toFixed(0);
  printMarkdownTable(
    [
      'case',
      'steps (status, ms)',
      '/healthz idle p50 / p99 / max (ms)',
      '/healthz during p50 / p99 / max (ms)',
      'during / idle max',
      'SIGTERM during the last step again, to exit (ms)',
    ],
    results.map((result) => [
      result.name,
      result.steps.map((s) => `${s.step} ${String(s.status)} in ${ms(s.ms)}`).join('; '),
      `${ms(result.idle.p50)} / ${ms(result.idle.p99)} / ${ms(result.idle.max)}`,
      `${ms(result.during.p50)} / ${ms(result.during.p99)} / ${ms(result.during.max)} (${String(result.during.count)} checks)`,
      `${(result.during.max / Math.max(1, result.idle.max)).toFixed(1)}×`,
      result.stopMs === undefined ? 'killed after 30 s' : ms(result.stopMs),
    ]),
  );
  console.log('\nTargets (hostile input):');
  return results.flatMap((result) => [
    targetResult(
      `/healthz within ${String(HOSTILE_TARGETS.healthzMs)} ms during ${result.name}`,
      `${result.during.max.toFixed(0)} ms at most`,
      HOSTILE_TARGETS.healthzMs / Math.max(1, result.during.max),
    ),
    targetResult(
      `SIGTERM honoured within ${String(HOSTILE_TARGETS.stopMs / 1000)} s during ${result.name}`,
      result.stopMs === undefined ? 'killed' : `${(result.stopMs / 1000).toFixed(1)} s`,
      result.stopMs === undefined ? 0 : HOSTILE_TARGETS.stopMs / Math.max(1, result.stopMs),
    ),
  ]);
}
