import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generatePortfolioKey } from '../../src/keys/api-key.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { getCompany } from '../../src/portfolio/browse.ts';
import { createPortfolioKey, portfolioKeys } from '../../src/portfolio/instances.ts';
import { INSTRUMENTS, INVESTMENT_STATUSES, VALUATION_TYPES } from '../../src/portfolio/records.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { UUID } from '../support/uuid.ts';
import {
  ISO_TIMESTAMP,
  call,
  companiesUrl,
  createPortfolioInstance,
  expectApiError,
  get,
  importDocument,
  investmentsUrl,
  newCompany,
  newInvestment,
  newUpdate,
  records,
  createTestPortfolio,
  updatesUrl,
  walk,
  type ListPage,
  type PortfolioInstanceFixture,
  type Query,
  type TestPortfolio,
  UPDATE_NULLS,
} from '../support/data/portfolio.ts';

// The spec's records (docs: ../shared/spec/portfolio-rest.md), field by field.
const COMPANY_FIELDS = ['id', 'legalName', 'createdAt', 'funds'];
const UPDATE_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'title',
  'updateDate',
  'cashInBankAmountValue',
  'cashInBankAmountCurrency',
  'productUpdatesSummary',
  'businessUpdatesSummary',
  'numberOfCustomers',
  'hasNewRound',
  'newRoundDescription',
  'runwayInMonths',
  'summary',
];
const INVESTMENT_FIELDS = [
  'id',
  'date',
  'amountCents',
  'amountCurrency',
  'unrealizedValueCents',
  'unrealizedValueCurrency',
  'fmvPerShareCurrency',
  'costPerShareCurrency',
  'roundSizeCurrency',
  'valuationOrCapCurrency',
  'round',
  'instrument',
  'shares',
  'dilutedShares',
  'fmvPerShareCents',
  'costPerShareCents',
  'discount',
  'hasProRataRights',
  'hasInformationRights',
  'roundSizeCents',
  'hasCap',
  'valuationOrCapCents',
  'coInvestors',
  'leadInvestor',
  'isFollowOnInvestment',
  'investmentStatus',
  'investmentReason',
  'valuationType',
];
const ENVELOPE_FIELDS = ['data', 'total', 'hasNextPage', 'nextCursor'];

type Kind = 'uuid' | 'timestamp' | 'string' | 'number' | 'integer' | 'boolean' | 'cents' | 'currency';
type FieldType = Kind | readonly string[];
const COMPANY_TYPES: Record<string, FieldType> = {
  id: 'uuid',
  legalName: 'string',
  createdAt: 'timestamp',
};
/** The type the spec gives each field of a record, and whether it may be null. */
type FieldTypes = Record<string, [FieldType, 'nullable'?]>;

/** A part of a {@link FieldTypes} table: each of `fields` typed `type`, nullable or not. */
function typed(type: FieldType, fields: string[], nullable?: 'nullable'): FieldTypes {
  return Object.fromEntries(fields.map((field) => [field, nullable ? [type, nullable] : [type]]));
}

const UPDATE_TYPES: FieldTypes = {
  ...typed('uuid', ['id']),
  ...typed('timestamp', ['createdAt', 'updatedAt', 'updateDate']),
  ...typed('string', ['title']),
  ...typed('number', ['cashInBankAmountValue']),
  ...typed('currency', ['cashInBankAmountCurrency']),
  ...typed('integer', ['numberOfCustomers']),
  ...typed(
    'string',
    ['productUpdatesSummary', 'businessUpdatesSummary', 'newRoundDescription', 'summary'],
    'nullable',
  ),
  ...typed('boolean', ['hasNewRound'], 'nullable'),
  ...typed('number', ['runwayInMonths'], 'nullable'),
};
const INVESTMENT_TYPES: FieldTypes = {
  ...typed('uuid', ['id']),
  ...typed('timestamp', ['date']),
  ...typed('cents', ['amountCents', 'unrealizedValueCents']),
  ...typed('currency', [
    'amountCurrency',
    'unrealizedValueCurrency',
    'fmvPerShareCurrency',
    'costPerShareCurrency',
    'roundSizeCurrency',
    'valuationOrCapCurrency',
  ]),
  ...typed('string', ['round', 'coInvestors', 'leadInvestor', 'investmentReason'], 'nullable'),
  ...typed('number', ['shares', 'dilutedShares', 'discount'], 'nullable'),
  ...typed(
    'cents',
    ['fmvPerShareCents', 'costPerShareCents', 'roundSizeCents', 'valuationOrCapCents'],
    'nullable',
  ),
  ...typed(
    'boolean',
    ['hasProRataRights', 'hasInformationRights', 'hasCap', 'isFollowOnInvestment'],
    'nullable',
  ),
  ...typed(INSTRUMENTS, ['instrument'], 'nullable'),
  ...typed(INVESTMENT_STATUSES, ['investmentStatus'], 'nullable'),
  ...typed(VALUATION_TYPES, ['valuationType'], 'nullable'),
};

/** Whether a value has the type the spec gives a field. */
function hasType(value: unknown, type: FieldType): boolean {
  if (typeof type !== 'string') return typeof value === 'string' && type.includes(value);
  switch (type) {
    case 'uuid':
      return typeof value === 'string' && UUID.test(value);
    case 'timestamp':
      return (
        typeof value === 'string' && ISO_TIMESTAMP.test(value) && new Date(value).toISOString() === value
      );
    case 'string':
      return typeof value === 'string' && value !== '';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value) && (value as number) >= 0;
    case 'boolean':
      return typeof value === 'boolean';
    case 'cents':
      return typeof value === 'string' && /^(0|[1-9]\d*)$/.test(value);
    case 'currency':
      return typeof value === 'string' && /^[A-Z]{3}$/.test(value);
  }
}

