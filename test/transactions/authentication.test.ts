import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.ts';
import { apiKeys, createApiKey } from '../../src/keys/api-key-store.ts';
import type { TransactionsDemo } from '../../src/demo/seed.ts';
import type { FileStore } from '../../src/files/local-file-store.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createTestFileStore, graphql, seedOrganization, transactionsApp } from '../support/transactions.ts';

let testDb: TestDatabase;
let cleanup: () => Promise<void>;
let files: FileStore;
let staging: FastifyInstance;
let production: FastifyInstance;
let demo: TransactionsDemo;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const store = await createTestFileStore();
  cleanup = store.cleanup;
  files = store.files;
  staging = await transactionsApp(testDb.db, store.files, 'staging');
  production = await transactionsApp(testDb.db, store.files, 'production');
  demo = await seedOrganization(testDb.db, store.files, 'staging');
});

afterAll(async () => {
  await staging.close();
  await production.close();
  await testDb.close();
  await cleanup();
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
 * Runs `work` against an app that reuses key lookups for `apiKeyCacheMs`, with a new key of the demo
 * organization and a function that revokes it; the app is closed afterwards.
 */
async function withKeyReusedFor(
  apiKeyCacheMs: number,
  work: (app: FastifyInstance, key: string, revoke: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const app = await buildTransactionsApp({ db: testDb.db, files, environment: 'staging', apiKeyCacheMs });
  try {
    const { key, record } = await createApiKey(testDb.db, {
      organizationId: demo.organizationId,
      environment: 'staging',
      name: 'to revoke',
    });
    await work(app, key, async () => {
      await apiKeys.revoke(testDb.db, { ownerId: demo.organizationId, key: record.id });
    });
  } finally {
    await app.close();
  }
}

describe('API keys on the GraphQL endpoint', () => {
  it('serves a valid staging key on a staging deployment', async () => {
    const { status, body } = await graphql(staging, demo.apiKey, '{ viewer { id } }');
    expect(status).toBe(200);
    expect(body.data?.viewer.id).toBe(demo.organizationId);
  });

  it('refuses a request without a key, saying how to send one', async () => {
    await expectRefused(staging, undefined, /Missing API key.*Bearer/);
  });

  it('refuses a key sent without the Bearer scheme', async () => {
    await expectRefused(staging, demo.apiKey, /must be "Bearer <API key>"/);
    await expectRefused(staging, `Basic ${demo.apiKey}`, /must be "Bearer <API key>"/);
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
      const response = await staging.inject({
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
    await expectRefused(staging, 'Bearer sk_test_short', /Invalid API key: keys look like/);
    await expectRefused(
      staging,
      'Bearer pk_test_0000000000000000000000000000000000000000',
      /Invalid API key/,
    );
  });

  it('refuses a key with a typo because its checksum no longer matches', async () => {
    const last = demo.apiKey.at(-10) === 'a' ? 'b' : 'a';
    const typo = `${demo.apiKey.slice(0, -10)}${last}${demo.apiKey.slice(-9)}`;
    await expectRefused(staging, `Bearer ${typo}`, /checksum/);
  });

  it('refuses a well-formed key that was never issued', async () => {
    await expectRefused(staging, `Bearer ${generateApiKey('staging')}`, /^Invalid API key\.$/);
  });

  it('refuses a production key on a staging deployment, saying which environment it belongs to', async () => {
    const { key } = await createApiKey(testDb.db, {
      organizationId: demo.organizationId,
      environment: 'production',
    });
    await expectRefused(staging, `Bearer ${key}`, /production \(sk_live_\) key.*serves staging/);
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
    await withKeyReusedFor(300, async (cached, key, revoke) => {
      expect((await graphql(cached, key, '{ viewer { id } }')).status).toBe(200);
      await revoke();
      // The lookup made a moment ago still stands...
      expect((await graphql(cached, key, '{ viewer { id } }')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 350));
      // ...and no longer once it is older than the reuse period.
      await expectRefused(cached, `Bearer ${key}`, /revoked/);
    });
  });

  it('records when a key was last used, for operators deciding which keys to revoke', async () => {
    const { key, record } = await createApiKey(testDb.db, {
      organizationId: demo.organizationId,
      environment: 'staging',
    });
    const before = await apiKeys.list(testDb.db, demo.organizationId);
    expect(before.find((k) => k.id === record.id)?.lastUsedAt).toBeNull();
    await graphql(staging, key, '{ viewer { id } }');
    const after = await apiKeys.list(testDb.db, demo.organizationId);
    expect(after.find((k) => k.id === record.id)?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('leaves the health routes and GraphiQL page open without a key', async () => {
    expect((await staging.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await staging.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok' });
    expect((await staging.inject({ method: 'GET', url: '/graphiql' })).statusCode).toBe(200);
  });
});
