import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { OPENAPI_DOCUMENT_PATH, portfolioOpenApiDocument } from '../../src/portfolio/openapi-document.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import {
  companiesUrl,
  createTestPortfolio,
  get,
  importDocument,
  investmentsUrl,
  newInvestment,
  newUpdate,
  records,
  updatesUrl,
  walk,
  type ApiResponse,
  type ListPage,
  type TestPortfolio,
} from '../support/data/portfolio.ts';

const DOCUMENT_ID = 'https://portico.example/portfolio.openapi.json';

let testDb: TestDatabase;
let app: FastifyInstance;
/** The portfolio every response is read from: 40 companies with updates and investments. */
let demo: TestPortfolio;
let served: Record<string, unknown>;
let ajv: Ajv2020;

beforeAll(async () => {
  testDb = await createTestDatabase();
  demo = await createTestPortfolio(testDb.db, { companies: 40 });
  // Records whose nullable fields are all null, and amounts beyond 2^53.
  await importDocument(testDb.db, demo.instanceId, {
    updates: [newUpdate(demo.companyId)],
    investments: [newInvestment(demo.companyId, { amountCents: '9007199254740993' })],
  });
  app = await buildPortfolioApp({ db: testDb.db });
  const response = await get(app, '/v1/external/openapi.json', undefined);
  served = response.body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...served, $id: DOCUMENT_ID });
});

afterAll(async () => {
  await app.close();
  await testDb.close();
});

/** The JSON pointer of what the document declares for a response: `paths/<path>/get/responses/<status>/…`. */
function responseSchemaPointer(path: string, status: number): string {
  const escaped = path.replace(/~/g, '~0').replace(/\//g, '~1');
  return `${DOCUMENT_ID}#/paths/${escaped}/get/responses/${status}/content/application~1json/schema`;
}

/** Asserts that a real response validates against the schema the document declares for its path and status. */
function expectConforms(path: string, response: ApiResponse) {
  const validate = ajv.getSchema(responseSchemaPointer(path, response.status));
  if (!validate) throw new Error(`the document declares no ${response.status} response for GET ${path}`);
  const valid = validate(response.body);
  expect(valid ? [] : validate.errors, `GET ${path} → ${response.status}: ${response.text}`).toEqual([]);
}

const COMPANIES = '/v1/external/companies';
const UPDATES = '/v1/external/company/{id}/updates';
const INVESTMENTS = '/v1/external/company/{id}/investments';

describe('the OpenAPI document', () => {
  it('is served at /v1/external/openapi.json without a key, as OpenAPI 3.1.0', async () => {
    const response = await get(app, '/v1/external/openapi.json', undefined);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths).sort()).toEqual([COMPANIES, INVESTMENTS, UPDATES].sort());
    for (const path of [COMPANIES, UPDATES, INVESTMENTS]) {
      expect(Object.keys(response.body.paths[path])).toEqual(['get']);
      const names = response.body.paths[path].get.parameters.map((p: { name: string }) => p.name);
      expect(names).toEqual(expect.arrayContaining(['cursor', 'limit', 'updatedSince']));
    }
    expect(response.body.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
  });

  it('is committed in docs/ as generated now (run `npm run schemas` after changing a route schema)', async () => {
    const generated = portfolioOpenApiDocument();
    expect(
      await readFile(OPENAPI_DOCUMENT_PATH, 'utf8'),
      'docs/portfolio.openapi.json is stale: run `npm run schemas`',
    ).toBe(generated);
    expect(served, 'the served document differs from the generated one').toEqual(JSON.parse(generated));
  });

  it('names a license and, without a configured address, the origin it is served from as its server', () => {
    expect(served.info).toMatchObject({
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    });
    expect(served.servers).toEqual([{ url: '/', description: 'This Portico deployment' }]);
  });

  it("names the deployment's public address as its server when one is configured", async () => {
    const configured = await buildPortfolioApp({ db: testDb.db, publicUrl: 'https://portfolio.example.com' });
    try {
      const response = await get(configured, '/v1/external/openapi.json', undefined);
      expect(response.body.servers).toEqual([
        { url: 'https://portfolio.example.com', description: 'This Portico deployment' },
      ]);
    } finally {
      await configured.close();
    }
  });

  it('declares a response schema for 200, 400, 401, 404 and 500 of every list', () => {
    for (const path of [COMPANIES, UPDATES, INVESTMENTS]) {
      for (const status of [200, 400, 401, 404, 500]) {
        expect(ajv.getSchema(responseSchemaPointer(path, status)), `${path} ${status}`).toBeDefined();
      }
    }
  });
});

