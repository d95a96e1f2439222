import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { SHARED_SCHEMAS } from '../../src/portfolio/endpoints.ts';
import { dashboardRoutes } from '../../src/portfolio/dashboard/contract.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { consoleRoutes } from '../../src/transactions/console/contract.ts';
import { keyDeliveryRoutes } from '../../src/transactions/key-delivery/contract.ts';
import { recipientRoutes } from '../../src/transactions/recipients/contract.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { smtpMailer } from '../support/data/dashboard.ts';
import { createTestFileStore } from '../support/data/transactions.ts';

// One contract per surface: every JSON route behind a page takes and answers what its surface's contract module
// declares, and the pages' types come from those modules, never from a copy written by hand.

/** The JSON routes behind the pages, by where they are, and the contract each surface's routes come from. */
const SURFACES = [
  { name: 'the recipient portal', prefix: '/recipient/', contract: recipientRoutes },
  { name: 'the key-delivery page', prefix: '/key-delivery/api/', contract: keyDeliveryRoutes },
  { name: 'the dashboard', prefix: '/dashboard/api/', contract: dashboardRoutes },
  { name: 'the console', prefix: '/console/api/', contract: consoleRoutes },
];

const WEB_DIR = join(import.meta.dirname, '../../web');
/**
 * What web/ may import types from: the contracts, the TypeBox schemas they are made of, and the error catalogue's
 * codes.
 */
const TYPE_SOURCES = [
  /(\/|-)contract\.ts$/,
  /^src\/errors\.ts$/,
  /^src\/portfolio\/records\.ts$/,
  /^src\/transactions\/templates\/schema\.ts$/,
];
/** The pure modules the pages and the server share, so that a rule is written once: money, a schema's fields. */
const SHARED_WITH_PAGES = [
  'src/transactions/templates/key-words.ts',
  'src/transactions/money.ts',
  'src/transactions/templates/schema-properties.ts',
  'src/transactions/console/role-permissions.ts',
];

interface PageRoute {
  surface: (typeof SURFACES)[number];
  method: string;
  url: string;
  schema: RouteOptions['schema'];
}

let testDb: TestDatabase;
let cleanupFiles: () => Promise<void>;
const pageRoutes: PageRoute[] = [];
/** Every route of both services that declares its answers, each with those answers' schemas by status. */
const answeringRoutes: { name: string; response: Record<string, unknown> }[] = [];
/** Every part of a request that a route of either service validates, with its app's Ajv options. */
const validatedParts: { name: string; httpPart: string; schema: unknown; ajv: Record<string, unknown> }[] =
  [];
/** The Ajv options each service's app is built with (src/portfolio/app.ts; the transactions app keeps Fastify's). */
const AJV_OPTIONS = { transactions: {}, portfolio: { removeAdditional: false } };

beforeAll(async () => {
  testDb = await createTestDatabase();
  const store = await createTestFileStore();
  cleanupFiles = store.cleanup;
  const validated = (ajv: Record<string, unknown>) => (route: RouteOptions) => {
    for (const httpPart of ['body', 'querystring', 'params', 'headers'] as const) {
      const schema = route.schema?.[httpPart];
      if (schema !== undefined)
        validatedParts.push({ name: `${String(route.method)} ${route.url}`, httpPart, schema, ajv });
    }
    onRoute(route);
  };
  const onRoute = (route: RouteOptions) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (response) answeringRoutes.push({ name: `${String(route.method)} ${route.url}`, response });
    const surface = SURFACES.find(({ prefix }) => route.url.startsWith(prefix));
    for (const method of [route.method].flat()) {
      if (surface && method !== 'HEAD')
        pageRoutes.push({ surface, method, url: route.url, schema: route.schema });
    }
  };
  // A mailer that is never asked to send: building the apps registers their routes, nothing more.
  const mailer = smtpMailer('smtp://127.0.0.1:9');
  const apps = [
    await buildTransactionsApp({
      db: testDb.db,
      files: store.files,
      environment: 'staging',
      keyDelivery: { mailer },
      console: { mailer, transactionsUrl: () => 'https://transactions.test' },
      onRoute: validated(AJV_OPTIONS.transactions),
    }),
    await buildPortfolioApp({
      db: testDb.db,
      dashboard: { mail: { mailer, portfolioUrl: 'https://portfolio.test' } },
      onRoute: validated(AJV_OPTIONS.portfolio),
    }),
  ];
  for (const app of apps) await app.close();
});

afterAll(async () => {
  await testDb.close();
  await cleanupFiles();
});

/** Every file below `dir` whose name ends with one of `extensions`, the built pages left out. */
async function filesBelow(dir: string, extensions: string[]): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && extensions.some((extension) => entry.name.endsWith(extension)))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !relative(dir, file).startsWith('dist'));
}

describe('the answers of both services', () => {
  // Serializers are compiled on a route's first answer (lazySerializers in base-app.ts), not at start: each
  // schema is compiled here, as that first answer will, so that none fails a request instead.
  it("compiles every route's answer schemas, as each route's first answer of that status will", () => {
    expect(answeringRoutes.length).toBeGreaterThan(50);
    const compile = SerializerSelector()(
      Object.fromEntries(SHARED_SCHEMAS.map((schema) => [schema.$id ?? '', schema])),
      {},
    );
    const failed: string[] = [];
    for (const { name, response } of answeringRoutes) {
      for (const [httpStatus, schema] of Object.entries(response)) {
        try {
          compile({ schema, method: name.split(' ')[0] ?? '', url: name, httpStatus });
        } catch (error) {
          failed.push(`${name} ${httpStatus}: ${String(error)}`);
        }
      }
    }
    expect(failed).toEqual([]);
  });
});

