import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConnectionLimits } from '../../src/http/https-only-server.ts';
import { answerProblem } from '../support/documented-answers.ts';
import { startListeningServices, type ListeningServices } from '../support/peers/listening-services.ts';
import type { Service } from '../support/data/service-apps.ts';
import {
  exchange,
  openSocket,
  parseResponse,
  rawRequest,
  type Exchange,
} from '../support/peers/raw-socket.ts';

const LIMITS: ConnectionLimits = {
  // Also how long a test may hold a connection on which it has sent nothing yet.
  headersTimeoutMs: 1000,
  requestTimeoutMs: 1500,
  keepAliveTimeoutMs: 500,
  // Longer than any exchange below waits (GIVE_UP_MS): a connection closed by the server was closed by a shorter
  // limit.
  idleTimeoutMs: 10 * 60_000,
  maxConnectionsPerAddress: 5,
};
/** How long an exchange waits for the server to close the connection before giving up itself. */
const GIVE_UP_MS = 15_000;
/** Node checks the headers and request timeouts on an interval (at most the headers timeout): allow for it. */
const SLACK_MS = 1500;
const PUBLIC_URL = 'https://api.example.com';

const SERVICES: Service[] = ['transactions', 'portfolio'];

let services: ListeningServices;
let ca: string;
let organization: ListeningServices['organization'];
let ports: ListeningServices['ports'];

beforeAll(async () => {
  services = await startListeningServices({ connectionLimits: LIMITS, publicUrl: PUBLIC_URL });
  ({ ca, organization, ports } = services);
});

afterAll(async () => {
  await services.close();
});

/** A GET /healthz on a connection of its own; its status, or the error that ended it. */
async function health(service: Service): Promise<number | string> {
  const result = await exchange({
    port: ports[service],
    ca,
    chunks: [rawRequest({ method: 'GET', target: '/healthz' })],
    timeoutMs: 5000,
  });
  return parseResponse(result.received)?.status ?? result.error ?? 'no answer';
}

/** Asserts the answer is a JSON 408 REQUEST_TIMEOUT with the headers of every JSON answer. */
function expectTimeoutAnswer(result: Exchange): void {
  const answer = parseResponse(result.received);
  expect(answer?.status).toBe(408);
  expect(answerProblem(answer, { shapes: ['rest'] })).toBeUndefined();
  expect(JSON.parse(answer?.body ?? '{}').error.code).toBe('REQUEST_TIMEOUT');
  expect(answer?.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
}

/** Asserts the server cut the exchange off: either a JSON 408 REQUEST_TIMEOUT, or a close without answer. */
function expectCutOff(result: Exchange, withinMs: number): void {
  expect(result.closedByServer, 'the server closed the connection').toBe(true);
  expect(result.elapsedMs).toBeLessThan(withinMs);
  if (result.received.length > 0) expectTimeoutAnswer(result);
}

/** `text` as single bytes, one chunk each. */
const byteByByte = (text: string) => Array.from(Buffer.from(text), (byte) => Buffer.from([byte]));

describe.each(SERVICES)('connection limits of the %s service', (service) => {
  it('closes a TCP connection that never sends a byte, not even a TLS ClientHello, at the headers timeout', async () => {
    const result = await exchange({ port: ports[service], chunks: [], timeoutMs: GIVE_UP_MS });
    expect(result.closedByServer, 'the server closed the connection').toBe(true);
    expect(result.received.length).toBe(0);
  });

  it('closes a TLS handshake that stops after the first byte of its ClientHello at the headers timeout', async () => {
    const clientHelloStart = Buffer.from([0x16]);
    const result = await exchange({
      port: ports[service],
      chunks: [clientHelloStart],
      timeoutMs: GIVE_UP_MS,
    });
    expect(result.closedByServer, 'the server closed the connection').toBe(true);
    expect(result.received.length).toBe(0);
  });

  it('closes a TLS connection that sends no request after the handshake at the headers timeout, writing nothing a browser could take for the answer to its next request', async () => {
    const result = await exchange({ port: ports[service], ca, chunks: [], timeoutMs: GIVE_UP_MS });
    expect(result.closedByServer, 'the server closed the connection').toBe(true);
    expect(result.received.length).toBe(0);
  });

  it('answers a TLS connection that sent part of its request line with a 408 at the headers timeout', async () => {
    const result = await exchange({
      port: ports[service],
      ca,
      chunks: [Buffer.from('GET /hea')],
      timeoutMs: GIVE_UP_MS,
    });
    expect(result.closedByServer, 'the server closed the connection').toBe(true);
    expectTimeoutAnswer(result);
  });

  it('cuts off a client that sends its headers a byte at a time (slowloris) after the headers timeout', async () => {
    const head = rawRequest({
      method: 'GET',
      target: '/healthz',
      headers: [['user-agent', 'slow-loris/1.0 '.repeat(10)]],
    });
    const chunks = byteByByte(head.toString('latin1'));
    const result = await exchange({ port: ports[service], ca, chunks, gapMs: 50, timeoutMs: GIVE_UP_MS });
    expectCutOff(result, LIMITS.headersTimeoutMs + SLACK_MS);
    expect(result.written).toBeLessThan(chunks.length);
  });

  it('cuts off a client that sends its body slowly after the request timeout', async () => {
    const body = JSON.stringify({ query: `{ __typename ${' '.repeat(200)}}` });
    const target = service === 'transactions' ? '/beta' : '/v1/external/companies';
    const head = rawRequest({
      method: 'POST',
      target,
      headers: [
        // With a key, so that GraphQL does not refuse the request before its body is read.
        ...(service === 'transactions' ? [['authorization', `Bearer ${organization.apiKey}`] as const] : []),
        ['content-type', 'application/json'],
        ['content-length', String(Buffer.byteLength(body))],
      ],
    });
    const chunks = [head, ...byteByByte(body)];
    const result = await exchange({ port: ports[service], ca, chunks, gapMs: 50, timeoutMs: GIVE_UP_MS });
    expectCutOff(result, LIMITS.requestTimeoutMs + SLACK_MS);
    expect(result.written).toBeLessThan(chunks.length);
  });

  it('closes a sixth connection from one address while the first five still work, and serves again after', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < LIMITS.maxConnectionsPerAddress; i += 1)
        held.push(await openSocket(ports[service], ca));
      await expect(openSocket(ports[service], ca)).rejects.toThrow();

      const answers = await Promise.all(
        held.map(
          (socket) =>
            new Promise<number | undefined>((resolve) => {
              const received: Buffer[] = [];
              socket.on('data', (chunk: Buffer) => received.push(chunk));
              socket.on('close', () => {
                resolve(parseResponse(Buffer.concat(received))?.status);
              });
              socket.write(rawRequest({ method: 'GET', target: '/healthz' }));
            }),
        ),
      );
      expect(answers).toEqual(Array.from({ length: LIMITS.maxConnectionsPerAddress }, () => 200));
    } finally {
      for (const socket of held) socket.destroy();
    }
    // Closed connections no longer count.
    for (let i = 0; i < LIMITS.maxConnectionsPerAddress + 2; i += 1) expect(await health(service)).toBe(200);
  });

  it("turns Nagle's algorithm off on each connection, so an answer written in pieces is not held for an ACK", async () => {
    const setNoDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    try {
      expect(await health(service)).toBe(200);
      // What was asked of each connection the service accepted (Node sets `server` on an accepted socket).
      const asked = setNoDelay.mock.calls.filter(
        (_, index) =>
          (setNoDelay.mock.contexts[index] as { server?: unknown }).server === services.apps[service].server,
      );
      expect(asked).toEqual([[true]]);
    } finally {
      setNoDelay.mockRestore();
    }
  });

  it('still serves normal requests after slow, silent and surplus clients', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => health(service)));
    expect(results).toEqual([200, 200, 200, 200]);
  });
});

