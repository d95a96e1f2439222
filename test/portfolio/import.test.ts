// The Portfolio data import (issue 4, "Data in"): files read by `readImportFile`, written by `importPortfolio`,
// and read back through the Portfolio API as a customer's client would.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { buildPortfolioApp, PORTFOLIO_BASE_PATH } from '../../src/portfolio/app.ts';
import { ImportProblems, readImportFile, type ImportSource } from '../../src/portfolio/import/files.ts';
import {
  importPortfolio,
  type ImportProgress,
  type ImportSummary,
} from '../../src/portfolio/import/import.ts';
import { createInstance, createPortfolioKey } from '../../src/portfolio/instances.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { INVESTMENT_NULLS, UPDATE_NULLS, newInvestment, newUpdate } from '../support/data/portfolio.ts';

const FIXTURES = new URL('../fixtures/portfolio/', import.meta.url);

type Fields = Record<string, unknown>;
interface Document {
  companies?: Fields[];
  updates?: Fields[];
  investments?: Fields[];
}

let database: TestDatabase;
let db: Database;
let app: FastifyInstance;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  // No key cache: a test that revokes nothing still wants every request to see the database as it is.
  app = await buildPortfolioApp({ db, apiKeyCacheMs: 0 });
});

afterAll(async () => {
  await app.close();
  await database.close();
});

/** A new customer instance and a key for it. */
async function newInstance(): Promise<{ id: string; key: string }> {
  const instance = await createInstance(db, {
    slug: `import-${randomBytes(4).toString('hex')}`,
    name: 'Import Ventures',
  });
  const { key } = await createPortfolioKey(db, { instanceId: instance.id, name: 'import test' });
  return { id: instance.id, key };
}

/** A JSON import file as an operator writes it: pretty-printed, so that every field has a line of its own. */
function jsonFile(document: Document): string {
  return JSON.stringify(document, null, 2);
}

/** Reads `content` as the file `file` and imports it; a file that cannot be read rejects the same way. */
async function importText(instanceId: string, file: string, content: string): Promise<ImportSummary> {
  return importPortfolio(db, { instanceId, sources: [readImportFile(file, content)] });
}

function importDocument(instanceId: string, document: Document, file = 'import.json') {
  return importText(instanceId, file, jsonFile(document));
}

async function fixture(name: string): Promise<{ content: string; source: ImportSource }> {
  const content = await readFile(new URL(name, FIXTURES), 'utf8');
  return { content, source: readImportFile(name, content) };
}

/** The ImportProblems a promise is rejected with (fails the test if it is fulfilled or fails otherwise). */
async function problemsOf(promise: Promise<unknown>): Promise<ImportProblems> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ImportProblems);
  const problems = error as ImportProblems;
  expect(problems.code).toBe('BAD_USER_INPUT');
  return problems;
}

/** The 1-based numbers of the lines of `content` that contain `text`. */
function linesWith(content: string, text: string): number[] {
  const lines = content.split('\n').flatMap((line, index) => (line.includes(text) ? [index + 1] : []));
  expect(lines, `"${text}" in the file`).not.toEqual([]);
  return lines;
}

function lineWith(content: string, text: string): number {
  const [line] = linesWith(content, text);
  return line ?? 0;
}

