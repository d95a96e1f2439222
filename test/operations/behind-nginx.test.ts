// Kept as one file: one deployment (two nodes, a worker, nginx, PostgreSQL, Redis, S3) that each test uses.
// Portico scaled out as docs/operations.md says to run it: two `portico serve` nodes and a `portico worker`, as
// processes of their own, on one PostgreSQL (a schema of this file's own), with Redis for the rate-limit counters
// and an S3-compatible server (s3rver, in this process) for files, behind Debian's nginx running
// docs/examples/nginx.conf as it is, with only its addresses, ports and certificate replaced.
//
// PostgreSQL only (several processes share the database), and only where nginx is installed (.ci/run installs it).
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it, vi } from 'vitest';
import { demoFactsPath, type DemoFacts } from '../../src/demo/demo-facts.ts';
import { exited, launch, ROOT, sleep, spawnPortico } from '../support/cli.ts';
import { createTestSchema, TEST_DATABASE_URL } from '../support/db/database.ts';
import { request, type HttpAnswer, type RequestOptions } from '../support/http-client.ts';
import { madeBeforeAll, type CloseAfterAll } from '../support/made-before-all.ts';
import { SERVER, startOtlpReceiver } from '../support/peers/otlp-receiver.ts';
import { startS3Server, S3RVER_CREDENTIALS } from '../support/peers/s3.ts';
import { multipartBody } from '../support/data/uploads.ts';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
const TRANSACTIONS_HOST = 'transactions.example.com';
const PORTFOLIO_HOST = 'portfolio.example.com';

/** A port nothing listens on now, for nginx's configuration (which cannot take port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A `portico` process: what it printed, and the ports its services listen on once they do. */
interface Node {
  process: ChildProcess;
  output: () => string;
  ports: { transactions: number; portfolio: number };
  /** Where Prometheus scrapes the node (`PORTICO_METRICS_PORT`). */
  metricsUrl: string;
}

/** The metrics address a process logged as it started (`"url"` of `metrics listening`, or the worker's `"metrics"`). */
function metricsUrlOf(output: string): string | undefined {
  return /"(?:url|metrics)":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(output)?.[1];
}

/** Resolves once `ready(output)` holds; rejects when the process exits first or after 100 s. */
async function started(child: ChildProcess, ready: (output: string) => boolean): Promise<() => string> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const deadline = Date.now() + 100_000;
  while (!ready(output)) {
    if (child.exitCode !== null) throw new Error(`the process exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the process did not start:\n${output}`);
    await sleep(50);
  }
  return () => output;
}

/** The port a service logged it listens on (`"service":"transactions",…"Server listening at https://…:PORT"`). */
function listeningPort(output: string, service: string): number | undefined {
  const line = output
    .split('\n')
    .find((text) => text.includes(`"service":"${service}"`) && text.includes('Server listening at'));
  const port = line && /:(\d+)"/.exec(line)?.[1];
  return port ? Number(port) : undefined;
}

async function startNode(args: string[], env: Record<string, string>): Promise<Node> {
  const child = launch(args, env);
  const output = await started(
    child,
    (text) =>
      listeningPort(text, 'transactions') !== undefined &&
      listeningPort(text, 'portfolio') !== undefined &&
      metricsUrlOf(text) !== undefined,
  );
  return {
    process: child,
    output,
    ports: {
      transactions: listeningPort(output(), 'transactions') ?? 0,
      portfolio: listeningPort(output(), 'portfolio') ?? 0,
    },
    metricsUrl: metricsUrlOf(output()) ?? '',
  };
}

/** A self-signed certificate for both public hostnames, which nginx presents: written into `dir`. */
async function publicCertificate(dir: string): Promise<{ cert: string; certPath: string; keyPath: string }> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: TRANSACTIONS_HOST }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: TRANSACTIONS_HOST },
          { type: 2, value: PORTFOLIO_HOST },
        ],
      },
    ],
  });
  const certPath = join(dir, 'public-cert.pem');
  const keyPath = join(dir, 'public-key.pem');
  await writeFile(certPath, pems.cert);
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  return { cert: pems.cert, certPath, keyPath };
}

