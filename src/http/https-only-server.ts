import type { IncomingMessage, RequestListener, Server as HttpServer, ServerResponse } from 'node:http';
import type { Http2Server } from 'node:http2';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { createServer } from '@httptoolkit/httpolyglot';
import type { TlsMaterial } from './tls.ts';
import { requestIdFor } from './request-id.ts';
import { ERROR_STATUS, errorBody, type ErrorCode } from '../errors.ts';
import { JSON_ANSWER_HEADERS } from './security-headers.ts';

/**
 * How long a connection may take over each part of its life, in milliseconds, and how many one client
 * address may hold open. A slow or silent client is cut off when one runs out.
 */
export interface ConnectionLimits {
  /**
   * From connecting to the end of the request's headers (and the TLS handshake): a connection that sends nothing
   * for this long, not even a TLS ClientHello or, after the handshake, a request, is closed too. @default 10000
   */
  headersTimeoutMs: number;
  /** From connecting to the end of the request's body. @default 30000 */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. @default 5000 */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing at all moves for this long is closed. @default 30000 */
  idleTimeoutMs: number;
  /** Open connections from one client address; more are closed at once. @default 100 */
  maxConnectionsPerAddress: number;
}

/** The limits of a listener, where its options leave them out. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  maxConnectionsPerAddress: 100,
};

/** Request headers (with the request line) may take this many bytes; more get 431. */
const MAX_HEADER_BYTES = 16 * 1024;

/** What `createHttpsOnlyServer` listens with. */
export interface HttpsOnlyOptions {
  /** The certificate and its private key, PEM. */
  tls: Pick<TlsMaterial, 'cert' | 'key'>;
  /** Accept plain HTTP from a TLS-terminating proxy that says `X-Forwarded-Proto: https`. */
  trustProxy: boolean;
  /** Limits that replace those of {@link DEFAULT_CONNECTION_LIMITS}. */
  limits?: Partial<ConnectionLimits>;
}

function arrivedOverHttps(request: IncomingMessage, trustProxy: boolean): boolean {
  if ((request.socket as Partial<TLSSocket>).encrypted === true) return true;
  if (!trustProxy) return false;
  const forwarded = request.headers['x-forwarded-proto'];
  const values = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',');
  return values.every((value) => value.trim().toLowerCase() === 'https');
}

/** Answers before Fastify sees the request, in the same JSON shape and with a request id. */
function answer(request: IncomingMessage, response: ServerResponse, code: ErrorCode, message: string): void {
  const requestId = requestIdFor(request);
  const body = JSON.stringify(errorBody({ code, message }, requestId));
  response.writeHead(ERROR_STATUS[code], {
    'x-request-id': requestId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...JSON_ANSWER_HEADERS,
    // HTTP/2 forbids connection-specific headers.
    ...(request.httpVersionMajor === 2 ? {} : { connection: 'close' }),
  });
  response.end(body);
}

/** A `Host` header that is a host name, IPv4 or bracketed IPv6 address, with an optional port: nothing else is echoed. */
const SAFE_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * Where a plain-HTTP request is sent over HTTPS instead, or undefined when it gets the JSON refusal: only a
 * browser asking for a page (GET or HEAD that accepts HTML) with no credential of an API, so that typing
 * `localhost:4000/console` opens the console, while an API call in clear is told to rotate its key.
 */
function httpsLocation(request: IncomingMessage): string | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  if (request.headers.authorization !== undefined) return undefined;
  if (!(request.headers.accept ?? '').includes('text/html')) return undefined;
  const host = request.headers.host;
  const path = request.url ?? '/';
  if (host === undefined || !SAFE_HOST.test(host) || !path.startsWith('/') || path.startsWith('//')) {
    return undefined;
  }
  return `https://${host}${path}`;
}

/** A 301 to the same address over HTTPS, with a request id like every other answer. */
function redirectToHttps(request: IncomingMessage, response: ServerResponse, location: string): void {
  response.writeHead(301, {
    'x-request-id': requestIdFor(request),
    location,
    'content-length': 0,
    'cache-control': 'no-store',
    connection: 'close',
  });
  response.end();
}

const HEADERS_TIMEOUT: [ErrorCode, string] = [
  'REQUEST_TIMEOUT',
  'The request headers took too long to arrive.',
];

const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [
    'HEADERS_TOO_LARGE',
    `The request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KB.`,
  ],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request took too long to arrive.'],
  ERR_HTTP_HEADERS_TIMEOUT: HEADERS_TIMEOUT,
};

