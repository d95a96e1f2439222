import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../src/db/database.ts';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import { createApiKey } from '../../../src/keys/api-key-store.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import { importTemplate } from '../../../src/transactions/templates/templates.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { buildTransactionsApp, type TransactionsAppDeps } from '../../../src/transactions/app.ts';
import type { TestDatabase } from '../db/database.ts';
import { madeBeforeAll } from '../made-before-all.ts';
import { organizationStory, type OrganizationStory, type OrganizationStoryOptions } from './stories.ts';
import { testDatabaseAndFiles, uniqueHandle } from './transactions.ts';

/**
 * What one test file of the Transactions service shares: one database, one file store and one app, booted once
 * (a database per test would be slow). Data is not shared: `tenant()` seeds a fresh organization, so a test that
 * changes or counts rows reads only what it made.
 */
export interface TransactionsSuite {
  readonly testDb: TestDatabase;
  readonly db: Database;
  readonly files: FileStore;
  readonly app: FastifyInstance;
  /**
   * A fresh organization with a key and the transactions `options` asks for (by default one complete
   * transaction: see `organizationStory`), which says what it made.
   */
  tenant(options?: OrganizationStoryOptions): Promise<OrganizationStory>;
  /**
   * A fresh organization with a staging key, a sender entity and the example template, and nothing else: much
   * cheaper than `tenant()`, for a test that makes its own transactions.
   */
  emptyTenant(): Promise<EmptyTenant>;
  /**
   * Another app beside the suite's, on the suite's database and files unless `deps` says otherwise (another
   * environment, stricter limits, a database that counts or fails its queries); closed with the suite.
   */
  buildApp(deps: Partial<TransactionsAppDeps>): Promise<FastifyInstance>;
}

/** An organization of its own with what creating a transaction needs. */
export type EmptyTenant = Pick<
  OrganizationStory,
  'apiKey' | 'organizationId' | 'templateId' | 'senderEntityId'
>;

/** An entity of the organization (a fund, an investor) with its name and e-mail address; returns its id. */
export async function addEntity(
  db: Database,
  organizationId: string,
  entity: { name: string; email: string; type: string },
): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    'insert into entities (organization_id, name, email, type) values ($1, $2, $3, $4) returning id',
    [organizationId, entity.name, entity.email, entity.type],
  );
  if (!row) throw new Error('insert into entities returned no row');
  return row.id;
}

/** An organization with a staging key, a sender entity and the example template (see `emptyTenant`). */
export async function createEmptyTenant(db: Database): Promise<EmptyTenant> {
  const organization = await createOrganization(db, { handle: uniqueHandle('empty'), name: 'Test Capital' });
  const { key } = await createApiKey(db, { organizationId: organization.id, environment: 'staging' });
  const senderEntityId = await addEntity(db, organization.id, {
    name: 'Test Capital Fund I, L.P.',
    email: 'operations@test-capital.example',
    type: 'fund',
  });
  const template = await importTemplate(db, {
    organizationId: organization.id,
    definition: await loadExampleTemplate(),
  });
  return { apiKey: key, organizationId: organization.id, templateId: template.id, senderEntityId };
}

/** What the app of a suite is built with besides its database and files (a fake DNS lookup, say). */
export type SuiteAppOptions = Omit<TransactionsAppDeps, 'db' | 'files' | 'environment'>;

/**
 * Boots a {@link TransactionsSuite} before the tests of the calling file (or `describe`) and closes it after them.
 * Its fields may be read inside tests and hooks only. `appOptions` may be a function, called once before the app
 * is built, for options that take I/O to make (TLS material, say).
 *
 * @example
 * const suite = useTransactionsSuite();
 * it('…', async () => {
 *   const story = await suite.tenant();
 *   await graphql(suite.app, story.apiKey, '{ viewer { id } }');
 * });
 */
export function useTransactionsSuite(
  appOptions: SuiteAppOptions | (() => Promise<SuiteAppOptions>) = {},
): TransactionsSuite {
  return madeBeforeAll('the suite', async (closeAfterAll): Promise<TransactionsSuite> => {
    const { testDb, db, files } = await testDatabaseAndFiles(closeAfterAll);
    const app = await buildTransactionsApp({
      ...(typeof appOptions === 'function' ? await appOptions() : appOptions),
      db,
      files,
      environment: 'staging',
    });
    closeAfterAll(() => app.close());
    /** The apps of `buildApp`, closed before the suite's own. */
    const others: FastifyInstance[] = [];
    closeAfterAll(async () => {
      for (const other of others) await other.close();
    });
    return {
      testDb,
      db,
      files,
      app,
      tenant: (options) => organizationStory(db, files, options),
      emptyTenant: () => createEmptyTenant(db),
      buildApp: async (deps) => {
        const other = await buildTransactionsApp({ db, files, environment: 'staging', ...deps });
        others.push(other);
        return other;
      },
    };
  });
}
