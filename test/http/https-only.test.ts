import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DataDirLockedError, lockPath } from '../../src/db/data-dir-lock.ts';
import { demoFactsPath, type DemoFacts } from '../../src/demo/demo-facts.ts';
import { createLogger } from '../../src/logger.ts';
import { serve, type RunningPortico, type ServeOptions } from '../../src/serve.ts';
import { DIALECT, createTestDatabase } from '../support/db/database.ts';
import { expectDemoFacts } from '../support/data/demo-facts.ts';
import { seedEmbeddedDatabase } from '../support/db/pglite-template.ts';
import { REFERENCE_QUERY } from '../support/data/transactions.ts';
import { plainHttp, request } from '../support/http-client.ts';

interface Started {
  running: RunningPortico;
  dataDir: string;
  ca: string;
  /** `https://host:port` of each service. */
  origins: { transactions: string; portfolio: string };
  stop(): Promise<void>;
}

/**
 * The database a test's `serve()` runs on: the embedded one in the data dir, or under TEST_DATABASE_URL a fresh
 * PostgreSQL schema reached through `?options=-c search_path=…` in DATABASE_URL (node-postgres passes the
 * connection string's `options` parameter on to the server).
 */
async function databaseForServe(
  embedded: boolean,
): Promise<{ databaseUrl: string | undefined; drop(): Promise<void> }> {
  if (embedded || DIALECT === 'pglite') return { databaseUrl: undefined, drop: () => Promise.resolve() };
  const test = await createTestDatabase();
  if (!test.connection) throw new Error('a PostgreSQL test database has connection settings');
  const url = new URL(test.connection.url);
  url.searchParams.set('options', test.connection.options);
  return { databaseUrl: url.href, drop: () => test.close() };
}

