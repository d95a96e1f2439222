import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsMaterial } from '../../src/http/tls.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { request, type HttpAnswer } from '../support/http-client.ts';
import { chainQuery, fanOutQuery } from '../support/data/graphql-operations.ts';
import { createPortfolioInstance } from '../support/data/portfolio.ts';
import { CREATE_TRANSACTION, REFERENCE_QUERY, transactionInput } from '../support/data/transactions.ts';
import type { OrganizationStory } from '../support/data/stories.ts';
import { useTransactionsSuite } from '../support/data/transactions-suite.ts';

/**
 * Both services listening over real TLS, sent requests meant to take them down: each must be refused with its
 * code within 200 ms while an innocent request is still answered, and the whole run must keep the event loop
 * responsive (delay under 150 ms) and memory bounded (RSS within 100 MB of where it started).
 */

// A refusal that does the work it should skip (reading 50 MB, compiling a fanned-out query) takes seconds; one
// that skips it, 20–60 ms on PGlite and 90–130 ms on PostgreSQL for the 1 MB bodies on our 2-vCPU machines
// (parsing and checking the body is most of it), so 200 ms tells the two apart without timing the machine.
const REFUSED_WITHIN_MS = 200;
// The 1 MB bodies block the loop while they are parsed and checked: 84–92 ms on the slower 2-vCPU machine of
// 2026-11-26 with nothing else running (Node 20 and 24 alike), 115 ms once in its CI. 150 ms still tells a
// refusal that skips the work from one that does it (seconds); making the 1 MB path cheaper is the better fix.
const MAX_LOOP_DELAY_MS = 150;
const MAX_RSS_GROWTH_MB = 100;

let tlsDir: string;
/** The TLS material both services listen with; its certificate is the `ca` every request trusts. */
let tls: Awaited<ReturnType<typeof loadTlsMaterial>>;
let portfolio: FastifyInstance;
let origins: { transactions: string; portfolio: string };
/** The organization every request is sent as; no case stores anything, so all share it. */
let story: OrganizationStory;
let portfolioKey: string;
let fileId: string;

const suite = useTransactionsSuite(async () => {
  tlsDir = await mkdtemp(join(tmpdir(), 'portico-abuse-'));
  tls = await loadTlsMaterial({ dataDir: tlsDir, tlsCert: undefined, tlsKey: undefined });
  return { tls };
});

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  portfolio = await buildPortfolioApp({ db: suite.db, tls });
  origins = { transactions: await listen(suite.app), portfolio: await listen(portfolio) };
  story = await suite.tenant({ rounds: 3 });
  portfolioKey = (await createPortfolioInstance(suite.db)).apiKey;
  const files = await send('transactions', {
    json: {
      query: 'query ($id: uuid!) { transaction(id: $id) { transactionFiles { file { id } } } }',
      variables: { id: story.transactionId },
    },
  });
  fileId = files.json().data.transaction.transactionFiles[0].file.id;
});

afterAll(async () => {
  await portfolio.close();
  await rm(tlsDir, { recursive: true, force: true });
});

type Sent = Pick<HttpAnswer, 'status' | 'text' | 'ms' | 'json'>;

/**
 * One request on a connection of its own, with the service's key: `json` is sent as JSON, `body` as it is (as
 * JSON), `path` defaults to the service's API.
 */
function send(
  service: 'transactions' | 'portfolio',
  options: {
    method?: string;
    path?: string;
    json?: unknown;
    body?: string;
    headers?: Record<string, string>;
  },
): Promise<Sent> {
  const url = new URL(
    options.path ?? (service === 'transactions' ? '/beta' : '/v1/external/companies'),
    origins[service],
  );
  return request(url, {
    ...(options.method === undefined ? {} : { method: options.method }),
    headers: {
      authorization: service === 'transactions' ? `Bearer ${story.apiKey}` : portfolioKey,
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.json === undefined ? {} : { json: options.json }),
    ca: tls.cert,
  });
}

