import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildSchema } from 'graphql';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { generateApiKey, generatePortfolioKey } from '../../src/keys/api-key.ts';
import { createMailer, type Mailer } from '../../src/mail/mailer.ts';
import { apiKeys, createApiKey } from '../../src/keys/api-key-store.ts';
import { createPortfolioKey, portfolioKeys } from '../../src/portfolio/instances.ts';
import { buildServedApps } from '../../src/served-apps.ts';
import { stubDashboardBuild } from '../support/data/dashboard.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import {
  createPortfolioInstance,
  importDocument,
  investmentsUrl,
  newCompany,
  newInvestment,
  newUpdate,
  updatesUrl,
  companiesUrl,
} from '../support/data/portfolio.ts';
import { routeName, routesOf } from '../support/routes.ts';
import { createTransactionsTenant, type TransactionsTenant } from '../support/data/tenants.ts';
import { createTestFileStore, transactionInput } from '../support/data/transactions.ts';

/**
 * The shared auth suite (after Unkey's): every route and every GraphQL root field of both services, enumerated
 * from the apps and the schema, refuses a missing, malformed, unknown, revoked or other-environment key with
 * 401 UNAUTHENTICATED (docs/errors.md), and reads another tenant's ids exactly like ids that do not exist. A
 * route that takes no key is listed in PUBLIC_ROUTES with the auth it uses instead and a request that shows it;
 * a route or root field that is neither covered nor listed fails the suite.
 */

let testDb: TestDatabase;
let files: FileStore;
let cleanup: () => Promise<void>;
let transactions: FastifyInstance;
let portfolio: FastifyInstance;
let dashboardBuild: Awaited<ReturnType<typeof stubDashboardBuild>>;
let mailDataDir: string;
let mailer: Mailer;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const store = await createTestFileStore();
  files = store.files;
  cleanup = store.cleanup;
  // Key lookups are not reused, so a key revoked a moment ago is refused at once.
  // With their pages: a stand-in for the built pages (the routes are the same), mail written to files.
  dashboardBuild = await stubDashboardBuild();
  mailDataDir = await mkdtemp(join(tmpdir(), 'portico-api-auth-mail-'));
  mailer = createMailer(
    { dataDir: mailDataDir, smtpUrl: undefined, mailFrom: 'Portico <no-reply@localhost>' },
    pino({ level: 'silent' }),
  );
  // The apps `portico serve` runs, every surface on; key lookups are not reused, so a key revoked a moment ago
  // is refused at once.
  const config = loadConfig({ PORTICO_DATA_DIR: mailDataDir, PORTICO_WEBHOOKS_ALLOW_INSECURE: 'true' });
  const apps = await buildServedApps({
    config,
    shared: { db: testDb.db, apiKeyCacheMs: 0 },
    files,
    mail: { mailer, transactionsUrl: 'https://localhost:4000', portfolioUrl: 'https://localhost:4001' },
    webDistDir: dashboardBuild.distDir,
    logger: pino({ level: 'silent' }),
  });
  const appOf = (name: string) => {
    const found = apps.find((each) => each.name === name)?.app;
    if (!found) throw new Error(`portico serve built no ${name} app`);
    return found;
  };
  transactions = appOf('transactions');
  portfolio = appOf('portfolio');
  await transactions.ready();
  await portfolio.ready();
});

afterAll(async () => {
  await transactions.close();
  await portfolio.close();
  mailer.close();
  await dashboardBuild.cleanup();
  await rm(mailDataDir, { recursive: true, force: true });
  await testDb.close();
  await cleanup();
});

/** A route that takes no API key: the auth it uses instead, and a request without a key that shows it. */
interface PublicRoute {
  auth: string;
  request: InjectOptions & { url: string };
  status: number;
  code?: string;
}

const open = (url: string, status = 200): Pick<PublicRoute, 'request' | 'status'> => ({
  request: { method: 'GET', url },
  status,
});

/**
 * A signed-in surface's page (static; its requests to `<path>/api` carry the session) and that page's paths,
 * GET and HEAD. The JSON routes under `<path>/api` are the security table's of the signed-in surfaces
 * (test/http/signed-in/security-table.test.ts), which reads them from these same apps.
 */