/** `serve()` in this process on a data dir of its own (or `dataDir`), both ports chosen by the system. */
async function start(
  options: {
    dataDir?: string;
    trustProxy?: boolean;
    /** Use the embedded database even under TEST_DATABASE_URL. */
    embedded?: boolean;
    /**
     * Let `serve()` make the embedded database in the new data dir itself (initdb and migrations), rather than
     * finding a copy of the migrated template there.
     */
    freshDatabase?: boolean;
  } & Pick<ServeOptions, 'demo' | 'only'> = {},
): Promise<Started> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'portico-https-')));
  const database = await databaseForServe(options.embedded ?? false);
  if (options.dataDir === undefined && database.databaseUrl === undefined && options.freshDatabase !== true) {
    await seedEmbeddedDatabase(dataDir);
  }
  try {
    const config = loadConfig(
      {},
      {
        dataDir,
        databaseUrl: database.databaseUrl,
        transactionsPort: '0',
        portfolioPort: '0',
        logLevel: 'silent',
        trustProxy: options.trustProxy ?? false,
      },
    );
    const running = await serve(config, {
      logger: createLogger('silent'),
      print: () => undefined,
      demo: options.demo,
      only: options.only,
    });
    const originOf = (url: string | undefined) => (url === undefined ? '' : new URL(url).origin);
    return {
      running,
      dataDir,
      ca: await readFile(running.caCertPath, 'utf8'),
      origins: {
        transactions: originOf(running.urls.transactions),
        portfolio: originOf(running.urls.portfolio),
      },
      async stop() {
        await running.close();
        await database.drop();
        if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

const SERVICES = ['transactions', 'portfolio'] as const;

/** One Portico for the tests of a describe block, started before them and stopped after. */
function useStarted(options: Parameters<typeof start>[0]): () => Started {
  let portico: Started | undefined;
  beforeAll(async () => {
    portico = await start(options);
  });
  afterAll(async () => {
    await portico?.stop();
  });
  return () => {
    if (!portico) throw new Error('Portico has not started');
    return portico;
  };
}

describe('Portico served over HTTPS', () => {
  // An empty data dir: the embedded database in it is serve()'s own making.
  const portico = useStarted({ demo: true, freshDatabase: true });

  it('keeps the embedded database in the data dir only when no DATABASE_URL is given', () => {
    const embedded = DIALECT === 'pglite';
    expect(existsSync(join(portico().dataDir, 'db'))).toBe(embedded);
    expect(existsSync(lockPath(portico().dataDir))).toBe(embedded);
  });

  it('answers GET /healthz with 200 {status: ok} over HTTPS on both ports', async () => {
    for (const service of SERVICES) {
      const answer = await request(`${portico().origins[service]}/healthz`, { ca: portico().ca });
      expect(answer.status, service).toBe(200);
      expect(answer.json(), service).toEqual({ status: 'ok' });
    }
  });

  it('answers GET /readyz with 200 while the database is reachable, on both ports', async () => {
    for (const service of SERVICES) {
      const answer = await request(`${portico().origins[service]}/readyz`, { ca: portico().ca });
      expect(answer.status, service).toBe(200);
      expect(answer.json(), service).toEqual({ status: 'ok', checks: { database: 'ok' } });
    }
  });

  it('answers the reference query with the demo transaction over HTTPS with the demo key', async () => {
    const demo = portico().running.demo;
    if (!demo) throw new Error('serve() seeded demo data');
    const answer = await request(portico().running.urls.transactions ?? '', {
      ca: portico().ca,
      headers: { authorization: `Bearer ${demo.transactions.apiKey}` },
      json: { query: REFERENCE_QUERY, variables: { id: demo.transactions.transactionId } },
    });
    expect(answer.status).toBe(200);
    const body = answer.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.transaction.id).toBe(demo.transactions.transactionId);
    // The whole query, answered: how many recipients and revisions the demo has is the demo's business.
    expect(body.data.transaction.transactionRecipients.length).toBeGreaterThan(0);
    expect(body.data.transaction.transactionProcessRevisions.length).toBeGreaterThan(0);
  });

  it('refuses a plain-HTTP request on both ports with a JSON 403 HTTPS_REQUIRED and no data', async () => {
    const demo = portico().running.demo;
    if (!demo) throw new Error('serve() seeded demo data');
    for (const service of SERVICES) {
      const answer = await request(plainHttp(`${portico().origins[service]}/healthz`));
      expect(answer.status, service).toBe(403);
      expect(answer.headers['content-type'], service).toMatch(/^application\/json/);
      expect(answer.json(), service).toEqual({
        error: {
          code: 'HTTPS_REQUIRED',
          message: expect.stringMatching(/HTTPS/),
          requestId: expect.any(String),
        },
      });
    }
    // Even a well-formed, authenticated GraphQL request gets nothing but the refusal.
    const answer = await request(plainHttp(portico().running.urls.transactions ?? ''), {
      headers: { authorization: `Bearer ${demo.transactions.apiKey}` },
      json: { query: REFERENCE_QUERY, variables: { id: demo.transactions.transactionId } },
    });
    expect(answer.status).toBe(403);
    expect(answer.json().error.code).toBe('HTTPS_REQUIRED');
    expect(answer.json()).not.toHaveProperty('data');
    expect(answer.text).not.toContain(demo.transactions.transactionId);
  });

  it("sends a browser's plain-HTTP request for a page to the same address over https:// (301), and nothing else", async () => {
    const page = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const [service, path] of [
      ['transactions', '/console/queue?state=in_review'],
      ['portfolio', '/dashboard'],
    ] as const) {
      const url = plainHttp(`${portico().origins[service]}${path}`);
      const answer = await request(url, { headers: page });
      expect(answer.status, service).toBe(301);
      expect(answer.headers.location, service).toBe(`https://${url.host}${path}`);
      expect(answer.text, service).toBe('');
    }
    const consolePage = plainHttp(`${portico().origins.transactions}/console`);
    // An API call, a change, a request with a key, or a Host that is no host keep the JSON refusal.
    for (const [what, options] of [
      ['a JSON request', { headers: { accept: 'application/json' } }],
      ['a change', { headers: page, method: 'POST' }],
      ['a request with a key', { headers: { ...page, authorization: 'Bearer sk_test_anything' } }],
      ['a Host that is no host', { headers: { ...page, host: 'evil.example/phish?' } }],
    ] as const) {
      const answer = await request(consolePage, options);
      expect([answer.status, answer.json().error.code], what).toEqual([403, 'HTTPS_REQUIRED']);
    }
  });

  it('ignores X-Forwarded-Proto: https on plain HTTP when no proxy is trusted', async () => {
    for (const service of SERVICES) {
      const answer = await request(plainHttp(`${portico().origins[service]}/healthz`), {
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(answer.status, service).toBe(403);
      expect(answer.json().error.code, service).toBe('HTTPS_REQUIRED');
    }
  });

  it('answers an unknown path on the portfolio port with a JSON 404 NOT_FOUND', async () => {
    const answer = await request(`${portico().origins.portfolio}/v1/external/no-such-thing`, {
      ca: portico().ca,
    });
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.json()).toEqual({
      error: { code: 'NOT_FOUND', message: expect.any(String), requestId: answer.headers['x-request-id'] },
    });
  });

  it('sends an x-request-id header on every response, a new one per request', async () => {
    const ids: unknown[] = [];
    for (const service of SERVICES) {
      for (let i = 0; i < 2; i += 1) {
        const answer = await request(`${portico().origins[service]}/healthz`, { ca: portico().ca });
        expect(answer.headers['x-request-id'], service).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
        ids.push(answer.headers['x-request-id']);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a sane incoming X-Request-Id and replaces one that is not', async () => {
    const sane = 'trace-2f1c9a.7:b_X';
    const echoed = await request(`${portico().origins.portfolio}/no-such-path`, {
      ca: portico().ca,
      headers: { 'x-request-id': sane },
    });
    expect(echoed.headers['x-request-id']).toBe(sane);
    expect(echoed.json().error.requestId).toBe(sane);

    for (const insane of ['short', 'has spaces in it', 'x'.repeat(65), 'semi;colon<script>']) {
      const replaced = await request(`${portico().origins.transactions}/healthz`, {
        ca: portico().ca,
        headers: { 'x-request-id': insane },
      });
      expect(replaced.headers['x-request-id'], insane).toMatch(/^req_/);
    }

    const refused = await request(plainHttp(`${portico().origins.transactions}/healthz`), {
      headers: { 'x-request-id': sane },
    });
    expect(refused.json().error.requestId).toBe(sane);
  });

  it('writes demo.json in the data dir with the demo facts and the ports actually used', async () => {
    const facts = JSON.parse(await readFile(demoFactsPath(portico().dataDir), 'utf8')) as DemoFacts;
    expectDemoFacts(facts, new URL('/dashboard', facts.portfolio.url).href);
    expect(facts).toEqual(portico().running.demo);
    expect(facts.caCertPath).toBe(portico().running.caCertPath);
    expect(facts.transactions.apiKey).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);

    const transactionsUrl = new URL(facts.transactions.url);
    const portfolioUrl = new URL(facts.portfolio.url);
    expect(transactionsUrl.origin).toBe(portico().origins.transactions);
    expect(transactionsUrl.pathname).toBe('/beta');
    expect(portfolioUrl.origin).toBe(portico().origins.portfolio);
    expect(portfolioUrl.pathname).toBe('/v1/external');
    // Both were asked for port 0: the facts name the ports the system chose, where the services answer.
    for (const url of [transactionsUrl, portfolioUrl]) {
      expect(url.protocol).toBe('https:');
      expect(url.hostname).toBe('localhost');
      expect(Number(url.port)).toBeGreaterThan(0);
      const answer = await request(new URL('/healthz', url), { ca: portico().ca });
      expect(answer.status).toBe(200);
    }
    expect(transactionsUrl.port).not.toBe(portfolioUrl.port);
  });
});

describe('Portico behind a trusted TLS-terminating proxy', () => {
  const portico = useStarted({ trustProxy: true, demo: false });

  it('serves plain HTTP that the proxy forwards with X-Forwarded-Proto: https', async () => {
    for (const service of SERVICES) {
      const answer = await request(plainHttp(`${portico().origins[service]}/healthz`), {
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(answer.status, service).toBe(200);
      expect(answer.json(), service).toEqual({ status: 'ok' });
    }
  });

  it('refuses plain HTTP forwarded as http, through an http hop, or without X-Forwarded-Proto', async () => {
    const cases: Record<string, Record<string, string>> = {
      http: { 'x-forwarded-proto': 'http' },
      'an http hop': { 'x-forwarded-proto': 'https, http' },
      absent: {},
    };
    for (const service of SERVICES) {
      for (const [name, headers] of Object.entries(cases)) {
        const answer = await request(plainHttp(`${portico().origins[service]}/healthz`), { headers });
        expect(answer.status, `${service}, ${name}`).toBe(403);
        expect(answer.json().error.code, `${service}, ${name}`).toBe('HTTPS_REQUIRED');
      }
    }
  });

  it('still answers direct HTTPS', async () => {
    const answer = await request(`${portico().origins.transactions}/healthz`, { ca: portico().ca });
    expect(answer.status).toBe(200);
  });
});

// These concern the data dir itself (certificate, lock of the embedded database), so they run on the embedded
// database under TEST_DATABASE_URL too.
describe('the data directory', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  /** A data dir with the embedded database already in it (these tests are about the certificate and lock). */
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-datadir-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await seedEmbeddedDatabase(dir);
    return dir;
  };

  it('generates the TLS certificate once and reuses it when started again on the same data dir', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir, embedded: true, demo: false, only: 'portfolio' });
    await first.stop();
    expect(first.running.caCertPath.startsWith(dataDir)).toBe(true);
    expect(first.ca).toMatch(/^-----BEGIN CERTIFICATE-----/);

    const second = await start({ dataDir, embedded: true, demo: false, only: 'portfolio' });
    cleanups.push(() => second.stop());
    expect(second.running.caCertPath).toBe(first.running.caCertPath);
    expect(second.ca).toBe(first.ca);
    // A client that trusted the first start's certificate still reaches the second.
    const answer = await request(`${second.origins.portfolio}/healthz`, { ca: first.ca });
    expect(answer.status).toBe(200);
  });

  it('refuses a second serve() on the same embedded data dir with DataDirLockedError while the first runs', async () => {
    const dataDir = await tempDir();
    const first = await start({ dataDir, embedded: true, demo: false, only: 'portfolio' });
    cleanups.push(() => first.stop());

    const second = start({ dataDir, embedded: true, demo: false, only: 'portfolio' });
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toThrow(
      `the embedded database in ${dataDir} is in use by process ${process.pid}`,
    );

    // The refused start left the first one's lock and service alone.
    expect(existsSync(lockPath(dataDir))).toBe(true);
    const answer = await request(`${first.origins.portfolio}/readyz`, { ca: first.ca });
    expect(answer.status).toBe(200);
  });
});
