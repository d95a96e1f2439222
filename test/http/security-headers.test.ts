// What every answer of both services says about itself, whatever route, hook or refusal wrote it:
// `X-Content-Type-Options: nosniff` on all of them, and `Cache-Control: no-store` on every JSON answer (the APIs',
// the people's pages' JSON routes, errors and 404s), while pages, hashed assets, signed downloads and document
// previews keep caching of their own (docs/operations.md, "Answer headers").
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInstanceSecret } from '../../src/db/instance-secrets.ts';
import { createFileLinks } from '../../src/files/file-links.ts';
import { createMailer, type Mailer } from '../../src/mail/mailer.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { DASHBOARD_API_PATH } from '../../src/portfolio/dashboard/dashboard.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { issueKeyDelivery, secretProof } from '../../src/transactions/key-delivery/deliveries.ts';
import {
  createDashboardPerson,
  dashboardApp,
  instanceApi,
  signedInBrowser,
  stubDashboardBuild,
} from '../support/data/dashboard.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { createPortfolioInstance, type PortfolioInstanceFixture } from '../support/data/portfolio.ts';
import { exchange, parseResponse, rawRequest } from '../support/peers/raw-socket.ts';
import type { Service } from '../support/data/service-apps.ts';
import { listenHttps, testTls } from '../support/peers/tls-listener.ts';
import {
  CREATE_TRANSACTION,
  createTestFileStore,
  graphql,
  transactionInput,
} from '../support/data/transactions.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';

let testDb: TestDatabase;
let story: OrganizationStory;
let portfolio: PortfolioInstanceFixture;
let mailer: Mailer;
let apps: Record<Service, FastifyInstance>;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  const store = await createTestFileStore();
  const build = await stubDashboardBuild();
  const mailDir = await mkdtemp(join(tmpdir(), 'portico-headers-mail-'));
  cleanups.push(store.cleanup, build.cleanup, () => rm(mailDir, { recursive: true, force: true }));
  mailer = createMailer(
    { dataDir: mailDir, smtpUrl: undefined, mailFrom: 'Portico <no-reply@localhost>' },
    pino({ level: 'silent' }),
  );
  story = await organizationStory(testDb.db, store.files);
  portfolio = await createPortfolioInstance(testDb.db);
  apps = {
    transactions: await buildTransactionsApp({
      db: testDb.db,
      files: store.files,
      environment: 'staging',
      keyDelivery: { mailer, distDir: build.distDir },
    }),
    portfolio: await dashboardApp(testDb.db, { mailer, distDir: build.distDir }),
  };
});

afterAll(async () => {
  for (const app of Object.values(apps)) await app.close();
  mailer.close();
  await testDb.close();
  for (const cleanup of cleanups) await cleanup();
});

type Answer =
  | { statusCode: number; headers: Record<string, unknown> }
  | { status: number; headers: Record<string, unknown> };

/** An answer's status and the two headers, to compare whole. */
function seen(answer: Answer) {
  return {
    status: 'statusCode' in answer ? answer.statusCode : answer.status,
    nosniff: answer.headers['x-content-type-options'],
    cacheControl: answer.headers['cache-control'],
  };
}

/** What {@link seen} should find: `nosniff`, and `cacheControl` (a JSON answer's `no-store` by default). */
function expected(status: number, cacheControl = 'no-store') {
  return { status, nosniff: 'nosniff', cacheControl };
}

describe.each<Service>(['transactions', 'portfolio'])('every answer of the %s service', (service) => {
  it('carries nosniff and no-store on health, 404 and framework-error answers', async () => {
    const app = apps[service];
    const answers = await Promise.all(
      ['/healthz', '/readyz', '/nothing-here', '/%E0%A4%A', `/files/${'x'.repeat(120)}`].map((url) =>
        app.inject({ method: 'GET', url }),
      ),
    );
    expect(answers.map(seen)).toEqual([
      expected(200),
      expected(200),
      expected(404),
      expected(400),
      expected(service === 'transactions' ? 414 : 404),
    ]);
  });
});

describe('the APIs', () => {
  it("carries nosniff and no-store on the GraphQL API's answers: data, a missing key and an unknown path", async () => {
    const app = apps.transactions;
    const data = await graphql(app, story.apiKey, '{ __typename }');
    const noKey = await graphql(app, undefined, '{ __typename }');
    const unknown = await app.inject({ method: 'POST', url: '/beta/nothing', payload: {} });
    expect([data, noKey, unknown].map(seen)).toEqual([expected(200), expected(401), expected(404)]);
  });

  it("carries nosniff and no-store on the Portfolio API's answers: a list, a missing key and an unknown company", async () => {
    const app = apps.portfolio;
    const headers = { authorization: portfolio.apiKey };
    const answers = [
      await app.inject({ method: 'GET', url: '/v1/external/companies', headers }),
      await app.inject({ method: 'GET', url: '/v1/external/companies' }),
      await app.inject({ method: 'GET', url: `/v1/external/company/${randomUUID()}/updates`, headers }),
    ];
    expect(answers.map(seen)).toEqual([expected(200), expected(401), expected(404)]);
  });
});

