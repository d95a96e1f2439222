import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { PORTFOLIO_BASE_PATH } from '../../../src/portfolio/app.ts';
import { readImportFile } from '../../../src/portfolio/import/files.ts';
import { importPortfolio, type ImportSummary } from '../../../src/portfolio/import/import.ts';
import { createInstance, createPortfolioKey } from '../../../src/portfolio/instances.ts';

/**
 * Helpers for tests of the Portfolio service: customer instances with data and a key, requests through
 * `app.inject()`, walks that follow `nextCursor`, small records to import, and the error-body check.
 */

/** A timestamp as the API writes it: ISO 8601, UTC, to the millisecond. */
export const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A customer instance the tests can call: its id, its slug and a valid key. */
export interface PortfolioInstanceFixture {
  instanceId: string;
  slug: string;
  apiKey: string;
}

/** A unique instance slug, so instances created by one test file never collide. */
export function uniqueSlug(prefix = 'pf'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A new customer instance without any data, and a key for it. */
export async function createPortfolioInstance(
  db: Database,
  options: { slug?: string; name?: string } = {},
): Promise<PortfolioInstanceFixture> {
  const slug = options.slug ?? uniqueSlug('empty');
  const instance = await createInstance(db, { slug, name: options.name ?? `Instance ${slug}` });
  const { key } = await createPortfolioKey(db, { instanceId: instance.id, name: 'test' });
  return { instanceId: instance.id, slug, apiKey: key };
}

/** A portfolio a test made: its instance and key, and what it holds. */
export interface TestPortfolio extends PortfolioInstanceFixture {
  /** The instance's name. */
  name: string;
  /** A company with two or more updates and investments (their walks have cursors). */
  companyId: string;
  /** How many companies and funds it holds. */
  companies: number;
  funds: number;
  /** The companies' legal names, in the order made, and each fund with the number of companies it holds. */
  legalNames: string[];
  fundHoldings: { name: string; companies: number }[];
}

/**
 * A customer instance with a key and a portfolio made to a known shape, through the real import: `companies`
 * companies (one a day from 2020-01-01), held by `funds` funds (every fund holds some, every company at least
 * one), company i with 2 + i % 5 updates (their cash, customers and runway changing) and 1 + i % 3 investments, named `legalName(i)` when given. Every
 * other update and investment fills each nullable field; the rest leave them out.
 */
export async function createTestPortfolio(
  db: Database,
  options: { companies?: number; funds?: number; legalName?: (index: number) => string } = {},
): Promise<TestPortfolio> {
  const count = options.companies ?? 40;
  const fundCount = options.funds ?? 3;
  const slug = uniqueSlug('portfolio');
  const name = `Instance ${slug}`;
  const instance = await createPortfolioInstance(db, { slug, name });
  const funds = Array.from({ length: fundCount }, (_, index) => ({
    id: randomUUID(),
    name: `Test Fund ${index + 1}`,
  }));
  const document: Required<PortfolioDocument> = { companies: [], updates: [], investments: [] };
  for (let index = 0; index < count; index += 1) {
    const holders = funds.filter((_, fund) => fund === index % fundCount || fund === (index + 1) % fundCount);
    const company = newCompany({
      createdAt: day(index),
      funds: holders,
      ...(options.legalName ? { legalName: options.legalName(index) } : {}),
    });
    const id = String(company.id);
    document.companies.push(company);
    for (let update = 0; update < 2 + (index % 5); update += 1) {
      document.updates.push(
        newUpdate(id, {
          updateDate: day(400 + update * 30),
          // Figures that change from one update to the next, as a chart draws them.
          cashInBankAmountValue: 1_250_000 - update * 100_000,
          numberOfCustomers: 12 + update * 5,
          ...(update % 2 === 0 ? { ...UPDATE_VALUES, runwayInMonths: 18.5 - update } : {}),
        }),
      );
    }
    for (let investment = 0; investment < 1 + (index % 3); investment += 1) {
      document.investments.push(
        newInvestment(id, {
          date: day(index + investment),
          ...(investment % 2 === 0 ? INVESTMENT_VALUES : {}),
        }),
      );
    }
  }
  await importDocument(db, instance.instanceId, document);
  // Company 1 has 3 updates and 2 investments.
  const busy = document.companies[Math.min(1, count - 1)];
  return {
    ...instance,
    name,
    companyId: String(busy?.id),
    companies: count,
    funds: fundCount,
    legalNames: document.companies.map((company) => String(company.legalName)),
    fundHoldings: funds.map((fund) => ({
      name: fund.name,
      companies: document.companies.filter((company) => (company.funds as { id: string }[]).includes(fund))
        .length,
    })),
  };
}

/** Midnight UTC of the day `offset` days after 2020-01-01. */
function day(offset: number): string {
  return new Date(Date.UTC(2020, 0, 1 + offset)).toISOString();
}

/** What an update shows in its nullable fields when it leaves them out. */
export const UPDATE_NULLS = {
  productUpdatesSummary: null,
  businessUpdatesSummary: null,
  hasNewRound: null,
  newRoundDescription: null,
  runwayInMonths: null,
  summary: null,
};

/** Values for every nullable field of an update. */
const UPDATE_VALUES: Record<keyof typeof UPDATE_NULLS, unknown> = {
  productUpdatesSummary: 'Shipped 4 features.',
  businessUpdatesSummary: 'Revenue up 12% quarter on quarter.',
  hasNewRound: true,
  newRoundDescription: 'Raising a Series A round.',
  runwayInMonths: 18.5,
  summary: 'On plan.',
};

/** What an investment shows in its nullable fields when it leaves them out. */
export const INVESTMENT_NULLS = {
  round: null,
  instrument: null,
  shares: null,
  dilutedShares: null,
  fmvPerShareCents: null,
  costPerShareCents: null,
  discount: null,
  hasProRataRights: null,
  hasInformationRights: null,
  roundSizeCents: null,
  hasCap: null,
  valuationOrCapCents: null,
  coInvestors: null,
  leadInvestor: null,
  isFollowOnInvestment: null,
  investmentStatus: null,
  investmentReason: null,
  valuationType: null,
};

/** Values for every nullable field of an investment. */
const INVESTMENT_VALUES: Record<keyof typeof INVESTMENT_NULLS, unknown> = {
  round: 'Series A',
  instrument: 'preferred_equity',
  shares: 120_000,
  dilutedShares: 129_600,
  fmvPerShareCents: '650',
  costPerShareCents: '420',
  discount: 15,
  hasProRataRights: true,
  hasInformationRights: false,
  roundSizeCents: '800000000',
  hasCap: false,
  valuationOrCapCents: '4000000000',
  coInvestors: 'Harbor Capital, Lumen Partners',
  leadInvestor: 'Northwind Ventures',
  isFollowOnInvestment: false,
  investmentStatus: 'active',
  investmentReason: 'Strong founding team in a large market.',
  valuationType: 'pre_money',
};

/** An import document as the CLI reads it from a JSON file: the API's records, plus companyId on the lists. */
export interface PortfolioDocument {
  companies?: Record<string, unknown>[];
  updates?: Record<string, unknown>[];
  investments?: Record<string, unknown>[];
}

/**
 * Imports a document into an instance the way `portico portfolio import` does (read as the JSON file `file`,
 * then `importPortfolio`). Throws ImportProblems when the import is refused.
 */
export async function importDocument(
  db: Database,
  instanceId: string,
  document: PortfolioDocument,
  file = 'test.json',
): Promise<ImportSummary> {
  return importPortfolio(db, {
    instanceId,
    sources: [readImportFile(file, JSON.stringify(document))],
  });
}

/** A company with only the required fields (no createdAt, no funds) and a new id; `fields` override. */
export function newCompany(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: randomUUID(), legalName: `Company ${randomBytes(3).toString('hex')} Inc.`, ...fields };
}

