import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { buildPortfolioApp } from '../../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { createTestDatabase } from '../db/database.ts';
import type { Service, SharedAppOptions } from '../data/service-apps.ts';
import { listenHttps, testTls } from './tls-listener.ts';
import { organizationStory, type OrganizationStory } from '../data/stories.ts';
import { createTestFileStore } from '../data/transactions.ts';

/** Both services listening over TLS on loopback, on one database with a seeded Transactions organization. */
export interface ListeningServices {
  db: Database;
  files: FileStore;
  /** A Transactions organization with a staging key and one complete transaction (see `organizationStory`). */
  organization: OrganizationStory;
  /** The certificate both services present, for clients to trust. */
  ca: string;
  ports: Record<Service, number>;
  apps: Record<Service, FastifyInstance>;
  /** Closes both apps, the database and the file store. */
  close(): Promise<void>;
}

/**
 * Builds both services with `options` (Transactions accepting staging keys) on a fresh database, makes an
 * organization and makes both listen over TLS with the test certificate: for the tests that talk to them over
 * real sockets.
 */
export async function startListeningServices(options: SharedAppOptions = {}): Promise<ListeningServices> {
  const testDb = await createTestDatabase();
  const store = await createTestFileStore();
  const tls = await testTls();
  const organization = await organizationStory(testDb.db, store.files);
  const shared = { ...options, db: testDb.db, tls };
  const apps = {
    transactions: await buildTransactionsApp({ ...shared, files: store.files, environment: 'staging' }),
    portfolio: await buildPortfolioApp(shared),
  };
  const ports = {
    transactions: (await listenHttps(apps.transactions)).port,
    portfolio: (await listenHttps(apps.portfolio)).port,
  };
  return {
    db: testDb.db,
    files: store.files,
    organization,
    ca: tls.cert,
    ports,
    apps,
    async close() {
      for (const app of Object.values(apps)) await app.close();
      await testDb.close();
      await store.cleanup();
    },
  };
}