describe('the recipient portal', () => {
  /** A new transaction's recipient link token. */
  async function transmitToken(): Promise<string> {
    const { body } = await graphql(apps.transactions, story.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(story),
    });
    expect(body.errors).toBeUndefined();
    return String(body.data?.createTransaction.transmitToken);
  }

  it('carries nosniff and no-store on its JSON answers: the view, a refused save, an unknown link and route', async () => {
    const app = apps.transactions;
    const token = await transmitToken();
    const answers = [
      await app.inject({ method: 'GET', url: `/recipient/${token}` }),
      await app.inject({ method: 'PUT', url: `/recipient/${token}/items/tax_forms`, payload: {} }),
      await app.inject({ method: 'GET', url: `/recipient/${randomUUID()}` }),
      await app.inject({ method: 'GET', url: `/recipient/${token}/nothing` }),
    ];
    expect(answers.map(seen)).toEqual([expected(200), expected(400), expected(404), expected(404)]);
  });

  it('carries nosniff and private, no-store on a document preview, and no-store on its refusals', async () => {
    const app = apps.transactions;
    const token = await transmitToken();
    const preview = `/recipient/${token}/documents/subscription_agreement/preview`;
    const answers = [
      await app.inject({ method: 'GET', url: preview }),
      await app.inject({ method: 'GET', url: `/recipient/${token}/documents/no_such_document/preview` }),
      await app.inject({ method: 'GET', url: `/recipient/${randomUUID()}/documents/x/preview` }),
    ];
    expect(answers[0]?.headers['content-type']).toBe('application/pdf');
    expect(answers.map(seen)).toEqual([expected(200, 'private, no-store'), expected(404), expected(404)]);
  });
});

describe('signed downloads', () => {
  it('carry nosniff and private, no-store, and no-store on a forged link and on a file without content', async () => {
    const app = apps.transactions;
    const { body } = await graphql(
      app,
      story.apiKey,
      'query ($id: uuid!) { transaction(id: $id) { transactionFiles { file { signedUrl } } } }',
      { id: story.transactionId },
    );
    const link = new URL(String(body.data?.transaction.transactionFiles[0].file.signedUrl));
    const forged = new URL(link);
    forged.searchParams.set('signature', 'A'.repeat(43));
    const links = createFileLinks(await loadInstanceSecret(testDb.db, 'file_links'));
    const noContent = links.pathFor(randomUUID(), new Date(Date.now() + 60_000));
    const answers = [
      await app.inject({ method: 'GET', url: link.pathname + link.search }),
      await app.inject({ method: 'GET', url: forged.pathname + forged.search }),
      await app.inject({ method: 'GET', url: noContent }),
    ];
    expect(answers.map(seen)).toEqual([expected(200, 'private, no-store'), expected(403), expected(404)]);
  });
});

describe("the people's pages", () => {
  it("carries nosniff and no-store on the dashboard's JSON answers: people, a request without CSRF token and unknown routes", async () => {
    const person = await createDashboardPerson(testDb.db, {
      instanceId: portfolio.instanceId,
      role: 'admin',
    });
    const browser = await signedInBrowser(apps.portfolio, person);
    const answers = [
      await browser.get(instanceApi(portfolio.slug, '/people')),
      await browser.request(
        'POST',
        instanceApi(portfolio.slug, '/keys'),
        { name: 'erp' },
        { csrfToken: null },
      ),
      await browser.get(instanceApi(portfolio.slug, '/nothing')),
      await browser.request('POST', `${DASHBOARD_API_PATH}/nothing`, {}),
    ];
    expect(answers.map(seen)).toEqual([expected(200), expected(403), expected(404), expected(404)]);
  });

  it('carries nosniff and no-store on the key-delivery routes: a description, a malformed request and unknown routes', async () => {
    const app = apps.transactions;
    const { linkId, secret } = await issueKeyDelivery(testDb.db, {
      organizationId: story.organizationId,
      environment: 'staging',
      emails: ['ada@example.com'],
    });
    const describeLink = (payload: object) =>
      app.inject({ method: 'POST', url: '/key-delivery/api/describe', payload });
    const answers = [
      await describeLink({ linkId, proof: secretProof(secret) }),
      await describeLink({ linkId }),
      await app.inject({ method: 'POST', url: '/key-delivery/api/nothing', payload: {} }),
      await app.inject({ method: 'GET', url: '/key-delivery/api/nothing' }),
    ];
    expect(answers.map(seen)).toEqual([expected(200), expected(400), expected(404), expected(404)]);
  });

  it('carries nosniff on pages and hashed assets, which keep their own caching, and no-store on a missing asset', async () => {
    const answers = await Promise.all(
      [
        ['portfolio', '/dashboard'],
        ['portfolio', '/dashboard/assets/main.js'],
        ['portfolio', '/dashboard/assets/missing.js'],
        ['transactions', '/key-delivery/some-link'],
        ['transactions', '/r/assets/main.js'],
        ['transactions', '/r/assets/missing.js'],
      ].map(([service = '', url = '']) => apps[service as Service].inject({ method: 'GET', url })),
    );
    const immutable = 'public, max-age=31536000, immutable';
    expect(answers.map(seen)).toEqual([
      expected(200, 'no-cache'),
      expected(200, immutable),
      expected(404),
      expected(200, 'no-cache'),
      expected(200, immutable),
      expected(404),
    ]);
  });
});

describe('refusals written before Fastify sees a request', () => {
  it('carry nosniff and no-store: plain HTTP refused, and a request that is not HTTP', async () => {
    const tls = await testTls();
    const app = await buildPortfolioApp({ db: testDb.db, tls });
    try {
      const { port } = await listenHttps(app);
      const results = [
        await exchange({
          port,
          chunks: [rawRequest({ method: 'GET', target: '/healthz' })],
          timeoutMs: 10_000,
        }),
        await exchange({ port, ca: tls.cert, chunks: ['NOT HTTP\r\n\r\n'], timeoutMs: 10_000 }),
      ];
      const answers = results.map((result) => parseResponse(result.received));
      expect(answers.map((answer) => answer && seen(answer))).toEqual([expected(403), expected(400)]);
    } finally {
      await app.close();
    }
  });
});