/** docs/examples/nginx.conf with this deployment's nodes, port and certificate, in a configuration of its own. */
async function nginxConfig(
  dir: string,
  options: { https: number; http: number; nodes: Node[]; cert: string; key: string; down?: Node },
): Promise<string> {
  let example = await readFile(join(ROOT, 'docs/examples/nginx.conf'), 'utf8');
  const [first, second] = options.nodes;
  if (!first || !second) throw new Error('two nodes');
  const replacements: [string, string][] = [
    ['10.0.0.11:4000', `127.0.0.1:${first.ports.transactions}`],
    ['10.0.0.12:4000', `127.0.0.1:${second.ports.transactions}`],
    ['10.0.0.11:4001', `127.0.0.1:${first.ports.portfolio}`],
    ['10.0.0.12:4001', `127.0.0.1:${second.ports.portfolio}`],
    ['listen 443 ssl;', `listen 127.0.0.1:${options.https} ssl;`],
    ['listen 80;', `listen 127.0.0.1:${options.http};`],
    ['/etc/ssl/portico/fullchain.pem', options.cert],
    ['/etc/ssl/portico/privkey.pem', options.key],
  ];
  for (const [from, to] of replacements) {
    expect(example, `the example holds ${from}`).toContain(from);
    example = example.replaceAll(from, to);
  }
  // A node taken out (docs/operations.md, "Taking a node out"): its `server` lines marked `down`.
  for (const port of options.down ? [options.down.ports.transactions, options.down.ports.portfolio] : []) {
    const line = `server 127.0.0.1:${String(port)} `;
    expect(example).toContain(line);
    example = example.replace(line, `${line}down `);
  }
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
    (kind) => `${kind}_temp_path ${join(dir, kind)};`,
  );
  return [
    // nginx started by root switches its workers to `nobody`, who could not read this test's directory.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    'events { worker_connections 512; }',
    'http {',
    '  access_log off;',
    ...temp.map((line) => `  ${line}`),
    // Which node answered: how the tests see the load shared, and a stopped node left alone.
    '  add_header X-Portico-Node $upstream_addr always;',
    example,
    '}',
  ].join('\n');
}