/** What is wrong with a record's fields and their types, as `field: value` lines (empty when nothing). */
function typeProblems(record: Record<string, unknown>, fields: string[], types: FieldTypes): string[] {
  const problems: string[] = [];
  const keys = Object.keys(record).sort();
  if (JSON.stringify(keys) !== JSON.stringify([...fields].sort())) problems.push(`keys: ${keys.join(',')}`);
  for (const field of fields) {
    const [type, nullable] = types[field] ?? ['string'];
    const value = record[field];
    if (!(field in record)) problems.push(`${field}: missing`);
    else if (!(hasType(value, type) || (nullable === 'nullable' && value === null))) {
      problems.push(`${field}: ${JSON.stringify(value)}`);
    }
  }
  return problems;
}

function companyProblems(company: Record<string, unknown>): string[] {
  const problems = typeProblems(
    company,
    COMPANY_FIELDS,
    Object.fromEntries(Object.entries(COMPANY_TYPES).map(([field, type]) => [field, [type]])),
  ).filter((problem) => !problem.startsWith('funds:'));
  const funds = company.funds;
  if (!Array.isArray(funds)) return [...problems, `funds: ${JSON.stringify(funds)}`];
  for (const fund of funds as Record<string, unknown>[]) {
    if (
      JSON.stringify(Object.keys(fund).sort()) !== '["id","name"]' ||
      !hasType(fund.id, 'uuid') ||
      !hasType(fund.name, 'string')
    ) {
      problems.push(`funds: ${JSON.stringify(fund)}`);
    }
  }
  return problems;
}

/** Asserts the exact envelope of a page. */
function expectEnvelope(page: ListPage) {
  expect(Object.keys(page).sort()).toEqual([...ENVELOPE_FIELDS].sort());
  expect(Array.isArray(page.data)).toBe(true);
  expect(Number.isSafeInteger(page.total) && page.total >= 0).toBe(true);
  expect(typeof page.hasNextPage).toBe('boolean');
  expect(page.hasNextPage ? typeof page.nextCursor : page.nextCursor).toBe(
    page.hasNextPage ? 'string' : null,
  );
}

interface Timed {
  id: string;
  [field: string]: unknown;
}

/** Whether records are in (time, id) order, ascending or descending. */
function inWalkOrder(list: Timed[], timeField: string, descending: boolean): boolean {
  return list.every((record, index) => {
    const next = list[index + 1];
    if (!next) return true;
    const a = `${String(record[timeField])} ${record.id}`;
    const b = `${String(next[timeField])} ${next.id}`;
    return descending ? a > b : a < b;
  });
}

/** Asserts what every walk promises: the envelope, one total, a cursor on all but the last page, no repeats. */
function expectWalk(pages: ListPage[], limit: number, total: number) {
  for (const page of pages) expectEnvelope(page);
  expect(pages.map((page) => page.total)).toEqual(pages.map(() => total));
  expect(pages.map((page) => page.hasNextPage)).toEqual(pages.map((_, index) => index < pages.length - 1));
  expect(pages.at(-1)?.nextCursor).toBeNull();
  expect(pages.slice(0, -1).every((page) => page.data.length === limit)).toBe(true);
  const ids = records(pages).map((record: Timed) => record.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBe(total);
}

let testDb: TestDatabase;
let app: FastifyInstance;
/**
 * Two portfolios of 40 companies held by 3 funds that no test changes: alpha is read by most tests, beta is the
 * other tenant. A test that changes data makes its own portfolio.
 */
let alpha: TestPortfolio;
let beta: TestPortfolio;
/** A small instance of hand-made records: big amounts, nulls, ties, more companies than a default page. */
let edge: PortfolioInstanceFixture;
const bigCompany = newCompany({
  legalName: 'Big Amounts Holdings Ltd',
  createdAt: '2020-01-01T00:00:00.000Z',
});
const tieCompany = newCompany({ legalName: 'Same Day Inc.', createdAt: '2020-01-02T00:00:00.000Z' });
/** The amounts of `bigInvestment`: each beyond 2^53, where a JSON number loses digits, but one zero. */
const BIG_AMOUNTS = {
  // 2^53 + 1: the first integer a JSON number cannot hold.
  amountCents: '9007199254740993',
  unrealizedValueCents: '999999999999999999',
  fmvPerShareCents: '0',
  costPerShareCents: '9007199254740995',
  roundSizeCents: '123456789012345678',
  valuationOrCapCents: '900719925474099312',
};
const bigInvestment = newInvestment(String(bigCompany.id), {
  ...BIG_AMOUNTS,
  amountCurrency: 'EUR',
  unrealizedValueCurrency: 'EUR',
});
/** An investment and an update that leave every nullable field out. */
const bareInvestment = newInvestment(String(bigCompany.id), { date: '2019-01-01T00:00:00.000Z' });
const bareUpdate = newUpdate(String(bigCompany.id));

async function companyIds(instanceId: string): Promise<string[]> {
  const rows = await testDb.db.query<{ id: string }>(
    'select id::text as id from portfolio_companies where instance_id = $1',
    [instanceId],
  );
  return rows.map((row) => row.id).sort();
}

async function childIds(table: string, instanceId: string, companyId: string): Promise<string[]> {
  const rows = await testDb.db.query<{ id: string }>(
    `select id::text as id from ${table} where instance_id = $1 and company_id = $2`,
    [instanceId, companyId],
  );
  return rows.map((row) => row.id).sort();
}

/** The companies of an instance with at least two updates and two investments: their walks have cursors. */
async function busyCompanies(instanceId: string): Promise<string[]> {
  const rows = await testDb.db.query<{ id: string }>(
    `select c.id::text as id from portfolio_companies c
     where c.instance_id = $1
       and (select count(*) from portfolio_updates u where u.instance_id = $1 and u.company_id = c.id) >= 2
       and (select count(*) from portfolio_investments i where i.instance_id = $1 and i.company_id = c.id) >= 2
     order by c.id`,
    [instanceId],
  );
  return rows.map((row) => row.id);
}

/** The database's clock now, as the API writes times: a time before anything imported after it. */
async function databaseNow(): Promise<string> {
  const [row] = await testDb.db.query<{ now: string }>(
    `select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as now`,
  );
  return row!.now;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  const { db } = testDb;
  alpha = await createTestPortfolio(db, { companies: 40, funds: 3 });
  beta = await createTestPortfolio(db, { companies: 40, funds: 3 });
  edge = await createPortfolioInstance(db, { slug: 'edge-cases' });
  const sameDay = '2024-03-01T00:00:00.000Z';
  await importDocument(db, edge.instanceId, {
    companies: [
      bigCompany,
      tieCompany,
      ...Array.from({ length: 50 }, (_, index) =>
        newCompany({ createdAt: new Date(Date.UTC(2021, 0, 1 + index)).toISOString() }),
      ),
    ],
    updates: [
      bareUpdate,
      ...Array.from({ length: 5 }, () => newUpdate(String(tieCompany.id), { updateDate: sameDay })),
    ],
    investments: [
      bigInvestment,
      bareInvestment,
      ...Array.from({ length: 5 }, () => newInvestment(String(tieCompany.id), { date: sameDay })),
    ],
  });
  app = await buildPortfolioApp({ db });
});

