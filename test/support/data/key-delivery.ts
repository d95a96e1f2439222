import { createDecipheriv } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import pino, { type Logger } from 'pino';
import type { Database } from '../../../src/db/database.ts';
import { createMailer, type Mailer } from '../../../src/mail/mailer.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { stubDashboardBuild } from './dashboard.ts';
import { madeBeforeAll } from '../made-before-all.ts';
import { testDatabaseAndFiles } from './transactions.ts';

/** Helpers for tests that follow a key delivery outside a browser, doing what the delivery page does. */

/** The text part of a message written to a mail folder. */
export async function mailText(file: string): Promise<string> {
  return (await simpleParser(await readFile(file))).text ?? '';
}

/** The link id and the secret of the delivery link in a message's text. */
export function deliveryLinkIn(text: string): { linkId: string; secret: string } {
  const [, linkId, secret] = /\/key-delivery\/([\w-]{22})#([\w-]{43})/.exec(text) ?? [];
  if (linkId === undefined || secret === undefined) throw new Error(`no key-delivery link in: ${text}`);
  return { linkId, secret };
}

/** The key of a `reveal` answer, decrypted as the page does: AES-256-GCM, the link's id as additional data. */
export function decryptRevealed(
  link: { linkId: string; secret: string },
  revealed: { ciphertext: string; iv: string },
): string {
  const sealed = Buffer.from(revealed.ciphertext, 'base64url');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(link.secret, 'base64url'),
    Buffer.from(revealed.iv, 'base64url'),
  );
  decipher.setAAD(Buffer.from(link.linkId));
  decipher.setAuthTag(sealed.subarray(-16));
  return Buffer.concat([decipher.update(sealed.subarray(0, -16)), decipher.final()]).toString('utf8');
}

/** The Transactions service with key delivery, its mail written to files in a data dir (see `useKeyDeliveryApp`). */
export interface KeyDeliveryApp {
  readonly db: Database;
  readonly app: FastifyInstance;
  readonly mailer: Mailer;
  /** The data dir the mail goes to, in `<dataDir>/mail`. */
  readonly dataDir: string;
}

/**
 * Registers the hooks of a key-delivery test file: a database, a data dir whose `mail/` folder receives the mail,
 * and the Transactions service (staging) with key delivery over a stand-in page build, made before the file's
 * tests and closed after them. `logger` goes to the service and its mail; `apiKeyCacheMs` to the service.
 */
export function useKeyDeliveryApp(options: { logger?: Logger; apiKeyCacheMs?: number } = {}): KeyDeliveryApp {
  return madeBeforeAll('the key-delivery app', async (closeAfterAll): Promise<KeyDeliveryApp> => {
    const { db, files } = await testDatabaseAndFiles(closeAfterAll);
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-key-delivery-'));
    closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
    const logger = options.logger ?? pino({ level: 'silent' });
    const mailer = createMailer(
      { dataDir, smtpUrl: undefined, mailFrom: 'Portico <no-reply@localhost>' },
      logger,
    );
    closeAfterAll(() => {
      mailer.close();
    });
    const build = await stubDashboardBuild();
    closeAfterAll(build.cleanup);
    const app = await buildTransactionsApp({
      db,
      files,
      environment: 'staging',
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.apiKeyCacheMs === undefined ? {} : { apiKeyCacheMs: options.apiKeyCacheMs }),
      keyDelivery: { mailer, distDir: build.distDir },
    });
    closeAfterAll(() => app.close());
    return { db, app, mailer, dataDir };
  });
}
