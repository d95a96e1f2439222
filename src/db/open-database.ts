import { join } from 'node:path';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Database } from './database.ts';
import { connectionFailureReason, isConnectionFailure } from './database-errors.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { migrate, type Migration } from './migrate.ts';
import { createPGliteDatabase } from './pglite-database.ts';
import { createPostgresDatabase } from './postgres-database.ts';

/** What `openDatabase` answers: the database, ready to use, and how to give it back. */
export interface OpenedDatabase {
  db: Database;
  /** The migrations this opening applied. */
  applied: Migration[];
  /** Records in the data-dir lock where this process answers CLI commands (embedded database only). */
  announce(adminSocket: string): Promise<void>;
  /** Closes the database and, for the embedded one, releases the data-dir lock. */
  close(): Promise<void>;
}

/**
 * Opens the configured database and brings its schema up to date: the PostgreSQL server of
 * `DATABASE_URL`, or else the embedded PGlite database in `<data dir>/db`, locked to this process.
 */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<OpenedDatabase> {
  if (config.databaseUrl !== undefined) {
    const db = createPostgresDatabase({ connectionString: config.databaseUrl });
    try {
      const applied = await migrate(db);
      return { db, applied, announce: () => Promise.resolve(), close: () => db.close() };
    } catch (error) {
      await db.close();
      if (!isConnectionFailure(error)) throw error;
      // Said to an operator starting Portico: name the server and what the socket or the server answered.
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `Cannot reach the PostgreSQL server of DATABASE_URL: ${connectionFailureReason(error)}`,
        undefined,
        { cause: error },
      );
    }
  }
  const lock = await lockDataDir(config.dataDir);
  let db: Database | undefined;
  let applied: Migration[];
  try {
    db = await createPGliteDatabase(join(config.dataDir, 'db'));
    applied = await migrate(db);
  } catch (error) {
    await db?.close();
    await lock.release();
    throw error;
  }
  const opened = db;
  return {
    db: opened,
    applied,
    announce: (adminSocket) => lock.update({ adminSocket }),
    async close() {
      await opened.close();
      await lock.release();
    },
  };
}