afterAll(async () => {
  await app.close();
  await testDb.close();
});

describe('the records and their types', () => {
  it('lists companies in the envelope with exactly the spec fields, typed as the spec says', async () => {
    const response = await get(app, companiesUrl({ limit: 200 }), alpha.apiKey);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const page = response.body as ListPage;
    expectEnvelope(page);
    expect(page).toMatchObject({ total: 40, hasNextPage: false, nextCursor: null });
    expect(page.data).toHaveLength(40);
    expect(page.data.flatMap(companyProblems)).toEqual([]);
    // Every company is held by at least one of the 3 funds.
    expect(page.data.every((company) => company.funds.length > 0)).toBe(true);
    expect(new Set(page.data.flatMap((company) => company.funds.map((fund: Timed) => fund.id))).size).toBe(3);
  });

  it("shows each company's funds by name, then id, on pages of every size: none as [], many in order", async () => {
    const holding = await createPortfolioInstance(testDb.db);
    // Named so that any collation orders them alike; the two named "Growth" are ordered by id.
    const fund = (name: string, id = randomUUID()) => ({ id, name });
    const funds = [
      fund('Zulu Fund IV'),
      fund('Growth', 'ffffffff-0000-4000-8000-000000000000'),
      fund('Alpha Fund I'),
      fund('Growth', '00000000-0000-4000-8000-000000000000'),
      fund('Mike Opportunities'),
      fund('Bravo Seed II'),
      fund('Echo Ventures'),
    ];
    const byNameThenId = (list: typeof funds) =>
      [...list].sort((a, b) => (a.name === b.name ? (a.id < b.id ? -1 : 1) : a.name < b.name ? -1 : 1));
    const companies = [
      newCompany({ createdAt: '2021-01-01T00:00:00.000Z', funds: [] }),
      newCompany({ createdAt: '2021-01-02T00:00:00.000Z', funds }),
      newCompany({ createdAt: '2021-01-03T00:00:00.000Z', funds: [funds[4], funds[1]] }),
      newCompany({ createdAt: '2021-01-04T00:00:00.000Z' }),
      newCompany({ createdAt: '2021-01-05T00:00:00.000Z', funds: [funds[0]] }),
    ];
    await importDocument(testDb.db, holding.instanceId, { companies });
    const expected = [[], byNameThenId(funds), byNameThenId([funds[4]!, funds[1]!]), [], [funds[0]]];

    // Pages of 1 and 3 bind their size; those of 50 (the default) and 200 have it in their statement.
    for (const limit of [1, 3, 50, 200]) {
      const listed = records(await walk(app, companiesUrl({ limit }), holding.apiKey, limit));
      expect(listed.map((company) => company.funds)).toEqual(expected);
      // As the dashboard reads one company (its funds joined there, not here).
      for (const company of listed) {
        expect(company).toEqual(await getCompany(testDb.db, holding.instanceId, company.id as string));
      }
    }
  });

  /**
   * GETs one list (`urlOf`) of every company of alpha in a page of 200, and asserts the envelope and each
   * record's fields and types; returns how many records the lists held.
   */
  async function expectEveryListTyped(
    urlOf: (companyId: string, query: Query) => string,
    fields: string[],
    types: FieldTypes,
  ): Promise<number> {
    const companies = records(await walk(app, companiesUrl(), alpha.apiKey, 200));
    let seen = 0;
    for (const company of companies) {
      const response = await get(app, urlOf(company.id as string, { limit: 200 }), alpha.apiKey);
      expect(response.status).toBe(200);
      const page = response.body as ListPage;
      expectEnvelope(page);
      expect(page.data.flatMap((record) => typeProblems(record, fields, types))).toEqual([]);
      seen += page.data.length;
    }
    return seen;
  }

  it('lists the updates of every company with exactly the spec fields, typed as the spec says', async () => {
    expect(await expectEveryListTyped(updatesUrl, UPDATE_FIELDS, UPDATE_TYPES)).toBeGreaterThanOrEqual(40);
  });

  it('lists the investments of every company with exactly the spec fields, typed as the spec says', async () => {
    expect(
      await expectEveryListTyped(investmentsUrl, INVESTMENT_FIELDS, INVESTMENT_TYPES),
    ).toBeGreaterThanOrEqual(40);
  });

  it('returns amounts beyond 2^53 digit for digit, as strings', async () => {
    const response = await get(app, investmentsUrl(String(bigCompany.id)), edge.apiKey);
    expect(response.status).toBe(200);
    const investment = (response.body as ListPage).data.find((record) => record.id === bigInvestment.id);
    expect(investment).toMatchObject(BIG_AMOUNTS);
    // In the body as sent, not only after parsing: quoted, so no JSON reader rounds them.
    expect(response.text).toContain('"amountCents":"9007199254740993"');
    expect(response.text).toContain('"unrealizedValueCents":"999999999999999999"');
    expect(typeProblems(investment, INVESTMENT_FIELDS, INVESTMENT_TYPES)).toEqual([]);
  });

  it('shows every nullable field as null when it has no value, never leaves it out', async () => {
    const investments = await get(app, investmentsUrl(String(bigCompany.id)), edge.apiKey);
    const bare = (investments.body as ListPage).data.find((record) => record.id === bareInvestment.id);
    expect(Object.keys(bare).sort()).toEqual([...INVESTMENT_FIELDS].sort());
    const nullable = Object.entries(INVESTMENT_TYPES).filter(([, [, n]]) => n === 'nullable');
    expect(Object.fromEntries(nullable.map(([field]) => [field, bare[field]]))).toEqual(
      Object.fromEntries(nullable.map(([field]) => [field, null])),
    );
    // The other currencies default to the amount's.
    expect(bare).toMatchObject({
      fmvPerShareCurrency: 'USD',
      costPerShareCurrency: 'USD',
      roundSizeCurrency: 'USD',
      valuationOrCapCurrency: 'USD',
    });
    expect(typeProblems(bare, INVESTMENT_FIELDS, INVESTMENT_TYPES)).toEqual([]);

    const updates = await get(app, updatesUrl(String(bigCompany.id)), edge.apiKey);
    const update = (updates.body as ListPage).data.find((record) => record.id === bareUpdate.id);
    expect(update).toMatchObject(UPDATE_NULLS);
    expect(typeProblems(update, UPDATE_FIELDS, UPDATE_TYPES)).toEqual([]);
  });

  it('answers HEAD on the lists like GET, without a body', async () => {
    const response = await call(app, 'HEAD', companiesUrl(), alpha.apiKey);
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });
});