/** The deployment: started before the tests, stopped after them. */
async function deploy(closeAfterAll: CloseAfterAll) {
  if (TEST_DATABASE_URL === undefined || NGINX === undefined)
    throw new Error('PostgreSQL and nginx are needed');
  const { options, drop } = await createTestSchema(TEST_DATABASE_URL);
  closeAfterAll(drop);
  const s3 = await startS3Server();
  closeAfterAll(() => s3.close());
  // Where the nodes export their spans (OTLP/HTTP), as they would to an OpenTelemetry Collector.
  const otlp = await startOtlpReceiver();
  closeAfterAll(() => otlp.close());
  const dir = await mkdtemp(join(tmpdir(), 'portico-nginx-'));
  closeAfterAll(() => rm(dir, { recursive: true, force: true }));
  const processes: ChildProcess[] = [];
  // nginx's master stops its workers on SIGTERM; killed, it would leave them serving its ports.
  const stoppedBySigterm = new WeakSet<ChildProcess>();
  closeAfterAll(async () => {
    for (const child of processes) child.kill(stoppedBySigterm.has(child) ? 'SIGTERM' : 'SIGKILL');
    await Promise.all(processes.map((child) => exited(child, 10_000).catch(() => child.kill('SIGKILL'))));
  });
  const https = await freePort();
  const common = {
    DATABASE_URL: TEST_DATABASE_URL,
    PGOPTIONS: options,
    PORTICO_TRANSACTIONS_PORT: '0',
    PORTICO_PORTFOLIO_PORT: '0',
    PORTICO_TRUST_PROXY: 'true',
    PORTICO_TRANSACTIONS_URL: `https://${TRANSACTIONS_HOST}:${https}`,
    PORTICO_PORTFOLIO_URL: `https://${PORTFOLIO_HOST}:${https}`,
    PORTICO_REDIS_URL: 'redis://127.0.0.1:6379',
    // A prefix of this run's own: its counters never meet another run's (or another file's) in the shared Redis.
    PORTICO_REDIS_PREFIX: `portico-nginx-${randomBytes(4).toString('hex')}:`,
    // Each process serves Prometheus metrics on a port of its own (logged as it starts).
    PORTICO_METRICS_PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    // Spans leave within 20 ms of ending rather than the SDK's default 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '20',
    PORTICO_S3_ENDPOINT: s3.endpoint,
    PORTICO_S3_BUCKET: s3.bucket,
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    PORTICO_WEBHOOK_WORKER: 'off',
    PORTICO_LOG_LEVEL: 'info',
  };
  const dataDir = async (name: string) => {
    const made = join(dir, name);
    await mkdir(made);
    return made;
  };
  // The first node migrates the database and seeds the demo; the second and the worker start on it after.
  const firstDir = await dataDir('first');
  const first = await startNode(['serve', '--demo'], { ...common, PORTICO_DATA_DIR: firstDir });
  processes.push(first.process);
  const [second, worker] = await Promise.all([
    startNode(['serve', '--no-demo'], {
      ...common,
      PORTICO_DATA_DIR: await dataDir('second'),
      // Long enough for the test to see /readyz answer 503 while it still serves.
      PORTICO_SHUTDOWN_DELAY: '1',
    }),
    (async () => {
      const child = launch(['worker'], { ...common, PORTICO_DATA_DIR: await dataDir('worker') });
      processes.push(child);
      const output = await started(child, (text) => text.includes('webhook worker started'));
      return { process: child, metricsUrl: metricsUrlOf(output()) ?? '' };
    })(),
  ]);
  processes.push(second.process);
  // Enough to show the refusal: with the nodes above live, this one would keep its files in its data dir.
  const localOnly = Object.fromEntries(
    Object.entries(common).filter(([name]) => !['PORTICO_S3_ENDPOINT', 'PORTICO_S3_BUCKET'].includes(name)),
  );
  let facts: DemoFacts | undefined;
  while (facts === undefined) {
    facts = await readFile(demoFactsPath(firstDir), 'utf8').then(
      (text) => JSON.parse(text) as DemoFacts,
      () => undefined,
    );
    if (facts === undefined) await sleep(50);
  }

  const tls = await publicCertificate(dir);
  const conf = join(dir, 'nginx.conf');
  const http = await freePort();
  const configure = async (down?: Node) => {
    await writeFile(
      conf,
      await nginxConfig(dir, {
        https,
        http,
        nodes: [first, second],
        cert: tls.certPath,
        key: tls.keyPath,
        ...(down ? { down } : {}),
      }),
    );
  };
  await configure();
  const nginx = spawn(NGINX, ['-p', dir, '-c', conf, '-e', 'stderr', '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  processes.push(nginx);
  stoppedBySigterm.add(nginx);
  let nginxOutput = '';
  nginx.stderr.on('data', (chunk: Buffer) => (nginxOutput += chunk.toString('utf8')));
  const ca = tls.cert;
  const health = () =>
    request(`https://127.0.0.1:${https}/healthz`, { ca, headers: { host: TRANSACTIONS_HOST } }).then(
      (answer) => answer.status,
      () => 0,
    );
  while ((await health()) !== 200) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited:\n${nginxOutput}`);
    await sleep(50);
  }
  /** Marks `node` down and reloads nginx (`nginx -s reload` is the master's SIGHUP). */
  const takeOut = async (node: Node) => {
    await configure(node);
    nginx.kill('SIGHUP');
  };
  return { first, second, worker, facts, ca, https, nginx, localOnly, dataDir, otlp, takeOut };
}

describe.skipIf(TEST_DATABASE_URL === undefined || NGINX === undefined)('behind nginx', () => {
  // Three processes start on one database (the first migrates it and seeds the demo).
  vi.setConfig({ hookTimeout: 240_000 });
  const world = madeBeforeAll('two nodes, a worker and nginx', deploy);

  /** A request to a service through nginx, by its hostname. */
  const viaNginx = (host: string, path: string, options: RequestOptions = {}) =>
    request(`https://127.0.0.1:${world.https}${path}`, {
      ...options,
      ca: world.ca,
      headers: { host, ...options.headers },
    });
  /** A request straight to a node's port, as nginx sends it (plain HTTP, said to have come over HTTPS). */
  const direct = (port: number, path: string, options: RequestOptions = {}) =>
    request(`http://127.0.0.1:${port}${path}`, {
      ...options,
      headers: { 'x-forwarded-proto': 'https', ...options.headers },
    });
  const viewer = () =>
    viaNginx(TRANSACTIONS_HOST, '/beta', {
      json: { query: '{ viewer { id } }' },
      headers: { authorization: `Bearer ${world.facts.transactions.apiKey}` },
    });
  const companies = () =>
    viaNginx(PORTFOLIO_HOST, '/v1/external/companies', {
      headers: { authorization: world.facts.portfolio.apiKey ?? '' },
    });

  it('answers both services through nginx by hostname, on both nodes', async () => {
    const answers = [];
    for (let index = 0; index < 4; index += 1) answers.push(await viewer(), await companies());
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect(answers[0]?.json().data.viewer.id).toBe(world.facts.transactions.organizationId);
    expect(answers[1]?.json().data.length).toBeGreaterThan(0);
    // Round robin: each service's requests went to both nodes.
    const nodes = new Set(answers.map((answer) => answer.headers['x-portico-node']));
    expect(nodes.size).toBe(4);
    // The request id nginx made for its own log is the one Portico logged and answered with.
    expect(answers[0]?.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('takes an upload larger than other bodies through nginx, and downloads it from the other node', async () => {
    const token = world.facts.transactions.recipientUrl?.split('/r/').pop() ?? '';
    // 3 MiB: more than nginx lets through anywhere but the upload route (2m).
    const pdf = await PDFDocument.create();
    pdf.addPage();
    await pdf.attach(randomBytes(3 * 1024 * 1024), 'scan.bin', { mimeType: 'application/octet-stream' });
    const content = Buffer.from(await pdf.save());
    const { payload, headers } = multipartBody({ filename: 'W-9.pdf', content });
    const uploaded = await postRaw(
      `https://127.0.0.1:${world.https}/recipient/${token}/items/tax_forms/files/w9FileId`,
      payload,
      { ...headers, host: TRANSACTIONS_HOST },
      world.ca,
    );
    expect(uploaded.status, uploaded.text).toBe(201);
    const other = [world.first, world.second].find(
      (node) => `127.0.0.1:${node.ports.transactions}` !== uploaded.node,
    );
    if (!other) throw new Error(`no node other than ${uploaded.node}`);
    const fileId = String(JSON.parse(uploaded.text).file.id);
    const view = await direct(other.ports.transactions, `/recipient/${token}`);
    const transactionId = String(view.json().transaction.id);
    // The signed link, asked of the other node: the file is in S3, where both nodes find it.
    const read = await direct(other.ports.transactions, '/beta', {
      json: {
        query:
          'query ($id: uuid!) { transaction(id: $id) { transactionFiles { id file { id signedUrl } } } }',
        variables: { id: transactionId },
      },
      headers: { authorization: `Bearer ${world.facts.transactions.apiKey}` },
    });
    const files = (read.json().data?.transaction?.transactionFiles ?? []) as {
      id: string;
      file: { id: string; signedUrl: string };
    }[];
    const link = files.find((row) => row.id === fileId || row.file.id === fileId)?.file.signedUrl;
    expect(link, read.text).toBeDefined();
    // Links name the public address, behind nginx.
    expect(link?.startsWith(`https://${TRANSACTIONS_HOST}:`)).toBe(true);
    const { pathname, search } = new URL(link ?? '');
    const download = await direct(other.ports.transactions, `${pathname}${search}`);
    expect(download.status).toBe(200);
    expect(download.text.startsWith('%PDF')).toBe(true);
    expect(Number(download.headers['content-length'])).toBe(content.length);
  });

  it("streams the console's live changes through nginx as they are sent", async () => {
    const session = await consoleSession(viaNginx, world.facts);
    const stream = await openStream(world.https, world.ca, session);
    try {
      expect(stream.response.statusCode).toBe(200);
      expect(stream.response.headers['content-type']).toContain('text/event-stream');
      // The first event arrives while the stream stays open: nothing waits for a buffer to fill.
      await stream.until(': listening');
    } finally {
      stream.close();
    }
  });

  it('counts what each node served in the metrics Prometheus scrapes from it, and the worker its own', async () => {
    for (let index = 0; index < 4; index += 1) expect((await viewer()).status).toBe(200);
    const scrape = async (url: string) => {
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/plain');
      return answer.text();
    };
    for (const node of [world.first, world.second]) {
      const text = await scrape(node.metricsUrl);
      // Round robin gave each node some of the GraphQL requests above, counted by route and operation.
      expect(text).toMatch(
        /portico_http_request_duration_seconds_count\{[^}]*service="transactions"[^}]*route="\/beta"[^}]*status="200"[^}]*\} [1-9]/,
      );
      expect(text).toContain('portico_db_pool_wait_seconds');
      expect(text).toContain('nodejs_eventloop_lag_seconds');
    }
    const worker = await scrape(world.worker.metricsUrl);
    expect(worker).toContain('portico_webhook_attempts_total');
    expect(worker).not.toContain('portico_http_request_duration_seconds_count{');
  });

  it("continues a caller's trace through nginx: the node's request span and its statements reach the collector", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const answer = await viaNginx(TRANSACTIONS_HOST, '/beta', {
      json: { query: 'query Viewer { viewer { id } }', operationName: 'Viewer' },
      headers: {
        authorization: `Bearer ${world.facts.transactions.apiKey}`,
        traceparent: `00-${traceId}-${parentId}-01`,
      },
    });
    expect(answer.status).toBe(200);
    const deadline = Date.now() + 10_000;
    const ofTrace = () => world.otlp.spans.filter((span) => span.traceId === traceId);
    while (!ofTrace().some((span) => span.parentSpanId === parentId) && Date.now() < deadline)
      await sleep(20);
    const request = ofTrace().find((span) => span.parentSpanId === parentId);
    expect(request?.kind).toBe(SERVER);
    expect(request?.name).toBe('POST /beta Viewer');
    expect(request?.service).toBe('portico');
    // The key's lookup (or the cache that spares it) and the query: statements as children of the request.
    while (!ofTrace().some((span) => span.parentSpanId === request?.spanId) && Date.now() < deadline)
      await sleep(20);
    expect(ofTrace().some((span) => span.parentSpanId === request?.spanId)).toBe(true);
  });

  it('loses no request while a node taken out of nginx stops with SIGTERM under load, and the node exits 0', async () => {
    const answers: HttpAnswer[] = [];
    const failures: string[] = [];
    let running = true;
    const load = async (send: () => Promise<HttpAnswer>) => {
      while (running) {
        await send().then(
          (answer) => answers.push(answer),
          (error: unknown) => failures.push(String(error)),
        );
      }
    };
    const clients = Array.from({ length: 6 }, (_, index) => load(index % 2 === 0 ? viewer : companies));
    const second = world.second;
    const answeredBy = (node: Node) => (answer: HttpAnswer) =>
      [node.ports.transactions, node.ports.portfolio]
        .map((port) => `127.0.0.1:${String(port)}`)
        .includes(String(answer.headers['x-portico-node']));
    const served = (node: Node) => answers.filter(answeredBy(node)).length;
    // Under load: both nodes serve it.
    await until(() => served(world.first) >= 10 && served(second) >= 10);
    // Taken out of nginx first (docs/operations.md): marked down, and nginx reloaded. Once nginx's old worker
    // has finished its requests, the first node answers everything: 30 answers in a row from it.
    await world.takeOut(second);
    await until(() => answers.length >= 30 && answers.slice(-30).every(answeredBy(world.first)));
    second.process.kill('SIGTERM');
    // Readiness drops first (once the signal is handled), while the node still serves.
    let ready = await direct(second.ports.transactions, '/readyz');
    for (let tries = 0; ready.status === 200 && tries < 40; tries += 1) {
      await sleep(25);
      ready = await direct(second.ports.transactions, '/readyz');
    }
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'draining' });
    const stopped = await exited(second.process, 15_000);
    // The load goes on, served by the first node alone.
    const after = served(world.first);
    await until(() => served(world.first) >= after + 20);
    running = false;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.text)).toEqual([]);
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(second.output()).toContain('"msg":"stopped"');
  });

  it('refuses to start a third node that would keep its files in its own data dir', async () => {
    const refused = await spawnPortico(['serve', '--no-demo'], {
      ...world.localOnly,
      PORTICO_DATA_DIR: await world.dataDir('local-files'),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('another Portico node');
    expect(refused.stderr).toContain('PORTICO_FILE_STORAGE=local if this is the only node');
  });
});

