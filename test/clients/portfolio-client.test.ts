import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  PorticoApiError,
  PorticoError,
  PorticoKeyError,
  PortfolioClient,
  type Company,
  type Page,
  type PageWalk,
} from '@portico/client';
import { PORTFOLIO_TYPES_PATH, portfolioTypesModule } from '../../clients/typescript/codegen/portfolio.ts';
import { generatePortfolioKey } from '../../src/keys/api-key.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { createTestDatabase } from '../support/db/database.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { listenHttps, testTls } from '../support/peers/tls-listener.ts';
import {
  createPortfolioInstance,
  createTestPortfolio,
  importDocument,
  newCompany,
  type ListPage,
} from '../support/data/portfolio.ts';

/**
 * The Portfolio half of @portico/client against a real Portfolio app over HTTPS (PGlite or PostgreSQL): its walks
 * equal the pages read by hand, its filters reach the API, 429s are waited out and errors arrive typed.
 */

const COMPANIES = 12;
const LIMIT = 5;

const world = madeBeforeAll('a Portfolio app over HTTPS', async (closeAfterAll) => {
  const testDb = await createTestDatabase();
  closeAfterAll(() => testDb.close());
  const tls = await testTls();
  const app = await buildPortfolioApp({ db: testDb.db, tls });
  closeAfterAll(() => app.close());
  const { origin } = await listenHttps(app);
  // The test CA is trusted by this fetch alone, as an integrator's own CA would be.
  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  closeAfterAll(() => dispatcher.close());
  const trustingFetch = ((input: string, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  const portfolio = await createTestPortfolio(testDb.db, { companies: COMPANIES });
  return { db: testDb.db, tls, origin, fetch: trustingFetch, portfolio };
});

/** A client of the test app with the test portfolio's key (or `apiKey`), trusting the test CA. */
function clientOf(options: { apiKey?: string; baseUrl?: string; maxRetryAfterMs?: number } = {}) {
  return new PortfolioClient({
    baseUrl: options.baseUrl ?? `${world.origin}/v1/external`,
    apiKey: options.apiKey ?? world.portfolio.apiKey,
    fetch: world.fetch,
    ...(options.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: options.maxRetryAfterMs }),
  });
}

/** Every page of a list read with raw requests: `path` with `query`, following `nextCursor` by hand. */
async function pagesByHand(path: string, query: Record<string, string>): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  let cursor: string | null = null;
  do {
    const url = new URL(`${world.origin}/v1/external${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    if (cursor !== null) url.searchParams.set('cursor', cursor);
    const response = await world.fetch(url.href, { headers: { authorization: world.portfolio.apiKey } });
    expect(response.status, url.href).toBe(200);
    const page = (await response.json()) as ListPage;
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return pages;
}

/** What a walk's pages hold, without their cursors (opaque: two walks need not hand out the same ones). */
const contents = (pages: Page<unknown>[]) =>
  pages.map(({ data, total, hasNextPage }) => ({ data, total, hasNextPage }));

/** Everything an async iterable yields. */
async function collect<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('the generated Portfolio types', () => {
  it('are what openapi-typescript makes of the committed document (run `npm run schemas` after a change)', async () => {
    expect(await readFile(PORTFOLIO_TYPES_PATH, 'utf8')).toBe(await portfolioTypesModule());
  });
});

describe('walking the Portfolio API with PortfolioClient', () => {
  it('walks every company over several pages, equal to the pages read by hand following the cursor', async () => {
    const byHand = await pagesByHand('/companies', { limit: String(LIMIT) });
    expect(byHand).toHaveLength(Math.ceil(COMPANIES / LIMIT));

    const client = clientOf();
    const companies: Company[] = await collect(client.companies.list({ limit: LIMIT }));
    expect(companies).toEqual(byHand.flatMap((page) => page.data));
    expect(companies.map((company) => company.legalName)).toEqual(world.portfolio.legalNames);

    const pages = await collect(client.companies.list({ limit: LIMIT }).pages());
    expect(contents(pages)).toEqual(contents(byHand));

    // An integrator keeping their own cursor reads the page after a hand-read one.
    const second = await client.companies.listPage({ limit: LIMIT, cursor: byHand[0]?.nextCursor });
    expect(contents([second])).toEqual(contents(byHand.slice(1, 2)));
  });

  it("walks a company's updates and investments page by page, as read by hand", async () => {
    const client = clientOf();
    const { companyId } = world.portfolio;
    for (const list of ['updates', 'investments'] as const) {
      const byHand = await pagesByHand(`/company/${companyId}/${list}`, { limit: '1' });
      expect(byHand.length).toBeGreaterThan(1);
      const walk: PageWalk<unknown> = client.companies[list](companyId, { limit: 1 });
      expect(await collect(walk)).toEqual(byHand.flatMap((page) => page.data));
      expect(contents(await collect(walk.pages()))).toEqual(contents(byHand));
    }
  });

  it('sends updatedSince, as a Date or a string, and gets only the records changed since', async () => {
    const since = new Date();
    const added = newCompany({ legalName: 'Added Since Ltd' });
    await importDocument(world.db, world.portfolio.instanceId, { companies: [added] });

    const client = clientOf();
    const changed = await collect(client.companies.list({ updatedSince: since, limit: 2 }));
    expect(changed.map((company) => company.id)).toEqual([added.id]);
    expect(await collect(client.companies.list({ updatedSince: since.toISOString() }))).toEqual(changed);
    const byHand = await pagesByHand('/companies', { updatedSince: since.toISOString() });
    expect(byHand.flatMap((page) => page.data)).toEqual(changed);
    expect(await collect(client.companies.list({ updatedSince: new Date(Date.now() + 60_000) }))).toEqual([]);
  });
});

describe("PortfolioClient and the API's refusals", () => {
  it('turns an error answer into a PorticoApiError with its status, code, message and request id', async () => {
    const client = clientOf();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const notFound = await collect(client.companies.updates(unknown)).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(PorticoApiError);
    expect(notFound).toBeInstanceOf(PorticoError);
    expect(notFound).toMatchObject({
      name: 'PorticoApiError',
      status: 404,
      code: 'NOT_FOUND',
      message: `There is no company "${unknown}".`,
      requestId: expect.stringMatching(/^req_/) as unknown,
    });

    await expect(client.companies.listPage({ cursor: 'garbage' })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_CURSOR',
    });
    await expect(client.companies.listPage({ limit: 0 })).rejects.toMatchObject({
      status: 400,
      code: 'BAD_USER_INPUT',
      details: { parameter: 'limit' },
    });
  });

  it('never shows the key: not in the client, nor in the error of a key the API does not know', async () => {
    const apiKey = generatePortfolioKey();
    const client = clientOf({ apiKey });
    const error = await client.companies.listPage().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    const shown = [
      inspect(client, { depth: 10, showHidden: true }),
      JSON.stringify(client),
      inspect(error, { depth: 10, showHidden: true }),
      JSON.stringify(error),
      String(error),
    ];
    for (const text of shown) expect(text).not.toContain(apiKey.slice(4));
  });

  it('refuses a Transactions key, a malformed key and a plain-HTTP address before sending anything', () => {
    let sent = 0;
    const counting = ((input: string, init?: RequestInit) => {
      sent += 1;
      return world.fetch(input, init);
    }) as typeof fetch;
    const baseUrl = `${world.origin}/v1/external`;
    const transactionsKey = `sk_test_${'a'.repeat(38)}`;
    expect(() => new PortfolioClient({ baseUrl, apiKey: transactionsKey, fetch: counting })).toThrow(
      PorticoKeyError,
    );
    expect(() => new PortfolioClient({ baseUrl, apiKey: transactionsKey, fetch: counting })).toThrow(
      /Transactions key \(sk_test_…\); the Portfolio API takes a key starting with pfk_/,
    );
    expect(() => new PortfolioClient({ baseUrl, apiKey: 'pfk_short', fetch: counting })).toThrow(
      PorticoKeyError,
    );
    expect(
      () =>
        new PortfolioClient({
          baseUrl: baseUrl.replace('https:', 'http:'),
          apiKey: world.portfolio.apiKey,
          fetch: counting,
        }),
    ).toThrow(/HTTPS only/);
    expect(
      () => new PortfolioClient({ baseUrl: world.origin, apiKey: world.portfolio.apiKey, fetch: counting }),
    ).toThrow(/ends in \/v1\/external/);
    expect(sent).toBe(0);
  });
});

describe('PortfolioClient and rate limits', () => {
  it('waits out a 429 per its Retry-After, then goes on with the same request', async () => {
    // A real HTTPS server in front of the app: it answers the first request 429 (Retry-After: 1), then
    // passes every request on to the app as it came.
    const { cert, key } = world.tls;
    const seen: { url: string; at: number; status: number }[] = [];
    const front = createServer({ cert, key }, (request, response) => {
      const url = request.url ?? '/';
      if (seen.length === 0) {
        seen.push({ url, at: Date.now(), status: 429 });
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        response.end(
          JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Slow down.', requestId: 'req_front' } }),
        );
        return;
      }
      void world
        .fetch(`${world.origin}${url}`, { headers: { authorization: String(request.headers.authorization) } })
        .then(async (answer) => {
          seen.push({ url, at: Date.now(), status: answer.status });
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(await answer.text());
        });
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = front.address() as AddressInfo;
      const client = clientOf({ baseUrl: `https://127.0.0.1:${port}/v1/external` });
      const page = await client.companies.listPage({ limit: 3 });
      expect(page.data.map((company) => company.legalName)).toEqual(world.portfolio.legalNames.slice(0, 3));
      expect(seen.map(({ url, status }) => ({ url, status }))).toEqual([
        { url: '/v1/external/companies?limit=3', status: 429 },
        { url: '/v1/external/companies?limit=3', status: 200 },
      ]);
      const [first, second] = seen;
      expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
    } finally {
      await new Promise<void>((resolve) => {
        front.close(() => {
          resolve();
        });
      });
    }
  });

  it("throws the app's own 429 at once as RATE_LIMITED when its Retry-After is longer than the client waits", async () => {
    const tls = await testTls();
    const app = await buildPortfolioApp({ db: world.db, tls, rateLimit: { perKey: 2, perAddress: 100 } });
    try {
      const { origin } = await listenHttps(app);
      const { apiKey } = await createPortfolioInstance(world.db);
      const client = clientOf({ apiKey, baseUrl: `${origin}/v1/external`, maxRetryAfterMs: 1000 });
      await client.companies.listPage();
      await client.companies.listPage();
      const started = Date.now();
      const error = await client.companies.listPage().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PorticoApiError);
      expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await app.close();
    }
  });
});