describe('pagination', () => {
  it('walks 40 companies in 6 pages of at most 7, by createdAt then id, each exactly once', async () => {
    const pages = await walk(app, companiesUrl(), alpha.apiKey, 7);
    expect(pages.map((page) => page.data.length)).toEqual([7, 7, 7, 7, 7, 5]);
    expectWalk(pages, 7, 40);
    const companies = records(pages);
    expect(inWalkOrder(companies, 'createdAt', false)).toBe(true);
    expect(companies.map((company) => company.id).sort()).toEqual(await companyIds(alpha.instanceId));
    expect(pages.at(-1)).toMatchObject({ hasNextPage: false, nextCursor: null });
  });

  it('ends a walk whose last page is full without an empty page after it', async () => {
    for (const limit of [8, 10, 20, 40]) {
      const pages = await walk(app, companiesUrl(), alpha.apiKey, limit);
      expect(pages).toHaveLength(40 / limit);
      expectWalk(pages, limit, 40);
    }
  });

  it('walks the updates and investments of every company, newest first then by id, each exactly once', async () => {
    const companies = await companyIds(alpha.instanceId);
    for (const companyId of companies) {
      for (const [url, table, timeField] of [
        [updatesUrl(companyId), 'portfolio_updates', 'updateDate'],
        [investmentsUrl(companyId), 'portfolio_investments', 'date'],
      ] as const) {
        const expected = await childIds(table, alpha.instanceId, companyId);
        const pages = await walk(app, url, alpha.apiKey, 2);
        expect(pages).toHaveLength(Math.max(1, Math.ceil(expected.length / 2)));
        expectWalk(pages, 2, expected.length);
        const list = records(pages);
        expect(inWalkOrder(list, timeField, true)).toBe(true);
        expect(list.map((record) => record.id).sort()).toEqual(expected);
        // A walk with limit 7 returns the same records in the same order.
        const seven = records(await walk<Timed>(app, url, alpha.apiKey, 7));
        expect(seven.map((record) => record.id)).toEqual(list.map((record) => record.id));
      }
    }
  });

  it('breaks ties of the same date by id, descending, across pages', async () => {
    const companyId = String(tieCompany.id);
    for (const url of [updatesUrl(companyId), investmentsUrl(companyId)]) {
      const pages = await walk(app, url, edge.apiKey, 2);
      expectWalk(pages, 2, 5);
      const ids = records(pages).map((record) => record.id as string);
      expect(ids).toEqual([...ids].sort().reverse());
    }
  });

  it('walks records whose dates differ by less than a millisecond without skipping any', async () => {
    const instance = await createPortfolioInstance(testDb.db, { slug: 'sub-millisecond' });
    const company = newCompany();
    const updates = [
      '2024-05-01T10:00:00.123900Z',
      '2024-05-01T10:00:00.123500Z',
      '2024-05-01T10:00:00.1231Z',
    ];
    const investments = ['2024-05-01T10:00:00.456900Z', '2024-05-01T10:00:00.456500Z'];
    await importDocument(testDb.db, instance.instanceId, {
      companies: [company],
      updates: updates.map((updateDate) => newUpdate(String(company.id), { updateDate })),
      investments: investments.map((date) => newInvestment(String(company.id), { date })),
    });
    const walkedUpdates = records(await walk(app, updatesUrl(String(company.id)), instance.apiKey, 1));
    expect(walkedUpdates).toHaveLength(3);
    const walkedInvestments = records(
      await walk(app, investmentsUrl(String(company.id)), instance.apiKey, 1),
    );
    expect(walkedInvestments).toHaveLength(2);
  });

  it('pages by 50 without a limit and by up to 200 with limit 200', async () => {
    const count = (await companyIds(edge.instanceId)).length;
    expect(count).toBeGreaterThan(50);
    const first = await get(app, companiesUrl(), edge.apiKey);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: count, hasNextPage: true });
    expect(first.body.data).toHaveLength(50);
    const all = await get(app, companiesUrl({ limit: 200 }), edge.apiKey);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: count, hasNextPage: false, nextCursor: null });
    expect(all.body.data).toHaveLength(count);
    const rest = await get(app, companiesUrl({ cursor: first.body.nextCursor }), edge.apiKey);
    expect(rest.body.data).toHaveLength(count - 50);
    expect(records<Timed>([first.body, rest.body]).map((company) => company.id)).toEqual(
      all.body.data.map((company: Timed) => company.id),
    );
  });
});

