import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { TransactionsDemo } from '../../src/demo/seed.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { buildPortfolioApp, type PortfolioAppDeps } from '../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { createPortfolioInstance, type PortfolioInstanceFixture } from './portfolio.ts';
import { createTestFileStore, seedOrganization } from './transactions.ts';

/** The two services, by the names tests use for them. */
export type Service = 'transactions' | 'portfolio';

/** What both services' apps take alike, on top of the database (and the Transactions file store). */
export type SharedAppOptions = Omit<PortfolioAppDeps, 'db'>;

/** A test file's database and data for both services, and its apps (see `useServiceApps`). */
export interface ServiceApps {
  readonly db: Database;
  readonly files: FileStore;
  /** A Transactions organization with its demo data and a staging key. */
  readonly demo: TransactionsDemo;
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
  let made:
    | {
        testDb: TestDatabase;
        store: Awaited<ReturnType<typeof createTestFileStore>>;
        demo: TransactionsDemo;
        portfolio: PortfolioInstanceFixture;
      }
    | undefined;
  const apps: FastifyInstance[] = [];
  const ready = () => {
    if (made === undefined) throw new Error('the service data is made in beforeAll: read it inside tests');
    return made;
  };

  beforeAll(async () => {
    const testDb = await createTestDatabase();
    const store = await createTestFileStore();
    made = {
      testDb,
      store,
      demo: await seedOrganization(testDb.db, store.files),
      portfolio: await createPortfolioInstance(testDb.db),
    };
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(async () => {
    await made?.testDb.close();
    await made?.store.cleanup();
  });

  return {
    get db() {
      return ready().testDb.db;
    },
    get files() {
      return ready().store.files;
    },
    get demo() {
      return ready().demo;
    },
    get portfolio() {
      return ready().portfolio;
    },
    async build(service, options = {}) {
      const { testDb, store } = ready();
      const app =
        service === 'transactions'
          ? await buildTransactionsApp({
              ...options,
              db: testDb.db,
              files: store.files,
              environment: 'staging',
            })
          : await buildPortfolioApp({ ...options, db: testDb.db });
      apps.push(app);
      return app;
    },
  };
}
