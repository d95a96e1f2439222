// The `portico portfolio` commands as an operator runs them: `node bin/portico.js …` in child processes.
// Directly on a database no server holds (the embedded one, or under TEST_DATABASE_URL a PostgreSQL schema of
// this file's own, through DATABASE_URL), and through the admin socket of a running `portico serve`, which
// always runs on the embedded database here: the socket exists only there.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { lockPath } from '../../src/db/data-dir-lock.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import type { DemoFacts } from '../../src/demo/demo-facts.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/database.ts';
import { request } from '../support/http-client.ts';
import { PORTS, portico, ROOT, sleep, startServer, type Ran, type RunningServer } from '../support/cli.ts';

const FIXTURES = join(ROOT, 'test/fixtures/portfolio');
const fixture = (name: string) => join(FIXTURES, name);
const PORTFOLIO_KEY = /pfk_[0-9A-Za-z]{38}/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Fails with the run's output when it did not succeed, so a failure says why. */
function expectSuccess(ran: Ran): void {
  expect({ code: ran.code, stderr: ran.stderr }, ran.stdout).toMatchObject({ code: 0 });
}

/** The one Portfolio key a `portfolio keys create` printed. */
function printedKey(ran: Ran): string {
  const keys = ran.stdout.match(PORTFOLIO_KEY) ?? [];
  expect(keys, ran.stdout).toHaveLength(1);
  return keys[0] ?? '';
}

/** The summary lines `portfolio import` prints: created and updated of each type, funds created and renamed. */
function summaryLines(
  slug: string,
  revision: number,
  created: [number, number, number],
  funds: number,
): RegExp[] {
  return [
    new RegExp(`^Imported into ${slug} \\(revision ${revision}\\):$`, 'm'),
    new RegExp(`^ {2}companies +${created[0]} created, 0 updated$`, 'm'),
    new RegExp(`^ {2}updates +${created[1]} created, 0 updated$`, 'm'),
    new RegExp(`^ {2}investments +${created[2]} created, 0 updated$`, 'm'),
    new RegExp(`^ {2}funds +${funds} created, 0 renamed$`, 'm'),
  ];
}

/** The progress lines of an import: each file read, then each phase up to its total. */
function progressLines(files: string[], totals: [number, number, number]): string[] {
  const all = totals.reduce((sum, value) => sum + value, 0);
  return [
    ...files.map((file) => `reading ${file}`),
    `checking: ${all}/${all} (100%)`,
    `companies: ${totals[0]}/${totals[0]} (100%)`,
    `updates: ${totals[1]}/${totals[1]} (100%)`,
    `investments: ${totals[2]}/${totals[2]} (100%)`,
  ];
}

/** The line number of the first line of a fixture that contains `text`. */
async function fixtureLine(name: string, text: string): Promise<number> {
  const lines = (await readFile(fixture(name), 'utf8')).split('\n');
  const index = lines.findIndex((line) => line.includes(text));
  expect(index).toBeGreaterThanOrEqual(0);
  return index + 1;
}

