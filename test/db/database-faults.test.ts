import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPostgresDatabase } from '../../src/db/postgres-database.ts';
import {
  isConnectionFailure,
  isConnectionRefusal,
  translateDatabaseError,
} from '../../src/db/database-errors.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { AppError } from '../../src/errors.ts';
import { generateApiKey } from '../../src/keys/api-key.ts';
import { startWebhookWorker } from '../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { DROP_DATABASE_TIMEOUT_MS, dropDatabases } from '../support/db/database.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';
import { startTcpProxy, type TcpProxy } from '../support/peers/tcp-proxy.ts';
import {
  CREATE_TRANSACTION,
  REFERENCE_QUERY,
  createTestFileStore,
  graphql,
  transactionsApp,
  type GraphQLResponse,
  transactionInput,
} from '../support/data/transactions.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { startWebhookReceiver } from '../support/peers/webhook-receiver.ts';

// Faults are played on a PostgreSQL server (they are about pg's connections), whichever database the suite is
// given, in a schema of their own: CI runs this file once, in its PostgreSQL pass (group ONCE, vitest.config.ts).
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `test_faults_${randomBytes(6).toString('hex')}`;
const searchPath = `-c search_path=${schema}`;

let proxy: TcpProxy;
let direct: Database;
let files: FileStore;
let cleanupFiles: () => Promise<void>;
const opened: Database[] = [];

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database as the service opens it, named by `application_name` so that a test can find its backends, and
 * reaching the server through the proxy or directly.
 */
