import type { Database } from '../../src/db/database.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { listenForBrowser } from './browser.ts';
import { smtpWithMailer } from './dashboard.ts';
import type { CloseAfterAll } from './made-before-all.ts';
import type { TestSmtpServer } from './smtp.ts';
import { testTls } from './tls-listener.ts';
import { testDatabaseAndFiles } from './transactions.ts';

/**
 * The Transactions service with its console, over real HTTPS for Chromium, on a database, a file store and an
 * SMTP server of the calling test file's own, closed after its tests.
 */
export async function consoleForBrowser(
  closeAfterAll: CloseAfterAll,
): Promise<{ db: Database; files: FileStore; smtp: TestSmtpServer; origin: string }> {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  // Links in mail point to where the service listens, known once it does.
  let origin = '';
  const app = await buildTransactionsApp({
    db,
    files,
    environment: 'staging',
    tls: await testTls(),
    console: { mailer, transactionsUrl: () => origin },
  });
  origin = await listenForBrowser(app, closeAfterAll);
  return { db, files, smtp, origin };
}
