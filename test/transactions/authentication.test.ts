import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.ts';
import { apiKeys, createApiKey } from '../../src/keys/api-key-store.ts';
import { graphql } from '../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite();
/** A deployment that serves production keys, beside the suite's staging one. */
let production: FastifyInstance;
/** The organization of the tests that only send its key; a test that adds or revokes keys makes its own. */
let demo: EmptyTenant;

beforeAll(async () => {
  production = await suite.buildApp({ environment: 'production' });
  demo = await suite.emptyTenant();
});

async function expectRefused(app: FastifyInstance, authorization: string | undefined, message: RegExp) {
  const response = await app.inject({
    method: 'POST',
    url: '/beta',
    headers: authorization === undefined ? {} : { authorization },
    payload: { query: '{ viewer { id name } }' },
  });
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
  expect(JSON.stringify(body)).not.toContain('Test Capital');
}

/**
 * Runs `work` against an app that reuses key lookups for `apiKeyCacheMs`, with a new key of an organization of
 * its own and a function that revokes it.
 */
async function withKeyReusedFor(
  apiKeyCacheMs: number,
  work: (app: FastifyInstance, key: string, revoke: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const app = await suite.buildApp({ apiKeyCacheMs });
  const { organizationId } = await suite.emptyTenant();
  const { key, record } = await createApiKey(suite.db, {
    organizationId,
    environment: 'staging',
    name: 'to revoke',
  });
  await work(app, key, async () => {
    await apiKeys.revoke(suite.db, { ownerId: organizationId, key: record.id });
  });
}

describe('API keys on the GraphQL endpoint', () => {
  it('serves a valid staging key on a staging deployment', async () => {
    const { status, body } = await graphql(suite.app, demo.apiKey, '{ viewer { id } }');
    expect(status).toBe(200);
    expect(body.data?.viewer.id).toBe(demo.organizationId);
  });

  it('refuses a request without a key, saying how to send one', async () => {
    await expectRefused(suite.app, undefined, /Missing API key.*Bearer/);
  });

  it('refuses a key sent without the Bearer scheme', async () => {
    await expectRefused(suite.app, demo.apiKey, /must be "Bearer <API key>"/);
    await expectRefused(suite.app, `Basic ${demo.apiKey}`, /must be "Bearer <API key>"/);
  });

  it('never repeats the key in its refusal, however the header around it is wrong', async () => {
    for (const authorization of [
      demo.apiKey,
      `${demo.apiKey} extra`,
      `Bearer ${demo.apiKey} extra`,
      `Basic ${demo.apiKey}`,
      `Token ${demo.apiKey}`,
      `Bearer ${demo.apiKey}x`,
    ]) {
      const response = await suite.app.inject({
        method: 'POST',
        url: '/beta',
        headers: { authorization },
        payload: { query: '{ viewer { id } }' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(response.body).not.toContain(demo.apiKey.slice(0, 16));
      expect(response.body).not.toContain(demo.apiKey.slice(-12));
    }
  });

  it('refuses a malformed key without looking it up', async () => {
    await expectRefused(suite.app, 'Bearer sk_test_short', /Invalid API key: keys look like/);
    await expectRefused(
      suite.app,
      'Bearer pk_test_0000000000000000000000000000000000000000',
      /Invalid API key/,
    );
  });

  it('refuses a key with a typo because its checksum no longer matches', async () => {
    const last = demo.apiKey.at(-10) === 'a' ? 'b' : 'a';
    const typo = `${demo.apiKey.slice(0, -10)}${last}${demo.apiKey.slice(-9)}`;
    await expectRefused(suite.app, `Bearer ${typo}`, /checksum/);
  });

  it('refuses a well-formed key that was never issued', async () => {
    await expectRefused(suite.app, `Bearer ${generateApiKey('staging')}`, /^Invalid API key\.$/);
  });

  it('refuses a production key on a staging deployment, saying which environment it belongs to', async () => {
    const { organizationId } = await suite.emptyTenant();
    const { key } = await createApiKey(suite.db, { organizationId, environment: 'production' });
    await expectRefused(suite.app, `Bearer ${key}`, /production \(sk_live_\) key.*serves staging/);
    const { status } = await graphql(production, key, '{ viewer { id } }');
    expect(status).toBe(200);
  });

  it('refuses a staging key on a production deployment', async () => {
    await expectRefused(production, `Bearer ${demo.apiKey}`, /staging \(sk_test_\) key.*serves production/);
  });

  it('refuses a revoked key at once when key lookups are not reused', async () => {
    await withKeyReusedFor(0, async (uncached, key, revoke) => {
      expect((await graphql(uncached, key, '{ viewer { id } }')).status).toBe(200);
      await revoke();
      await expectRefused(uncached, `Bearer ${key}`, /revoked/);
    });
  });

  it('refuses a revoked key once the reuse period of its last lookup is over', async () => {
    // Two seconds: long enough that a loaded machine still asks again within it.
    await withKeyReusedFor(2000, async (cached, key, revoke) => {
      expect((await graphql(cached, key, '{ viewer { id } }')).status).toBe(200);
      await revoke();
      // The lookup made a moment ago still stands...
      expect((await graphql(cached, key, '{ viewer { id } }')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2050));
      // ...and no longer once it is older than the reuse period.
      await expectRefused(cached, `Bearer ${key}`, /revoked/);
    });
  });

  it('records when a key was last used, for operators deciding which keys to revoke', async () => {
    const { organizationId } = await suite.emptyTenant();
    const { key, record } = await createApiKey(suite.db, { organizationId, environment: 'staging' });
    const before = await apiKeys.list(suite.db, organizationId);
    expect(before.find((k) => k.id === record.id)?.lastUsedAt).toBeNull();
    await graphql(suite.app, key, '{ viewer { id } }');
    const after = await apiKeys.list(suite.db, organizationId);
    expect(after.find((k) => k.id === record.id)?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('leaves the health routes and GraphiQL page open without a key', async () => {
    expect((await suite.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await suite.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
      status: 'ok',
      checks: { database: 'ok' },
    });
    expect((await suite.app.inject({ method: 'GET', url: '/graphiql' })).statusCode).toBe(200);
  });
});
