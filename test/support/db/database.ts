import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Database, Transaction } from '../../../src/db/database.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { createPostgresDatabase } from '../../../src/db/postgres-database.ts';
import { createPGliteFromTemplate } from './pglite-template.ts';

/** `TEST_DATABASE_URL` selects PostgreSQL for the whole suite; without it every test file gets a PGlite. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const DIALECT = TEST_DATABASE_URL === undefined ? 'pglite' : 'postgres';

/**
 * How long an `afterAll` that drops a database of its own may take. DROP DATABASE waits for an immediate
 * checkpoint of the whole server, which syncs every file the suite's other schemas dirtied since the last one: on a
 * busy CI machine, tens of seconds (31 s for 29,051 files was seen beside the suite here), past a hook's 60 s.
 */
export const DROP_DATABASE_TIMEOUT_MS = 300_000;

/** Drops the databases `names` of the server of `url`, closing every connection to them. */
export async function dropDatabases(url: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const name of names) await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  db: Database;
  /** For PostgreSQL, the connection settings that reach this test database's schema (for child processes). */
  connection?: { url: string; options: string };
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite (a copy of the migrated template, see
 * `pglite-template.ts`), or on PostgreSQL a schema of its own (dropped on close), so test files never see each
 * other's rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DATABASE_URL === undefined) {
    const db = await createPGliteFromTemplate();
    return { db, close: () => db.close() };
  }
  const { options, drop } = await createTestSchema(TEST_DATABASE_URL);
  const db = createPostgresDatabase({ connectionString: TEST_DATABASE_URL, connectionOptions: options });
  await migrate(db);
  return {
    db,
    connection: { url: TEST_DATABASE_URL, options },
    async close() {
      await db.close();
      await drop();
    },
  };
}

/**
 * A new, empty schema `test_<random>` on the PostgreSQL server of `url`: the connection options that reach it
 * (`-c search_path=…`) and how to drop it with all it holds.
 */
export async function createTestSchema(url: string): Promise<{ options: string; drop: () => Promise<void> }> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create schema ${schema}`);
  return { options: `-c search_path=${schema}`, drop: () => admin(`drop schema ${schema} cascade`) };
}

/**
 * Wraps a database so a test (or the bench) can count the statements (round trips) it receives: outside
 * transactions, and inside them with their BEGIN and COMMIT; `statements` are their texts (without BEGIN and COMMIT).
 */
export function countingQueries(db: Database): {
  db: Database;
  count: () => number;
  statements: () => string[];
  reset: () => void;
} {
  let count = 0;
  let statements: string[] = [];
  const counted = (tx: Transaction): Transaction => ({
    ...tx,
    query: (text, params) => {
      count += 1;
      statements.push(text);
      return tx.query(text, params);
    },
  });
  return {
    db: {
      ...db,
      query: (text, params) => {
        count += 1;
        statements.push(text);
        return db.query(text, params);
      },
      transaction: (work) => {
        count += 2; // BEGIN, then COMMIT (or ROLLBACK)
        return db.transaction((tx) => work(counted(tx)));
      },
    },
    count: () => count,
    statements: () => statements,
    reset: () => {
      count = 0;
      statements = [];
    },
  };
}
