import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loggedUrl } from '../../src/logger.ts';
import { createMailer, type Mailer } from '../../src/mail/mailer.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { sendDueNotices } from '../../src/transactions/recipients/notice-sender.ts';
import { deliverDue, fanOutEvents } from '../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/peers/smtp.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';
import { createTestFileStore, graphql, transactionInput } from '../support/data/transactions.ts';

/** A logger whose lines are kept, parsed, and as written. */
function capturedLogger() {
  const written: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void written.push(line) });
  return {
    logger,
    written,
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const CREATE = `mutation ($input: CreateTransactionInput!) { createTransaction(input: $input) { transactionId } }`;
const TRANSACTIONS_URL = 'https://tx.example.test';

describe('log lines of work done after the request', () => {
  let testDb: TestDatabase;
  let files: Awaited<ReturnType<typeof createTestFileStore>>;
  let organization: OrganizationStory;
  let app: FastifyInstance;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    files = await createTestFileStore();
    organization = await organizationStory(testDb.db, files.files, { transactions: [] });
    app = await buildTransactionsApp({ db: testDb.db, files: files.files, environment: 'staging' });
    smtp = await startSmtpServer();
  });

  afterAll(async () => {
    await app.close();
    await smtp.close();
    await testDb.close();
    await files.cleanup();
  });

  /** Creates a transaction through GraphQL: its id and the request id the answer carried. */
  async function createTransaction(): Promise<{ transactionId: string; requestId: string }> {
    const answer = await graphql<{ createTransaction: { transactionId: string } }>(
      app,
      organization.apiKey,
      CREATE,
      { input: transactionInput(organization) },
    );
    expect(answer.body.errors).toBeUndefined();
    return {
      transactionId: answer.body.data?.createTransaction.transactionId ?? '',
      requestId: String(answer.headers['x-request-id']),
    };
  }

  /** Sends the recipient mail due with `mailer` and what it logged. */
  async function sendWith(make: (logger: ReturnType<typeof capturedLogger>['logger']) => Mailer) {
    const log = capturedLogger();
    const mailer = make(log.logger);
    const counts = await sendDueNotices(testDb.db, {
      mailer,
      transactionsUrl: TRANSACTIONS_URL,
      logger: log.logger,
    });
    mailer.close();
    return { counts, log };
  }

  it('logs a mailed invitation with its request and transaction, and never its link when SMTP is set', async () => {
    const { transactionId, requestId } = await createTransaction();
    const { counts, log } = await sendWith((logger) =>
      createMailer(
        { smtpUrl: smtp.url(), mailFrom: 'Portico <no-reply@portico.test>', dataDir: '/nonexistent' },
        logger,
      ),
    );
    expect(counts.invitations).toBe(1);
    const mail = await smtp.nth(1);
    const link = /https:\/\/tx\.example\.test\/r\/[\w-]+/.exec(mail.parsed.text ?? '')?.[0];
    expect(link).toBeDefined();
    expect(log.lines()).toEqual([
      expect.objectContaining({ msg: 'mail sent', requestId, transactionId, message: 'invitation' }),
    ]);
    for (const line of log.written) expect(line).not.toContain(link?.split('/r/')[1]);
  });

  it('logs the link with the request and transaction when mail goes to files', async () => {
    const { transactionId, requestId } = await createTransaction();
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-mail-log-'));
    try {
      const { log } = await sendWith((logger) =>
        createMailer({ smtpUrl: undefined, mailFrom: 'Portico <no-reply@portico.test>', dataDir }, logger),
      );
      expect(log.lines()).toEqual([
        expect.objectContaining({
          msg: 'mail written to a file (no PORTICO_SMTP_URL)',
          requestId,
          transactionId,
          links: [expect.stringMatching(/^https:\/\/tx\.example\.test\/r\/[\w-]+$/)],
        }),
      ]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('logs a failed webhook delivery at warn with the endpoint without its query, the status and the cause', async () => {
    const receiver = createServer((_request, response) => {
      response.writeHead(503).end('down for maintenance');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const port = (receiver.address() as AddressInfo).port;
      await createEndpoint(testDb.db, {
        organizationId: organization.organizationId,
        url: `http://127.0.0.1:${String(port)}/hooks?token=receiver-secret`,
        eventTypes: ['transaction.state_changed'],
        allowInsecure: true,
      });
      const { transactionId, requestId } = await createTransaction();
      const log = capturedLogger();
      await fanOutEvents(testDb.db);
      await deliverDue(testDb.db, { allowInsecure: true, delaysMs: [60_000], logger: log.logger });
      // The earlier tests' transactions were fanned out to the endpoint too: this one's delivery is the subject.
      const failed = log
        .lines()
        .filter((line) => line.msg === 'webhook delivery failed' && line.transactionId === transactionId);
      expect(failed).toEqual([
        expect.objectContaining({
          level: 40,
          endpoint: `http://127.0.0.1:${String(port)}/hooks`,
          status: 503,
          attempt: 1,
          transactionId,
          requestId,
        }),
      ]);
      for (const line of log.written) expect(line).not.toContain('receiver-secret');
    } finally {
      await new Promise<void>((resolve) =>
        receiver.close(() => {
          resolve();
        }),
      );
    }
  });
});

describe('the request log line', () => {
  const token = '6f1c9a2e-4b7d-4e0a-9c3f-0d5e8b1a7c42';

  it('keeps the path of a request but replaces every credential it carries with [redacted]', () => {
    expect(loggedUrl(`/r/${token}`)).toBe('/r/[redacted]');
    expect(loggedUrl(`/r/${token}/subscription/items/aboutYou?step=2`)).toBe(
      '/r/[redacted]/subscription/items/aboutYou?step=2',
    );
    expect(loggedUrl(`/recipient/${token}/documents/agreement/preview`)).toBe(
      '/recipient/[redacted]/documents/agreement/preview',
    );
    expect(loggedUrl(`/files/abc?expires=1700000000&signature=s3cr3t`)).toBe(
      '/files/abc?expires=1700000000&signature=[redacted]',
    );
    expect(loggedUrl(`/anything?token=s3cr3t&next=1`)).toBe('/anything?token=[redacted]&next=1');
    expect(loggedUrl(`/R/${token}/x`)).toBe('/R/[redacted]/x');
  });

  it("leaves the recipient portal's assets and paths without credentials as they are", () => {
    for (const path of ['/r/assets/index-abc123.js', '/r/assets', '/console/api/queue?tab=all', '/beta']) {
      expect(loggedUrl(path)).toBe(path);
    }
  });

  it("never writes a recipient's token or a link's signature into the lines a request logs", async () => {
    const testDb = await createTestDatabase();
    const files = await createTestFileStore();
    const log = capturedLogger();
    const app = await buildTransactionsApp({
      db: testDb.db,
      files: files.files,
      environment: 'staging',
      logger: log.logger,
    });
    try {
      for (const url of [
        `/r/${token}`,
        `/r/${token}/subscription/sign`,
        `/recipient/${token}`,
        `/recipient/${token}/documents/agreement/preview`,
        `/files/0b6e3f5a-2c1d-4f7e-8a9b-1c2d3e4f5a6b?expires=1&signature=sig-${token}`,
      ]) {
        await app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' } });
      }
      const urls = log
        .lines()
        .filter((line) => line.msg === 'request completed')
        .map((line) => (line.req as { url: string }).url);
      expect(urls).toHaveLength(5);
      for (const line of log.written) expect(line).not.toContain(token);
    } finally {
      await app.close();
      await testDb.close();
      await files.cleanup();
    }
  });
});
