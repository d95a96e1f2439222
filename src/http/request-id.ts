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
  return `req_${randomId()}`;
}

/** Random bytes of a request id. */
const ID_BYTES = 12;
/** Ids' worth of random bytes drawn at once: one call into the system's generator per 256 ids, not per id. */
const POOLED_IDS = 256;
let pool = Buffer.alloc(0);
let offset = 0;

/** 12 random bytes as base64url (16 characters), from a pool refilled by `randomBytes` when spent. */
function randomId(): string {
  if (offset >= pool.length) {
    pool = randomBytes(ID_BYTES * POOLED_IDS);
    offset = 0;
  }
  offset += ID_BYTES;
  return pool.toString('base64url', offset - ID_BYTES, offset);
}