describe('the requests of both services', () => {
  // Validators are compiled on a route's first request (lazyValidators in lazy-compilers.ts), not at start: each
  // schema is compiled here with its app's Ajv options, as that first request will, so that none fails a request.
  it("compiles every route's request schemas, as each route's first request will", () => {
    expect(validatedParts.length).toBeGreaterThan(50);
    const externals = Object.fromEntries(SHARED_SCHEMAS.map((schema) => [schema.$id ?? '', schema]));
    const compilers = new Map<Record<string, unknown>, (route: unknown) => unknown>();
    const failed: string[] = [];
    for (const { name, httpPart, schema, ajv } of validatedParts) {
      let compile = compilers.get(ajv);
      if (compile === undefined) {
        // Fastify's compilers are called with the route's schema and where it applies.
        compile = AjvCompiler()(externals, { customOptions: ajv, plugins: [] }) as unknown as (
          route: unknown,
        ) => unknown;
        compilers.set(ajv, compile);
      }
      try {
        compile({ schema, method: name.split(' ')[0] ?? '', url: name, httpPart });
      } catch (error) {
        failed.push(`${name} ${httpPart}: ${String(error)}`);
      }
    }
    expect(failed).toEqual([]);
  });
});

describe('the contracts of the pages', () => {
  it('finds the JSON routes of every page', () => {
    for (const surface of SURFACES) {
      expect(pageRoutes.filter((route) => route.surface === surface).length, surface.name).toBeGreaterThan(0);
    }
  });

  it("gives every page route its schemas from its surface's contract, each contract entry to one route", () => {
    for (const surface of SURFACES) {
      const entries = Object.values(surface.contract) as { response: unknown }[];
      const routes = pageRoutes.filter((route) => route.surface === surface);
      /** The contract entry a route was registered from: the one whose answers are the route's own. */
      const entryOf = (route: PageRoute) =>
        entries.find((entry) => entry.response === (route.schema as { response?: unknown }).response);
      const outside = routes.filter((route) => entryOf(route) === undefined);
      expect(
        outside.map((route) => `${route.method} ${route.url}`),
        `${surface.name}: routes whose schema is not an entry of its contract`,
      ).toEqual([]);
      const used = routes.map(entryOf);
      const unused = Object.entries(surface.contract).filter(([, entry]) => !used.includes(entry));
      expect(
        unused.map(([name]) => name),
        `${surface.name}: contract entries no route uses`,
      ).toEqual([]);
      expect(new Set(used).size, `${surface.name}: an entry used by two routes`).toBe(used.length);
    }
  });

  it('declares for every page route a successful answer and the error answers, and a schema for each path parameter', () => {
    for (const route of pageRoutes) {
      const name = `${route.method} ${route.url}`;
      const schema = route.schema as {
        response?: Record<string, unknown>;
        params?: { properties?: Record<string, unknown> };
      };
      const statuses = Object.keys(schema.response ?? {});
      expect(
        // A redirect is the success of a route a browser is sent to (the identity provider's callback).
        statuses.some((status) => /^[23]\d\d$/.test(status)),
        `${name} declares a 2xx or 3xx answer`,
      ).toBe(true);
      expect(statuses, `${name} declares its error answers`).toEqual(expect.arrayContaining(['4xx', '5xx']));
      const parameters = [...route.url.matchAll(/:(\w+)/g)].map(([, parameter]) => parameter);
      for (const parameter of parameters) {
        expect(
          schema.params?.properties,
          `${name} declares its path parameter ${String(parameter)}`,
        ).toHaveProperty(String(parameter));
      }
      if (route.method === 'PUT' || route.method === 'PATCH') {
        expect(route.schema, `${name} declares its body`).toHaveProperty('body');
      }
    }
  });

  it('reaches src/ from web/ only through type-only imports of contracts and the few pure modules both share', async () => {
    const files = await filesBelow(WEB_DIR, ['.ts', '.tsx']);
    const offending: string[] = [];
    for (const file of files) {
      const source = await readFile(file, 'utf8');
      for (const [statement = '', from = ''] of source.matchAll(
        /^import\s[^;]*?from\s+'([^']*\/src\/[^']*)';/gms,
      )) {
        const target = relative(join(WEB_DIR, '..'), join(file, '..', from));
        const allowed = /^import type\s/.test(statement)
          ? TYPE_SOURCES.some((pattern) => pattern.test(target))
          : SHARED_WITH_PAGES.includes(target);
        if (!allowed) offending.push(`${relative(WEB_DIR, file)} imports ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('leaves no hand-written copy of an answer type in web/: no interface in a types module, no inline answer shape', async () => {
    const files = await filesBelow(WEB_DIR, ['.ts', '.tsx']);
    const copies: string[] = [];
    for (const file of files) {
      const source = await readFile(file, 'utf8');
      const name = relative(WEB_DIR, file);
      if (name.endsWith('types.ts')) {
        for (const [field = ''] of source.matchAll(/^\s+\w+\??: (?:string|number|boolean)\b.*$/gm)) {
          copies.push(`${name} writes a field by hand: ${field.trim()}`);
        }
      }
      for (const [call = ''] of source.matchAll(/\b(?:api|call|useResource)<\{[^>]*>/g)) {
        copies.push(`${name}: ${call}`);
      }
    }
    expect(copies).toEqual([]);
  });
});
