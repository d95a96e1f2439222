import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { buildSchema, getIntrospectionQuery, buildClientSchema, printSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/keys/api-key-store.ts';
import { generateApiKey } from '../../../src/keys/api-key.ts';
import { TRANSACTIONS_SDL_PATH, transactionsSdl } from '../../../src/transactions/graphql/sdl.ts';
import { graphql } from '../../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';

const SDL_URL = '/beta/schema.graphql';
const suite = useTransactionsSuite();
let demo: EmptyTenant;

beforeAll(async () => {
  demo = await suite.emptyTenant();
});

function getSdl(app: FastifyInstance, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: SDL_URL, headers });
}

describe('GET /beta/schema.graphql', () => {
  it('answers the SDL of the executable schema as UTF-8 text, private and cacheable for 5 minutes', async () => {
    const response = await getSdl(suite.app, { authorization: `Bearer ${demo.apiKey}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['cache-control']).toBe('private, max-age=300');
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(response.body).toBe(transactionsSdl());
    // The same schema the endpoint's introspection describes.
    const introspection = await graphql(
      suite.app,
      demo.apiKey,
      getIntrospectionQuery({ schemaDescription: true, specifiedByUrl: true }),
    );
    expect(introspection.status).toBe(200);
    const introspected = buildClientSchema(introspection.body.data as never);
    expect(printSchema(buildSchema(response.body))).toBe(printSchema(introspected));
    expect(response.body).toContain('type Query {');
    expect(response.body).toContain('type Mutation {');
  });

  it('answers 304 without a body to an If-None-Match naming its ETag, and the SDL to any other tag', async () => {
    const authorization = `Bearer ${demo.apiKey}`;
    const { headers } = await getSdl(suite.app, { authorization });
    const etag = String(headers.etag);
    const unchanged = await getSdl(suite.app, { authorization, 'if-none-match': etag });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    expect(unchanged.headers.etag).toBe(etag);
    const listed = await getSdl(suite.app, { authorization, 'if-none-match': `"other", W/${etag}` });
    expect(listed.statusCode).toBe(304);
    const changed = await getSdl(suite.app, { authorization, 'if-none-match': '"0123456789abcdef"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toBe(transactionsSdl());
  });

  it('equals the committed docs/transactions.graphql (run `npm run schemas` after changing the schema)', async () => {
    expect(await readFile(TRANSACTIONS_SDL_PATH, 'utf8')).toBe(transactionsSdl());
  });
});

describe('who may read the schema', () => {
  /** Asserts the endpoint's refusal: 401 UNAUTHENTICATED in the GraphQL error shape, with WWW-Authenticate. */
  function expectRefused(response: Awaited<ReturnType<typeof getSdl>>, message: RegExp) {
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="portico"');
    const body = response.json();
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({
      code: 'UNAUTHENTICATED',
      requestId: response.headers['x-request-id'],
    });
    expect(body.errors[0].message).toMatch(message);
    expect(response.body).not.toContain('type Query');
  }

  it('refuses a request without a key as the endpoint does, even one naming the ETag', async () => {
    const { headers } = await getSdl(suite.app, { authorization: `Bearer ${demo.apiKey}` });
    expectRefused(await getSdl(suite.app), /Missing API key/);
    expectRefused(await getSdl(suite.app, { 'if-none-match': String(headers.etag) }), /Missing API key/);
  });

  it('refuses an unknown key, a malformed one and one of the other environment', async () => {
    expectRefused(
      await getSdl(suite.app, { authorization: `Bearer ${generateApiKey('staging')}` }),
      /^Invalid API key\.$/,
    );
    expectRefused(await getSdl(suite.app, { authorization: 'Bearer sk_test_short' }), /keys look like/);
    const production = await suite.buildApp({ environment: 'production' });
    expectRefused(
      await getSdl(production, { authorization: `Bearer ${demo.apiKey}` }),
      /staging \(sk_test_\) key.*serves production/,
    );
    const live = await createApiKey(suite.db, {
      organizationId: demo.organizationId,
      environment: 'production',
    });
    const answered = await getSdl(production, { authorization: `Bearer ${live.key}` });
    expect(answered.statusCode).toBe(200);
    expect(answered.body).toBe(transactionsSdl());
  });

  it("counts each request against its key's rate limit, refused in the endpoint's error shape past it", async () => {
    const app = await suite.buildApp({ rateLimit: { perKey: 2, perAddress: 100 } });
    const { key } = await createApiKey(suite.db, {
      organizationId: demo.organizationId,
      environment: 'staging',
    });
    const authorization = `Bearer ${key}`;
    expect((await getSdl(app, { authorization })).statusCode).toBe(200);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/beta',
          headers: { authorization },
          payload: { query: '{ __typename }' },
        })
      ).statusCode,
    ).toBe(200);
    const refused = await getSdl(app, { authorization });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