/** An update of `companyId` with only the required fields and a new id; `fields` override. */
export function newUpdate(companyId: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    companyId,
    title: 'Q1 2026 investor update',
    updateDate: '2026-01-01T00:00:00.000Z',
    cashInBankAmountValue: 1_250_000,
    cashInBankAmountCurrency: 'USD',
    numberOfCustomers: 12,
    ...fields,
  };
}

/** An investment in `companyId` with only the required fields and a new id; `fields` override. */
export function newInvestment(
  companyId: string,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: randomUUID(),
    companyId,
    date: '2025-06-01T00:00:00.000Z',
    amountCents: '50000000',
    amountCurrency: 'USD',
    unrealizedValueCents: '75000000',
    unrealizedValueCurrency: 'USD',
    ...fields,
  };
}

/** Query parameters of a request; undefined ones are left out. */
export type Query = Record<string, string | number | undefined>;

/** The address of a Portfolio API path (`/companies`, `/company/{id}/updates`, …) with query parameters. */
export function portfolioUrl(path: string, query: Query = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return `${PORTFOLIO_BASE_PATH}${path}${text === '' ? '' : `?${text}`}`;
}

/** `/v1/external/companies` with query parameters. */
export const companiesUrl = (query: Query = {}): string => portfolioUrl('/companies', query);
/** `/v1/external/company/{id}/updates` with query parameters. */
export const updatesUrl = (companyId: string, query: Query = {}): string =>
  portfolioUrl(`/company/${companyId}/updates`, query);