/**
 * Streams a JSON body of `totalBytes` (chunked, or with its Content-Length declared up front) until the server
 * answers, then stops. Also reports how much was sent by then and whether the server closed the connection.
 */
function streamHuge(
  service: 'transactions' | 'portfolio',
  options: { totalBytes: number; declareLength: boolean },
): Promise<Sent & { sentBytes: number; closedByServer: boolean }> {
  const url = new URL(service === 'transactions' ? '/beta' : '/v1/external/companies', origins[service]);
  const headers: Record<string, string | number> = {
    authorization: service === 'transactions' ? `Bearer ${story.apiKey}` : portfolioKey,
    'content-type': 'application/json',
    ...(options.declareLength ? { 'content-length': options.totalBytes } : {}),
  };
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let sentBytes = 0;
    let answered = false;
    const outgoing = httpsRequest(
      url,
      { method: 'POST', headers, ca: tls.cert, agent: false },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (data: Buffer) => chunks.push(data));
        response.on('end', () => {
          const ms = performance.now() - start;
          const text = Buffer.concat(chunks).toString('utf8');
          const socket = outgoing.socket;
          // The server should close the connection rather than read the rest of the 50 MB.
          const closed = new Promise<boolean>((settle) => {
            if (!socket || socket.destroyed) {
              settle(true);
              return;
            }
            const timer = setTimeout(() => {
              settle(false);
            }, 1000);
            socket.once('close', () => {
              clearTimeout(timer);
              settle(true);
            });
          });
          void closed.then((closedByServer) => {
            outgoing.destroy();
            resolve({
              status: response.statusCode ?? 0,
              text,
              ms,
              sentBytes,
              closedByServer,
              json: () => JSON.parse(text) as ReturnType<Sent['json']>,
            });
          });
        });
      },
    );
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sentBytes < options.totalBytes) {
        const piece =
          sentBytes === 0 ? Buffer.from('{"query":"{ viewer { id } }","variables":{"pad":"') : chunk;
        sentBytes += piece.length;
        if (!outgoing.write(piece)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      if (!answered) outgoing.end();
    };
    pump();
  });
}

/** The reference query, answered in full: what an integrator sends while someone else attacks the service. */
async function innocentRequests(): Promise<Sent[]> {
  const [graphqlAnswer, restAnswer] = await Promise.all([
    send('transactions', { json: { query: REFERENCE_QUERY, variables: { id: story.transactionId } } }),
    send('portfolio', { path: '/v1/external/companies?limit=5' }),
  ]);
  expect(graphqlAnswer.status, graphqlAnswer.text.slice(0, 300)).toBe(200);
  const transaction = graphqlAnswer.json().data.transaction;
  expect(transaction.id).toBe(story.transactionId);
  expect(transaction.transactionProcessRevisions).toHaveLength(story.transactions[0]?.revisions ?? -1);
  expect(restAnswer.status, restAnswer.text.slice(0, 300)).toBe(200);
  return [graphqlAnswer, restAnswer];
}

const aliased = (count: number, field: string, fragments = '') =>
  `{ ${Array.from({ length: count }, (_, index) => `a${index}: ${field}`).join(' ')} }${fragments}`;

/** Every field of a transaction and its relations, within the depth limit under `viewer.transactions.nodes`. */
const FULL_TREE = `fragment Full on Transaction {
  id state isComplete createdAt updatedAt completedAt inputData noticeName noticeEmail
  template { id key version name workflow { initialState } } availableEvents { key } organization { id }
  senderEntity { id name } transactionRecipients { id vulcanKey entity { id name email settings type } }
  transactionProcesses { id key transactionProcessRevisions { id transactionItems { id data } } }
  transactionProcessRevisions { id transactionItems { id completionPercentage data vulcanKey } }
  transactionItems { id data } transactionFiles { id file { id signedUrl } }
  transactionSignatureContainers { id transactionSignatures { id state } }
  transactionSignatureFiles { id file { id signedUrl } } events { id eventKey }
}`;

