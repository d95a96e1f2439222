import pg from 'pg';
import { DIALECT, TEST_DATABASE_URL } from './db/database.ts';
import { ensurePGliteTemplate } from './db/pglite-template.ts';

/**
 * The catalogs that each test schema's tables, columns, constraints and triggers add rows to, and that dropping
 * the schema leaves dead.
 */
const CATALOGS = [
  'pg_attribute',
  'pg_attrdef',
  'pg_class',
  'pg_constraint',
  'pg_depend',
  'pg_index',
  'pg_namespace',
  'pg_trigger',
  'pg_type',
].map((name) => `pg_catalog.${name}`);

/**
 * Vitest's global setup, run once before any test file: builds the migrated PGlite template that every test
 * file's database copies, so the workers do not each build it at once. On PostgreSQL, its teardown vacuums the
 * catalogs once the run is over: every file makes a schema and drops it, and on a server that does not vacuum
 * by itself (CI's runs with autovacuum off) the dead rows pile up run after run, and each run gets slower.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (DIALECT === 'pglite') {
    await ensurePGliteTemplate('migrated');
    await ensurePGliteTemplate('empty');
    return undefined;
  }
  return async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      // Only the catalogs' owner (a superuser) may vacuum them; anyone else gets a warning, not an error.
      await client.query(`vacuum ${CATALOGS.join(', ')}`);
    } finally {
      await client.end();
    }
  };
}
