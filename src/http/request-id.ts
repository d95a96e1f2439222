import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const INCOMING_ID = /^[A-Za-z0-9_.:-]{8,64}$/;

/**
 * The id of a request, on every log line and in every error: the caller's `X-Request-Id` when it is a sane
 * token (so ids can follow a request across systems), else a new `req_…`.
 */
export function requestIdFor(request: Pick<IncomingMessage, 'headers'>): string {
  const incoming = request.headers['x-request-id'];
  if (typeof incoming === 'string' && INCOMING_ID.test(incoming)) return incoming;
  return `req_${randomBytes(12).toString('base64url')}`;
}