function serviceDatabase(options: { viaProxy: boolean; connectTimeoutMs?: number }): {
  db: Database;
  applicationName: string;
} {
  const applicationName = `portico_faults_${randomBytes(4).toString('hex')}`;
  const url = new URL(SERVER_URL);
  if (options.viaProxy) {
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
  }
  url.searchParams.set('application_name', applicationName);
  const db = createPostgresDatabase({
    connectionString: url.toString(),
    connectionOptions: searchPath,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
  opened.push(db);
  return { db, applicationName };
}

/** Ends the server backends of one application, as a restart, a failover or a proxy's idle timeout does. */
function terminateBackends(applicationName: string): Promise<number> {
  return withAdmin(async (client) => {
    const { rows } = await client.query<{ count: number }>(
      `select count(*)::int as count from
         (select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1) terminated`,
      [applicationName],
    );
    return rows[0]?.count ?? 0;
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Outcome = 'ok' | 'unavailable';

/**
 * What a GraphQL client saw: data, or a 503 with `Retry-After` whose errors are all SERVICE_UNAVAILABLE with a
 * request id — whether the request stopped before execution (authentication) or a resolver's statement
 * failed. Anything else (a 500, a masked internal error) fails the test.
 */
function outcomeOf(response: GraphQLResponse): Outcome {
  const errors = response.body.errors ?? [];
  if (errors.length === 0) {
    expect(response.status).toBe(200);
    expect(response.body.data).toBeTruthy();
    return 'ok';
  }
  expect(response.status).toBe(503);
  expect(response.headers['retry-after']).toBe('5');
  for (const error of errors) {
    expect(error.message).toBe('The database is unavailable; try again shortly.');
    expect(error.extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      requestId: response.headers['x-request-id'],
    });
  }
  return 'unavailable';
}

async function countTransactions(organizationId: string): Promise<number> {
  const [row] = await direct.query<{ count: string }>(
    'select count(*) as count from transactions where organization_id = $1',
    [organizationId],
  );
  return Number(row?.count);
}

/** Reads until one succeeds; returns how long that took, in milliseconds. */
async function untilServing(
  app: FastifyInstance,
  story: OrganizationStory,
  withinMs: number,
): Promise<number> {
  const start = Date.now();
  for (;;) {
    const response = await graphql(app, story.apiKey, REFERENCE_QUERY, { id: story.transactionId });
    if (outcomeOf(response) === 'ok') return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`still unavailable after ${withinMs} ms`);
    await sleep(100);
  }
}

beforeAll(async () => {
  await withAdmin((client) => client.query(`create schema ${schema}`));
  direct = createPostgresDatabase({ connectionString: SERVER_URL, connectionOptions: searchPath });
  await migrate(direct);
  const server = new URL(SERVER_URL);
  proxy = await startTcpProxy({
    host: server.hostname === '' ? '127.0.0.1' : server.hostname,
    port: Number(server.port === '' ? 5432 : server.port),
  });
  ({ files, cleanup: cleanupFiles } = await createTestFileStore());
});

afterAll(async () => {
  for (const db of opened) await db.close();
  await proxy.close();
  await direct.close();
  await withAdmin((client) => client.query(`drop schema ${schema} cascade`));
  await cleanupFiles();
});

/** A JSON route's answer while the database cannot be reached: 503 with Retry-After, in the REST shape. */
function expectDatabaseUnavailable(page: LightMyRequestResponse): void {
  expect(page.statusCode).toBe(503);
  expect(page.headers['retry-after']).toBe('5');
  expect(page.json()).toEqual({
    error: {
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable; try again shortly.',
      requestId: page.headers['x-request-id'],
    },
  });
}

describe('a PostgreSQL server that ends or refuses connections', () => {
  it('keeps the service up, answering data or 503, while its connections are terminated again and again, and loses no acknowledged mutation', async () => {
    const { db, applicationName } = serviceDatabase({ viaProxy: false });
    const story = await organizationStory(db, files);
    const app = await transactionsApp(db, files);
    const before = await countTransactions(story.organizationId);

    // An object: the killer reads it between its awaits, the test ends the storm.
    const storm = { raging: true };
    const killer = (async () => {
      let terminated = 0;
      while (storm.raging) {
        terminated += await terminateBackends(applicationName);
        await sleep(100 + Math.random() * 100);
      }
      return terminated;
    })();

    const mutations: { key: string; input: ReturnType<typeof transactionInput>; transactionId?: string }[] =
      [];
    /** createTransaction with the mutation's idempotency key. */
    const create = (mutation: (typeof mutations)[number]) =>
      graphql(
        app,
        story.apiKey,
        CREATE_TRANSACTION,
        { input: mutation.input },
        { 'idempotency-key': mutation.key },
      );
    const tally = { reads: { ok: 0, unavailable: 0 }, mutations: { ok: 0, unavailable: 0 } };
    const until = Date.now() + 3000;
    await Promise.all(
      Array.from({ length: 8 }, async (_, lane) => {
        for (let turn = lane; Date.now() < until; turn += 1) {
          if (turn % 2 === 0) {
            const response = await graphql(app, story.apiKey, REFERENCE_QUERY, { id: story.transactionId });
            tally.reads[outcomeOf(response)] += 1;
          } else {
            const mutation: (typeof mutations)[number] = {
              key: randomUUID(),
              input: transactionInput(story),
            };
            mutations.push(mutation);
            const response = await create(mutation);
            const outcome = outcomeOf(response);
            tally.mutations[outcome] += 1;
            if (outcome === 'ok')
              mutation.transactionId = response.body.data?.createTransaction.transactionId;
          }
        }
      }),
    );
    storm.raging = false;
    const terminated = await killer;
    const recoveryMs = await untilServing(app, story, 5000);
    console.info('terminate storm', { terminated, ...tally, recoveryMs });

    expect(terminated).toBeGreaterThan(10);
    expect(tally.reads.unavailable + tally.mutations.unavailable).toBeGreaterThan(0);
    expect(tally.reads.ok + tally.mutations.ok).toBeGreaterThan(0);

    for (const { transactionId } of mutations.filter((mutation) => mutation.transactionId)) {
      const [row] = await direct.query<{ count: string }>(
        'select count(*) as count from transactions where id = $1',
        [transactionId],
      );
      expect(row?.count).toBe('1');
    }
    // Retrying every mutation with its key: the acknowledged ones answer what they answered, the others are
    // done now, and none twice.
    for (const mutation of mutations) {
      const response = await create(mutation);
      expect(outcomeOf(response)).toBe('ok');
      const transactionId: string = response.body.data?.createTransaction.transactionId;
      if (mutation.transactionId !== undefined) expect(transactionId).toBe(mutation.transactionId);
      mutation.transactionId = transactionId;
    }
    expect(new Set(mutations.map((mutation) => mutation.transactionId)).size).toBe(mutations.length);
    expect(await countTransactions(story.organizationId)).toBe(before + mutations.length);
    await app.close();
  });

  it('answers 503 at once while the server refuses connections, readyz too, and serves again within 5 s of its return', async () => {
    const { db } = serviceDatabase({ viaProxy: true });
    const story = await organizationStory(db, files);
    const app = await transactionsApp(db, files);
    expect(await untilServing(app, story, 5000)).toBeLessThan(5000);

    proxy.setMode('refuse');
    const outageEnds = Date.now() + 10_000;
    const slowest = { read: 0, mutation: 0, readyz: 0, page: 0 };
    let answered = 0;
    let unavailable = 0;
    try {
      while (Date.now() < outageEnds - 500) {
        let start = Date.now();
        const read = await graphql(app, story.apiKey, REFERENCE_QUERY, { id: story.transactionId });
        slowest.read = Math.max(slowest.read, Date.now() - start);
        expect(outcomeOf(read)).toBe('unavailable');

        start = Date.now();
        const mutation = await graphql(
          app,
          story.apiKey,
          CREATE_TRANSACTION,
          { input: transactionInput(story) },
          { 'idempotency-key': randomUUID() },
        );
        slowest.mutation = Math.max(slowest.mutation, Date.now() - start);
        expect(outcomeOf(mutation)).toBe('unavailable');

        start = Date.now();
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        slowest.readyz = Math.max(slowest.readyz, Date.now() - start);
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'unavailable' } });

        // The JSON routes answer through the shared error handler: 503 with Retry-After.
        start = Date.now();
        const page = await app.inject({ method: 'GET', url: `/recipient/${'t'.repeat(43)}` });
        slowest.page = Math.max(slowest.page, Date.now() - start);
        expectDatabaseUnavailable(page);

        answered += 4;
        unavailable += 4;
        await sleep(250);
      }
      await sleep(Math.max(0, outageEnds - Date.now()));
    } finally {
      proxy.setMode('forward');
    }
    const recoveryMs = await untilServing(app, story, 5000);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    console.info('10 s outage', { answered, unavailable, slowestMs: slowest, recoveryMs });

    // At once: well under the 5 s a connect timeout would take, with room for a loaded machine's stalls.
    expect(Math.max(...Object.values(slowest))).toBeLessThan(2500);
    expect(recoveryMs).toBeLessThan(5000);
    expect(ready.statusCode).toBe(200);
    await app.close();
  });

  it('answers 503 within the connect timeout when the server does not answer at all', async () => {
    const { db } = serviceDatabase({ viaProxy: true, connectTimeoutMs: 500 });
    const story = await organizationStory(direct, files);
    const app = await transactionsApp(db, files);
    proxy.setMode('blackhole');
    try {
      // The pool hears its open connections being cut and drops them; what follows must connect anew.
      await sleep(200);
      const start = Date.now();
      const read = await graphql(app, story.apiKey, REFERENCE_QUERY, { id: story.transactionId });
      const elapsed = Date.now() - start;
      expect(outcomeOf(read)).toBe('unavailable');
      expect(elapsed).toBeGreaterThanOrEqual(450);
      expect(elapsed).toBeLessThan(3000);
    } finally {
      proxy.setMode('forward');
    }
    expect(await untilServing(app, story, 5000)).toBeLessThan(5000);
    await app.close();
  });

  it('answers 503 when every connection of the pool stays busy past the connect timeout', async () => {
    const busy = createPostgresDatabase({
      connectionString: SERVER_URL,
      connectionOptions: searchPath,
      maxConnections: 1,
      connectTimeoutMs: 300,
    });
    opened.push(busy);
    // The one connection exists first, so only the wait for it is timed, not its opening.
    await busy.query('select 1');
    const holding = busy.transaction((tx) => tx.query('select pg_sleep(1)'));
    const start = Date.now();
    const waited = await busy.query('select 1').catch((caught: unknown) => caught);
    expect(Date.now() - start).toBeLessThan(900);
    expect(waited).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 });
    await holding;
    expect(await busy.query('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('passes a statement error that is not about the connection through unchanged', async () => {
    const { db } = serviceDatabase({ viaProxy: false });
    const error = await db
      .transaction(async (tx) => {
        await tx.query("insert into schema_migrations (version, name) values (1, 'again')");
      })
      .catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: '23505' });
    // The connection it ran on is still good.
    expect(await db.query('select 1 as one')).toEqual([{ one: 1 }]);
  });
});