const signedInPage = (path: string): Record<string, PublicRoute> =>
  Object.fromEntries(
    [path, `${path}/`, `${path}/*`].flatMap((route) =>
      ['GET', 'HEAD'].map((method) => [
        `${method} ${route}`,
        {
          auth: `none: a static page; its requests to ${path}/api carry the session`,
          request: { method, url: route.replace('*', 'no-session/somewhere') },
          status: 200,
        } satisfies PublicRoute,
      ]),
    ),
  );

const HEALTH: Record<string, PublicRoute> = {
  'GET /healthz': { auth: 'none: load balancers probe it', ...open('/healthz') },
  'HEAD /healthz': { auth: 'none: load balancers probe it', ...open('/healthz') },
  'GET /readyz': { auth: 'none: load balancers probe it', ...open('/readyz') },
  'HEAD /readyz': { auth: 'none: load balancers probe it', ...open('/readyz') },
};

const UNKNOWN_TOKEN = '00000000-0000-4000-8000-000000000000';
const recipient = (method: InjectOptions['method'], path: string, payload?: object): PublicRoute => ({
  auth: 'the transmit token in the path, which names one transaction (no API key, no tenant)',
  request: { method, url: `/recipient/${UNKNOWN_TOKEN}${path}`, ...(payload ? { payload } : {}) },
  status: 404,
  code: 'NOT_FOUND',
});

const TRANSACTIONS_PUBLIC_ROUTES: Record<string, PublicRoute> = {
  ...HEALTH,
  ...signedInPage('/console'),
  'GET /graphiql': { auth: 'none: a static page; its requests to /beta carry the key', ...open('/graphiql') },
  'HEAD /graphiql': {
    auth: 'none: a static page; its requests to /beta carry the key',
    ...open('/graphiql'),
  },
  'GET /graphiql/': { auth: 'none: a redirect to /graphiql', ...open('/graphiql/', 301) },
  'HEAD /graphiql/': { auth: 'none: a redirect to /graphiql', ...open('/graphiql/', 301) },
  'GET /graphiql/*': { auth: "none: the page's static assets", ...open('/graphiql/assets/none.js', 404) },
  'HEAD /graphiql/*': { auth: "none: the page's static assets", ...open('/graphiql/assets/none.js', 404) },
  'GET /files/:id': {
    auth: 'the signature and expiry in the link that genTransactionFileLink made',
    request: { method: 'GET', url: `/files/${UNKNOWN_TOKEN}?expires=4102444800&signature=forged` },
    status: 403,
    code: 'FORBIDDEN',
  },
  'HEAD /files/:id': {
    auth: 'the signature and expiry in the link that genTransactionFileLink made',
    request: { method: 'HEAD', url: `/files/${UNKNOWN_TOKEN}?expires=4102444800&signature=forged` },
    status: 403,
  },
  ...Object.fromEntries(
    (['GET', 'HEAD'] as const).map((method) => [
      `${method} /evidence/:id`,
      {
        auth: 'the signature and expiry in the link that genEvidenceBundleLink made',
        request: { method, url: `/evidence/${UNKNOWN_TOKEN}?expires=4102444800&signature=forged` },
        status: 403,
      } satisfies PublicRoute,
    ]),
  ),
  ...Object.fromEntries(
    (['GET', 'HEAD', 'POST'] as const).map((method) => [
      `${method} /console/alerts/stop/:token`,
      {
        auth: "the token of an alert digest's stop link in the path, kept as its hash, which names one person; a page, not JSON",
        request: { method, url: `/console/alerts/stop/${'A'.repeat(43)}` },
        status: 404,
      } satisfies PublicRoute,
    ]),
  ),
  'GET /recipient/:token': recipient('GET', ''),
  'HEAD /recipient/:token': { ...recipient('HEAD', ''), code: undefined },
  'PUT /recipient/:token/items/:vulcanKey': recipient('PUT', '/items/amount', { data: {} }),
  'POST /recipient/:token/documents/:documentKey/signatures': recipient('POST', '/documents/doc/signatures', {
    signedName: 'Ada Lovelace',
    consent: true,
  }),
  'POST /recipient/:token/processes/:processKey/submit': recipient('POST', '/processes/p/submit', {}),
  'POST /recipient/:token/esign': recipient('POST', '/esign', { act: 'consented' }),
  'POST /recipient/:token/items/:vulcanKey/files/:field': recipient(
    'POST',
    '/items/tax_forms/files/w9FileId',
    {},
  ),
  'GET /recipient/:token/documents/:documentKey/preview': recipient('GET', '/documents/doc/preview'),
  'HEAD /recipient/:token/documents/:documentKey/preview': {
    ...recipient('HEAD', '/documents/doc/preview'),
    code: undefined,
  },
  ...Object.fromEntries(
    ['/r', '/r/', '/r/*'].flatMap((path) =>
      ['GET', 'HEAD'].map((method) => [
        `${method} ${path}`,
        {
          auth: 'none: the recipient portal, static; its requests carry the transmit token to /recipient/<token>',
          request: { method, url: path.replace('*', UNKNOWN_TOKEN) },
          status: 200,
        } satisfies PublicRoute,
      ]),
    ),
  ),
  ...Object.fromEntries(
    ['/key-delivery', '/key-delivery/', '/key-delivery/*'].flatMap((path) =>
      ['GET', 'HEAD'].map((method) => [
        `${method} ${path}`,
        {
          auth: "none: the key-delivery page, static; its requests carry the link's id and proof",
          request: { method, url: path.replace('*', 'AAAAAAAAAAAAAAAAAAAAAA') },
          status: 200,
        } satisfies PublicRoute,
      ]),
    ),
  ),
  ...Object.fromEntries(
    (
      [
        ['describe', {}],
        ['code', { email: 'ada@example.com' }],
        ['reveal', { email: 'ada@example.com', code: '12345678' }],
      ] as const
    ).map(([route, body]) => [
      `POST /key-delivery/api/${route}`,
      {
        auth: "the delivery link's id and the SHA-256 of its fragment's secret, then a code mailed to a listed address",
        request: {
          method: 'POST',
          url: `/key-delivery/api/${route}`,
          payload: { linkId: 'AAAAAAAAAAAAAAAAAAAAAA', proof: 'AAAA', ...body },
        },
        status: 400,
        code: 'LINK_INVALID',
      } satisfies PublicRoute,
    ]),
  ),
};

