import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, createSecureContext, type SecureContext } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Raw HTTP over real sockets, for what an HTTP client library would refuse to send or would hide: garbage
 * bytes, malformed request lines, slow writers, silent connections, and the exact bytes that came back.
 */

export interface ExchangeOptions {
  port: number;
  /** The CA certificate (PEM) to trust: the exchange runs over TLS to `localhost`. Plain TCP when absent. */
  ca?: string;
  /** What to send, in order; nothing at all when empty (a silent client). */
  chunks: readonly (string | Buffer)[];
  /** The pause before each chunk after the first. @default 0 */
  gapMs?: number;
  /** The exchange gives up and closes the socket itself after this long. */
  timeoutMs: number;
}

export interface Exchange {
  /** Every byte the server sent. */
  received: Buffer;
  /** Whether the server ended or reset the connection (rather than the client giving up at `timeoutMs`). */
  closedByServer: boolean;
  /** From the connection being open (after the TLS handshake) until it closed. */
  elapsedMs: number;
  /** How many chunks were written before the connection closed. */
  written: number;
  /** The socket error that ended the exchange, if any (e.g. ECONNRESET). */
  error: string | undefined;
}

/**
 * One TLS context per CA certificate: made per connection, it costs more than the rest of a short exchange (the
 * fuzz tests open thousands).
 */
const contexts = new Map<string, SecureContext>();

function contextTrusting(ca: string): SecureContext {
  let context = contexts.get(ca);
  if (context === undefined) {
    context = createSecureContext({ ca });
    contexts.set(ca, context);
  }
  return context;
}

/** Opens a socket to the port on 127.0.0.1, over TLS (to `localhost`, trusting `ca`) or plain TCP. */
export function openSocket(port: number, ca: string | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      ca === undefined
        ? connectTcp({ host: '127.0.0.1', port }, () => {
            resolve(socket);
          })
        : connectTls(
            { host: '127.0.0.1', port, secureContext: contextTrusting(ca), servername: 'localhost' },
            () => {
              resolve(socket);
            },
          );
    socket.once('error', reject);
    socket.once('close', () => {
      reject(new Error('the connection closed before it was established'));
    });
  });
}

/**
 * What comes back on `socket` until the server closes it (its ending its side ends the exchange: nothing more
 * can come, and a client that sees the answer stops sending), or until `timeoutMs` passes and the client does.
 */
function listen(
  socket: Socket,
  timeoutMs: number,
): Promise<{ received: Buffer; closedByServer: boolean; error: string | undefined }> {
  const received: Buffer[] = [];
  let error: string | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    socket.destroy();
  }, timeoutMs);
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      error = cause.code ?? cause.message;
    });
    socket.on('end', () => {
      socket.destroy();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received: Buffer.concat(received), closedByServer: !timedOut, error });
    });
  });
}

/**
 * Sends `chunks` over one connection and collects what comes back until the server closes the connection
 * or `timeoutMs` passes. Never rejects: a refused or reset connection is reported in the result.
 */
export async function exchange(options: ExchangeOptions): Promise<Exchange> {
  const started = Date.now();
  let socket: Socket;
  try {
    socket = await openSocket(options.port, options.ca);
  } catch (error) {
    return {
      received: Buffer.alloc(0),
      closedByServer: true,
      elapsedMs: Date.now() - started,
      written: 0,
      error: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
    };
  }
  const opened = Date.now();
  const listening = listen(socket, options.timeoutMs);
  let written = 0;
  for (const [index, chunk] of options.chunks.entries()) {
    if (index > 0 && (options.gapMs ?? 0) > 0) await sleep(options.gapMs);
    if (socket.destroyed) break;
    socket.write(chunk);
    written += 1;
  }
  const { received, closedByServer, error } = await listening;
  return { received, closedByServer, elapsedMs: Date.now() - opened, written, error };
}

export interface ParsedResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/**
 * The first HTTP/1.1 response in `bytes` (Content-Length, chunked, or until the end), or undefined when they
 * do not start with a complete response head.
 */
export function parseResponse(bytes: Buffer, options: { head?: boolean } = {}): ParsedResponse | undefined {
  // Interim answers (100 Continue) come first: the response is the one after them.
  let start = 0;
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(start, start + 13).toString('latin1'))) {
    const interimEnd = bytes.indexOf('\r\n\r\n', start);
    if (interimEnd < 0) return undefined;
    start = interimEnd + 4;
  }
  return parseFinalResponse(bytes.subarray(start), options);
}

function parseFinalResponse(bytes: Buffer, options: { head?: boolean }): ParsedResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!status?.[1]) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name] ?? ''}, ${value}` : value;
  }
  const code = Number(status[1]);
  const rest = bytes.subarray(end + 4);
  let body: Buffer;
  if (options.head === true || code === 204 || code === 304) body = Buffer.alloc(0);
  else if (headers['content-length'] !== undefined)
    body = rest.subarray(0, Number(headers['content-length']));
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(rest);
  else body = rest;
  return { status: code, headers, body: body.toString('utf8') };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** One HTTP/1.1 request as bytes: request line, `Host` (unless null), the headers, and the body. */
export function rawRequest(options: {
  method: string;
  target: string;
  /** @default 'localhost' */
  host?: string | null;
  headers?: readonly (readonly [string, string])[];
  body?: string | Buffer;
  /** @default true: `Connection: close`, so that the server closes after answering. */
  close?: boolean;
}): Buffer {
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  const lines = [`${options.method} ${options.target} HTTP/1.1`];
  if (options.host !== null) lines.push(`Host: ${options.host ?? 'localhost'}`);
  if (options.close ?? true) lines.push('Connection: close');
  for (const [name, value] of options.headers ?? []) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
  return body === undefined ? head : Buffer.concat([head, body]);
}

export interface StreamedExchange {
  /** Every byte the server sent. */
  received: Buffer;
  /** The bytes handed to the socket (the head included) before the connection closed or all were sent. */
  sent: number;
  /** Whether the server ended or reset the connection (rather than the client giving up at `timeoutMs`). */
  closedByServer: boolean;
  /** The socket error that ended the exchange, if any (e.g. ECONNRESET). */
  error: string | undefined;
}

/**
 * Sends `head`, then the chunks of `body` as fast as the server takes them — the next chunk waits for the
 * socket to drain, never for a time — and collects what comes back until the server closes the connection (the
 * client then stops sending) or `timeoutMs` passes. For a server that should stop reading a body and close.
 */
export async function streamBody(options: {
  port: number;
  /** The CA certificate (PEM) to trust: TLS to `localhost`. Plain TCP when absent. */
  ca?: string;
  head: Buffer;
  body: Iterable<Buffer>;
  timeoutMs: number;
}): Promise<StreamedExchange> {
  const socket = await openSocket(options.port, options.ca);
  const listening = listen(socket, options.timeoutMs);
  const drainedOrClosed = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  let sent = 0;
  const send = async (chunk: Buffer) => {
    sent += chunk.length;
    if (!socket.write(chunk)) await drainedOrClosed();
  };
  await send(options.head);
  for (const chunk of options.body) {
    if (socket.destroyed) break;
    await send(chunk);
  }
  return { ...(await listening), sent };
}
