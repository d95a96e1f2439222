// Several nodes of one deployment on one PostgreSQL database, each `serve()` in this process on a data dir of its
// own. PostgreSQL only: the embedded database has one node by construction.
import { Writable } from 'node:stream';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type RawConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { readDemoFacts } from '../../src/demo/demo-facts.ts';
import { registerServingNode } from '../../src/files/shared-storage-check.ts';
import { createLogger } from '../../src/logger.ts';
import { serve, type RunningPortico, type ServeOptions } from '../../src/serve.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db/database.ts';
import { testTls } from '../support/peers/tls-listener.ts';

/** The warnings a node logged, as pino wrote them. */
function warningsLog(): { logger: ReturnType<typeof createLogger>; messages: () => string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    logger: createLogger('warn', stream),
    messages: () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
  };
}

describe.skipIf(TEST_DATABASE_URL === undefined)('nodes of one deployment on one PostgreSQL database', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let scratch = '';
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'portico-nodes-'));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  });
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A fresh PostgreSQL schema, as DATABASE_URL reaches it (`?options=-c search_path=…`), dropped after all. */
  async function database(): Promise<{ url: string; test: TestDatabase }> {
    const test = await createTestDatabase();
    cleanups.push(() => test.close());
    if (!test.connection) throw new Error('a PostgreSQL test database has connection settings');
    const url = new URL(test.connection.url);
    url.searchParams.set('options', test.connection.options);
    return { url: url.href, test };
  }

  let nodes = 0;
  /** `serve()` of one node on `databaseUrl`, on a data dir of its own, stopped after all. */
  async function startNode(
    databaseUrl: string,
    flags: RawConfig = {},
    logger = createLogger('silent'),
    only: ServeOptions['only'] = 'transactions',
  ): Promise<RunningPortico> {
    nodes += 1;
    const config = loadConfig(
      {},
      {
        dataDir: join(scratch, `node-${String(nodes)}`),
        transactionsPort: '0',
        portfolioPort: '0',
        ...flags,
        databaseUrl,
      },
    );
    const running = await serve(config, { logger, print: () => undefined, demo: false, only });
    cleanups.push(() => running.close());
    return running;
  }

  const liveNodes = async (db: Database) =>
    (await db.query<{ count: string }>('select count(*) from nodes'))[0]?.count;

  it('refuses a second node that keeps files in its data dir, saying what to set, and starts it with PORTICO_FILE_STORAGE=local, warning', async () => {
    const { url, test } = await database();
    const first = await startNode(url);
    expect(await liveNodes(test.db)).toBe('1');

    const refused = await startNode(url).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    const message = (refused as Error).message;
    expect(message).toMatch(/^another Portico node \(host .+, process \d+\) serves this database/);
    expect(message).toContain('set the PORTICO_S3_* variables on every node');
    expect(message).toContain('PORTICO_FILE_STORAGE=local if this is the only node');
    // The refused node left no row behind.
    expect(await liveNodes(test.db)).toBe('1');
    // A node serving Portfolio alone stores no files: it starts beside the other.
    const portfolioOnly = await startNode(url, {}, createLogger('silent'), 'portfolio');
    await portfolioOnly.close();

    const log = warningsLog();
    const stated = await startNode(url, { fileStorage: 'local' }, log.logger);
    expect(stated.urls.transactions).toMatch(/^https:\/\/localhost:\d+/);
    expect(log.messages()).toContain(
      'another node serves this database while this one keeps files in its data dir: files uploaded here are missing there (set the PORTICO_S3_* variables on every node)',
    );
    // A generated certificate differs on each node: said at start.
    expect(
      log.messages().some((line) => line.startsWith('each node generates its own self-signed certificate')),
    ).toBe(true);
    expect(await liveNodes(test.db)).toBe('2');

    await first.close();
    await stated.close();
    expect(await liveNodes(test.db)).toBe('0');

    // A node gone without a word (its row unseen for 30 s), and this node's own row from before a crash (same
    // host, same data dir), do not count: the node starts, and the gone one's row is deleted.
    const config = loadConfig({}, { dataDir: join(scratch, 'restarted'), databaseUrl: url });
    await test.db.query(
      `insert into nodes (hostname, pid, kind, file_storage, files_location, last_seen_at) values
         ('gone.example', 1, 'serve', 'local', '/var/lib/portico/files', clock_timestamp() - interval '31 seconds'),
         ($1, 2, 'serve', 'local', $2, clock_timestamp())`,
      [hostname(), join(config.dataDir, 'files')],
    );
    const restarted = await registerServingNode(test.db, config, createLogger('silent'));
    expect(
      (await test.db.query<{ hostname: string }>('select hostname from nodes order by started_at')).map(
        (row) => row.hostname,
      ),
    ).toEqual([hostname(), hostname()]);
    await restarted.stop();
  });

  it('seeds an empty database once when two nodes start at once, and gives both the same demo facts, in a data dir it makes', async () => {
    const { url, test } = await database();
    // The second node has a certificate of its own and a data dir that does not exist yet.
    const tls = await testTls();
    await writeFile(join(scratch, 'cert.pem'), tls.cert);
    await writeFile(join(scratch, 'key.pem'), tls.key);
    const missingDir = join(scratch, 'not-made-yet', 'data');
    const start = (flags: RawConfig) => {
      const config = loadConfig(
        {},
        { transactionsPort: '0', portfolioPort: '0', fileStorage: 'local', ...flags, databaseUrl: url },
      );
      return serve(config, { logger: createLogger('silent'), print: () => undefined, demo: true }).then(
        (running) => {
          cleanups.push(() => running.close());
          return running;
        },
      );
    };
    const [one, two] = await Promise.all([
      start({ dataDir: join(scratch, 'seeding-1') }),
      start({
        dataDir: missingDir,
        tlsCert: join(scratch, 'cert.pem'),
        tlsKey: join(scratch, 'key.pem'),
      }),
    ]);
    const count = async (table: string) =>
      (await test.db.query<{ count: string }>(`select count(*) from ${table}`))[0]?.count;
    expect(await count('organizations')).toBe('1');
    expect(await count('portfolio_instances')).toBe('1');

    // Whichever node seeded, both name the demo's key and sign-ins: the other took them from the database.
    expect(one.demo?.transactions.apiKey).toMatch(/^sk_test_/);
    expect(two.demo?.transactions.apiKey).toBe(one.demo?.transactions.apiKey);
    expect(two.demo?.portfolio.dashboard?.password).toBe(one.demo?.portfolio.dashboard?.password);
    expect((await readDemoFacts(missingDir))?.transactions.apiKey).toBe(one.demo?.transactions.apiKey);
    expect((await stat(missingDir)).mode & 0o777).toBe(0o700);
  });
});