describe('a PostgreSQL database that does not allow connections (ALLOW_CONNECTIONS false)', () => {
  const made: string[] = [];
  afterAll(() => dropDatabases(SERVER_URL, made), DROP_DATABASE_TIMEOUT_MS);

  it('answers 503 with Retry-After, readyz too, stops a start in one line, and answers again once it allows them', async () => {
    // A database of its own: ALLOW_CONNECTIONS is a property of a database, not of a schema.
    const name = `portico_refusing_${randomBytes(4).toString('hex')}`;
    await withAdmin((client) => client.query(`create database ${name}`));
    made.push(name);
    const url = new URL(SERVER_URL);
    url.pathname = `/${name}`;
    // A throwaway database: its migrations need not wait for the disk.
    const db = createPostgresDatabase({
      connectionString: url.href,
      connectionOptions: '-c synchronous_commit=off',
    });
    let app: FastifyInstance | undefined;
    try {
      await migrate(db);
      app = await transactionsApp(db, files);
      const service = app;
      // A key that exists nowhere, new each time (nothing cached): its answer needs the database.
      const read = () => graphql(service, generateApiKey('staging'), '{ __typename }');
      const recipientPage = () => service.inject({ method: 'GET', url: `/recipient/${'t'.repeat(43)}` });
      expect((await read()).status).toBe(401);

      await withAdmin(async (client) => {
        await client.query(`alter database ${name} allow_connections false`);
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [
          name,
        ]);
      });
      // The pool learns of its terminated connections as their sockets close; then it must connect anew, and the
      // server refuses at connect time with SQLSTATE 55000.
      let refused: unknown;
      for (let attempt = 0; attempt < 100 && refused === undefined; attempt += 1) {
        const failure: unknown = await db.query('select 1').then(
          () => undefined,
          (caught: unknown) => caught,
        );
        if (
          (failure as { cause?: { cause?: { code?: unknown } } } | undefined)?.cause?.cause?.code === '55000'
        )
          refused = failure;
        else expect(failure === undefined || isConnectionFailure(failure)).toBe(true);
      }
      expect(refused).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 5 });

      expect(outcomeOf(await read())).toBe('unavailable');
      const page = await recipientPage();
      expectDatabaseUnavailable(page);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);

      // A start, unlike a request, stops with one line for the operator.
      await expect(openDatabase({ databaseUrl: url.href, dataDir: '' })).rejects.toThrow(
        `Cannot reach the PostgreSQL server of DATABASE_URL: database "${name}" is not currently accepting connections`,
      );

      // The next connection after the change is taken: nothing to wait for, nothing to restart.
      await withAdmin((client) => client.query(`alter database ${name} allow_connections true`));
      expect((await read()).status).toBe(401);
      expect((await recipientPage()).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await app?.close();
      await db.close();
    }
  });
});

