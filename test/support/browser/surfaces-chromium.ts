import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../../src/config.ts';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { buildServedApps } from '../../../src/served-apps.ts';
import { smtpWithMailer } from '../data/dashboard.ts';
import { testDatabaseAndFiles } from '../data/transactions.ts';
import type { CloseAfterAll } from '../made-before-all.ts';
import type { TestSmtpServer } from '../peers/smtp.ts';
import { testTls } from '../peers/tls-listener.ts';
import { listenForBrowser } from './browser.ts';

/** One signed-in surface as Chromium opens it: its app, its origin and the page's path. */
export interface SurfaceInBrowser {
  app: FastifyInstance;
  /** `https://localhost:<port>`. */
  origin: string;
}

/**
 * The apps `portico serve` builds (every surface on, with the config of an empty data dir), over real HTTPS for
 * Chromium, on a database, a file store and an SMTP server of the calling file's own, closed after its tests:
 * the console on the Transactions app, the dashboard on the Portfolio app. Links in mail point to where each
 * listens.
 */
export async function signedInSurfacesForBrowser(closeAfterAll: CloseAfterAll): Promise<{
  db: Database;
  files: FileStore;
  smtp: TestSmtpServer;
  console: SurfaceInBrowser;
  dashboard: SurfaceInBrowser;
}> {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-surfaces-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const mail = { mailer, transactionsUrl: '', portfolioUrl: '' };
  const apps = await buildServedApps({
    config: loadConfig({ PORTICO_DATA_DIR: dataDir }),
    shared: { db, tls: await testTls(), apiKeyCacheMs: 0 },
    files,
    mail,
    logger: pino({ level: 'silent' }),
  });
  const listening = async (name: string): Promise<SurfaceInBrowser> => {
    const app = apps.find((each) => each.name === name)?.app;
    if (!app) throw new Error(`portico serve built no ${name} app`);
    return { app, origin: await listenForBrowser(app, closeAfterAll) };
  };
  const transactions = await listening('transactions');
  const portfolio = await listening('portfolio');
  mail.transactionsUrl = transactions.origin;
  mail.portfolioUrl = portfolio.origin;
  return { db, files, smtp, console: transactions, dashboard: portfolio };
}
