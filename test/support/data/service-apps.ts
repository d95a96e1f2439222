import type { FastifyInstance } from 'fastify';
import { afterEach } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { buildPortfolioApp, type PortfolioAppDeps } from '../../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { madeBeforeAll } from '../made-before-all.ts';
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
