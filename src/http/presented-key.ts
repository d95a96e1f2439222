import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashApiKey } from '../keys/api-key.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key this request presented and its SHA-256, once something needed the hash; else null. */
    presentedKeyHash: { key: string; hash: Buffer } | null;
  }
}

/** Gives every request of `app` the slot {@link presentedKeyHash} fills. */
export function decoratePresentedKeyHash(app: FastifyInstance): void {
  app.decorateRequest('presentedKeyHash', null);
}

/**
 * The SHA-256 of a key the request presented, computed once per request: the rate limiter's bucket and the
 * key lookup both need it.
 */
export function presentedKeyHash(request: FastifyRequest, key: string): Buffer {
  const known = request.presentedKeyHash;
  if (known !== null && known.key === key) return known.hash;
  const hash = hashApiKey(key);
  request.presentedKeyHash = { key, hash };
  return hash;
}
