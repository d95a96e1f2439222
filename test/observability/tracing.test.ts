import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tracingWanted } from '../../src/config.ts';
import { openDatabase, type OpenedDatabase } from '../../src/db/open-database.ts';
import { createLogger } from '../../src/logger.ts';
import { startTracing } from '../../src/observability/tracing.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { ROOT } from '../support/cli.ts';
import { DIALECT, createTestDatabase } from '../support/db/database.ts';
import { CLIENT, SERVER, startOtlpReceiver, type ReceivedSpan } from '../support/peers/otlp-receiver.ts';
import { seedEmbeddedDatabase } from '../support/db/pglite-template.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';
import { createTestFileStore, graphql, transactionInput } from '../support/data/transactions.ts';

const attribute = (span: ReceivedSpan, key: string) =>
  span.attributes.find((a) => a.key === key)?.value.stringValue;

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The database as `serve` opens it: the embedded one in a data dir, or a PostgreSQL schema of its own. */
async function openLikeServe(): Promise<{ opened: OpenedDatabase; cleanup(): Promise<void> }> {
  if (DIALECT === 'postgres') {
    const test = await createTestDatabase();
    if (!test.connection) throw new Error('a PostgreSQL test database has connection settings');
    const url = new URL(test.connection.url);
    url.searchParams.set('options', test.connection.options);
    const opened = await openDatabase({ databaseUrl: url.href, dataDir: tmpdir() });
    return { opened, cleanup: () => test.close() };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-tracing-'));
  await seedEmbeddedDatabase(dataDir);
  const opened = await openDatabase({ dataDir });
  return { opened, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let tracing: { stop(): Promise<void> };
  let database: Awaited<ReturnType<typeof openLikeServe>>;
  let files: Awaited<ReturnType<typeof createTestFileStore>>;
  let organization: OrganizationStory;
  let app: FastifyInstance;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    // Exported within 20 ms of ending rather than the default 5 s: the SDK reads it, as every OTEL_* variable.
    vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '20');
    tracing = await startTracing({
      enabled: tracingWanted(process.env),
      serviceName: 'portico-transactions',
    });
    database = await openLikeServe();
    files = await createTestFileStore();
    organization = await organizationStory(database.opened.db, files.files, { transactions: [] });
    const logger = createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    app = await buildTransactionsApp({
      db: database.opened.db,
      files: files.files,
      environment: 'staging',
      logger,
    });
  });

  afterAll(async () => {
    await app.close();
    await tracing.stop();
    await database.opened.close();
    await database.cleanup();
    await files.cleanup();
    await receiver.close();
    vi.unstubAllEnvs();
  });

  it("continues the caller's traceparent in a span named by route and operation, with statements as children", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    const input = transactionInput(organization);
    const answer = await graphql(
      app,
      organization.apiKey,
      `
        # made by the test
        mutation CreateInvestor($input: CreateTransactionInput!) {
          createTransaction(input: $input) {
            transactionId
          }
        }
      `,
      { input },
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(answer.body.errors).toBeUndefined();

    const server = await until(
      () => receiver.spans.find((span) => span.traceId === traceId && span.kind === SERVER),
      'the server span',
    );
    expect(server).toMatchObject({
      parentSpanId: callerSpanId,
      name: 'POST /beta CreateInvestor',
      service: 'portico-transactions',
    });
    expect(attribute(server, 'graphql.operation.name')).toBe('CreateInvestor');
    expect(attribute(server, 'http.route')).toBe('/beta');

    // Every statement descends from the request's span; the insert of the transaction is one of them, its text
    // without the values it was given.
    const statements = await until(() => {
      const found = receiver.spans.filter(
        (span) => span.traceId === traceId && attribute(span, 'db.query.text') !== undefined,
      );
      return found.some((span) => /insert into transactions/.test(attribute(span, 'db.query.text') ?? ''))
        ? found
        : undefined;
    }, 'the statement spans');
    const byId = new Map(receiver.spans.map((span) => [span.spanId, span]));
    for (const statement of statements) {
      expect(statement.kind).toBe(CLIENT);
      expect(attribute(statement, 'db.system.name')).toBe('postgresql');
      expect(attribute(statement, 'db.query.text')).not.toContain(String(input.noticeEmail));
      let parent = byId.get(statement.parentSpanId ?? '');
      while (parent && parent.spanId !== server.spanId) parent = byId.get(parent.parentSpanId ?? '');
      expect(parent?.spanId).toBe(server.spanId);
    }

    // The request's one log line carries the same trace.
    const requestId = String(answer.headers['x-request-id']);
    const requestLines = lines.filter((line) => line.requestId === requestId && 'res' in line);
    expect(requestLines).toEqual([
      expect.objectContaining({ msg: 'request completed', traceId, spanId: server.spanId }),
    ]);
  });
});

describe('tracing without the OTLP variables', () => {
  it('is on only when an OTLP endpoint is named and nothing standard turns it off', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted(endpoint)).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('loads no OpenTelemetry module', async () => {
    // A process in which importing any @opentelemetry package fails starts tracing as `serve` does, loads what
    // `serve` and the worker load before their services (the services' apps are built on base-app), and answers
    // a request and writes a log line: it succeeds only if nothing imports one.
    const refuse = `data:text/javascript,${encodeURIComponent(
      `export async function resolve(specifier, context, next) {
         if (specifier.startsWith('@opentelemetry/')) throw new Error('loaded ' + specifier);
         return next(specifier, context);
       }`,
    )}`;
    const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(refuse)});
      const { tracingWanted } = await import('./src/config.ts');
      const { startTracing, activeTracing } = await import('./src/observability/tracing.ts');
      await startTracing({ enabled: tracingWanted({ PORTICO_LOG_LEVEL: 'info' }), serviceName: 'portico' });
      await import('./src/serve.ts');
      await import('./src/worker.ts');
      const { createLogger } = await import('./src/logger.ts');
      const { createBaseApp } = await import('./src/http/base-app.ts');
      const logger = createLogger('info', { write: () => undefined });
      const app = await createBaseApp({ db: { query: async () => [] }, logger });
      const answer = await app.inject('/readyz');
      await app.close();
      process.stdout.write(activeTracing() === undefined ? 'untraced ' + answer.statusCode : 'traced');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out, err }).toEqual({ code: 0, out: 'untraced 200', err: '' });
  });
});