/** `/v1/external/company/{id}/investments` with query parameters. */
export const investmentsUrl = (companyId: string, query: Query = {}): string =>
  portfolioUrl(`/company/${companyId}/investments`, query);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read responses loosely and assert them
export interface ApiResponse<Body = any> {
  status: number;
  headers: Record<string, unknown>;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  body: Body;
  /** The body as sent. */
  text: string;
  /** The body's bytes, for a download that is not text (a zip), where the sender kept them. */
  bytes?: Buffer;
}

/**
 * Sends a request to the app. `key` goes in the Authorization header as it is (so `Bearer …` can be tried);
 * undefined sends no Authorization header.
 */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS',
  url: string,
  key: string | undefined,
): Promise<ApiResponse> {
  const response = await app.inject({
    method,
    url,
    headers: key === undefined ? {} : { authorization: key },
    ...(['POST', 'PUT', 'PATCH'].includes(method) ? { payload: {} } : {}),
  });
  const text = response.body;
  const isJson = (response.headers['content-type'] ?? '').includes('application/json');
  return {
    status: response.statusCode,
    headers: response.headers,
    body: text !== '' && isJson ? response.json() : undefined,
    text,
  };
}

/** GETs `url` with `key` (see `call`). */
export function get(app: FastifyInstance, url: string, key: string | undefined): Promise<ApiResponse> {
  return call(app, 'GET', url, key);
}

/** One page of a list, as the API returns it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- records are read loosely and asserted
export interface ListPage<Item = any> {
  data: Item[];
  total: number;
  hasNextPage: boolean;
  nextCursor: string | null;
}

/**
 * Walks a list to its end: GETs `url` with `limit`, then follows `nextCursor` (keeping the other query
 * parameters of `url`) until a page has none, and returns every page. `between` runs after each page that has
 * a next one, before it is fetched (to change data during a walk). Throws if a page does not answer 200 or
 * the walk does not end within `maxPages`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- records are read loosely and asserted
export async function walk<Item = any>(
  app: FastifyInstance,
  url: string,
  key: string,
  limit: number,
  options: { between?: (pages: ListPage<Item>[]) => Promise<void>; maxPages?: number } = {},
): Promise<ListPage<Item>[]> {
  const address = new URL(url, 'http://portfolio.test');
  address.searchParams.set('limit', String(limit));
  address.searchParams.delete('cursor');
  const pages: ListPage<Item>[] = [];
  for (;;) {
    const response = await get(app, `${address.pathname}${address.search}`, key);
    if (response.status !== 200) {
      throw new Error(`page ${pages.length + 1} of ${url} answered ${response.status}: ${response.text}`);
    }
    const page = response.body as ListPage<Item>;
    pages.push(page);
    if (page.nextCursor === null) return pages;
    if (pages.length >= (options.maxPages ?? 1000)) throw new Error(`the walk of ${url} does not end`);
    await options.between?.(pages);
    address.searchParams.set('cursor', page.nextCursor);
  }
}

/** Every record of a walk's pages, in order. */
export function records<Item>(pages: ListPage<Item>[]): Item[] {
  return pages.flatMap((page) => page.data);
}

/**
 * Asserts that a response is a Portfolio API error: `status`, JSON `{"error": {code, message, requestId}}`
 * (plus optional details) with `code`, the request id of the x-request-id header, and no stack or HTML.
 * Returns the error's message for further checks.
 */
export function expectApiError(response: ApiResponse, status: number, code: string): string {
  expect({ status: response.status, code: response.body?.error?.code }, response.text).toEqual({
    status,
    code,
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body)).toEqual(['error']);
  const { error } = response.body;
  expect(Object.keys(error).filter((field) => field !== 'details')).toEqual(['code', 'message', 'requestId']);
  expect(error.message).toEqual(expect.any(String));
  expect(error.message).not.toBe('');
  expect(error.requestId).toBe(response.headers['x-request-id']);
  if ('details' in error) expect(typeof error.details).toBe('object');
  expect(response.text).not.toMatch(/stack|<html|<!doctype|\bat .*\.ts:\d+/i);
  return error.message as string;
}