/** {@link JSON_ANSWER_HEADERS} as header lines, for the answers written straight onto a connection. */
const JSON_ANSWER_HEADER_LINES = Object.entries(JSON_ANSWER_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** How long a refused connection keeps reading (and dropping) what the client still sends. */
const LINGER_MS = 2000;
const refused = new WeakSet<Socket>();

/**
 * Writes a JSON refusal in the documented shape straight onto a connection, where no HTTP response object is
 * left to answer through, and closes it.
 */
function refuseConnection(
  socket: Socket,
  code: ErrorCode,
  message: string,
  requestId: string = requestIdFor({ headers: {} }),
): void {
  // Node's parser reports its error again for every further chunk the client sends: answered once is enough.
  if (refused.has(socket)) return;
  refused.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody({ code, message }, requestId));
  socket.end(
    `HTTP/1.1 ${ERROR_STATUS[code]} ${code.replace(/_/g, ' ')}\r\nconnection: close\r\n` +
      `content-type: application/json; charset=utf-8\r\nx-request-id: ${requestId}\r\n` +
      JSON_ANSWER_HEADER_LINES +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // A lingering close: closing while the client is still sending (the rest of an oversized request) makes
  // the kernel answer with a reset, which discards our answer before the client reads it. So keep reading
  // and dropping for a moment, until the client closes.
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => {
    clearTimeout(linger);
  });
}

/** What each connection had sent when its last answer was finished: more since then is a request on its way. */
const readAtLastAnswer = new WeakMap<Socket, number>();

/**
 * Whether a connection has sent no byte of a request since its last answer (or since its handshake): one a
 * browser opened ahead of need, or kept for its next request. Such a connection is closed without a word at a
 * timeout: a 408 written onto it could be read as the answer to the request the browser sends on it at that
 * moment (Chromium's download of an export was cut off so, under load), whereas a connection closed before its
 * request is answered is one a browser opens again.
 */
function sentNothingSinceLastAnswer(socket: Socket): boolean {
  return socket.bytesRead === (readAtLastAnswer.get(socket) ?? 0);
}

/**
 * What Node's HTTP parser could not parse (or a request that timed out) gets a JSON answer in the documented
 * shape, with a request id, and the connection is closed. Fastify's `clientErrorHandler`. A timeout on a
 * connection that sent nothing since its last answer closes it without one (see sentNothingSinceLastAnswer).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT';
  if (timedOut && sentNothingSinceLastAnswer(socket)) {
    socket.destroy();
    return;
  }
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    'BAD_USER_INPUT',
    'This is not an HTTP/1.1 request this server can read.',
  ];
  refuseConnection(socket, code, message);
}

/**
 * A server for one port that speaks TLS, and answers a plain-HTTP request with a JSON 403 `HTTPS_REQUIRED`
 * instead of data or a TLS handshake error, but a browser's request for a page with a 301 to the same address
 * over HTTPS (see `httpsLocation`). With `trustProxy`, plain HTTP is accepted only from a proxy that
 * forwards `X-Forwarded-Proto: https`. Slow, silent or too many connections from one address are cut off
 * (see {@link ConnectionLimits}); HTTP/2 and requests without `Host` get JSON refusals.
 */
