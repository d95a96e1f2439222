// The customer dashboard's portfolio pages: funds, the search and pages of companies, and a company with its
// updates and investments.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createDashboardPerson,
  instanceApi,
  signedInBrowser,
  type Browser,
} from '../../support/data/dashboard.ts';
import { useDashboardSuite } from '../../support/data/dashboard-suite.ts';
import {
  createPortfolioInstance,
  importDocument,
  newCompany,
  newUpdate,
  newInvestment,
  updatesUrl,
  investmentsUrl,
  walk,
  records,
  expectApiError,
  ISO_TIMESTAMP,
  type ApiResponse,
  type PortfolioInstanceFixture,
  type Query,
} from '../../support/data/portfolio.ts';
import { UUID } from '../../support/uuid.ts';

const suite = useDashboardSuite();

describe('companies', () => {
  let instance: PortfolioInstanceFixture;
  let browser: Browser;
  const NAMES = [
    'Acme Rockets',
    'ACME ROBOTICS',
    'acme labs',
    'Acme 100% Organic',
    'Acme_Labs',
    'AcmeXLabs',
    'Beta 50 Percent',
    'Zeta Holdings',
    'Eta Holdings',
    'Theta Holdings',
  ];
  /** A company with updates and investments, imported out of order. */
  const detail = newCompany({ legalName: 'Omega Detail Co' });
  const detailId = String(detail.id);
  /** Holds every other company of NAMES. */
  const secondFund = { id: randomUUID(), name: 'Another Fund' };
  beforeAll(async () => {
    instance = await createPortfolioInstance(suite.db);
    const fund = { id: randomUUID(), name: 'Fund One' };
    await importDocument(suite.db, instance.instanceId, {
      companies: [
        ...NAMES.map((legalName, index) =>
          newCompany({ legalName, funds: index % 2 === 0 ? [fund, secondFund] : [fund] }),
        ),
        detail,
      ],
      updates: ['2025-03-01', '2025-01-01', '2025-02-01'].map((day) =>
        newUpdate(detailId, { updateDate: `${day}T00:00:00.000Z`, title: `Update of ${day}` }),
      ),
      investments: ['2024-05-01', '2024-09-01', '2024-01-01'].map((day) =>
        newInvestment(detailId, { date: `${day}T00:00:00.000Z`, amountCents: '123456789012' }),
      ),
    });
    const person = await createDashboardPerson(suite.db, { instanceId: instance.instanceId, role: 'member' });
    browser = await signedInBrowser(suite.app, person);
  });

  const search = (query: Query) => {
    const parameters = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) parameters.set(name, String(value));
    }
    return browser.get(`${instanceApi(instance.slug, '/companies')}?${parameters.toString()}`);
  };
  const namesOf = (response: ApiResponse): string[] =>
    response.body.companies.map((company: { legalName: string }) => company.legalName);

  it('lists the funds by name with how many companies each holds', async () => {
    const funds = await browser.get(instanceApi(instance.slug, '/funds'));
    expect(funds.status).toBe(200);
    expect(funds.body.funds).toEqual([
      { id: secondFund.id, name: 'Another Fund', companies: NAMES.length / 2 },
      { id: expect.any(String), name: 'Fund One', companies: NAMES.length },
    ]);
  });

  it('finds the companies a fund holds, with the search too', async () => {
    const held = NAMES.filter((_, index) => index % 2 === 0);
    const inFund = await search({ fund: secondFund.id });
    expect(namesOf(inFund).toSorted()).toEqual(held.toSorted());
    expect(inFund.body.total).toBe(held.length);
    const both = await search({ fund: secondFund.id, search: 'acme' });
    expect(namesOf(both).toSorted()).toEqual(held.filter((name) => /acme/i.test(name)).toSorted());
  });

  it('finds companies whose legal name contains the search, in any case, sorted by legal name', async () => {
    const found = await search({ search: 'aCmE' });
    expect(found.status).toBe(200);
    expect(namesOf(found).toSorted()).toEqual(NAMES.filter((name) => /acme/i.test(name)).toSorted());
    expect(found.body).toMatchObject({ total: 6, page: 1, pageSize: 20 });
    expect(found.body.companies[0]).toEqual({
      id: expect.stringMatching(UUID),
      legalName: expect.any(String),
      createdAt: expect.stringMatching(ISO_TIMESTAMP),
      funds: [{ id: expect.stringMatching(UUID), name: 'Fund One' }],
    });

    expect(namesOf(await search({ search: 'holdings' }))).toEqual([
      'Eta Holdings',
      'Theta Holdings',
      'Zeta Holdings',
    ]);
  });

  it('reads % and _ in a search as themselves, not as wildcards', async () => {
    const cases: [string, string[]][] = [
      ['acme_', ['Acme_Labs']],
      ['100%', ['Acme 100% Organic']],
      ['%', ['Acme 100% Organic']],
      ['5_', []],
      ['_', ['Acme_Labs']],
      ['\\', []],
    ];
    for (const [text, names] of cases) {
      const found = await search({ search: text });
      expect({ text, status: found.status, names: namesOf(found), total: found.body.total }).toEqual({
        text,
        status: 200,
        names,
        total: names.length,
      });
    }
  });

  it('pages through every company with the total, the page and the page size', async () => {
    const all = NAMES.length + 1;
    const pages = [];
    for (let page = 1; page <= 4; page += 1) {
      const response = await search({ page, pageSize: 4 });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ total: all, page, pageSize: 4 });
      pages.push(namesOf(response));
    }
    expect(pages.map((names) => names.length)).toEqual([4, 4, 3, 0]);
    expect(pages.flat().toSorted()).toEqual([...NAMES, 'Omega Detail Co'].toSorted());
    expect((await search({ pageSize: 100 })).body.companies).toHaveLength(all);
  });

  it.each([
    { refused: 'a page size over 100', query: { pageSize: 101 }, parameter: 'pageSize' },
    { refused: 'a page size of 0', query: { pageSize: 0 }, parameter: 'pageSize' },
    { refused: 'page 0', query: { page: 0 }, parameter: 'page' },
    { refused: 'a search of 201 characters', query: { search: 's'.repeat(201) }, parameter: 'search' },
    { refused: 'an unknown parameter', query: { sort: 'name' }, parameter: 'sort' },
    { refused: 'a fund that is not a UUID', query: { fund: 'fund-one' }, parameter: 'fund' },
    // Ajv reads these as the number Infinity, which its integer and bound checks let through.
    { refused: 'a page size of Infinity', query: { pageSize: 'Infinity' }, parameter: 'pageSize' },
    { refused: 'a page size of 1e309', query: { pageSize: '1e309' }, parameter: 'pageSize' },
    { refused: 'page Infinity', query: { page: 'Infinity' }, parameter: 'page' },
    { refused: 'page 1e309', query: { page: '1e309' }, parameter: 'page' },
  ])('refuses $refused with 400 BAD_USER_INPUT naming the parameter', async ({ query, parameter }) => {
    const refused = await search(query);
    expect(expectApiError(refused, 400, 'BAD_USER_INPUT')).toContain(`"${parameter}"`);
  });

  it("shows a company with its updates oldest first and its investments newest first, as the API's records", async () => {
    const response = await browser.get(instanceApi(instance.slug, `/companies/${detailId}`));
    expect(response.status).toBe(200);
    const { company, updates, investments } = response.body;
    expect(company).toMatchObject({ id: detailId, legalName: 'Omega Detail Co', funds: [] });
    expect(updates.map((update: { updateDate: string }) => update.updateDate.slice(0, 10))).toEqual([
      '2025-01-01',
      '2025-02-01',
      '2025-03-01',
    ]);
    expect(investments.map((investment: { date: string }) => investment.date.slice(0, 10))).toEqual([
      '2024-09-01',
      '2024-05-01',
      '2024-01-01',
    ]);
    expect(updates[0].cashInBankAmountValue).toBe(1_250_000);
    expect(investments[0].amountCents).toBe('123456789012');
    // The same records, field for field, as the Portfolio API gives a key of the instance.
    expect(updates).toEqual(
      records(await walk(suite.app, updatesUrl(detailId), instance.apiKey, 100)).toReversed(),
    );
    expect(investments).toEqual(
      records(await walk(suite.app, investmentsUrl(detailId), instance.apiKey, 100)),
    );
  });

  it('answers 404 NOT_FOUND for a company the instance does not have', async () => {
    expectApiError(
      await browser.get(instanceApi(instance.slug, `/companies/${randomUUID()}`)),
      404,
      'NOT_FOUND',
    );
  });
});
