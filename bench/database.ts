import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPGliteDatabase } from '../src/db/pglite-database.ts';
import { createPostgresDatabase } from '../src/db/postgres-database.ts';

export type Dialect = 'postgres' | 'pglite';

/** `BENCH_DATABASE_URL`: the PostgreSQL server the `postgres` dialect runs on. */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchDatabase {
  dialect: Dialect;
  db: Database;
  /** Where the data lives, for the printout (never a password). */
  description: string;
  /** How another process reaches the same data on PostgreSQL: the server's URL and the connection's options. */
  connection?: { url: string; options: string };
  close(): Promise<void>;
}

async function withAdmin(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * A fresh, migrated database for one dialect: an in-memory PGlite, or on PostgreSQL a schema of its own
 * (`bench_<random>`, reached with `-c search_path=`, dropped on close), exactly like the test suite's.
 */
export async function openBenchDatabase(dialect: Dialect): Promise<BenchDatabase> {
  if (dialect === 'pglite') {
    const db = await createPGliteDatabase();
    await migrate(db);
    return { dialect, db, description: 'PGlite, in memory', close: () => db.close() };
  }
  const url = BENCH_DATABASE_URL;
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  try {
    await withAdmin(url, (client) => client.query(`create schema ${schema}`).then(() => undefined));
  } catch (error) {
    throw new Error(
      `cannot create a schema on ${redacted(url)} (${String(error)}); ` +
        'set BENCH_DATABASE_URL, or BENCH_DIALECTS=pglite to skip PostgreSQL',
      { cause: error },
    );
  }
  const dropSchema = () =>
    withAdmin(url, (client) => client.query(`drop schema ${schema} cascade`).then(() => undefined));
  const db = createPostgresDatabase({ connectionString: url, connectionOptions: `-c search_path=${schema}` });
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    await dropSchema();
    throw error;
  }
  let closed = false;
  return {
    dialect,
    db,
    description: `PostgreSQL ${redacted(url)}, schema ${schema}`,
    connection: { url, options: `-c search_path=${schema}` },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        await dropSchema();
      }
    },
  };
}