/** Fragments spreading each other twice on `levels` levels: 2^levels fields out of a thousand tokens. */
function binaryFanOut(levels: number): string {
  const fragments = Array.from({ length: levels }, (_, level) =>
    level === levels - 1
      ? `fragment F${level} on Organization { id }`
      : `fragment F${level} on Organization { id ...F${level + 1} ...F${level + 1} }`,
  );
  return `{ viewer { ...F0 } }\n${fragments.join('\n')}`;
}

/** createTransaction with `inputData`, which the domain checks against the template's items. */
function createWith(inputData: Record<string, unknown>) {
  return {
    query: CREATE_TRANSACTION,
    variables: {
      input: transactionInput(story, { noticeEmail: 'abuse@example.com', noticeName: 'Abuse', inputData }),
    },
  };
}

/** An abuse case's answer; a streamed body also tells how much was sent before it, and who closed. */
type Attacked = Sent & { sentBytes?: number; closedByServer?: boolean };

interface AbuseCase {
  name: string;
  service: 'transactions' | 'portfolio';
  /** The body, built once: a megabyte of JSON takes the client milliseconds to write, not the server's time. */
  body?: () => string;
  run: () => Promise<Attacked>;
  status: number;
  code: string;
}

function once(make: () => string): () => string {
  let made: string | undefined;
  return () => (made ??= make());
}

/** A request to the GraphQL API with a body of raw JSON text. */
function rawCase(name: string, text: () => string, status: number, code: string): AbuseCase {
  const body = once(text);
  return {
    name,
    service: 'transactions',
    body,
    run: () => send('transactions', { body: body() }),
    status,
    code,
  };
}

/** A request to the GraphQL API with `json()` as its body. */
function graphqlCase(name: string, json: () => unknown, status: number, code: string): AbuseCase {
  return rawCase(name, () => JSON.stringify(json()), status, code);
}