describe('a walk while records are being added', () => {
  it('returns every company that existed when it began exactly once, and none added during it', async () => {
    const growing = await createTestPortfolio(testDb.db, { companies: 40 });
    const before = await companyIds(growing.instanceId);
    const existing = records(await walk<Timed>(app, companiesUrl(), growing.apiKey, 200));
    const added: string[] = [];
    const addCompanies = async (companies: Record<string, unknown>[]) => {
      await importDocument(testDb.db, growing.instanceId, { companies });
      added.push(...companies.map((company) => String(company.id)));
    };

    const pages = await walk(app, companiesUrl(), growing.apiKey, 7, {
      between: async (sofar) => {
        if (sofar.length === 1) {
          // Before the whole list, in the middle of pages already seen, and at the time of later records.
          await addCompanies([
            newCompany({ createdAt: '2001-01-01T00:00:00.000Z' }),
            newCompany({ createdAt: '2001-01-02T00:00:00.000Z' }),
            newCompany({ createdAt: existing[3]?.createdAt }),
            newCompany({ createdAt: existing[20]?.createdAt }),
            newCompany({ createdAt: existing[21]?.createdAt }),
            newCompany({ createdAt: existing[39]?.createdAt }),
          ]);
        } else if (sofar.length === 2) {
          // Without createdAt: added now, after every existing company.
          await addCompanies([newCompany(), newCompany(), newCompany()]);
        } else if (sofar.length === 3) {
          // Changing existing companies (one already returned, one not yet) does not move them.
          await importDocument(testDb.db, growing.instanceId, {
            companies: [
              { id: existing[0]?.id, legalName: 'Renamed Early Inc.' },
              { id: existing[30]?.id, legalName: 'Renamed Late Inc.' },
            ],
          });
          await addCompanies([newCompany({ createdAt: '2002-02-02T00:00:00.000Z' }), newCompany()]);
        }
      },
    });

    expect(added).toHaveLength(11);
    expectWalk(pages, 7, 40);
    expect(pages).toHaveLength(6);
    const walked = records(pages);
    expect(inWalkOrder(walked, 'createdAt', false)).toBe(true);
    expect(walked.map((company) => company.id).sort()).toEqual(before);
    expect(walked.filter((company) => added.includes(company.id))).toEqual([]);

    // A new walk sees them all, and counts them.
    const fresh = await walk(app, companiesUrl(), growing.apiKey, 7);
    expectWalk(fresh, 7, 51);
    const all = records(fresh);
    expect(inWalkOrder(all, 'createdAt', false)).toBe(true);
    expect(all.map((company) => company.id).sort()).toEqual([...before, ...added].sort());
    expect(all.slice(0, 3).map((company) => company.createdAt)).toEqual([
      '2001-01-01T00:00:00.000Z',
      '2001-01-02T00:00:00.000Z',
      '2002-02-02T00:00:00.000Z',
    ]);
  });

  it('walks the updates and investments of a company as they were when the walk began', async () => {
    const growing = await createTestPortfolio(testDb.db, { companies: 40 });
    const [companyId] = await busyCompanies(growing.instanceId);
    if (companyId === undefined)
      throw new Error('the portfolio has no company with two updates and investments');
    for (const [url, table, list, timeField, make] of [
      [updatesUrl(companyId), 'portfolio_updates', 'updates', 'updateDate', newUpdate],
      [investmentsUrl(companyId), 'portfolio_investments', 'investments', 'date', newInvestment],
    ] as const) {
      const before = await childIds(table, growing.instanceId, companyId);
      const added: string[] = [];
      const pages = await walk(app, url, growing.apiKey, 1, {
        between: async () => {
          const fresh = [
            make(companyId, { [timeField]: '2099-01-01T00:00:00.000Z' }),
            make(companyId, { [timeField]: '1999-01-01T00:00:00.000Z' }),
          ];
          await importDocument(testDb.db, growing.instanceId, { [list]: fresh });
          added.push(...fresh.map((record) => String(record.id)));
        },
      });
      expectWalk(pages, 1, before.length);
      expect(
        records(pages)
          .map((record) => record.id as string)
          .sort(),
      ).toEqual(before);
      expect(added.length).toBeGreaterThan(0);

      const after = await walk(app, url, growing.apiKey, 200);
      expectWalk(after, 200, before.length + added.length);
      expect(inWalkOrder(records(after), timeField, true)).toBe(true);
    }
  });
});