const IMPORTED_IDS = {
  cedar: '812af24a-ddd8-48a7-be26-2910461ab3ab',
  fern: '9a0c6d8a-5744-4116-97d1-633d576ad46c',
  orbit: '24effa2f-47ad-441d-b744-9cf89f8f5717',
  granite: '0f489c6b-5a47-4d70-9312-a4ef02e77872',
  kite: '7a5ffe2f-17dc-4b2c-a2aa-93cf8bb5c107',
  broken: '58bf7757-4aa7-400a-a025-d7e033662742',
};
const CSV_FILES = ['companies.csv', 'updates.csv', 'investments.csv'].map(fixture);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-portfolio-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// Each command starts a Node process that compiles TypeScript and, here, opens the database: seconds each.
describe('portico portfolio on a database no server holds', { timeout: 90_000 }, () => {
  let env: Record<string, string>;
  let dir: string;
  let postgres: TestDatabase | undefined;
  const slug = 'direct-ventures';
  let key: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(root, 'data-'));
    env = { PORTICO_DATA_DIR: dir, ...PORTS };
    if (TEST_DATABASE_URL !== undefined) {
      // A schema of this file's own on the PostgreSQL server, reached by the CLI through DATABASE_URL.
      postgres = await createTestDatabase();
      env.DATABASE_URL = postgres.connection?.url ?? '';
      env.PGOPTIONS = postgres.connection?.options ?? '';
    }
  });

  afterAll(async () => {
    await postgres?.close();
  });

  /** The database the commands wrote to, opened here once no command holds it. */
  async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
    if (postgres) return work(postgres.db);
    const opened = await openDatabase({ dataDir: dir, databaseUrl: undefined });
    try {
      return await work(opened.db);
    } finally {
      await opened.close();
    }
  }

  it('creates an instance, then a key for it that it prints once', async () => {
    const created = await portico(
      ['portfolio', 'instances', 'create', '--slug', slug, '--name', 'Direct Ventures'],
      env,
    );
    expectSuccess(created);
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(new RegExp(`^Created instance ${slug} \\(${UUID.source}\\)\\.$`, 'm'));

    const issued = await portico(
      ['portfolio', 'keys', 'create', '--instance', slug, '--name', 'warehouse'],
      env,
    );
    expectSuccess(issued);
    expect(issued.stderr).toBe('');
    key = printedKey(issued);
    expect(issued.stdout).toContain('Store it now');
    if (!postgres) expect(existsSync(lockPath(dir))).toBe(false);
  });

  it('imports a JSON document and CSV files in one command, with progress on stderr and a summary on stdout', async () => {
    const files = [fixture('portfolio.json'), ...CSV_FILES];
    const imported = await portico(['portfolio', 'import', '--instance', slug, ...files], env);
    expectSuccess(imported);
    expect(imported.stderr.trimEnd().split('\n')).toEqual(progressLines(files, [5, 6, 4]));
    for (const line of summaryLines(slug, 1, [5, 6, 4], 2)) expect(imported.stdout).toMatch(line);
  });

  it('refuses a broken file, exiting non-zero with its file:line, and imports nothing of it', async () => {
    const file = fixture('broken.json');
    const refused = await portico(['portfolio', 'import', '--instance', slug, file], env);
    expect(refused.code).not.toBe(0);
    expect(refused.code).not.toBeNull();
    const line = await fixtureLine('broken.json', '"usd"');
    expect(refused.stderr).toMatch(/^portico: Nothing was imported: \d+ problems?\.$/m);
    expect(refused.stderr).toContain(`${file}:${line}: investments[0].amountCurrency: must match pattern`);
    expect(refused.stdout).toBe('');
  });

  it('leaves the key reading exactly the imported companies through the API', async () => {
    await withDatabase(async (db) => {
      const app = await buildPortfolioApp({ db, apiKeyCacheMs: 0 });
      try {
        const answer = await app.inject({
          method: 'GET',
          url: '/v1/external/companies?limit=200',
          headers: { authorization: key },
        });
        expect(answer.statusCode).toBe(200);
        const body = answer.json<{ total: number; data: { id: string }[] }>();
        expect(body.total).toBe(5);
        expect(body.data.map((company) => company.id).sort()).toEqual(
          [
            IMPORTED_IDS.cedar,
            IMPORTED_IDS.fern,
            IMPORTED_IDS.orbit,
            IMPORTED_IDS.granite,
            IMPORTED_IDS.kite,
          ].sort(),
        );
      } finally {
        await app.close();
      }
    });
  });
});

