import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { buildPortfolioApp, type PortfolioAppDeps } from '../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { createTestDatabase } from './database.ts';
import { madeBeforeAll } from './made-before-all.ts';
import { createPortfolioInstance, type PortfolioInstanceFixture } from './portfolio.ts';
import { organizationStory, type OrganizationStory } from './stories.ts';
import { createTestFileStore } from './transactions.ts';

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
  const { made, provide } = madeBeforeAll<ServiceApps>('the service data');
  const apps: FastifyInstance[] = [];
  const opened: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const testDb = await createTestDatabase();
    opened.push(() => testDb.close());
    const store = await createTestFileStore();
    opened.push(store.cleanup);
    const { db } = testDb;
    provide({
      db,
      files: store.files,
      organization: await organizationStory(db, store.files),
      portfolio: await createPortfolioInstance(db),
      async build(service, options = {}) {
        const app =
          service === 'transactions'
            ? await buildTransactionsApp({ ...options, db, files: store.files, environment: 'staging' })
            : await buildPortfolioApp({ ...options, db });
        apps.push(app);
        return app;
      },
    });
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });

  return made;
}