describe('incremental sync with updatedSince', () => {
  it('returns only the companies changed since the given time, and counts only them', async () => {
    const syncing = await createTestPortfolio(testDb.db, { companies: 40 });
    const [company] = records(await walk(app, companiesUrl(), syncing.apiKey, 200)).slice(17, 18) as Timed[];
    const since = await databaseNow();
    await importDocument(testDb.db, syncing.instanceId, {
      companies: [{ id: company!.id, legalName: 'Renamed Robotics GmbH', funds: company!.funds }],
    });

    const response = await get(app, companiesUrl({ updatedSince: since }), syncing.apiKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [{ ...company, legalName: 'Renamed Robotics GmbH' }],
      total: 1,
      hasNextPage: false,
      nextCursor: null,
    });

    const everything = await walk(
      app,
      companiesUrl({ updatedSince: '2000-01-01T00:00:00Z' }),
      syncing.apiKey,
      7,
    );
    expectWalk(everything, 7, 40);
    const future = await get(app, companiesUrl({ updatedSince: '2999-01-01T00:00:00Z' }), syncing.apiKey);
    expect(future.body).toEqual({ data: [], total: 0, hasNextPage: false, nextCursor: null });
  });

  it('returns only the updates and investments changed since the given time', async () => {
    const syncing = await createTestPortfolio(testDb.db, { companies: 40 });
    const companies = await companyIds(syncing.instanceId);
    for (const [list, urlOf] of [
      ['updates', updatesUrl],
      ['investments', investmentsUrl],
    ] as const) {
      const [companyId] = await busyCompanies(syncing.instanceId);
      if (companyId === undefined)
        throw new Error('the portfolio has no company with two updates and investments');
      const [record, ...others] = records(await walk<Timed>(app, urlOf(companyId), syncing.apiKey, 200));
      const since = await databaseNow();
      // What the API returned can be imported again as it is, with the company it belongs to.
      const changed =
        list === 'updates' ? { ...record, title: 'Corrected update' } : { ...record, round: 'Series Z' };
      await importDocument(testDb.db, syncing.instanceId, { [list]: [{ ...changed, companyId }] });

      const pages = await walk(app, urlOf(companyId, { updatedSince: since }), syncing.apiKey, 1);
      expectWalk(pages, 1, 1);
      const [returned] = records(pages);
      expect(returned).toMatchObject(
        list === 'updates'
          ? { id: record!.id, title: 'Corrected update' }
          : { id: record!.id, round: 'Series Z' },
      );
      if (list === 'updates') expect(returned.updatedAt >= since).toBe(true);
      expect(others.length).toBeGreaterThan(0);

      const other = companies.find((id) => id !== companyId)!;
      const unchanged = await get(app, urlOf(other, { updatedSince: since }), syncing.apiKey);
      expect(unchanged.body).toEqual({ data: [], total: 0, hasNextPage: false, nextCursor: null });
    }
  });

  it('refuses a cursor with another updatedSince than its walk, as INVALID_CURSOR', async () => {
    const syncing = await createTestPortfolio(testDb.db, { companies: 40 });
    const early = '2000-01-01T00:00:00.000Z';
    const first = await get(app, companiesUrl({ limit: 5, updatedSince: early }), syncing.apiKey);
    const cursor = first.body.nextCursor as string;
    expect(typeof cursor).toBe('string');

    const other = await get(
      app,
      companiesUrl({ limit: 5, updatedSince: '2001-01-01T00:00:00.000Z', cursor }),
      syncing.apiKey,
    );
    expect(expectApiError(other, 400, 'INVALID_CURSOR')).toMatch(/updatedSince/);
    // The same updatedSince, or none after the first page, continues the walk.
    const same = await get(app, companiesUrl({ limit: 5, updatedSince: early, cursor }), syncing.apiKey);
    expect(same.status).toBe(200);
    const omitted = await get(app, companiesUrl({ limit: 5, cursor }), syncing.apiKey);
    expect(omitted.body).toEqual(same.body);

    const plain = await get(app, companiesUrl({ limit: 5 }), syncing.apiKey);
    const added = await get(
      app,
      companiesUrl({ limit: 5, updatedSince: early, cursor: plain.body.nextCursor }),
      syncing.apiKey,
    );
    expectApiError(added, 400, 'INVALID_CURSOR');

    const [companyId] = await busyCompanies(syncing.instanceId);
    for (const urlOf of [updatesUrl, investmentsUrl]) {
      const page = await get(app, urlOf(companyId!, { limit: 1, updatedSince: early }), syncing.apiKey);
      expect(typeof page.body.nextCursor).toBe('string');
      const query = { limit: 1, updatedSince: '2001-01-01T00:00:00Z', cursor: page.body.nextCursor };
      expectApiError(await get(app, urlOf(companyId!, query), syncing.apiKey), 400, 'INVALID_CURSOR');
    }
  });
});