const READ_ONLY = {
  auth: 'none: the read-only API answers 405 METHOD_NOT_ALLOWED to every caller and reads nothing',
  status: 405,
  code: 'METHOD_NOT_ALLOWED',
};
const portfolioWrites = (path: string): Record<string, PublicRoute> =>
  Object.fromEntries(
    ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'].map((method) => [
      `${method} /v1/external${path}`,
      { ...READ_ONLY, request: { method, url: `/v1/external${path}` } },
    ]),
  );

const PORTFOLIO_PUBLIC_ROUTES: Record<string, PublicRoute> = {
  ...HEALTH,
  'GET /v1/external/openapi.json': {
    auth: 'none: the public API description',
    ...open('/v1/external/openapi.json'),
  },
  'HEAD /v1/external/openapi.json': {
    auth: 'none: the public API description',
    ...open('/v1/external/openapi.json'),
  },
  ...portfolioWrites('/companies'),
  ...portfolioWrites('/company/:id/updates'),
  ...portfolioWrites('/company/:id/investments'),
  ...signedInPage('/dashboard'),
};

/** A table of public routes as the rows of `it.each`, each with its name. */
function publicRoutes(table: Record<string, PublicRoute>): (PublicRoute & { name: string })[] {
  return Object.entries(table).map(([name, route]) => ({ name, ...route }));
}

/**
 * The tests that keep a service's tables whole: every route of `app` is either `covered` by the key cases or
 * listed in `table` of public routes, and each public route answers without a key as the table says.
 */