describe('real responses against the document', () => {
  it('every page of a companies walk conforms', async () => {
    const pages = await walk(app, companiesUrl(), demo.apiKey, 7);
    expect(pages).toHaveLength(6);
    for (const cursor of [undefined, ...pages.slice(0, -1).map((page) => page.nextCursor)]) {
      const response = await get(app, companiesUrl({ limit: 7, cursor: cursor ?? undefined }), demo.apiKey);
      expect(response.status).toBe(200);
      expectConforms(COMPANIES, response);
    }
  });

  it('the updates and investments of every company conform, pages and all', async () => {
    const companies = records(await walk(app, companiesUrl(), demo.apiKey, 200));
    let checked = 0;
    for (const company of companies) {
      for (const [path, urlOf] of [
        [UPDATES, updatesUrl],
        [INVESTMENTS, investmentsUrl],
      ] as const) {
        let cursor: string | undefined;
        do {
          const response = await get(app, urlOf(company.id, { limit: 2, cursor }), demo.apiKey);
          expect(response.status).toBe(200);
          expectConforms(path, response);
          checked += (response.body as ListPage).data.length;
          cursor = response.body.nextCursor ?? undefined;
        } while (cursor !== undefined);
      }
    }
    expect(checked).toBeGreaterThan(80);
  });

  it('400 answers conform', async () => {
    const cursor = (await get(app, companiesUrl({ limit: 1 }), demo.apiKey)).body.nextCursor as string;
    for (const [path, url] of [
      [COMPANIES, companiesUrl({ limit: 0 })],
      [COMPANIES, companiesUrl({ limt: 1 })],
      [COMPANIES, companiesUrl({ cursor: 'garbage' })],
      [COMPANIES, companiesUrl({ updatedSince: 'yesterday' })],
      [UPDATES, updatesUrl('not-a-uuid')],
      [UPDATES, updatesUrl(demo.companyId, { cursor })],
      [INVESTMENTS, investmentsUrl(demo.companyId, { limit: 201 })],
      [INVESTMENTS, investmentsUrl(demo.companyId, { cursor: `${cursor}x` })],
    ] as const) {
      const response = await get(app, url, demo.apiKey);
      expect(response.status, url).toBe(400);
      expectConforms(path, response);
    }
  });

  it('401 answers conform', async () => {
    for (const [path, url] of [
      [COMPANIES, companiesUrl()],
      [UPDATES, updatesUrl(demo.companyId)],
      [INVESTMENTS, investmentsUrl(demo.companyId)],
    ] as const) {
      for (const key of [undefined, `Bearer ${demo.apiKey}`, 'pfk_short']) {
        const response = await get(app, url, key);
        expect(response.status).toBe(401);
        expectConforms(path, response);
      }
    }
  });

  it('404 answers conform', async () => {
    for (const [path, url] of [
      [UPDATES, updatesUrl(randomUUID())],
      [INVESTMENTS, investmentsUrl(randomUUID())],
    ] as const) {
      const response = await get(app, url, demo.apiKey);
      expect(response.status).toBe(404);
      expectConforms(path, response);
    }
  });

  it('a body that breaks the document is caught, so the checks above can fail', async () => {
    const response = await get(app, investmentsUrl(demo.companyId), demo.apiKey);
    const validate = ajv.getSchema(responseSchemaPointer(INVESTMENTS, 200))!;
    expect(validate(response.body)).toBe(true);
    const [first] = response.body.data;
    for (const broken of [
      { ...response.body, data: [{ ...first, amountCents: Number(first.amountCents) }] },
      { ...response.body, data: [{ ...first, extra: 1 }] },
      { ...response.body, total: '3' },
      { ...response.body, nextCursor: undefined },
    ]) {
      expect(validate(broken)).toBe(false);
    }
  });
});