/** Resolves once `condition` holds; rejects after 20 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within 20 s: ${condition.toString()}`);
    await sleep(20);
  }
}

/** POSTs `body` as it is (a multipart upload) over HTTPS: its status, text and the node that answered. */
function postRaw(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  ca: string,
): Promise<{ status: number; text: string; node: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      url,
      { method: 'POST', agent: false, ca, headers: { ...headers, 'content-length': body.length } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            text,
            node: String(response.headers['x-portico-node']),
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A signed-in console session through nginx: its cookie. */
async function consoleSession(
  send: (host: string, path: string, options?: RequestOptions) => Promise<HttpAnswer>,
  facts: DemoFacts,
): Promise<string> {
  const sessionPath = '/console/api/session';
  const opened = await send(TRANSACTIONS_HOST, sessionPath);
  const cookieOf = (answer: HttpAnswer) =>
    [answer.headers['set-cookie'] ?? []]
      .flat()
      .map((line) => line.split(';')[0])
      .join('; ');
  let cookie = cookieOf(opened);
  const csrf = String(opened.json().csrfToken);
  const signedIn = await send(TRANSACTIONS_HOST, sessionPath, {
    json: { email: facts.transactions.console?.email, password: facts.transactions.console?.password },
    headers: { cookie, 'x-csrf-token': csrf },
  });
  expect(signedIn.status, signedIn.text).toBe(200);
  cookie = cookieOf(signedIn) || cookie;
  return cookie;
}

/** An open event stream through nginx: what has arrived, and how to stop it. */
function openStream(
  port: number,
  ca: string,
  cookie: string,
): Promise<{ response: IncomingMessage; until: (needle: string) => Promise<void>; close: () => void }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      `https://127.0.0.1:${port}/console/api/live`,
      { ca, agent: false, headers: { host: TRANSACTIONS_HOST, cookie } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        resolve({
          response,
          async until(needle) {
            const deadline = Date.now() + 5000;
            while (!text.includes(needle)) {
              if (Date.now() > deadline) throw new Error(`no ${needle} in ${text}`);
              await sleep(20);
            }
          },
          close: () => outgoing.destroy(),
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}