/** The line where the record with this id starts (`{`), in a file made by `jsonFile` with the id first. */
function recordLine(content: string, id: string): number {
  return lineWith(content, `"id": "${id}"`) - 1;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read responses loosely and assert them
type Body = Record<string, any>;

async function get(key: string, path: string): Promise<{ status: number; body: Body }> {
  const response = await app.inject({
    method: 'GET',
    url: `${PORTFOLIO_BASE_PATH}${path}`,
    headers: { authorization: key },
  });
  return { status: response.statusCode, body: response.json<Body>() };
}

/** Every record of a list, following nextCursor; `path` may carry query parameters such as updatedSince. */
async function walk(key: string, path: string): Promise<Fields[]> {
  const address = new URL(path, 'http://portfolio.test');
  address.searchParams.set('limit', '200');
  const found: Fields[] = [];
  for (let page = 0; page < 100; page += 1) {
    const { status, body } = await get(key, `${address.pathname}${address.search}`);
    expect(status, JSON.stringify(body)).toBe(200);
    found.push(...(body.data as Fields[]));
    if (body.nextCursor === null) return found;
    address.searchParams.set('cursor', body.nextCursor as string);
  }
  throw new Error(`the walk of ${path} does not end`);
}

async function total(key: string): Promise<number> {
  const { status, body } = await get(key, '/companies?limit=1');
  expect(status).toBe(200);
  return body.total as number;
}

/** Everything the API shows of an instance: its companies, and the updates and investments of each. */
async function apiState(key: string) {
  const companies = await walk(key, '/companies');
  const updates: Record<string, Fields[]> = {};
  const investments: Record<string, Fields[]> = {};
  for (const company of companies) {
    const id = company.id as string;
    updates[id] = await walk(key, `/company/${id}/updates`);
    investments[id] = await walk(key, `/company/${id}/investments`);
  }
  return { companies, updates, investments };
}

/** What the API shows as an import document: the lists' records given their companyId. */
function exported(state: Awaited<ReturnType<typeof apiState>>): Document {
  const withCompany = (byCompany: Record<string, Fields[]>) =>
    Object.entries(byCompany).flatMap(([companyId, list]) =>
      list.map((record) => ({ ...record, companyId })),
    );
  return {
    companies: state.companies,
    updates: withCompany(state.updates),
    investments: withCompany(state.investments),
  };
}

/** What is stored for an instance, counted in the tables themselves. */
async function stored(instanceId: string) {
  const count = async (table: string) => {
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from ${table} where instance_id = $1`,
      [instanceId],
    );
    return row?.n;
  };
  const [instance] = await db.query<{ revision: string; companiesCount: number }>(
    `select revision::text as revision, companies_count::int as "companiesCount"
     from portfolio_instances where id = $1`,
    [instanceId],
  );
  return {
    revision: instance?.revision,
    companiesCount: instance?.companiesCount,
    companies: await count('portfolio_companies'),
    funds: await count('portfolio_funds'),
    companyFunds: await count('portfolio_company_funds'),
    updates: await count('portfolio_updates'),
    investments: await count('portfolio_investments'),
  };
}

const NOTHING = {
  revision: '0',
  companiesCount: 0,
  companies: 0,
  funds: 0,
  companyFunds: 0,
  updates: 0,
  investments: 0,
};

/** A copy of a record without one of its fields. */
function without(record: Fields, field: string): Fields {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== field));
}

/** An update of a file as the API shows it after an import at `importedAt`. */
function shownUpdate(record: Fields, importedAt: string): Fields {
  const fields = without(record, 'companyId');
  return { ...UPDATE_NULLS, createdAt: importedAt, ...fields, updatedAt: importedAt };
}

/** An investment of a file as the API shows it: left-out nullable fields null, currencies amountCurrency's. */
function shownInvestment(record: Fields): Fields {
  const fields = without(record, 'companyId');
  const currency = fields.amountCurrency;
  return {
    ...INVESTMENT_NULLS,
    fmvPerShareCurrency: currency,
    costPerShareCurrency: currency,
    roundSizeCurrency: currency,
    valuationOrCapCurrency: currency,
    ...fields,
  };
}

const byName = (a: Fields, b: Fields) => String(a.name).localeCompare(String(b.name));

/** The records of a list of a document that belong to one company, without their companyId. */
function of(list: Fields[] | undefined, companyId: string): Fields[] {
  return (list ?? []).filter((record) => record.companyId === companyId);
}

const laterThan = (time: string, than: string) => Date.parse(time) > Date.parse(than);
const plusOneMs = (time: string) => new Date(Date.parse(time) + 1).toISOString();

/** Companies, updates and investments, in that order. */
type Counts = [number, number, number];
const byType = ([companies, updates, investments]: Counts) => ({ companies, updates, investments });

/** An import's summary: its revision, the records it created and updated, and the funds [created, updated]. */
function summaryOf(
  revision: string,
  created: Counts,
  updated: Counts,
  funds: [number, number],
): ImportSummary {
  return {
    revision,
    created: byType(created),
    updated: byType(updated),
    funds: { created: funds[0], updated: funds[1] },
  };
}

describe('importing a JSON document', () => {
  it('imports companies with funds, updates and investments, which the API then returns exactly', async () => {
    const instance = await newInstance();
    const { content, source } = await fixture('portfolio.json');
    const document = JSON.parse(content) as Required<Document>;

    const summary = await importPortfolio(db, { instanceId: instance.id, sources: [source] });
    expect(summary).toEqual(summaryOf('1', [3, 3, 2], [0, 0, 0], [2, 0]));

    const state = await apiState(instance.key);
    const [cedar, fern, orbit] = document.companies;
    // The import's time: what an update's updatedAt shows, and createdAt where the file left it out.
    const importedAt = state.updates[cedar?.id as string]?.[0]?.updatedAt as string;
    expect(importedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // Companies by createdAt: the one without createdAt was added by this import, so it comes last.
    expect(state.companies).toEqual([
      { ...cedar, funds: [...(cedar?.funds as Fields[])].sort(byName) },
      fern,
      { ...orbit, createdAt: importedAt, funds: [] },
    ]);
    for (const company of document.companies) {
      const id = company.id as string;
      // Updates by updateDate, newest first; investments by date, newest first.
      expect(state.updates[id]).toEqual(
        of(document.updates, id)
          .map((update) => shownUpdate(update, importedAt))
          .sort((a, b) => String(b.updateDate).localeCompare(String(a.updateDate))),
      );
      expect(state.investments[id]).toEqual(
        of(document.investments, id)
          .map(shownInvestment)
          .sort((a, b) => String(b.date).localeCompare(String(a.date))),
      );
    }
    // Amounts in cents stay exact beyond 2^53.
    expect(state.investments[cedar?.id as string]?.[0]?.amountCents).toBe('123456789012345678');
    expect(await total(instance.key)).toBe(3);
  });

  it('imports what the API returns again unchanged, bumping only updatedAt', async () => {
    const instance = await newInstance();
    const { source } = await fixture('portfolio.json');
    await importPortfolio(db, { instanceId: instance.id, sources: [source] });
    const before = await apiState(instance.key);
    const firstImport = Object.values(before.updates).flat()[0]?.updatedAt as string;
    const afterFirst = plusOneMs(firstImport);
    expect(await walk(instance.key, `/companies?updatedSince=${afterFirst}`)).toEqual([]);

    const summary = await importDocument(instance.id, exported(before), 'export.json');
    expect(summary).toEqual(summaryOf('2', [0, 0, 0], [3, 3, 2], [0, 0]));

    const after = await apiState(instance.key);
    expect(after.companies).toEqual(before.companies);
    expect(after.investments).toEqual(before.investments);
    const strip = (byCompany: Record<string, Fields[]>) =>
      Object.values(byCompany)
        .flat()
        .map((shown) => without(shown, 'updatedAt'));
    expect(strip(after.updates)).toEqual(strip(before.updates));
    const updatesBefore = Object.values(before.updates).flat();
    const updatesAfter = Object.values(after.updates).flat();
    expect(updatesAfter).toHaveLength(3);
    updatesAfter.forEach((shown, index) => {
      expect(shown.createdAt).toBe(updatesBefore[index]?.createdAt);
      expect(laterThan(shown.updatedAt as string, updatesBefore[index]?.updatedAt as string)).toBe(true);
    });
    // Companies and investments show no updatedAt, but an incremental sync sees every one of them again.
    expect(await walk(instance.key, `/companies?updatedSince=${afterFirst}`)).toEqual(after.companies);
    for (const company of after.companies) {
      const id = company.id as string;
      expect(await walk(instance.key, `/company/${id}/investments?updatedSince=${afterFirst}`)).toEqual(
        after.investments[id],
      );
    }
  });

  it('keeps the same ids of two instances apart', async () => {
    const first = await newInstance();
    const second = await newInstance();
    const { content } = await fixture('portfolio.json');
    await importText(first.id, 'portfolio.json', content);
    await importText(second.id, 'portfolio.json', content);
    const document = JSON.parse(content) as Required<Document>;
    const cedar = document.companies[0] as Fields;
    await importDocument(first.id, { companies: [{ ...cedar, legalName: 'Cedar Robotics AG' }] });

    const names = async (key: string) => (await walk(key, '/companies')).map((c) => c.legalName);
    expect(await names(first.key)).toContain('Cedar Robotics AG');
    expect(await names(second.key)).toContain('Cedar Robotics GmbH');
    expect(await names(second.key)).not.toContain('Cedar Robotics AG');
  });
});

describe('importing CSV files', () => {
  it('imports a CSV file per record type, with funds as JSON, empty cells as null, booleans and numbers', async () => {
    const instance = await newInstance();
    const files = await Promise.all(
      ['companies.csv', 'updates.csv', 'investments.csv'].map((name) => fixture(name)),
    );
    const summary = await importPortfolio(db, {
      instanceId: instance.id,
      sources: files.map((file) => file.source),
    });
    expect(summary).toEqual(summaryOf('1', [2, 3, 2], [0, 0, 0], [1, 0]));

    const granite = '0f489c6b-5a47-4d70-9312-a4ef02e77872';
    const kite = '7a5ffe2f-17dc-4b2c-a2aa-93cf8bb5c107';
    const state = await apiState(instance.key);
    expect(state.companies).toEqual([
      {
        id: granite,
        legalName: 'Granite Logistics B.V.',
        createdAt: '2022-11-30T16:45:00.000Z',
        funds: [{ id: '19ce51eb-a481-454f-9a77-99ad76097cf9', name: 'Northwind Ventures II' }],
      },
      // A quoted cell keeps its comma and quotes; an empty funds cell leaves the company without funds.
      {
        id: kite,
        legalName: 'Kite Energy, "The Wind People" SAS',
        createdAt: '2024-06-12T07:00:00.000Z',
        funds: [],
      },
    ]);
    const [q1, q4] = state.updates[granite] ?? [];
    expect(q1).toEqual({
      id: 'c9bf9530-46de-4001-b080-c2dde677f8c0',
      createdAt: '2025-04-03T12:00:00.000Z',
      updatedAt: expect.any(String) as unknown,
      title: 'Q1 2025 update',
      updateDate: '2025-04-01T00:00:00.000Z',
      cashInBankAmountValue: 1875000.25,
      cashInBankAmountCurrency: 'GBP',
      productUpdatesSummary: 'New routes: Hamburg, Rotterdam.',
      businessUpdatesSummary: null,
      numberOfCustomers: 120,
      hasNewRound: true,
      newRoundDescription: 'Raising a Series A.',
      runwayInMonths: 14.5,
      summary: 'On plan.',
    });
    expect(q4).toMatchObject({
      ...UPDATE_NULLS,
      id: 'd2be76ac-7f78-424a-b6f6-52c3489fdd43',
      numberOfCustomers: 98,
      hasNewRound: false,
    });
    expect(state.updates[kite]).toEqual([
      expect.objectContaining({ cashInBankAmountValue: -12500, hasNewRound: null, runwayInMonths: null }),
    ]);
    expect(state.investments[granite]).toEqual([
      expect.objectContaining({
        amountCents: '250000000',
        instrument: 'safe',
        shares: null,
        discount: 20,
        hasProRataRights: true,
        hasInformationRights: false,
        hasCap: true,
        coInvestors: 'Harbor Capital, Lumen Partners',
        valuationType: 'post_money',
      }),
    ]);
    expect(state.investments[kite]).toEqual([
      {
        ...INVESTMENT_NULLS,
        id: '90a49ba6-8d6a-4e9a-a00a-52129a0adeac',
        date: '2024-07-01T00:00:00.000Z',
        amountCents: '9007199254740993',
        amountCurrency: 'EUR',
        unrealizedValueCents: '9007199254740993',
        unrealizedValueCurrency: 'EUR',
        fmvPerShareCurrency: 'EUR',
        costPerShareCurrency: 'EUR',
        roundSizeCurrency: 'EUR',
        valuationOrCapCurrency: 'EUR',
      },
    ]);
  });

  it('takes the record type from the type option as well as from the header', async () => {
    const { content, source } = await fixture('updates.csv');
    const told = readImportFile('updates.csv', content, { type: 'updates' });
    const read = (records: ImportSource['updates']) => records.map((r) => [r.value, r.lineOf([])]);
    expect(read(told.updates)).toEqual(read(source.updates));
    expect(told.updates).toHaveLength(3);
    expect([told.companies, told.investments]).toEqual([[], []]);

    // A header without a telltale column is read as the type it is told, then checked as that type.
    const odd = `id,companyId,note\n${randomUUID()},${randomUUID()},hello\n`;
    const instance = await newInstance();
    const problems = await problemsOf(
      importPortfolio(db, {
        instanceId: instance.id,
        sources: [readImportFile('odd.csv', odd, { type: 'updates' })],
      }),
    );
    expect(problems.message).toContain('odd.csv:2: title: is required');
    expect(problems.message).toContain('odd.csv:2: note: is not a known field');
  });

  it('refuses a CSV file whose header tells no record type, saying how to give one', async () => {
    const problems = await problemsOf(
      Promise.resolve().then(() => readImportFile('odd.csv', `id,note\n${randomUUID()},hello\n`)),
    );
    expect(problems.problems).toHaveLength(1);
    expect(problems.message).toContain('odd.csv:1');
    expect(problems.message).toContain('cannot tell the record type from the header');
    expect(problems.message).toMatch(/legalName.*title.*amountCents/);
  });

  it('names the file, the row line and the column of each problem in a CSV file', async () => {
    const instance = await newInstance();
    const company = randomUUID();
    const companies = [
      'id,legalName,funds',
      `${company},Juniper Foods Ltd,[]`,
      `${randomUUID()},,[]`,
      `${randomUUID()},Maple Labs Inc.,"[{""id"": ""not json"""`,
    ].join('\n');
    const updates = [
      'id,companyId,title,updateDate,cashInBankAmountValue,cashInBankAmountCurrency,numberOfCustomers,hasNewRound',
      `${randomUUID()},${company},Q1,2025-04-01T00:00:00Z,100,USD,many,true`,
      `${randomUUID()},${company},Q2,2025-07-01T00:00:00Z,1e6,usd,4,yes`,
    ].join('\n');
    const problems = await problemsOf(
      importPortfolio(db, {
        instanceId: instance.id,
        sources: [readImportFile('companies.csv', companies), readImportFile('updates.csv', updates)],
      }),
    );
    const lines = problems.message.split('\n').slice(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        'companies.csv:3: legalName: is required',
        expect.stringMatching(/^companies\.csv:4: funds: must be array/) as unknown,
        expect.stringMatching(/^updates\.csv:2: numberOfCustomers: must be integer/) as unknown,
        expect.stringMatching(/^updates\.csv:3: cashInBankAmountCurrency: must match pattern/) as unknown,
        expect.stringMatching(/^updates\.csv:3: hasNewRound: must be boolean/) as unknown,
      ]),
    );
    expect(problems.problems).toHaveLength(5);
    expect(await stored(instance.id)).toEqual(NOTHING);
  });
});

describe('checking every record', () => {
  it('lists every problem of a file with its file, line and field path, and imports nothing', async () => {
    const instance = await newInstance();
    const [cedar, fern, another, fund] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const document: Document = {
      companies: [
        { id: cedar, legalName: 'Cedar Robotics GmbH', funds: [{ id: fund, name: 'Fund One' }] },
        { id: randomUUID(), funds: [] },
        { id: 'not-a-uuid', legalName: 'Delta Energy' },
        { id: randomUUID(), legalName: 'Ember Foods', website: 'https://ember.example' },
        { id: cedar, legalName: 'Cedar Robotics GmbH (again)' },
        { id: another, legalName: 'Fern Health', funds: [{ id: fund, name: 'Fund 1' }] },
      ],
      updates: [
        update(cedar, { cashInBankAmountCurrency: 'usd' }),
        update(cedar, { cashInBankAmountCurrency: 'XYZ' }),
        update('company-7'),
        { ...update(cedar), companyId: undefined },
      ],
      investments: [
        investment(fern, { amountCents: 12.5 }),
        investment(fern, { amountCents: '12.5' }),
        investment(fern, { amountCents: 1250 }),
        investment(fern, { investmentStatus: 'sold' }),
      ],
    };
    const content = jsonFile(document);
    const problems = await problemsOf(importText(instance.id, 'bad.json', content));
    const line = (text: string, occurrence = 0) => linesWith(content, text)[occurrence];
    const updateIds = (document.updates ?? []).map((u) => u.id as string);
    const expected = [
      `bad.json:${recordLine(content, String(document.companies?.[1]?.id))}: companies[1].legalName: is required`,
      `bad.json:${line('"not-a-uuid"')}: companies[2].id: must be a UUID`,
      `bad.json:${line('"website"')}: companies[3].website: is not a known field`,
      `bad.json:${line(`"id": "${cedar}"`, 1)}: companies[4].id: ${cedar} appears twice (also at bad.json:${recordLine(content, cedar)})`,
      `bad.json:${line('"funds"', 2)}: companies[5].funds: fund ${fund} is named "Fund One" elsewhere and "Fund 1" here`,
      `bad.json:${line('"usd"')}: updates[0].cashInBankAmountCurrency: must match pattern "^[A-Z]{3}$"`,
      `bad.json:${line('"XYZ"')}: updates[1].cashInBankAmountCurrency: "XYZ" is not an ISO 4217 currency code`,
      `bad.json:${line('"company-7"')}: updates[2].companyId: must be a UUID`,
      `bad.json:${recordLine(content, updateIds[3] ?? '')}: updates[3].companyId: is required: the id of the company the record belongs to`,
      `bad.json:${line('"amountCents": 12.5')}: investments[0].amountCents: must be string`,
      `bad.json:${line('"amountCents": "12.5"')}: investments[1].amountCents: must match pattern`,
      `bad.json:${line('"amountCents": 1250')}: investments[2].amountCents: must be string`,
      `bad.json:${line('"sold"')}: investments[3].investmentStatus: must be equal to one of the allowed values`,
    ];
    const lines = problems.message.split('\n');
    expect(lines[0]).toBe(`Nothing was imported: ${expected.length} problems.`);
    for (const text of expected) {
      expect(
        lines.some((shown) => shown.startsWith(text)),
        `${text}\n---\n${problems.message}`,
      ).toBe(true);
    }
    expect(problems.problems).toHaveLength(expected.length);
    for (const problem of problems.problems) {
      expect(problem).toMatchObject({ file: 'bad.json', line: expect.any(Number) as unknown });
    }
    expect(await stored(instance.id)).toEqual(NOTHING);
  });

  it('writes nothing when one record of a file is invalid, however many are valid', async () => {
    const instance = await newInstance();
    const [first, second] = [randomUUID(), randomUUID()];
    const problems = await problemsOf(
      importDocument(instance.id, {
        companies: [
          { id: first, legalName: 'Acme Analytics Inc.', funds: [{ id: randomUUID(), name: 'Fund I' }] },
          { id: second, legalName: 'Blue Robotics Ltd' },
        ],
        updates: [update(first, { title: '' })],
      }),
    );
    expect(problems.problems).toEqual([
      expect.objectContaining({ path: 'updates[0].title', file: 'import.json' }),
    ]);
    expect(await stored(instance.id)).toEqual(NOTHING);
    expect(await total(instance.key)).toBe(0);
  });

  it('writes nothing when a record names a company the instance does not have', async () => {
    const instance = await newInstance();
    await importDocument(instance.id, { companies: [{ id: randomUUID(), legalName: 'Earlier Inc.' }] });
    const before = await stored(instance.id);
    expect(before).toMatchObject({ revision: '1', companiesCount: 1, companies: 1 });

    const [known, unknown] = [randomUUID(), randomUUID()];
    const other = await newInstance();
    const elsewhere = randomUUID();
    await importDocument(other.id, { companies: [{ id: elsewhere, legalName: 'Other Instance Inc.' }] });
    const document: Document = {
      companies: [
        { id: known, legalName: 'Acme Analytics Inc.', funds: [{ id: randomUUID(), name: 'Fund I' }] },
        { id: randomUUID(), legalName: 'Blue Robotics Ltd' },
      ],
      updates: [update(known), update(unknown)],
      // A company of another instance is no company of this one.
      investments: [investment(elsewhere)],
    };
    const content = jsonFile(document);
    const problems = await problemsOf(importText(instance.id, 'late.json', content));
    const line = (id: string) => lineWith(content, `"companyId": "${id}"`);
    expect(problems.message.split('\n').slice(1)).toEqual([
      `late.json:${line(unknown)}: updates[1].companyId: no company ${unknown} in this instance`,
      `late.json:${line(elsewhere)}: investments[0].companyId: no company ${elsewhere} in this instance`,
    ]);
    // The companies of the file were written before the check found the problem: they are gone with it.
    expect(await stored(instance.id)).toEqual(before);
    expect(await total(instance.key)).toBe(1);
  });

  it('refuses to move an update or an investment to another company, and writes nothing', async () => {
    const instance = await newInstance();
    const [first, second] = [randomUUID(), randomUUID()];
    const moving = update(first);
    const invested = investment(first);
    await importDocument(instance.id, {
      companies: [
        { id: first, legalName: 'First Inc.' },
        { id: second, legalName: 'Second Inc.' },
      ],
      updates: [moving],
      investments: [invested],
    });
    const before = await stored(instance.id);

    const content = jsonFile({
      companies: [{ id: randomUUID(), legalName: 'Third Inc.' }],
      updates: [{ ...moving, companyId: second }],
      investments: [{ ...invested, companyId: second }],
    });
    const problems = await problemsOf(importText(instance.id, 'move.json', content));
    const at = lineWith(content, `"companyId": "${second}"`);
    expect(problems.message.split('\n').slice(1)).toEqual([
      `move.json:${at}: updates[0].companyId: this id belongs to a record of another company; records cannot move`,
      `move.json:${linesWith(content, `"companyId": "${second}"`)[1]}: investments[0].companyId: this id belongs to a record of another company; records cannot move`,
    ]);
    expect(await stored(instance.id)).toEqual(before);
    expect((await walk(instance.key, `/company/${first}/updates`)).map((u) => u.id)).toEqual([moving.id]);
    expect(await walk(instance.key, `/company/${second}/updates`)).toEqual([]);
    expect(await walk(instance.key, `/company/${second}/investments`)).toEqual([]);
  });

  it('refuses JSON that is not an import document, saying what it should be', async () => {
    const instance = await newInstance();
    const notObject = await problemsOf(importText(instance.id, 'list.json', '[]'));
    expect(notObject.message).toContain('list.json');
    expect(notObject.message).toContain('"companies": [...], "updates": [...], "investments": [...]');

    const content = jsonFile({ companies: [{ id: randomUUID(), legalName: 'A' }], funds: [] } as Document);
    const unknownList = await problemsOf(importText(instance.id, 'funds.json', content));
    expect(unknownList.message).toContain('funds: is not a record type (companies, updates, investments)');

    const notRecords = await problemsOf(
      importText(instance.id, 'scalars.json', jsonFile({ companies: [1] as unknown as Fields[] })),
    );
    expect(notRecords.message).toContain('companies[0]: must be an object');
    expect(await stored(instance.id)).toEqual(NOTHING);
  });

  it.each([
    ['a trailing comma', '"legalName": "Acme Inc.",\n    }', 'Acme Inc.'],
    ['a value in single quotes', '"legalName": \'Acme Inc.\'\n    }', 'Acme Inc.'],
  ])('names the line of a JSON syntax error: %s', async (_, broken, name) => {
    const content = jsonFile({ companies: [{ id: randomUUID(), legalName: name }] }).replace(
      `"legalName": "${name}"\n    }`,
      broken,
    );
    expect(content).toContain(broken);
    const problems = await problemsOf(Promise.resolve().then(() => readImportFile('syntax.json', content)));
    expect(problems.message).toContain('not valid JSON');
    // The mistake is on the legalName line or right after it, where the parser notices it.
    const at = lineWith(content, '"legalName"');
    expect(problems.problems[0]?.line).toBeGreaterThanOrEqual(at);
    expect(problems.problems[0]?.line).toBeLessThanOrEqual(at + 1);
  });

  it('shows a problem of a whole file as file:line: message, without an empty field path', async () => {
    const header = await problemsOf(
      Promise.resolve().then(() => readImportFile('odd.csv', `id,note\n${randomUUID()},hello\n`)),
    );
    expect(header.message.split('\n')[1]).toMatch(/^odd\.csv:1: cannot tell the record type/);
  });

  it('lists a bad currency of a record together with its other problems', async () => {
    const instance = await newInstance();
    const company = randomUUID();
    const problems = await problemsOf(
      importDocument(instance.id, {
        companies: [{ id: company, legalName: 'Acme Inc.' }],
        updates: [update(company, { numberOfCustomers: -1, cashInBankAmountCurrency: 'XYZ' })],
      }),
    );
    expect(problems.problems.map((problem) => problem.path).sort()).toEqual([
      'updates[0].cashInBankAmountCurrency',
      'updates[0].numberOfCustomers',
    ]);
  });

  it('reports a bad amountCurrency once, not again for the currencies the file left to default to it', async () => {
    const instance = await newInstance();
    const company = randomUUID();
    const content = jsonFile({
      companies: [{ id: company, legalName: 'Acme Inc.' }],
      investments: [investment(company, { amountCurrency: 'usd' })],
    });
    const problems = await problemsOf(importText(instance.id, 'currency.json', content));
    expect(problems.message.split('\n').slice(1)).toEqual([
      `currency.json:${lineWith(content, '"usd"')}: investments[0].amountCurrency: must match pattern "^[A-Z]{3}$"`,
    ]);
  });

  it('reads a CSV file that holds only its header as no records of the type its header tells', () => {
    expect(readImportFile('companies.csv', 'id,legalName,createdAt,funds\n')).toEqual({
      companies: [],
      updates: [],
      investments: [],
    });
  });

  // Values that pass the API's schemas but that the database cannot store as given: each must be refused as a
  // problem of its file, line and field before anything is written, never surface as a database error (which
  // the CLI shows as a stack trace, and the running server masks as an internal error).
  const company = '5f0b6a0e-3c1f-4e38-9d2a-0c6f5d9f3a11';
  const raw = (companyFields: string, updateFields = '') =>
    [
      '{',
      '  "companies": [',
      `    { "id": "${company}", "legalName": "Acme Inc."${companyFields} }`,
      '  ],',
      '  "updates": [',
      ...(updateFields === ''
        ? []
        : [
            `    { "id": "${randomUUID()}", "companyId": "${company}", "title": "Q1", "updateDate": "2025-04-01T00:00:00Z",`,
            `      "cashInBankAmountCurrency": "USD"${updateFields} }`,
          ]),
      '  ]',
      '}',
    ].join('\n');
  it.each([
    ['a legal name of spaces only', raw('').replace('Acme Inc.', '   '), 'companies[0].legalName', 3],
    [
      'a fund name of spaces only',
      raw(`, "funds": [{ "id": "${randomUUID()}", "name": " " }]`),
      'companies[0].funds',
      3,
    ],
    [
      'an id written as a URN',
      raw('').replace(`"id": "${company}"`, `"id": "urn:uuid:${company}"`),
      'companies[0].id',
      3,
    ],
    [
      'a NUL character in a text',
      raw('').replace('Acme Inc.', 'Acme\\u0000Inc.'),
      'companies[0].legalName',
      3,
    ],
    ['a date in year 0', raw(', "createdAt": "0000-01-01T00:00:00Z"'), 'companies[0].createdAt', 3],
    [
      'an amount beyond the range of a double',
      raw('', ', "cashInBankAmountValue": 1e400, "numberOfCustomers": 1'),
      'updates[0].cashInBankAmountValue',
      7,
    ],
    [
      'a nullable number beyond the range of a double',
      raw('', ', "cashInBankAmountValue": 1, "numberOfCustomers": 1, "runwayInMonths": 1e400'),
      'updates[0].runwayInMonths',
      7,
    ],
    [
      'a customer count beyond 64 bits',
      raw('', ', "cashInBankAmountValue": 1, "numberOfCustomers": 1e20'),
      'updates[0].numberOfCustomers',
      7,
    ],
  ])('refuses %s as a problem of its line and field', async (_, content, path, line) => {
    const instance = await newInstance();
    const error = await importText(instance.id, 'values.json', content).then(
      (summary) => new Error(`the import passed: ${JSON.stringify(summary)}`),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ImportProblems);
    expect((error as ImportProblems).problems).toEqual([
      expect.objectContaining({
        file: 'values.json',
        line,
        path: expect.stringMatching(`^${path.replace(/[[\].]/g, '\\$&')}`) as unknown,
      }),
    ]);
    expect(await stored(instance.id)).toEqual(NOTHING);
  });
});

describe('importing the same ids again', () => {
  it('updates records in place, counting created and updated, keeping createdAt and bumping updatedAt', async () => {
    const instance = await newInstance();
    const [cedar, fern, fund] = [randomUUID(), randomUUID(), randomUUID()];
    const first: Required<Document> = {
      companies: [
        {
          id: cedar,
          legalName: 'Cedar Robotics GmbH',
          createdAt: '2024-01-01T00:00:00.000Z',
          funds: [{ id: fund, name: 'Fund I' }],
        },
        { id: fern, legalName: 'Fern Health Inc.', createdAt: '2024-02-01T00:00:00.000Z' },
      ],
      updates: [update(cedar, { createdAt: '2025-01-02T00:00:00.000Z' })],
      investments: [investment(cedar)],
    };
    expect(await importDocument(instance.id, first)).toEqual(summaryOf('1', [2, 1, 1], [0, 0, 0], [1, 0]));
    const [before] = await walk(instance.key, `/company/${cedar}/updates`);

    const added = randomUUID();
    const second: Document = {
      companies: [
        // A createdAt given again is not taken: a record's createdAt never changes.
        { ...first.companies[0], legalName: 'Cedar Robotics AG', createdAt: '2020-01-01T00:00:00.000Z' },
        first.companies[1] as Fields,
        { id: added, legalName: 'Granite Labs Ltd' },
      ],
      updates: [{ ...first.updates[0], title: 'Q1 2025 update (corrected)' }],
      investments: [{ ...first.investments[0], amountCents: '75000000' }],
    };
    expect(await importDocument(instance.id, second)).toEqual(summaryOf('2', [1, 0, 0], [2, 1, 1], [0, 0]));

    const companies = await walk(instance.key, '/companies');
    const secondImport = companies.find((c) => c.id === added)?.createdAt as string;
    expect(companies.map((c) => [c.id, c.legalName, c.createdAt])).toEqual([
      [cedar, 'Cedar Robotics AG', '2024-01-01T00:00:00.000Z'],
      [fern, 'Fern Health Inc.', '2024-02-01T00:00:00.000Z'],
      [added, 'Granite Labs Ltd', secondImport],
    ]);
    const [after] = await walk(instance.key, `/company/${cedar}/updates`);
    expect(after).toEqual({
      ...before,
      title: 'Q1 2025 update (corrected)',
      updatedAt: secondImport,
    });
    expect(after?.createdAt).toBe('2025-01-02T00:00:00.000Z');
    expect(laterThan(secondImport, before?.updatedAt as string)).toBe(true);
    expect(await walk(instance.key, `/company/${cedar}/investments`)).toEqual([
      expect.objectContaining({ id: first.investments[0]?.id, amountCents: '75000000' }),
    ]);
    // Every record of the second import is in an incremental sync from its time, and only those.
    expect((await walk(instance.key, `/companies?updatedSince=${secondImport}`)).map((c) => c.id)).toEqual([
      cedar,
      fern,
      added,
    ]);
    expect(await stored(instance.id)).toMatchObject({ companies: 3, updates: 1, investments: 1 });
  });

  it('renames a fund everywhere and bumps updatedAt of every company that holds it', async () => {
    const instance = await newInstance();
    const [renamed, kept] = [randomUUID(), randomUUID()];
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await importDocument(instance.id, {
      companies: [
        {
          id: a,
          legalName: 'A Inc.',
          createdAt: '2024-01-01T00:00:00.000Z',
          funds: [{ id: renamed, name: 'Old Fund' }],
        },
        {
          id: b,
          legalName: 'B Inc.',
          createdAt: '2024-01-02T00:00:00.000Z',
          funds: [
            { id: renamed, name: 'Old Fund' },
            { id: kept, name: 'Kept Fund' },
          ],
        },
        {
          id: c,
          legalName: 'C Inc.',
          createdAt: '2024-01-03T00:00:00.000Z',
          funds: [{ id: kept, name: 'Kept Fund' }],
        },
      ],
    });

    const d = randomUUID();
    const summary = await importDocument(instance.id, {
      companies: [{ id: d, legalName: 'D Inc.', funds: [{ id: renamed, name: 'New Fund' }] }],
    });
    expect(summary).toMatchObject({ created: byType([1, 0, 0]), funds: { created: 0, updated: 1 } });

    const companies = await walk(instance.key, '/companies');
    const renamedAt = companies.find((company) => company.id === d)?.createdAt as string;
    const changed = await walk(instance.key, `/companies?updatedSince=${renamedAt}`);
    expect(changed.map((company) => company.id)).toEqual([a, b, d]);
    expect(changed.map((company) => company.funds)).toEqual([
      [{ id: renamed, name: 'New Fund' }],
      [
        { id: kept, name: 'Kept Fund' },
        { id: renamed, name: 'New Fund' },
      ],
      [{ id: renamed, name: 'New Fund' }],
    ]);
  });

  it('keeps a company’s funds when a file leaves funds out, and drops them for an empty list', async () => {
    const instance = await newInstance();
    const [company, fund] = [randomUUID(), randomUUID()];
    await importDocument(instance.id, {
      companies: [{ id: company, legalName: 'Acme Inc.', funds: [{ id: fund, name: 'Fund I' }] }],
    });
    await importDocument(instance.id, { companies: [{ id: company, legalName: 'Acme Inc.' }] });
    expect((await walk(instance.key, '/companies'))[0]?.funds).toEqual([{ id: fund, name: 'Fund I' }]);
    await importDocument(instance.id, { companies: [{ id: company, legalName: 'Acme Inc.', funds: [] }] });
    expect((await walk(instance.key, '/companies'))[0]?.funds).toEqual([]);
  });

  it.each(['updates', 'investments'] as const)(
    'stores the times of %s to the millisecond, so a walk with limit 1 loses none',
    async (type) => {
      const instance = await newInstance();
      const company = randomUUID();
      const field = type === 'updates' ? 'updateDate' : 'date';
      const make = type === 'updates' ? update : investment;
      // Two records within one millisecond, written to the microsecond.
      const records = ['2025-04-01T00:00:00.123456Z', '2025-04-01T00:00:00.123400Z'].map((time) =>
        make(company, { [field]: time }),
      );
      await importDocument(instance.id, {
        companies: [{ id: company, legalName: 'Acme Inc.' }],
        [type]: records,
      });
      const seen: Fields[] = [];
      let path = `/company/${company}/${type}?limit=1`;
      for (let page = 0; page < 5; page += 1) {
        const { status, body } = await get(instance.key, path);
        expect(status).toBe(200);
        seen.push(...(body.data as Fields[]));
        if (body.nextCursor === null) break;
        path = `/company/${company}/${type}?limit=1&cursor=${encodeURIComponent(body.nextCursor as string)}`;
      }
      expect(seen.map((record) => record.id).sort()).toEqual(records.map((record) => record.id).sort());
      expect(seen.map((record) => record[field])).toEqual([
        '2025-04-01T00:00:00.123Z',
        '2025-04-01T00:00:00.123Z',
      ]);
    },
  );
});

describe('the total of /companies', () => {
  it('equals the number of companies of the instance after each import', async () => {
    const instance = await newInstance();
    const other = await newInstance();
    expect(await total(instance.key)).toBe(0);
    const companies = Array.from({ length: 5 }, (_, index) => ({
      id: randomUUID(),
      legalName: `Company ${index} Inc.`,
    }));
    await importDocument(instance.id, { companies: companies.slice(0, 3) });
    expect(await total(instance.key)).toBe(3);
    // Two new companies and one again: 5, not 6.
    await importDocument(instance.id, { companies: companies.slice(2) });
    expect(await total(instance.key)).toBe(5);
    expect((await walk(instance.key, '/companies')).length).toBe(5);
    expect(await total(other.key)).toBe(0);
    expect(await stored(instance.id)).toMatchObject({ companiesCount: 5, companies: 5 });
  });
});

describe('progress', () => {
  it('reports checking, companies, updates and investments, each up to its total, on a large import', async () => {
    const instance = await newInstance();
    const funds = [0, 1, 2].map((index) => ({ id: randomUUID(), name: `Fund ${index}` }));
    const document: Required<Document> = { companies: [], updates: [], investments: [] };
    for (let index = 0; index < 2500; index += 1) {
      const id = randomUUID();
      document.companies.push({ id, legalName: `Company ${index} Inc.`, funds: [funds[index % 3]] });
      document.updates.push(update(id));
      if (index % 5 < 2) document.investments.push(investment(id));
    }
    const reports: ImportProgress[] = [];
    const summary = await importPortfolio(db, {
      instanceId: instance.id,
      sources: [readImportFile('large.json', JSON.stringify(document))],
      onProgress: (progress) => reports.push({ ...progress }),
    });
    expect(summary.created).toEqual(byType([2500, 2500, 1000]));

    const totals: Record<ImportProgress['phase'], number> = {
      checking: 6000,
      companies: 2500,
      updates: 2500,
      investments: 1000,
    };
    const phases = reports.map((report) => report.phase).filter((phase, i, all) => phase !== all[i - 1]);
    expect(phases).toEqual(['checking', 'companies', 'updates', 'investments']);
    for (const phase of phases) {
      const ofPhase = reports.filter((report) => report.phase === phase);
      expect(ofPhase.every((report) => report.total === totals[phase])).toBe(true);
      const done = ofPhase.map((report) => report.done);
      expect(done).toEqual([...done].sort((x, y) => x - y));
      expect(done.at(-1)).toBe(totals[phase]);
      expect(done.every((value) => value >= 0 && value <= totals[phase])).toBe(true);
    }
    // A large phase reports on its way, not only at its end.
    for (const phase of ['checking', 'companies', 'updates'] as const) {
      expect(
        reports.some((r) => r.phase === phase && r.done > 0 && r.done < totals[phase]),
        phase,
      ).toBe(true);
    }
    expect(await total(instance.key)).toBe(2500);
  });
});

describe('customer instances', () => {
  it.each(['Bad Slug', '-leading-hyphen', 'x', 'UPPER', ''])(
    'refuses the slug "%s" as bad user input',
    async (slug) => {
      await expect(createInstance(db, { slug, name: 'Some Ventures' })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        message: expect.stringContaining('slug') as unknown,
      });
    },
  );

  it('refuses a slug that exists already, and a blank name, as bad user input', async () => {
    const slug = `twice-${randomBytes(4).toString('hex')}`;
    await createInstance(db, { slug, name: 'First Ventures' });
    await expect(createInstance(db, { slug, name: 'Second Ventures' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: `an instance with slug "${slug}" exists already`,
    });
    await expect(
      createInstance(db, { slug: `blank-${randomBytes(4).toString('hex')}`, name: '  ' }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

/** An update of `companyId` with its required fields and a new id, dated 2025-04-01; `fields` override. */
function update(companyId: string, fields: Fields = {}): Fields {
  return newUpdate(companyId, {
    title: 'Q1 2025 investor update',
    updateDate: '2025-04-01T00:00:00.000Z',
    ...fields,
  });
}

/** An investment in `companyId` with its required fields and a new id, dated 2024-06-01; `fields` override. */
function investment(companyId: string, fields: Fields = {}): Fields {
  return newInvestment(companyId, { date: '2024-06-01T00:00:00.000Z', ...fields });
}