function itListsEveryRoute(
  app: () => FastifyInstance,
  covered: readonly string[],
  table: Record<string, PublicRoute>,
): void {
  it('has no route that is neither covered by the key cases, nor listed as public, nor a signed-in surface’s', () => {
    // A signed-in surface's JSON routes are tried by the security table of the signed-in surfaces.
    const signedIn = app().signedInRoutes.map(routeName);
    expect(routesOf(app()).map(routeName).toSorted()).toEqual(
      [...covered, ...Object.keys(table), ...signedIn].toSorted(),
    );
  });

  it.each(publicRoutes(table))('serves $name without a key, by $auth', async (route) => {
    const response = await app().inject(route.request);
    expect(response.statusCode).toBe(route.status);
    if (route.code !== undefined) expect(response.json().error.code).toBe(route.code);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Transactions: the GraphQL root fields and the routes that carry them.

type Ids = TransactionsTenant['ids'];
interface Call {
  query: string;
  variables?: Record<string, unknown>;
}

const byId =
  (field: string, id: keyof Ids, type = 'uuid') =>
  (ids: Ids) => ({
    query: `query ($id: ${type}!) { ${field}(id: $id) { id } }`,
    variables: { id: ids[id] },
  });
const mutation =
  (field: string, input: (ids: Ids) => Record<string, unknown>, selection = '__typename') =>
  (ids: Ids): Call => ({
    query: `mutation ($input: ${field[0]?.toUpperCase()}${field.slice(1)}Input!) { ${field}(input: $input) { ${selection} } }`,
    variables: { input: input(ids) },
  });
const endpointMutation =
  (field: string) =>
  (ids: Ids): Call => ({
    query: `mutation ($input: WebhookEndpointIdInput!) { ${field}(input: $input) { __typename } }`,
    variables: { input: { id: ids.webhookEndpoint } },
  });

/** A request for every root field that reaches a record of the tenant whose ids it is given. */
const ROOT_FIELD_CALLS: Record<string, (ids: Ids) => Call> = {
  'Query.viewer': () => ({ query: '{ viewer { id } }' }),
  'Query.entity': byId('entity', 'senderEntity'),
  'Query.organization': byId('organization', 'organization'),
  'Query.template': byId('template', 'template'),
  'Query.transaction': byId('transaction', 'transaction'),
  'Query.webhookEndpoint': byId('webhookEndpoint', 'webhookEndpoint'),
  'Query.webhookDelivery': byId('webhookDelivery', 'webhookDelivery'),
  'Query.transactionItem': byId('transactionItem', 'transactionItem'),
  'Query.transactionFile': byId('transactionFile', 'transactionFile'),
  'Query.transactionSignatureFile': byId('transactionSignatureFile', 'transactionSignatureFile'),
  'Query.transactionRecipient': byId('transactionRecipient', 'transactionRecipient'),
  'Query.file': byId('file', 'file', 'UUID'),
  'Mutation.createTransaction': mutation('createTransaction', (ids) =>
    transactionInput({ templateId: ids.template, senderEntityId: ids.senderEntity }),
  ),
  'Mutation.triggerTransactionEvent': mutation('triggerTransactionEvent', (ids) => ({
    transactionId: ids.transaction,
    eventKey: 'submit',
  })),
  'Mutation.signTransactionDocument': mutation('signTransactionDocument', (ids) => ({
    transactionId: ids.transaction,
    documentKey: 'subscription_agreement',
    signedName: 'Ada Lovelace',
    consent: true,
  })),
  'Mutation.resetTransmitToken': mutation('resetTransmitToken', (ids) => ({
    transactionId: ids.transaction,
  })),
  'Mutation.genTransactionFileLink': mutation('genTransactionFileLink', (ids) => ({
    transactionFileId: ids.transactionFile,
  })),
  'Mutation.genEvidenceBundleLink': mutation('genEvidenceBundleLink', (ids) => ({
    transactionId: ids.transaction,
  })),
  'Mutation.createEntity': mutation('createEntity', () => ({ name: 'Planted Fund' })),
  'Mutation.updateEntity': mutation('updateEntity', (ids) => ({ id: ids.senderEntity, name: 'Renamed' })),
  'Mutation.createWebhookEndpoint': mutation('createWebhookEndpoint', () => ({
    url: 'http://127.0.0.1:9/hooks',
    eventTypes: ['TRANSACTION_COMPLETED'],
  })),
  'Mutation.updateWebhookEndpoint': mutation('updateWebhookEndpoint', (ids) => ({
    id: ids.webhookEndpoint,
    description: 'renamed',
  })),
  'Mutation.disableWebhookEndpoint': endpointMutation('disableWebhookEndpoint'),
  'Mutation.enableWebhookEndpoint': endpointMutation('enableWebhookEndpoint'),
  'Mutation.deleteWebhookEndpoint': endpointMutation('deleteWebhookEndpoint'),
  'Mutation.rotateWebhookEndpointSecret': endpointMutation('rotateWebhookEndpointSecret'),
  'Mutation.resendWebhookDelivery': mutation('resendWebhookDelivery', (ids) => ({ id: ids.webhookDelivery })),
  'Mutation.resendFailedWebhookDeliveries': mutation(
    'resendFailedWebhookDeliveries',
    (ids) => ({ endpointId: ids.webhookEndpoint, since: '2000-01-01T00:00:00.000Z' }),
    'count',
  ),
};

/** Root fields that name no record, so there is no other tenant's id to try: they act on the caller's own. */
const ROOT_FIELDS_WITHOUT_IDS: Record<string, string> = {
  'Query.viewer': "always the caller's own organization",
  'Mutation.createWebhookEndpoint': "creates an endpoint of the caller's organization from a URL",
  'Mutation.createEntity': "creates an entity of the caller's organization from a name",
};

const schema = buildSchema(
  readFileSync(new URL('../../src/transactions/graphql/schema.graphql', import.meta.url), 'utf8'),
);
const ROOT_FIELDS = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
  type ? Object.keys(type.getFields()).map((field) => `${type.name}.${field}`) : [],
);

/** The ways a key can be wrong, each with the Authorization header it sends (none when undefined). */
interface KeyCase {
  name: string;
  authorization: (tenant: TransactionsTenant) => Promise<string | undefined>;
}

const TRANSACTIONS_KEY_CASES: KeyCase[] = [
  { name: 'a missing key', authorization: () => Promise.resolve(undefined) },
  { name: 'a malformed key', authorization: () => Promise.resolve('Bearer sk_test_short') },
  {
    name: 'a well-formed key that was never issued',
    authorization: () => Promise.resolve(`Bearer ${generateApiKey('staging')}`),
  },
  {
    name: 'a revoked key',
    async authorization(tenant) {
      const { key, record } = await createApiKey(testDb.db, {
        organizationId: tenant.organizationId,
        environment: 'staging',
      });
      await apiKeys.revoke(testDb.db, { ownerId: tenant.organizationId, key: record.id });
      return `Bearer ${key}`;
    },
  },
  {
    name: 'a production (sk_live_) key on the staging service',
    authorization: (tenant) => Promise.resolve(`Bearer ${tenant.productionKey}`),
  },
];

/**
 * The tenant whose records the key cases and the queries name: no key case gets past authentication and a query
 * changes nothing, so none of them changes it. Each mutation makes a tenant of its own.
 */
let owner: TransactionsTenant;
/** The other tenant, asking for the owner's records: every such request fails, so none changes it either. */
let stranger: TransactionsTenant;
beforeAll(async () => {
  owner = await createTransactionsTenant(testDb.db, files);
  stranger = await createTransactionsTenant(testDb.db, files);
});

function post(call: Call, authorization: string | undefined): Promise<LightMyRequestResponse> {
  return transactions.inject({
    method: 'POST',
    url: '/beta',
    headers: authorization === undefined ? {} : { authorization },
    payload: call,
  });
}

/** Asserts the documented refusal of a key: 401 with code UNAUTHENTICATED, in the body's shape for its route. */
function expectUnauthenticated(response: LightMyRequestResponse, shape: 'graphql' | 'rest' | 'none'): void {
  expect(response.statusCode).toBe(401);
  if (shape === 'none') return;
  const body = response.json();
  const code: unknown = shape === 'graphql' ? body.errors?.[0]?.extensions?.code : body.error?.code;
  expect(code).toBe('UNAUTHENTICATED');
  if (shape === 'graphql') expect(body.data ?? null).toBeNull();
}

/**
 * An answer as another tenant would compare it: the request id dropped and each id of `ids` written as its
 * name, so an answer about tenant A's records and one about unknown ids read the same when nothing leaks.
 */
function comparable(response: LightMyRequestResponse, ids: Record<string, string>): unknown {
  let text = response.body;
  for (const [name, id] of Object.entries(ids)) text = text.replaceAll(id, `<${name}>`);
  return {
    status: response.statusCode,
    body: JSON.parse(text, (key, value: unknown) => (key === 'requestId' ? undefined : value)) as unknown,
  };
}

/**
 * Tenant B asks for tenant A's records (`owned`) and for ids that do not exist (`unknown`): both answers must
 * read the same, so nothing of A's leaks. A's own request must answer otherwise, so that the sameness is not a
 * request that fails anyway. Returns A's answer.
 */
async function expectStrangerReadsNothing<Ids extends Record<string, string>>(options: {
  ask: (ids: Ids, authorization: string) => Promise<LightMyRequestResponse>;
  owned: Ids;
  unknown: Ids;
  owner: string;
  stranger: string;
}): Promise<LightMyRequestResponse> {
  const { ask, owned, unknown } = options;
  const asB = comparable(await ask(owned, options.stranger), owned);
  expect(asB).toEqual(comparable(await ask(unknown, options.stranger), unknown));
  const asA = await ask(owned, options.owner);
  expect(comparable(asA, owned)).not.toEqual(asB);
  return asA;
}

describe('the Transactions service', () => {
  it('lists a request for every Query and Mutation root field, and only for those', () => {
    expect(Object.keys(ROOT_FIELD_CALLS).toSorted()).toEqual(ROOT_FIELDS.toSorted());
  });

  itListsEveryRoute(
    () => transactions,
    ['GET /beta', 'HEAD /beta', 'POST /beta', 'GET /beta/schema.graphql', 'HEAD /beta/schema.graphql'],
    TRANSACTIONS_PUBLIC_ROUTES,
  );

  describe.each(TRANSACTIONS_KEY_CASES)('refuses $name', (keyCase) => {
    it.each(ROOT_FIELDS)('on %s with 401 UNAUTHENTICATED', async (field) => {
      const call = ROOT_FIELD_CALLS[field];
      if (!call) throw new Error(`${field} has no request in ROOT_FIELD_CALLS`);
      expectUnauthenticated(await post(call(owner.ids), await keyCase.authorization(owner)), 'graphql');
    });

    it('on GET and HEAD /beta with 401 UNAUTHENTICATED', async () => {
      const authorization = await keyCase.authorization(owner);
      const headers = authorization === undefined ? {} : { authorization };
      const url = `/beta?query=${encodeURIComponent('{ viewer { id } }')}`;
      expectUnauthenticated(await transactions.inject({ method: 'GET', url, headers }), 'graphql');
      expectUnauthenticated(await transactions.inject({ method: 'HEAD', url, headers }), 'none');
    });

    it('on GET and HEAD /beta/schema.graphql with 401 UNAUTHENTICATED', async () => {
      const authorization = await keyCase.authorization(owner);
      const headers = authorization === undefined ? {} : { authorization };
      const url = '/beta/schema.graphql';
      expectUnauthenticated(await transactions.inject({ method: 'GET', url, headers }), 'graphql');
      expectUnauthenticated(await transactions.inject({ method: 'HEAD', url, headers }), 'none');
    });
  });

  it.each(ROOT_FIELDS.filter((field) => ROOT_FIELDS_WITHOUT_IDS[field] === undefined))(
    "reads another tenant's ids on %s exactly like ids that do not exist",
    async (field) => {
      const call = ROOT_FIELD_CALLS[field];
      if (!call) throw new Error(`${field} has no request in ROOT_FIELD_CALLS`);
      // A owns the records, B asks for them. A mutation with A's key changes A, so it gets an A of its own.
      const a = field.startsWith('Mutation.') ? await createTransactionsTenant(testDb.db, files) : owner;
      const b = stranger;
      const unknown = Object.fromEntries(Object.keys(a.ids).map((name) => [name, randomUUID()])) as Ids;

      await expectStrangerReadsNothing({
        ask: (ids, authorization) => post(call(ids), authorization),
        owned: a.ids,
        unknown,
        owner: `Bearer ${a.apiKey}`,
        stranger: `Bearer ${b.apiKey}`,
      });
    },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Portfolio: the REST lists.

/** A customer instance of one company with an update and an investment, and a key for it. */
async function portfolioTenant(): Promise<{
  instanceId: string;
  slug: string;
  apiKey: string;
  companyId: string;
}> {
  const instance = await createPortfolioInstance(testDb.db);
  const company = newCompany();
  const companyId = String(company.id);
  await importDocument(testDb.db, instance.instanceId, {
    companies: [company],
    updates: [newUpdate(companyId)],
    investments: [newInvestment(companyId)],
  });
  return { instanceId: instance.instanceId, slug: instance.slug, apiKey: instance.apiKey, companyId };
}

/** The URL each authenticated Portfolio route is called with, naming the tenant's company. */
const PORTFOLIO_ROUTE_URLS: Record<string, (companyId: string) => string> = {
  '/v1/external/companies': () => companiesUrl(),
  '/v1/external/company/:id/updates': (companyId) => updatesUrl(companyId),
  '/v1/external/company/:id/investments': (companyId) => investmentsUrl(companyId),
};
const PORTFOLIO_PROTECTED = Object.keys(PORTFOLIO_ROUTE_URLS).flatMap((url) => [`GET ${url}`, `HEAD ${url}`]);

/**
 * The Portfolio API has no environments (no staging or production keys): its "other environment" case is a
 * key of the other service, a Transactions sk_test_ key, which it refuses the same way.
 */
const PORTFOLIO_KEY_CASES: {
  name: string;
  authorization: (instanceId: string) => Promise<string | undefined>;
}[] = [
  { name: 'a missing key', authorization: () => Promise.resolve(undefined) },
  { name: 'a malformed key', authorization: () => Promise.resolve('pfk_short') },
  {
    name: 'a well-formed key that was never issued',
    authorization: () => Promise.resolve(generatePortfolioKey()),
  },
  {
    name: 'a revoked key',
    async authorization(instanceId) {
      const { key, record } = await createPortfolioKey(testDb.db, { instanceId, name: 'to revoke' });
      await portfolioKeys.revoke(testDb.db, { ownerId: instanceId, key: record.id });
      return key;
    },
  },
  {
    name: "the other service's key (Portfolio has no environments)",
    authorization: () => Promise.resolve(generateApiKey('staging')),
  },
];

describe('the Portfolio service', () => {
  let reader: Awaited<ReturnType<typeof portfolioTenant>>;
  beforeAll(async () => {
    reader = await portfolioTenant();
  });

  itListsEveryRoute(() => portfolio, PORTFOLIO_PROTECTED, PORTFOLIO_PUBLIC_ROUTES);

  it.each(['/keys', '/people', '/companies', '/companies/:id'])(
    "takes no API key on the dashboard's GET %s: a valid key of the instance still gets 401 UNAUTHENTICATED",
    async (path) => {
      const response = await portfolio.inject({
        method: 'GET',
        url: `/dashboard/api/instances/${reader.slug}${path.replace(':id', reader.companyId)}`,
        headers: { authorization: reader.apiKey },
      });
      expectUnauthenticated(response, 'rest');
      expect(
        (await portfolio.inject({ url: companiesUrl(), headers: { authorization: reader.apiKey } }))
          .statusCode,
      ).toBe(200);
    },
  );

  describe.each(PORTFOLIO_KEY_CASES)('refuses $name', (keyCase) => {
    it.each(PORTFOLIO_PROTECTED)('on %s with 401 UNAUTHENTICATED', async (name) => {
      const [method = '', path = ''] = name.split(' ');
      const url = PORTFOLIO_ROUTE_URLS[path]?.(reader.companyId);
      if (url === undefined) throw new Error(`${path} has no URL in PORTFOLIO_ROUTE_URLS`);
      const authorization = await keyCase.authorization(reader.instanceId);
      const response = await portfolio.inject({
        method: method as InjectOptions['method'],
        url,
        headers: authorization === undefined ? {} : { authorization },
      });
      expectUnauthenticated(response, method === 'HEAD' ? 'none' : 'rest');
    });
  });

  it.each(Object.keys(PORTFOLIO_ROUTE_URLS))(
    "reads another tenant's ids on GET %s exactly like ids that do not exist",
    async (path) => {
      const url = PORTFOLIO_ROUTE_URLS[path];
      if (!url) throw new Error(`${path} has no URL`);
      const [a, b] = await Promise.all([portfolioTenant(), portfolioTenant()]);
      const unknown = randomUUID();
      const get = (companyId: string, key: string) =>
        portfolio.inject({ method: 'GET', url: url(companyId), headers: { authorization: key } });

      const asA = await expectStrangerReadsNothing({
        ask: (ids, key) => get(ids.companyId, key),
        owned: { companyId: a.companyId },
        unknown: { companyId: unknown },
        owner: a.apiKey,
        stranger: b.apiKey,
      });
      // A's key reads A's records (one of each), which B's key never sees.
      expect(asA.statusCode).toBe(200);
      expect(asA.json().total).toBe(1);
    },
  );
});
