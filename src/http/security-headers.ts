import type { FastifyInstance } from 'fastify';

/**
 * On every answer of both services: a browser takes the Content-Type we send as it is, and never sniffs a JSON
 * error, a signed download or a preview into HTML or a script.
 */
export const NOSNIFF_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

/**
 * On every JSON answer of both services that does not set its own caching, the APIs' included. The people's
 * routes carry personal data and credentials (a recipient's view, the dashboard's people and keys, a delivered
 * key); the APIs' answers carry the same kind of thing (fund data, investors' names and addresses, signed download
 * links that work for anyone until they expire, keys), and an integrator's browser app calls them through CORS,
 * so a browser's disk cache or a shared proxy must not keep them either (Stripe's API sends `no-store` too). A
 * cached health answer would hide an outage. Nothing is lost: no JSON answer carries an ETag to revalidate.
 * `no-store` alone forbids storing (RFC 9111 §5.2.2.5): `no-cache` and `private` would add nothing to it.
 */
export const NO_STORE_HEADERS = { 'cache-control': 'no-store' } as const;

/** The headers of a JSON answer written outside Fastify's hooks (framework errors, refused connections). */
export const JSON_ANSWER_HEADERS = { ...NOSNIFF_HEADERS, ...NO_STORE_HEADERS } as const;

/** `application/json` and its `+json` kinds (`application/graphql-response+json`, `application/problem+json`). */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Adds {@link NOSNIFF_HEADERS} to every answer and {@link NO_STORE_HEADERS} to every JSON answer that sets no
 * Cache-Control of its own, on the root of an app, so that routes, errors and 404s of every scope have them.
 * Pages (`no-cache`), hashed assets (immutable) and downloads (`private, no-store`) keep their own caching.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  // onRequest, before any hook that may refuse the request: the header then stays on the error answer too.
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(NOSNIFF_HEADERS);
    done();
  });
  // onSend, as only the serialized answer knows its type. A route's own Cache-Control is set by then; a scope's
  // onSend hook runs after this one and may still replace it.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && JSON_MEDIA_TYPE.test(String(reply.getHeader('content-type')))) {
      void reply.headers(NO_STORE_HEADERS);
    }
    done(null, payload);
  });
}