const CASES: AbuseCase[] = [
  graphqlCase('100 nested fields', () => ({ query: chainQuery(100) }), 400, 'QUERY_TOO_DEEP'),
  graphqlCase('3,000 nested fields', () => ({ query: chainQuery(3000) }), 400, 'TOO_MANY_TOKENS'),
  graphqlCase(
    'introspection recursing 100 levels through types',
    () => ({
      query: `{ __schema { types { ${'fields { type { '.repeat(100)}name${' } }'.repeat(100)} } } }`,
    }),
    400,
    'GRAPHQL_VALIDATION_FAILED',
  ),
  graphqlCase(
    '10,000 aliases of file(id) { signedUrl }',
    () => ({ query: aliased(10_000, `file(id: "${fileId}") { signedUrl }`) }),
    400,
    'TOO_MANY_TOKENS',
  ),
  graphqlCase(
    '10,000 aliases of viewer { transactions { totalCount } }',
    () => ({ query: aliased(10_000, 'viewer { transactions { totalCount } }') }),
    400,
    'TOO_MANY_TOKENS',
  ),
  graphqlCase(
    '10,000 aliases of __schema { types { name } }',
    () => ({ query: aliased(10_000, '__schema { types { name } }') }),
    400,
    'TOO_MANY_TOKENS',
  ),
  graphqlCase(
    '10,000 aliases of a page of 100 transactions with every relation',
    () => ({
      query: aliased(10_000, 'viewer { transactions(first: 100) { nodes { ...Full } } }', FULL_TREE),
    }),
    400,
    'TOO_MANY_TOKENS',
  ),
  graphqlCase(
    '80 aliases of file(id) { signedUrl }, within the token limit',
    () => ({ query: aliased(80, `file(id: "${fileId}") { signedUrl }`) }),
    400,
    'TOO_MANY_ALIASES',
  ),
  graphqlCase(
    '15 aliases of a page of 100 transactions with every relation',
    () => ({ query: aliased(15, 'viewer { transactions(first: 100) { nodes { ...Full } } }', FULL_TREE) }),
    400,
    'QUERY_TOO_COMPLEX',
  ),
  graphqlCase(
    'fragments fanning out 10 ways on 6 levels',
    () => ({ query: fanOutQuery({ ways: 10, levels: 6 }).query }),
    400,
    'QUERY_TOO_COMPLEX',
  ),
  graphqlCase(
    'fragments fanning out 2 ways on 80 levels',
    () => ({ query: binaryFanOut(80) }),
    400,
    'QUERY_TOO_COMPLEX',
  ),
  graphqlCase(
    'a syntax tree of 5,000 fields sent as JSON in place of the query',
    () => ({ query: JSON.stringify(parse(`{ viewer { ${'id '.repeat(5_000)}} }`, { noLocation: true })) }),
    400,
    'GRAPHQL_PARSE_FAILED',
  ),
  graphqlCase(
    'a query of a million [',
    () => ({ query: '['.repeat(1_000_000) }),
    400,
    'GRAPHQL_PARSE_FAILED',
  ),
  graphqlCase(
    'a 1 MB variable where a uuid goes',
    () => ({
      query: 'query ($id: uuid!) { transaction(id: $id) { id } }',
      variables: { id: 'x'.repeat(1_000_000) },
    }),
    400,
    'BAD_USER_INPUT',
  ),
  graphqlCase(
    'inputData of 1 MB under 2,000 keys no item has',
    () =>
      createWith(
        Object.fromEntries(Array.from({ length: 2_000 }, (_, index) => [`key${index}`, 'x'.repeat(500)])),
      ),
    200,
    'BAD_USER_INPUT',
  ),
  graphqlCase(
    'inputData of 10,000 keys no item has',
    () =>
      createWith(
        Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`key${index}`, { value: index }])),
      ),
    200,
    'BAD_USER_INPUT',
  ),
  graphqlCase(
    'a 200 KB noticeEmail',
    () => ({
      query: CREATE_TRANSACTION,
      variables: {
        input: transactionInput(story, {
          noticeEmail: `${'a@b.'.repeat(50_000)}example.com`,
          noticeName: 'Abuse',
        }),
      },
    }),
    200,
    'BAD_USER_INPUT',
  ),
  graphqlCase(
    'a batch of 30,000 operations',
    () => Array.from({ length: 30_000 }, () => ({ query: '{ viewer { id } }' })),
    400,
    'BAD_USER_INPUT',
  ),
  rawCase(
    'variables nested 100,000 levels deep',
    () => `{"query":"{ viewer { id } }","variables":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    400,
    'BAD_USER_INPUT',
  ),
  rawCase(
    'a body of 1 MiB and one byte',
    () => {
      const head = '{"query":"{ viewer { id } }","pad":"';
      return `${head}${'x'.repeat(1024 * 1024 + 1 - head.length - 2)}"}`;
    },
    413,
    'PAYLOAD_TOO_LARGE',
  ),
  {
    name: 'a 50 MB body streamed in chunks',
    service: 'transactions',
    run: () => streamHuge('transactions', { totalBytes: 50_000_000, declareLength: false }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a 50 MB body announced by Content-Length',
    service: 'transactions',
    run: () => streamHuge('transactions', { totalBytes: 50_000_000, declareLength: true }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a 50 MB body streamed to the read-only Portfolio API',
    service: 'portfolio',
    run: () => streamHuge('portfolio', { totalBytes: 50_000_000, declareLength: false }),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a 100 KB query string to the Portfolio API',
    service: 'portfolio',
    run: () => send('portfolio', { path: `/v1/external/companies?limit=${'9'.repeat(100_000)}` }),
    status: 431,
    code: 'HEADERS_TOO_LARGE',
  },
];

/** The error code of an answer in either service's shape. */
function codeOf(answer: Sent): unknown {
  const body = answer.json();
  return body.errors?.[0]?.extensions?.code ?? body.error?.code;
}

/** Runs one case beside the innocent requests and checks what each got. */
async function attack(abuse: AbuseCase): Promise<{ abuse: Attacked; innocent: Sent[] }> {
  const [answer, innocent] = await Promise.all([abuse.run(), innocentRequests()]);
  expect(answer.status, `${abuse.name}: ${answer.text.slice(0, 300)}`).toBe(abuse.status);
  expect(codeOf(answer), abuse.name).toBe(abuse.code);
  return { abuse: answer, innocent };
}

describe('each abuse case', () => {
  beforeAll(async () => {
    // The first request of a kind pays once for compiling the code it runs (tens of milliseconds for a body
    // of 1 MiB): every case is sent once before any is timed.
    for (const abuse of CASES) await abuse.run();
  });

  it.each(CASES.map((abuse) => [abuse.name, abuse] as const))(
    'refuses %s with its code within 200 ms, answering an innocent request meanwhile',
    async (_name, abuse) => {
      // Timed up to three times: on a machine busy with other test files, one attempt can wait for a core.
      const times: number[] = [];
      let answer: Attacked | undefined;
      while (times.length < 3 && !times.some((ms) => ms < REFUSED_WITHIN_MS)) {
        answer = (await attack(abuse)).abuse;
        times.push(answer.ms);
      }
      expect(
        Math.min(...times),
        `${abuse.name}: ${times.map((ms) => ms.toFixed(1)).join(', ')} ms`,
      ).toBeLessThan(REFUSED_WITHIN_MS);
      if (answer?.sentBytes !== undefined) {
        // The rest of the 50 MB is not read: the server answers early and closes the connection.
        expect(answer.sentBytes, abuse.name).toBeLessThan(10_000_000);
        expect(answer.closedByServer, abuse.name).toBe(true);
      }
    },
  );
});

describe('a run of every abuse case', () => {
  it('keeps the event-loop delay under 150 ms and RSS within 100 MB, answering every innocent request', async () => {
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const rssAtStart = process.memoryUsage().rss;
    let rssPeak = rssAtStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    const timings: { name: string; ms: number; loopDelayMs: number }[] = [];
    const innocentMs: number[] = [];
    for (const abuse of CASES) abuse.body?.();
    loop.enable();
    try {
      for (const abuse of CASES) {
        const during = monitorEventLoopDelay({ resolution: 10 });
        during.enable();
        const { abuse: answer, innocent } = await attack(abuse);
        during.disable();
        timings.push({ name: abuse.name, ms: answer.ms, loopDelayMs: during.max / 1e6 });
        innocentMs.push(...innocent.map((answerOf) => answerOf.ms));
      }
    } finally {
      loop.disable();
      clearInterval(sampler);
    }
    const rssAtEnd = process.memoryUsage().rss;
    rssPeak = Math.max(rssPeak, rssAtEnd);
    const maxDelayMs = loop.max / 1e6;
    const slowest = timings.reduce((a, b) => (b.ms > a.ms ? b : a));
    const blocking = timings.reduce((a, b) => (b.loopDelayMs > a.loopDelayMs ? b : a));
    const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
    // The measured numbers, for the record of a run (vitest shows them with --reporter=verbose).
    console.info(
      `abuse run: max event-loop delay ${maxDelayMs.toFixed(1)} ms (during ${blocking.name}), ` +
        `RSS ${mb(rssAtStart)} MB → peak ${mb(rssPeak)} MB, end ${mb(rssAtEnd)} MB; slowest refusal ` +
        `${slowest.ms.toFixed(1)} ms (${slowest.name}); slowest innocent answer ${Math.max(...innocentMs).toFixed(1)} ms`,
    );
    expect(maxDelayMs, `event-loop delay, the most during ${blocking.name}`).toBeLessThan(MAX_LOOP_DELAY_MS);
    expect(mb(rssPeak - rssAtStart)).toBeLessThan(MAX_RSS_GROWTH_MB);
    expect(mb(rssAtEnd - rssAtStart)).toBeLessThan(MAX_RSS_GROWTH_MB);
  });
});
