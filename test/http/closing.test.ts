import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpsOnlyServer, DEFAULT_CONNECTION_LIMITS } from '../../src/http/https-only-server.ts';
import { openSocket, parseResponse, rawRequest } from '../support/peers/raw-socket.ts';
import { testTls } from '../support/peers/tls-listener.ts';

/**
 * What closing a listener does to its connections (what Fastify's `close` and `portico serve`'s drain call):
 * those with no request in flight end at once, as with Node's own HTTP server; one with a request in flight gets
 * its answer. The limits are a minute long, so that no timeout is what ends a connection here.
 */
const MINUTE_LIMITS = {
  ...DEFAULT_CONNECTION_LIMITS,
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
};
/** How long the handler takes to answer `/slow`. */
const SLOW_MS = 300;

const opened: { server: ReturnType<typeof createHttpsOnlyServer>; sockets: Socket[] }[] = [];

afterEach(() => {
  for (const { server, sockets } of opened.splice(0)) {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

/**
 * A listener on a free loopback port answering `/slow` after {@link SLOW_MS} (`slowArrived` resolves when such a
 * request has arrived) and anything else at once.
 */
async function listening() {
  const tls = await testTls();
  let arrived: () => void = () => undefined;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = createHttpsOnlyServer(
    { tls, trustProxy: false, limits: MINUTE_LIMITS },
    (request, response) => {
      const answer = () => response.end('done');
      if (request.url === '/slow') {
        arrived();
        setTimeout(answer, SLOW_MS);
      } else answer();
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const entry = { server, sockets: [] as Socket[] };
  opened.push(entry);
  /** A connection to the listener, over TLS (handshake done) or plain TCP, with what it has received so far. */
  const connect = async (over: 'tls' | 'tcp') => {
    const socket = await openSocket(port, over === 'tls' ? tls.cert : undefined);
    entry.sockets.push(socket);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = once(socket, 'close');
    return { socket, ended, received: () => Buffer.concat(received) };
  };
  /** Closes the listener; resolves once it has closed, with every connection ended. */
  const close = async () => {
    server.close();
    await once(server, 'close');
  };
  return { connect, close, slowArrived };
}

describe('closing an HTTPS listener', () => {
  it('ends at once a connection that sent no request after its handshake, and one that sent no byte at all', async () => {
    const { connect, close } = await listening();
    const handshaken = await connect('tls');
    const silent = await connect('tcp');
    await close();
    await Promise.all([handshaken.ended, silent.ended]);
    // Ended by the close, not answered with the 408 of a headers timeout.
    expect(handshaken.received().length).toBe(0);
    expect(silent.received().length).toBe(0);
  });

  it('ends at once a keep-alive connection whose request was answered', async () => {
    const { connect, close } = await listening();
    const client = await connect('tls');
    client.socket.write(rawRequest({ method: 'GET', target: '/fast', close: false }));
    while (!client.received().includes('done')) await sleep(10);
    await close();
    await client.ended;
    expect(parseResponse(client.received())?.status).toBe(200);
  });

  it('answers a request in flight when it closes, then ends its connection', async () => {
    const { connect, close, slowArrived } = await listening();
    const client = await connect('tls');
    client.socket.write(rawRequest({ method: 'GET', target: '/slow', close: false }));
    await slowArrived;
    const closed = close();
    await client.ended;
    await closed;
    const answer = parseResponse(client.received());
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe('done');
  });
});