describe('which database errors mean the database is unavailable', () => {
  const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

  it('counts lost and refused connections, server shutdowns and connect timeouts', () => {
    for (const error of [
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P02'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      withCode('08001'),
      withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      withCode('ECONNRESET', 'read ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''),
    ]) {
      expect(isConnectionFailure(error)).toBe(true);
      expect(translateDatabaseError(error)).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
        retryAfterSeconds: 5,
        cause: error,
      });
    }
  });

  it('leaves errors of the statement itself as they are', () => {
    for (const error of [
      withCode('23505', 'duplicate key value violates unique constraint'),
      withCode('40001', 'could not serialize access'),
      withCode('57014', 'canceling statement due to statement timeout'),
      withCode('42601', 'syntax error'),
      new Error('something else'),
      new AppError('NOT_FOUND', 'No such transaction.'),
    ]) {
      expect(isConnectionFailure(error)).toBe(false);
      expect(translateDatabaseError(error)).toBe(error);
    }
  });

  it('translates an error once', () => {
    const translated = translateDatabaseError(new Error('Connection terminated unexpectedly'));
    expect(isConnectionFailure(translated)).toBe(true);
    expect(translateDatabaseError(translated)).toBe(translated);
  });
});

describe('opening a PostgreSQL server that will not take us as configured', () => {
  function urlWith(change: (url: URL) => void): string {
    const url = new URL(SERVER_URL);
    change(url);
    return url.href;
  }

  it("says in the server's words, without a stack, that the database of DATABASE_URL does not exist", async () => {
    const name = `portico_missing_${randomBytes(4).toString('hex')}`;
    const opening = openDatabase({ databaseUrl: urlWith((url) => (url.pathname = `/${name}`)), dataDir: '' });
    await expect(opening).rejects.toThrow(AppError);
    await expect(opening).rejects.toThrow(
      `The PostgreSQL server of DATABASE_URL refused the connection: database "${name}" does not exist`,
    );
  });

  it('says so when the role of DATABASE_URL does not exist', async () => {
    const role = `portico_nobody_${randomBytes(4).toString('hex')}`;
    const opening = openDatabase({ databaseUrl: urlWith((url) => (url.username = role)), dataDir: '' });
    await expect(opening).rejects.toThrow(
      `The PostgreSQL server of DATABASE_URL refused the connection: role "${role}" does not exist`,
    );
  });

  it('tells a refusal by configuration from a passing outage and from an error of a statement', () => {
    const withCode = (code: string) => Object.assign(new Error('failed'), { code });
    for (const code of ['3D000', '28000', '28P01']) expect(isConnectionRefusal(withCode(code))).toBe(true);
    for (const code of ['57P01', '08006', 'ECONNREFUSED', '23505', '42501']) {
      expect(isConnectionRefusal(withCode(code))).toBe(false);
    }
    expect(isConnectionRefusal(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});

describe('the webhook worker during a database outage', () => {
  it('keeps running, reports the outage once, and delivers the event once the database is back', async () => {
    const receiver = await startWebhookReceiver();
    const received = receiver.bodies;

    const story = await organizationStory(direct, files);
    await createEndpoint(direct, {
      organizationId: story.organizationId,
      url: receiver.url,
      eventTypes: ['transaction.completed'],
      allowInsecure: true,
    });

    const { db } = serviceDatabase({ viaProxy: true });
    proxy.setMode('refuse');
    const reported: unknown[] = [];
    const worker = startWebhookWorker(db, {
      pollMs: 50,
      maxBackoffMs: 400,
      allowInsecure: true,
      delaysMs: [0],
      onError: (error) => reported.push(error),
    });
    try {
      await sleep(1500);
      expect(received).toHaveLength(0);
      // About eight attempts failed; the outage was reported once.
      expect(reported).toHaveLength(1);
      expect(reported[0]).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

      proxy.setMode('forward');
      const restored = Date.now();
      while (received.length === 0 && Date.now() - restored < 5000) await sleep(50);
      console.info('webhook worker', { deliveredAfterMs: Date.now() - restored });
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0] ?? '{}')).toMatchObject({
        type: 'transaction.completed',
        data: { transactionId: story.transactionId },
      });
    } finally {
      proxy.setMode('forward');
      await worker.stop();
      await receiver.close();
    }
  });
});