export function createHttpsOnlyServer(options: HttpsOnlyOptions, handler: RequestListener) {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  /** The timer that refuses a TLS connection whose first request has not arrived (see 'secureConnection'). */
  const firstRequestDeadlines = new Map<Socket, NodeJS.Timeout>();
  /** Whether the listener has been closed: a connection then ends once its answer is sent. */
  let stopping = false;
  const onRequest: RequestListener = (request, response) => {
    clearTimeout(firstRequestDeadlines.get(request.socket));
    firstRequestDeadlines.delete(request.socket);
    response.once('finish', () => {
      readAtLastAnswer.set(request.socket, request.socket.bytesRead);
      if (stopping) request.socket.end();
    });
    if (request.httpVersionMajor === 2) {
      answer(request, response, 'BAD_USER_INPUT', 'HTTP/2 is not served here; use HTTP/1.1.');
    } else if (!arrivedOverHttps(request, options.trustProxy)) {
      const location = httpsLocation(request);
      if (location !== undefined) {
        redirectToHttps(request, response, location);
        return;
      }
      answer(
        request,
        response,
        'HTTPS_REQUIRED',
        'This API is served over HTTPS only. Repeat the request with https:// (and, if you sent a key, rotate it: it crossed the network in clear).',
      );
    } else if (request.httpVersionMinor >= 1 && !request.headers.host) {
      answer(request, response, 'BAD_USER_INPUT', 'An HTTP/1.1 request needs a Host header.');
    } else {
      handler(request, response);
    }
  };
  const server = createServer(
    {
      tls: {
        cert: options.tls.cert,
        key: options.tls.key,
        handshakeTimeout: limits.headersTimeoutMs,
        ALPNProtocols: ['http/1.1'],
      },
      http: {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
        maxHeaderSize: MAX_HEADER_BYTES,
        // Checked below, so that the refusal is JSON with a request id like every other answer.
        requireHostHeader: false,
      },
    },
    onRequest,
  );

  // httpolyglot hands connections to an inner http.Server that never listens itself, so Node never starts
  // the timer that enforces headersTimeout and requestTimeout there; 'listening' is what starts it.
  const { _httpServer: inner, _http2Server: http2 } = server as unknown as {
    _httpServer: HttpServer;
    _http2Server: Http2Server;
  };
  inner.emit('listening');
  // Node's headers timeout starts with a request's first byte: a TLS connection that sends nothing after its
  // handshake would be held until the idle timeout. Its first request must arrive within the headers timeout of
  // the handshake: a connection that sent nothing by then is closed, one with part of a request gets the 408 of
  // headers that came too slowly.
  server.on('secureConnection', (socket: TLSSocket) => {
    const deadline = setTimeout(() => {
      if (sentNothingSinceLastAnswer(socket)) socket.destroy();
      else refuseConnection(socket, ...HEADERS_TIMEOUT);
    }, limits.headersTimeoutMs);
    deadline.unref();
    firstRequestDeadlines.set(socket, deadline);
    socket.once('close', () => {
      clearTimeout(deadline);
      firstRequestDeadlines.delete(socket);
    });
  });
  // A TLS server leaves a connection whose handshake failed or timed out (handshakeTimeout) open unless a listener
  // closes it: a ClientHello that stops halfway would be held until the idle timeout.
  server.on('tlsClientError', (_error: Error, socket: Socket) => {
    socket.destroy();
  });
  // CONNECT asks for a tunnel: Node hands it to 'connect' listeners, and without one drops the connection
  // without a word.
  inner.on('connect', (request: IncomingMessage, socket: Socket) => {
    refuseConnection(
      socket,
      'METHOD_NOT_ALLOWED',
      'CONNECT is not served here: this is an API, not a proxy.',
      requestIdFor(request),
    );
  });
  // An Expect other than 100-continue is one we do not know: Node would answer it with a bare 417 (no body,
  // no request id). RFC 9110 lets a server ignore it, so the request is served like any other.
  inner.on('checkExpectation', onRequest);
  // A TLS client that offered no ALPN protocol and then sent the HTTP/2 preface reaches the polyglot's HTTP/2
  // server, whose own answer would be a plain-text 403.
  http2.on('unknownProtocol', (socket: Socket) => {
    refuseConnection(socket, 'BAD_USER_INPUT', 'HTTP/2 is not served here; use HTTP/1.1.');
  });
  // Closing stops the listener and ends, at once, every connection with no request in flight, as Node's own HTTP
  // server does: the polyglot server is a net.Server, which would wait for each to end by itself. Without this, a
  // connection a browser opened ahead of need (handshake done, no request yet) held a closing server until its
  // headers timeout (10 s), and an idle keep-alive one until its keep-alive timeout. A connection with a request
  // in flight is left to finish it, and ends once its answer is sent.
  const closeListener = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    stopping = true;
    closeListener(callback);
    inner.closeIdleConnections();
    for (const socket of firstRequestDeadlines.keys()) socket.destroy();
    for (const socket of rawSockets) if (socket.bytesRead === 0) socket.destroy();
    return server;
  };
  let closing = false;
  server.once('close', () => {
    if (closing) return;
    closing = true;
    inner.close();
  });

  const open = new Map<string, number>();
  const rawSockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    // Listeners on the polyglot server also hear its inner servers' connections: count raw sockets once.
    if (socket instanceof TLSSocket || rawSockets.has(socket)) return;
    rawSockets.add(socket);
    // Node's own servers turn Nagle's algorithm off on every connection; the polyglot's outer net.Server does not.
    // With it on, an answer written in two pieces (headers, then body) waited for the client's delayed ACK: 40 ms
    // added to one request in three.
    socket.setNoDelay(true);
    socket.setTimeout(limits.idleTimeoutMs, () => socket.destroy());
    // A client that sends no byte at all (no ClientHello, no request) starts no timer of TLS or HTTP: it is closed
    // at the headers timeout, like one whose headers never end.
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.headersTimeoutMs);
    silent.unref();
    const address = socket.remoteAddress ?? 'unknown';
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    socket.once('close', () => {
      rawSockets.delete(socket);
      clearTimeout(silent);
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
    if (count > limits.maxConnectionsPerAddress) socket.destroy();
  });
  return server;
}