describe('bad input', () => {
  const lists = (): ((query?: Query) => string)[] => [
    companiesUrl,
    (query) => updatesUrl(alpha.companyId, query),
    (query) => investmentsUrl(alpha.companyId, query),
  ];

  it.each(['0', '201', '-1', 'abc', '7.5', '', 'Infinity', '1e309', '-1e309'])(
    'refuses limit=%j on every list as BAD_USER_INPUT',
    async (limit) => {
      for (const url of lists()) {
        const response = await get(app, url({ limit }), alpha.apiKey);
        expect(expectApiError(response, 400, 'BAD_USER_INPUT')).toMatch(/limit/);
      }
    },
  );

  it('accepts limit 1 and limit 200', async () => {
    for (const url of lists()) {
      expect((await get(app, url({ limit: 1 }), alpha.apiKey)).body.data).toHaveLength(1);
      expect((await get(app, url({ limit: 200 }), alpha.apiKey)).status).toBe(200);
    }
  });

  it('refuses an unknown query parameter, naming it', async () => {
    for (const url of lists()) {
      const response = await get(app, url({ limt: 5 }), alpha.apiKey);
      expect(expectApiError(response, 400, 'BAD_USER_INPUT')).toMatch(/limt/);
    }
  });

  it.each(['not-a-uuid', '123', 'ffffffff-ffff-ffff-ffff-fffffffffffff', randomUUID().replace(/-/g, '')])(
    'refuses the company id %j in the path as BAD_USER_INPUT, saying it must be a UUID',
    async (id) => {
      for (const url of [updatesUrl(id), investmentsUrl(id)]) {
        expect(expectApiError(await get(app, url, alpha.apiKey), 400, 'BAD_USER_INPUT')).toBe(
          'The path parameter "id" must be a UUID.',
        );
      }
    },
  );

  it('refuses a company id in a UUID form the database does not read (urn:uuid:…) as BAD_USER_INPUT, not 500', async () => {
    const id = `urn:uuid:${alpha.companyId}`;
    for (const url of [updatesUrl(id), investmentsUrl(id)]) {
      expectApiError(await get(app, url, alpha.apiKey), 400, 'BAD_USER_INPUT');
    }
  });

  it('answers 404 NOT_FOUND for a company id that names no company', async () => {
    for (const id of [randomUUID(), '00000000-0000-0000-0000-000000000000']) {
      for (const url of [updatesUrl(id), investmentsUrl(id)]) {
        expect(expectApiError(await get(app, url, alpha.apiKey), 404, 'NOT_FOUND')).toContain(id);
      }
    }
  });

  it.each([
    'yesterday',
    '2026-01-31',
    '2026-01-31T00:00:00',
    '2024-02-30T00:00:00Z',
    '2026-01-31 00:00',
    '1700000000',
  ])('refuses updatedSince=%j as BAD_USER_INPUT, saying in words what it takes', async (updatedSince) => {
    for (const url of lists()) {
      const response = await get(app, url({ updatedSince }), alpha.apiKey);
      expect(expectApiError(response, 400, 'BAD_USER_INPUT')).toMatch(
        /^The query parameter "updatedSince" must be an ISO 8601 date and time with a time zone, e\.g\. 2026-01-31T00:00:00Z(, in the years 0001 to 9999)?\.$/,
      );
    }
  });

  it.each([
    ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['2026-01-01T00:00:00+20:00', '2025-12-31T04:00:00Z'],
    ['2026-01-01T00:00:00-18:30', '2026-01-01T18:30:00Z'],
  ])(
    'answers updatedSince=%j, beyond what PostgreSQL reads, like %j or as BAD_USER_INPUT, never with a 500',
    async (updatedSince, equivalent) => {
      for (const url of lists()) {
        const response = await get(app, url({ updatedSince }), alpha.apiKey);
        if (response.status === 200) {
          const expected = await get(app, url({ updatedSince: equivalent }), alpha.apiKey);
          expect(response.body.data).toEqual(expected.body.data);
        } else {
          expectApiError(response, 400, 'BAD_USER_INPUT');
        }
      }
    },
  );

  it('refuses cursors that are not cursors as INVALID_CURSOR', async () => {
    const real = (await get(app, companiesUrl({ limit: 2 }), alpha.apiKey)).body.nextCursor as string;
    const [payload] = real.split('.');
    const forged = Buffer.from(
      JSON.stringify([
        1,
        'companies',
        alpha.instanceId,
        null,
        null,
        '1',
        40,
        '2000-01-01T00:00:00.000Z',
        randomUUID(),
      ]),
    ).toString('base64url');
    for (const cursor of [
      'garbage',
      'a.b',
      'a.b.c',
      '.',
      '%%%',
      'x'.repeat(5000),
      `${payload}.`,
      `${payload}`,
      `${forged}.${real.split('.')[1]}`,
      `${real}.${real}`,
      real.toUpperCase(),
    ]) {
      for (const url of lists()) {
        const response = await get(app, url({ cursor }), alpha.apiKey);
        expectApiError(response, 400, 'INVALID_CURSOR');
      }
    }
  });

  it('refuses a cursor with any one character changed as INVALID_CURSOR', async () => {
    const cursor = (await get(app, companiesUrl({ limit: 2 }), alpha.apiKey)).body.nextCursor as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const accepted: string[] = [];
    for (let index = 0; index < cursor.length; index += 1) {
      const char = cursor.charAt(index);
      const replacement =
        char === '.' ? 'A' : alphabet.charAt((alphabet.indexOf(char) + 1) % alphabet.length);
      const changed = `${cursor.slice(0, index)}${replacement}${cursor.slice(index + 1)}`;
      const response = await get(app, companiesUrl({ limit: 2, cursor: changed }), alpha.apiKey);
      if (response.status !== 400 || response.body?.error?.code !== 'INVALID_CURSOR') {
        accepted.push(`${index}: ${char}→${replacement} answered ${response.status}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('refuses a cursor of another list or another company as INVALID_CURSOR', async () => {
    const [first, second] = await busyCompanies(alpha.instanceId);
    expect(second).toBeDefined();
    const cursorOf = async (url: string) => {
      const response = await get(app, url, alpha.apiKey);
      expect(typeof response.body.nextCursor).toBe('string');
      return response.body.nextCursor as string;
    };
    const companies = await cursorOf(companiesUrl({ limit: 1 }));
    const updates = await cursorOf(updatesUrl(first!, { limit: 1 }));
    const investments = await cursorOf(investmentsUrl(first!, { limit: 1 }));
    for (const [url, label] of [
      [updatesUrl(first!, { cursor: companies }), 'companies → updates'],
      [investmentsUrl(first!, { cursor: companies }), 'companies → investments'],
      [companiesUrl({ cursor: updates }), 'updates → companies'],
      [investmentsUrl(first!, { cursor: updates }), 'updates → investments of the same company'],
      [updatesUrl(first!, { cursor: investments }), 'investments → updates of the same company'],
      [updatesUrl(second!, { cursor: updates }), 'updates → updates of another company'],
      [investmentsUrl(second!, { cursor: investments }), 'investments → investments of another company'],
    ] as const) {
      const response = await get(app, url, alpha.apiKey);
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
      expect(expectApiError(response, 400, 'INVALID_CURSOR')).toMatch(/another list/);
    }
    // Each cursor still works where it came from.
    expect((await get(app, updatesUrl(first!, { cursor: updates }), alpha.apiKey)).status).toBe(200);
    expect((await get(app, investmentsUrl(first!, { cursor: investments }), alpha.apiKey)).status).toBe(200);
  });

  it('answers 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD to every other method on the lists', async () => {
    for (const url of lists().map((list) => list())) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        for (const key of [alpha.apiKey, undefined]) {
          const response = await call(app, method, url, key);
          expect(expectApiError(response, 405, 'METHOD_NOT_ALLOWED')).toContain(method);
          expect(response.headers.allow).toBe('GET, HEAD');
        }
      }
    }
  });

  it('answers 404 NOT_FOUND in JSON for an unknown path under /v1/external', async () => {
    for (const url of [
      '/v1/external/nope',
      '/v1/external',
      '/v1/external/company',
      `/v1/external/company/${alpha.companyId}`,
      `/v1/external/company/${alpha.companyId}/funds`,
      `/v1/external/companies/${alpha.companyId}`,
      '/v1/external/companies/',
      '/v2/external/companies',
    ]) {
      for (const key of [alpha.apiKey, undefined]) {
        expectApiError(await get(app, url, key), 404, 'NOT_FOUND');
      }
    }
  });
});

describe('tenant isolation', () => {
  it('shows each key only the companies of its own instance', async () => {
    const seenByAlpha = records(await walk(app, companiesUrl(), alpha.apiKey, 7)).map((c) => c.id as string);
    const seenByBeta = records(await walk(app, companiesUrl(), beta.apiKey, 7)).map((c) => c.id as string);
    expect(seenByAlpha.sort()).toEqual(await companyIds(alpha.instanceId));
    expect(seenByBeta.sort()).toEqual(await companyIds(beta.instanceId));
    expect(seenByAlpha.filter((id) => seenByBeta.includes(id))).toEqual([]);
  });

  it('answers a company of the other instance with 404, exactly like an unknown id', async () => {
    for (const [own, other] of [
      [alpha, beta],
      [beta, alpha],
    ] as const) {
      for (const urlOf of [updatesUrl, investmentsUrl]) {
        const foreign = await get(app, urlOf(own.companyId), other.apiKey);
        const unknownId = randomUUID();
        const unknown = await get(app, urlOf(unknownId), other.apiKey);
        const foreignMessage = expectApiError(foreign, 404, 'NOT_FOUND');
        const unknownMessage = expectApiError(unknown, 404, 'NOT_FOUND');
        expect(foreignMessage.replace(own.companyId, '<id>')).toBe(unknownMessage.replace(unknownId, '<id>'));
        expect(foreign.text).not.toContain(own.slug);
        // Its owner sees it.
        expect((await get(app, urlOf(own.companyId), own.apiKey)).status).toBe(200);
      }
    }
  });

  it("refuses one instance's cursor with the other instance's key as INVALID_CURSOR, both ways", async () => {
    for (const [own, other] of [
      [alpha, beta],
      [beta, alpha],
    ] as const) {
      const companies = await get(app, companiesUrl({ limit: 3 }), own.apiKey);
      const refused = await get(
        app,
        companiesUrl({ limit: 3, cursor: companies.body.nextCursor }),
        other.apiKey,
      );
      expectApiError(refused, 400, 'INVALID_CURSOR');
      expect(refused.text).not.toContain(companies.body.data[0].id);

      const updates = await get(app, updatesUrl(own.companyId, { limit: 1 }), own.apiKey);
      for (const companyId of [own.companyId, other.companyId]) {
        const response = await get(
          app,
          updatesUrl(companyId, { cursor: updates.body.nextCursor }),
          other.apiKey,
        );
        expectApiError(response, 400, 'INVALID_CURSOR');
      }
    }
  });
});

describe('authentication', () => {
  const urls = () => [companiesUrl(), updatesUrl(alpha.companyId), investmentsUrl(alpha.companyId)];

  async function expectRefused(authorization: string | undefined, message: RegExp) {
    for (const url of urls()) {
      const response = await get(app, url, authorization);
      const text = expectApiError(response, 401, 'UNAUTHENTICATED');
      expect(text).toMatch(message);
      expect(response.text).not.toContain(alpha.companyId);
    }
  }

  it('refuses a request without a key, saying how to send one', async () => {
    await expectRefused(undefined, /Missing API key.*Authorization: pfk_/);
    await expectRefused('', /Missing API key/);
  });

  it('refuses a key sent with a scheme word, explaining that the header holds the key itself', async () => {
    await expectRefused(`Bearer ${alpha.apiKey}`, /without "Bearer".*Authorization: pfk_…".*no scheme word/);
    await expectRefused(`Basic ${alpha.apiKey}`, /without "Basic"/);
    await expectRefused(`token ${alpha.apiKey}`, /without "token"/);
  });

  it('never repeats any part of the key when something follows it, naming no word but a known scheme', async () => {
    for (const authorization of [
      `${alpha.apiKey} extra`,
      `${alpha.apiKey}\t${alpha.apiKey}`,
      `${alpha.apiKey.slice(0, 20)} ${alpha.apiKey.slice(20)}`,
      `Secret${alpha.apiKey} x`,
    ]) {
      for (const url of urls()) {
        const response = await get(app, url, authorization);
        const text = expectApiError(response, 401, 'UNAUTHENTICATED');
        expect(text).toMatch(/without a scheme word/);
        expect(response.text).not.toContain(alpha.apiKey.slice(0, 12));
        expect(response.text).not.toContain(alpha.apiKey.slice(-12));
      }
    }
  });

  it('refuses a Transactions API key, saying it is one', async () => {
    await expectRefused(generateApiKey('staging'), /Transactions API key.*pfk_/);
    await expectRefused(generateApiKey('production'), /Transactions API key/);
  });

  it('refuses a malformed key', async () => {
    for (const key of ['pfk_short', 'hello', `${alpha.apiKey}x`, alpha.apiKey.replace('pfk_', 'pk_')]) {
      await expectRefused(key, /Invalid API key/);
    }
  });

  it('refuses a key with a typo because its checksum no longer matches', async () => {
    const last = alpha.apiKey.at(-10) === 'a' ? 'b' : 'a';
    const typo = `${alpha.apiKey.slice(0, -10)}${last}${alpha.apiKey.slice(-9)}`;
    await expectRefused(typo, /checksum/);
  });

  it('refuses a well-formed key that was never issued', async () => {
    await expectRefused(generatePortfolioKey(), /^Invalid API key\.$/);
  });

  it('refuses a revoked key at once when key lookups are not reused', async () => {
    const uncached = await buildPortfolioApp({ db: testDb.db, apiKeyCacheMs: 0 });
    try {
      const { key, record } = await createPortfolioKey(testDb.db, {
        instanceId: alpha.instanceId,
        name: 'to revoke',
      });
      expect((await get(uncached, companiesUrl({ limit: 1 }), key)).status).toBe(200);
      await portfolioKeys.revoke(testDb.db, { ownerId: alpha.instanceId, key: record.id });
      for (const url of urls()) {
        expect(expectApiError(await get(uncached, url, key), 401, 'UNAUTHENTICATED')).toMatch(/revoked/);
      }
      // The instance's other keys still work.
      expect((await get(uncached, companiesUrl({ limit: 1 }), alpha.apiKey)).status).toBe(200);
    } finally {
      await uncached.close();
    }
  });

  it('stores keys only as hashes: no column of portfolio_api_keys holds the key', async () => {
    const { key, record } = await createPortfolioKey(testDb.db, {
      instanceId: beta.instanceId,
      name: 'stored',
    });
    const [row] = await testDb.db.query('select * from portfolio_api_keys where id = $1', [record.id]);
    expect(row).toBeDefined();
    const secret = key.slice(12); // what follows the display prefix
    const shown: string[] = [];
    for (const value of Object.values(row!)) {
      if (value instanceof Uint8Array) {
        const bytes = Buffer.from(value);
        shown.push(bytes.toString('hex'), bytes.toString('base64'), bytes.toString('latin1'));
      } else shown.push(value instanceof Date ? value.toISOString() : JSON.stringify(value));
    }
    expect(shown.filter((text) => text.includes(key) || text.includes(secret))).toEqual([]);
    expect(Buffer.from(row!.secret_hash as Uint8Array).toString('hex')).toBe(
      createHash('sha256').update(key).digest('hex'),
    );
    expect(row!.display_prefix).toBe(key.slice(0, 12));
  });
});
