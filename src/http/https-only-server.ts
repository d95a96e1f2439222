import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createServer } from '@httptoolkit/httpolyglot';
import type { TlsMaterial } from './tls.ts';
import { requestIdFor } from './request-id.ts';
import { ERROR_STATUS } from '../errors.ts';

export interface HttpsOnlyOptions {
  tls: Pick<TlsMaterial, 'cert' | 'key'>;
  /** Accept plain HTTP from a TLS-terminating proxy that says `X-Forwarded-Proto: https`. */
  trustProxy: boolean;
}

function arrivedOverHttps(request: IncomingMessage, trustProxy: boolean): boolean {
  if ((request.socket as Partial<TLSSocket>).encrypted === true) return true;
  if (!trustProxy) return false;
  const forwarded = request.headers['x-forwarded-proto'];
  const values = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',');
  return values.every((value) => value.trim().toLowerCase() === 'https');
}

function refuse(request: IncomingMessage, response: ServerResponse): void {
  const requestId = requestIdFor(request);
  const body = JSON.stringify({
    error: {
      code: 'HTTPS_REQUIRED',
      message:
        'This API is served over HTTPS only. Repeat the request with https:// (and, if you sent a key, rotate it: it crossed the network in clear).',
      requestId,
    },
  });
  response.writeHead(ERROR_STATUS.HTTPS_REQUIRED, {
    'x-request-id': requestId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

/**
 * A server for one port that speaks TLS, and answers a plain-HTTP request with a JSON 403 `HTTPS_REQUIRED`
 * instead of data or a TLS handshake error. With `trustProxy`, plain HTTP is accepted only from a proxy that
 * forwards `X-Forwarded-Proto: https`.
 */
export function createHttpsOnlyServer(options: HttpsOnlyOptions, handler: RequestListener) {
  return createServer({ tls: { cert: options.tls.cert, key: options.tls.key } }, (request, response) => {
    if (arrivedOverHttps(request, options.trustProxy)) handler(request, response);
    else refuse(request, response);
  });
}
