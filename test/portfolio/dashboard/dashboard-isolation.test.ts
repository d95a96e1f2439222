// That no instance reads or changes another's through the customer dashboard: every instance route, with another
// instance's slug and ids.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPortfolioKey } from '../../../src/portfolio/instances.ts';
import { DASHBOARD_API_PATH } from '../../../src/portfolio/dashboard/dashboard.ts';
import {
  createDashboardPerson,
  instanceApi,
  signedInBrowser,
  type Browser,
} from '../../support/data/dashboard.ts';
import { comparable, useDashboardSuite } from '../../support/data/dashboard-suite.ts';
import {
  companiesUrl,
  createPortfolioInstance,
  expectApiError,
  get,
  importDocument,
  newCompany,
  type PortfolioInstanceFixture,
} from '../../support/data/portfolio.ts';
import { routeName, routesOf } from '../../support/routes.ts';

const suite = useDashboardSuite();

/** An instance route of the dashboard, and a request to it. */
interface InstanceRoute {
  name: string;
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  path: () => string;
  payload?: object;
}

describe('tenant isolation', () => {
  let a: PortfolioInstanceFixture;
  let b: PortfolioInstanceFixture;
  let aBrowser: Browser;
  /** Instance B's records, which A asks for. */
  let owned: { keyId: string; personId: string; companyId: string; fundId: string };
  beforeAll(async () => {
    [a, b] = await Promise.all([createPortfolioInstance(suite.db), createPortfolioInstance(suite.db)]);
    const [aAdmin, bPerson] = await Promise.all([
      createDashboardPerson(suite.db, { instanceId: a.instanceId, role: 'admin' }),
      createDashboardPerson(suite.db, { instanceId: b.instanceId, role: 'member' }),
    ]);
    aBrowser = await signedInBrowser(suite.app, aAdmin);
    const fund = { id: randomUUID(), name: "B's fund" };
    const company = newCompany({ funds: [fund] });
    await importDocument(suite.db, b.instanceId, { companies: [company] });
    const [key] = await suite.db.query<{ id: string }>(
      'select id from portfolio_api_keys where instance_id = $1',
      [b.instanceId],
    );
    owned = { keyId: String(key?.id), personId: bPerson.id, companyId: String(company.id), fundId: fund.id };
  });

  /** What A's admin may not see or change of B: B's keys, people and companies, as they are. */
  async function instanceB() {
    return {
      keys: await suite.db.query(
        'select id, revoked_at from portfolio_api_keys where instance_id = $1 order by id',
        [b.instanceId],
      ),
      people: await suite.db.query(
        'select id, role, password_hash from users where instance_id = $1 order by id',
        [b.instanceId],
      ),
      companies: await suite.db.query(
        'select id, legal_name from portfolio_companies where instance_id = $1',
        [b.instanceId],
      ),
    };
  }

  it.each([
    { route: 'DELETE keys/:id', method: 'DELETE', path: (id: string) => `/keys/${id}`, of: 'keyId' },
    { route: 'DELETE people/:id', method: 'DELETE', path: (id: string) => `/people/${id}`, of: 'personId' },
    { route: 'GET companies/:id', method: 'GET', path: (id: string) => `/companies/${id}`, of: 'companyId' },
  ] as const)(
    "answers $route on A's routes for B's id exactly like for a random id, and B is unchanged",
    async (row) => {
      const before = await instanceB();
      const id = owned[row.of];
      const random = randomUUID();
      const ask = (which: string) => aBrowser.request(row.method, instanceApi(a.slug, row.path(which)));

      const forB = await ask(id);
      expectApiError(forB, 404, 'NOT_FOUND');
      expect(comparable(forB, { id })).toEqual(comparable(await ask(random), { id: random }));

      expect(await instanceB()).toEqual(before);
      expect((await get(suite.app, companiesUrl(), b.apiKey)).status).toBe(200);
    },
  );

  it("lists none of B's funds on A's routes, and finds no company of A or B in B's fund", async () => {
    const funds = await aBrowser.get(instanceApi(a.slug, '/funds'));
    expect(funds.body).toEqual({ funds: [] });
    const inB = await aBrowser.get(instanceApi(a.slug, `/companies?fund=${owned.fundId}`));
    const inRandom = await aBrowser.get(instanceApi(a.slug, `/companies?fund=${randomUUID()}`));
    expect(inB.body).toEqual({ companies: [], total: 0, page: 1, pageSize: 20 });
    expect(inB.body).toEqual(inRandom.body);
  });

  it("answers A's own ids on the same routes otherwise, so the sameness is not a request that fails anyway", async () => {
    const { record } = await createPortfolioKey(suite.db, { instanceId: a.instanceId, name: 'own' });
    const person = await createDashboardPerson(suite.db, { instanceId: a.instanceId, role: 'member' });
    const company = newCompany();
    await importDocument(suite.db, a.instanceId, { companies: [company] });
    expect((await aBrowser.request('DELETE', instanceApi(a.slug, `/keys/${record.id}`))).status).toBe(200);
    expect((await aBrowser.request('DELETE', instanceApi(a.slug, `/people/${person.id}`))).status).toBe(200);
    expect((await aBrowser.get(instanceApi(a.slug, `/companies/${String(company.id)}`))).status).toBe(200);
  });

  /** Every instance route (GET ones with their HEAD), with a request that names instance B's records. */
  const INSTANCE_ROUTES = (
    [
      { name: 'GET /keys', method: 'GET', path: () => '/keys' },
      { name: 'POST /keys', method: 'POST', path: () => '/keys', payload: { name: 'planted' } },
      { name: 'DELETE /keys/:id', method: 'DELETE', path: () => `/keys/${owned.keyId}` },
      { name: 'GET /people', method: 'GET', path: () => '/people' },
      {
        name: 'POST /people',
        method: 'POST',
        path: () => '/people',
        payload: { email: 'planted@example.com', role: 'admin' },
      },
      { name: 'DELETE /people/:id', method: 'DELETE', path: () => `/people/${owned.personId}` },
      {
        name: 'PUT /people/:id/role',
        method: 'PUT',
        path: () => `/people/${owned.personId}/role`,
        payload: { role: 'admin' },
      },
      {
        name: 'POST /people/:id/invitation',
        method: 'POST',
        path: () => `/people/${owned.personId}/invitation`,
      },
      {
        name: 'POST /people/:id/sessions/end',
        method: 'POST',
        path: () => `/people/${owned.personId}/sessions/end`,
      },
      {
        name: 'POST /people/:id/factors/reset',
        method: 'POST',
        path: () => `/people/${owned.personId}/factors/reset`,
      },
      { name: 'GET /security/second-factor', method: 'GET', path: () => '/security/second-factor' },
      {
        name: 'PUT /security/second-factor',
        method: 'PUT',
        path: () => '/security/second-factor',
        payload: { required: 'nobody', roles: [] },
      },
      { name: 'GET /companies', method: 'GET', path: () => `/companies?fund=${owned.fundId}` },
      { name: 'GET /companies/:id', method: 'GET', path: () => `/companies/${owned.companyId}` },
      { name: 'GET /funds', method: 'GET', path: () => '/funds' },
      { name: 'GET /sso', method: 'GET', path: () => '/sso' },
      {
        name: 'PUT /sso',
        method: 'PUT',
        path: () => '/sso',
        payload: {
          issuer: 'https://idp.example.com',
          clientId: 'planted',
          domains: ['planted.example.com'],
          allowNewAccounts: true,
          defaultRole: 'member',
          ssoOnly: true,
        },
      },
      { name: 'DELETE /sso', method: 'DELETE', path: () => '/sso' },
    ] satisfies InstanceRoute[]
  ).flatMap((route): InstanceRoute[] =>
    route.method === 'GET'
      ? [route, { ...route, name: route.name.replace('GET', 'HEAD'), method: 'HEAD' }]
      : [route],
  );

  it('names every instance route of the app in its table', () => {
    const prefix = `${DASHBOARD_API_PATH}/instances/:slug`;
    const appRoutes = routesOf(suite.app)
      .filter((route) => route.url.startsWith(prefix))
      .map((route) => routeName({ method: route.method, url: route.url.slice(prefix.length) }));
    expect(appRoutes.toSorted()).toEqual(INSTANCE_ROUTES.map((route) => route.name).toSorted());
  });

  it.each(INSTANCE_ROUTES)(
    "answers $name with A's session on B's slug 403 WRONG_INSTANCE, and without a session 401, and changes nothing of B",
    async (route) => {
      const before = await instanceB();
      const received = suite.smtp.received.length;
      const url = instanceApi(b.slug, route.path());

      const wrong = await aBrowser.request(route.method, url, route.payload);
      const stranger = await suite.anonymousBrowser();
      const signedOut = await stranger.request(route.method, url, route.payload);
      if (route.method === 'HEAD') {
        expect([wrong.status, signedOut.status]).toEqual([403, 401]);
      } else {
        expectApiError(wrong, 403, 'WRONG_INSTANCE');
        expectApiError(signedOut, 401, 'UNAUTHENTICATED');
      }

      expect(await instanceB()).toEqual(before);
      expect(suite.smtp.received.length).toBe(received);
    },
  );
});
