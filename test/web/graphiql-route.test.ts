import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBaseApp } from '../../src/http/base-app.ts';
import {
  GRAPHIQL_CONTENT_SECURITY_POLICY,
  registerGraphiQL,
} from '../../src/transactions/graphql/graphiql.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { createTestFileStore, transactionsApp } from '../support/data/transactions.ts';

describe('GET /graphiql on the Transactions service', () => {
  let database: TestDatabase;
  let cleanupFiles: () => Promise<void>;
  let app: FastifyInstance;
  let page: string;
  /** The scripts and style sheets the page names. */
  let assets: string[];

  beforeAll(async () => {
    database = await createTestDatabase();
    const store = await createTestFileStore();
    cleanupFiles = store.cleanup;
    app = await transactionsApp(database.db, store.files);
    page = (await app.inject('/graphiql')).body;
    assets = [...page.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
  });

  afterAll(async () => {
    await app.close();
    await database.close();
    await cleanupFiles();
  });

  it('answers the built page, never cached, under a Content-Security-Policy that allows only this origin', async () => {
    const answer = await app.inject('/graphiql');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(answer.headers['content-security-policy']).toBe(GRAPHIQL_CONTENT_SECURITY_POLICY);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(GRAPHIQL_CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(GRAPHIQL_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(GRAPHIQL_CONTENT_SECURITY_POLICY).toContain("worker-src 'self';");
    expect(GRAPHIQL_CONTENT_SECURITY_POLICY).toContain("connect-src 'self';");
    expect(page).toContain('<div id="graphiql">');
  });

  it('names only assets of its own: nothing from a CDN (Mercurius’ page loaded React and GraphiQL from one)', () => {
    expect(assets.some((path) => path.endsWith('.js'))).toBe(true);
    expect(assets.some((path) => path.endsWith('.css'))).toBe(true);
    expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  it('serves the assets with their content type and a year-long immutable cache, brotli or gzip when accepted', async () => {
    for (const path of assets) {
      const plain = await app.inject(path);
      expect(plain.statusCode, path).toBe(200);
      expect(plain.headers['content-type'], path).toMatch(
        path.endsWith('.css') ? /^text\/css/ : /^application\/javascript/,
      );
      expect(plain.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['x-content-type-options'], path).toBe('nosniff');
      expect(plain.headers['vary'], path).toMatch(/accept-encoding/i);
      expect(plain.headers['content-encoding'], path).toBeUndefined();

      const gzipped = await app.inject({ url: path, headers: { 'accept-encoding': 'gzip' } });
      expect(gzipped.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(gzipped.rawPayload).equals(plain.rawPayload), path).toBe(true);

      // A browser accepts both, and gets the smaller.
      const brotli = await app.inject({
        url: path,
        headers: { 'accept-encoding': 'gzip, deflate, br, zstd' },
      });
      expect(brotli.headers['content-encoding'], path).toBe('br');
      expect(brotli.headers['vary'], path).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(brotli.rawPayload).equals(plain.rawPayload), path).toBe(true);
      expect(brotli.rawPayload.length, path).toBeLessThan(gzipped.rawPayload.length);
    }
  });

  it('answers a range beyond an asset with 416 and a precondition that fails with 412, as JSON errors, not 500', async () => {
    const [path = ''] = assets;
    const unsatisfiable = await app.inject({ url: path, headers: { range: 'bytes=999999999-' } });
    expect(unsatisfiable.statusCode).toBe(416);
    expect(unsatisfiable.json()).toMatchObject({ error: { code: 'RANGE_NOT_SATISFIABLE' } });
    const precondition = await app.inject({ url: path, headers: { 'if-match': '"not-its-etag"' } });
    expect(precondition.statusCode).toBe(412);
    expect(precondition.json()).toMatchObject({ error: { code: 'PRECONDITION_FAILED' } });
  });

  it('answers a JSON 404 NOT_FOUND for an asset that does not exist', async () => {
    const answer = await app.inject('/graphiql/assets/no-such-file.js');
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual({
      error: { code: 'NOT_FOUND', message: expect.any(String), requestId: expect.any(String) },
    });
  });

  it('redirects /graphiql/ to /graphiql', async () => {
    const answer = await app.inject('/graphiql/');
    expect(answer.statusCode).toBe(301);
    expect(answer.headers.location).toBe('/graphiql');
  });
});

describe('GET /graphiql when the front end was not built', () => {
  let database: TestDatabase;
  let emptyDist: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await createTestDatabase();
    emptyDist = await mkdtemp(join(tmpdir(), 'portico-no-web-'));
    app = await createBaseApp({ db: database.db });
    registerGraphiQL(app, { distDir: emptyDist });
  });

  afterAll(async () => {
    await app.close();
    await database.close();
    await rm(emptyDist, { recursive: true, force: true });
  });

  it('answers 503 SERVICE_UNAVAILABLE saying to run npm run build:web', async () => {
    const answer = await app.inject('/graphiql');
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringContaining('npm run build:web'),
        requestId: expect.any(String),
      },
    });
  });
});