describe('portico portfolio while `portico serve` holds the embedded database', { timeout: 90_000 }, () => {
  let running: RunningServer;
  let env: Record<string, string>;
  let facts: DemoFacts;
  let ca: string;
  const banner = () => running.stdout();

  // One server on a fresh data dir for every test below: starting one takes seconds.
  beforeAll(async () => {
    const dir = await mkdtemp(join(root, 'data-'));
    env = { PORTICO_DATA_DIR: dir, ...PORTS };
    running = await startServer({ PORTICO_DATA_DIR: dir, ...PORTS });
    ({ facts, ca } = running);
  }, 90_000);

  afterAll(() => running.stop());

  /** A GET on the running Portfolio service, over HTTPS, with `key` as the Authorization header. */
  const portfolioGet = (path: string, key: string) =>
    request(`${facts.portfolio.url}${path}`, { ca, headers: { authorization: key } });

  it('prints the demo Portfolio key in its banner and writes it and a company id to demo.json, which work', async () => {
    const { apiKey, companyId } = facts.portfolio;
    expect(apiKey).toMatch(new RegExp(`^${PORTFOLIO_KEY.source}$`));
    expect(companyId).toMatch(new RegExp(`^${UUID.source}$`));
    expect(banner()).toContain(`demo API key          ${apiKey ?? ''}`);
    expect(banner()).toContain(facts.portfolio.url);

    const updates = await portfolioGet(`/company/${companyId ?? ''}/updates`, apiKey ?? '');
    expect(updates.status, updates.text).toBe(200);
    expect(updates.json().data.length).toBeGreaterThan(0);
    expect(updates.json().total).toBe(updates.json().data.length);
    const investments = await portfolioGet(`/company/${companyId ?? ''}/investments`, apiKey ?? '');
    expect(investments.status, investments.text).toBe(200);
    expect(investments.json().data.length).toBeGreaterThan(0);
    const companies = await portfolioGet('/companies?limit=5', apiKey ?? '');
    expect(companies.json().total).toBe(40);
  });

  describe('a customer instance set up through the running server', () => {
    const slug = 'served-ventures';
    let key: string;
    let keyId: string;

    it('creates an instance and prints a key once, which works against the running server at once', async () => {
      const created = await portico(
        ['portfolio', 'instances', 'create', '--slug', slug, '--name', 'Served Ventures'],
        env,
      );
      expectSuccess(created);
      expect(created.stderr).toBe('');
      expect(created.stdout).toContain(`Created instance ${slug}`);

      const issued = await portico(
        ['portfolio', 'keys', 'create', '--instance', slug, '--name', 'warehouse'],
        env,
      );
      expectSuccess(issued);
      expect(issued.stderr).toBe('');
      key = printedKey(issued);
      keyId = UUID.exec(issued.stdout)?.[0] ?? '';
      expect(keyId).not.toBe('');

      const empty = await portfolioGet('/companies', key);
      expect(empty.status, empty.text).toBe(200);
      expect(empty.json()).toMatchObject({ data: [], total: 0, hasNextPage: false, nextCursor: null });
    });

    it('imports a JSON document, then CSV files, with progress on stderr and a summary on stdout', async () => {
      const json = fixture('portfolio.json');
      const fromJson = await portico(['portfolio', 'import', '--instance', slug, json], env);
      expectSuccess(fromJson);
      expect(fromJson.stderr.trimEnd().split('\n')).toEqual(progressLines([json], [3, 3, 2]));
      for (const line of summaryLines(slug, 1, [3, 3, 2], 2)) expect(fromJson.stdout).toMatch(line);

      const fromCsv = await portico(['portfolio', 'import', '--instance', slug, ...CSV_FILES], env);
      expectSuccess(fromCsv);
      expect(fromCsv.stderr.trimEnd().split('\n')).toEqual(progressLines(CSV_FILES, [2, 3, 2]));
      for (const line of summaryLines(slug, 2, [2, 3, 2], 0)) expect(fromCsv.stdout).toMatch(line);

      const companies = await portfolioGet('/companies?limit=200', key);
      expect(companies.status, companies.text).toBe(200);
      expect(companies.json().total).toBe(5);
      expect(companies.json().data.map((company: { legalName: string }) => company.legalName)).toEqual([
        'Granite Logistics B.V.',
        'Cedar Robotics GmbH',
        'Fern Health, Inc.',
        'Kite Energy, "The Wind People" SAS',
        'Orbit Payments Ltd',
      ]);
      const investments = await portfolioGet(`/company/${IMPORTED_IDS.kite}/investments`, key);
      expect(investments.json().data).toEqual([
        expect.objectContaining({ amountCents: '9007199254740993', amountCurrency: 'EUR', round: null }),
      ]);
    });

    it('refuses a broken file, exiting non-zero with its file:line, and imports nothing of it', async () => {
      const file = fixture('broken.json');
      const refused = await portico(['portfolio', 'import', '--instance', slug, file], env);
      expect(refused.code).not.toBe(0);
      expect(refused.code).not.toBeNull();
      const line = await fixtureLine('broken.json', '"usd"');
      expect(refused.stderr).toContain(`${file}:${line}: investments[0].amountCurrency: must match pattern`);
      expect(refused.stdout).toBe('');

      const companies = await portfolioGet('/companies?limit=200', key);
      expect(companies.json().total).toBe(5);
      expect(companies.text).not.toContain(IMPORTED_IDS.broken);
    });

    it('lists keys by their prefix only, and a revoked key is refused with 401', async () => {
      const listed = await portico(['portfolio', 'keys', 'list', '--instance', slug], env);
      expectSuccess(listed);
      expect(listed.stdout).not.toContain(key);
      const line = listed.stdout.split('\n').find((text) => text.includes(keyId)) ?? '';
      expect(line).toContain('active');
      expect(line).toContain('warehouse');
      const prefix = line.split('…')[0] ?? '';
      expect(prefix.length).toBeGreaterThan(4);
      expect(prefix.length).toBeLessThan(key.length / 2);
      expect(key.startsWith(prefix)).toBe(true);

      const revoked = await portico(['portfolio', 'keys', 'revoke', '--instance', slug, keyId], env);
      expectSuccess(revoked);
      expect(revoked.stdout).toContain(`Revoked key ${keyId}.`);

      // A server reuses a valid key lookup for up to a second: poll until it refuses, a bounded number of times.
      let refused = await portfolioGet('/companies', key);
      for (let attempt = 0; refused.status === 200 && attempt < 40; attempt += 1) {
        await sleep(100);
        refused = await portfolioGet('/companies', key);
      }
      expect(refused.status, refused.text).toBe(401);
      expect(refused.json().error).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(refused.text).not.toContain('Granite');
      // The demo key of another instance is not affected.
      expect((await portfolioGet('/companies?limit=1', facts.portfolio.apiKey ?? '')).status).toBe(200);
    });
  });
});