describe('a request whose headers arrived', () => {
  it('is left to the request timeout, not cut off at the headers timeout, while its body is on its way', async () => {
    // The head announces a body that never comes: only the request timeout may end it, in its own words.
    const head = rawRequest({
      method: 'POST',
      target: '/beta',
      headers: [
        ['authorization', `Bearer ${organization.apiKey}`],
        ['content-type', 'application/json'],
        ['content-length', '2'],
      ],
    });
    const result = await exchange({ port: ports.transactions, ca, chunks: [head], timeoutMs: GIVE_UP_MS });
    expectTimeoutAnswer(result);
    expect(JSON.parse(parseResponse(result.received)?.body ?? '{}').error.message).toBe(
      'The request took too long to arrive.',
    );
  });
});

describe('links from the configured public address', () => {
  /** POSTs a GraphQL request over a real TLS connection with a Host header of the client's choosing. */
  async function graphqlWithHost(host: string, query: string, variables: Record<string, unknown>) {
    const body = JSON.stringify({ query, variables });
    const result = await exchange({
      port: ports.transactions,
      ca,
      chunks: [
        rawRequest({
          method: 'POST',
          target: '/beta',
          host,
          headers: [
            ['authorization', `Bearer ${organization.apiKey}`],
            ['content-type', 'application/json'],
          ],
          body,
        }),
      ],
      timeoutMs: 10_000,
    });
    const answer = parseResponse(result.received);
    expect(answer?.status, answer?.body).toBe(200);
    return JSON.parse(answer?.body ?? '{}');
  }

  it('starts File.signedUrl and genTransactionFileLink links with publicUrl, whatever Host the request names', async () => {
    for (const host of ['evil.example.com', `127.0.0.1:${ports.transactions}`, 'localhost']) {
      const read = await graphqlWithHost(
        host,
        'query ($id: uuid!) { transaction(id: $id) { transactionFiles { id file { signedUrl } } } }',
        { id: organization.transactionId },
      );
      const [file] = read.data.transaction.transactionFiles;
      expect(file.file.signedUrl, host).toMatch(new RegExp(`^${PUBLIC_URL}/files/[0-9a-f-]{36}\\?expires=`));

      const generated = await graphqlWithHost(
        host,
        'mutation ($id: uuid!) { genTransactionFileLink(input: { transactionFileId: $id }) { url } }',
        { id: file.id },
      );
      expect(generated.data.genTransactionFileLink.url, host).toMatch(new RegExp(`^${PUBLIC_URL}/files/`));
    }
  });

  it('names publicUrl as the server of the Portfolio OpenAPI document, whatever Host the request names', async () => {
    const result = await exchange({
      port: ports.portfolio,
      ca,
      chunks: [rawRequest({ method: 'GET', target: '/v1/external/openapi.json', host: 'evil.example.com' })],
      timeoutMs: 10_000,
    });
    const answer = parseResponse(result.received);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer?.body ?? '{}').servers[0].url).toBe(PUBLIC_URL);
  });
});
