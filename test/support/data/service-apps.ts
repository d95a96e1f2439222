import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach } from 'vitest';
import type { Config } from '../../../src/config.ts';
import type { Mailer } from '../../../src/mail/mailer.ts';
import { buildServedApps } from '../../../src/served-apps.ts';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { buildPortfolioApp, type PortfolioAppDeps } from '../../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { madeBeforeAll, type CloseAfterAll } from '../made-before-all.ts';
import { createPortfolioInstance, type PortfolioInstanceFixture } from './portfolio.ts';
import { organizationStory, type OrganizationStory } from './stories.ts';
import { testDatabaseAndFiles } from './transactions.ts';

/** The two services, by the names tests use for them. */
export type Service = 'transactions' | 'portfolio';

/** What both services' apps take alike, on top of the database (and the Transactions file store). */
export type SharedAppOptions = Omit<PortfolioAppDeps, 'db'>;

/** A test file's database and data for both services, and its apps (see `useServiceApps`). */
export interface ServiceApps {
  readonly db: Database;
  readonly files: FileStore;
  /** A Transactions organization with a staging key and one complete transaction (see `organizationStory`). */
  readonly organization: OrganizationStory;
  /** A Portfolio instance with a key. */
  readonly portfolio: PortfolioInstanceFixture;
  /** A new app of `service` (Transactions: staging keys), closed after the test. */
  build(service: Service, options?: SharedAppOptions): Promise<FastifyInstance>;
}

/**
 * Registers the hooks of an HTTP test file whose tests build apps of their own on shared data: a database, a
 * file store, a Transactions organization and a Portfolio instance, made before the file's tests; the apps a test
 * builds are closed after it. Read the fields inside tests and hooks (they exist once `beforeAll` ran).
 */
export function useServiceApps(): ServiceApps {
  /** The apps the current test built. */
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  return madeBeforeAll('the service data', async (closeAfterAll): Promise<ServiceApps> => {
    const { db, files } = await testDatabaseAndFiles(closeAfterAll);
    return {
      db,
      files,
      organization: await organizationStory(db, files),
      portfolio: await createPortfolioInstance(db),
      async build(service, options = {}) {
        const app =
          service === 'transactions'
            ? await buildTransactionsApp({ ...options, db, files, environment: 'staging' })
            : await buildPortfolioApp({ ...options, db });
        apps.push(app);
        return app;
      },
    };
  });
}

/**
 * The apps `portico serve` builds for `config` (every surface on), ready and closed after the calling file's
 * tests, on its database and files, mailing through `mailer`; `appOf` names one ('transactions', 'portfolio').
 */
export async function servedAppsOf(
  closeAfterAll: CloseAfterAll,
  options: { db: Database; files: FileStore; config: Config; mailer: Mailer },
): Promise<{ appOf: (name: string) => FastifyInstance }> {
  const logger = pino({ level: 'silent' });
  const apps = await buildServedApps({
    config: options.config,
    shared: { db: options.db, trustProxy: true },
    files: options.files,
    mail: {
      mailer: options.mailer,
      portfolioUrl: 'https://portfolio.test',
      transactionsUrl: 'https://transactions.test',
    },
    logger,
  });
  for (const { app } of apps) {
    await app.ready();
    closeAfterAll(() => app.close());
  }
  return {
    appOf(name) {
      const found = apps.find((each) => each.name === name)?.app;
      if (!found) throw new Error(`portico serve built no ${name} app`);
      return found;
    },
  };
}
