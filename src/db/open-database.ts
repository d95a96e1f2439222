import { createHash } from 'node:crypto';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Database } from './database.ts';
import { connectionFailureReason, isConnectionFailure, isConnectionRefusal } from './database-errors.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { activeTracing } from '../observability/tracing.ts';
import { loadMigrations, migrate, type Migration } from './migrate.ts';
import { createPGliteDatabase, type PGliteDatabase } from './pglite-database.ts';

/** What `openDatabase` answers: the database, ready to use, and how to give it back. */
export interface OpenedDatabase {
  db: Database;
  /** The migrations this opening applied. */
  applied: Migration[];
  /**
   * Which database this is, for an operator (`portico` says it on stderr): "the embedded database in /abs/dir"
   * or "PostgreSQL at host:port/db", never a password. Absent for a database a test handed in.
   */
  description?: string | undefined;
  /** Records in the data-dir lock where this process answers CLI commands (embedded database only). */
  announce(adminSocket: string): Promise<void>;
  /** Closes the database and, for the embedded one, releases the data-dir lock. */
  close(): Promise<void>;
}

/** How `openDatabase` opens the database. */
export interface OpenDatabaseOptions {
  /**
   * Whether a data dir without an embedded database gets a new one. `serve` and `migrate` make it; every other
   * command refuses ({@link noEmbeddedDatabase}), as a new empty database in the wrong folder only hides the
   * real one. @default true
   */
  create?: boolean | undefined;
  /** Whether to bring the schema up to date (`migrate --status` only reads it). @default true */
  migrate?: boolean | undefined;
}

/**
 * Which database the configuration names, as `portico` tells an operator: "the embedded database in
 * /abs/data/dir", or "PostgreSQL at host:port/db" (the user and the password of `DATABASE_URL` left out).
 */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (config.databaseUrl === undefined) return `the embedded database in ${config.dataDir}`;
  try {
    const url = new URL(config.databaseUrl);
    // A socket directory comes percent-encoded in the authority, or as ?host=/run/postgresql.
    const host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost';
    return `PostgreSQL at ${host}:${url.port || '5432'}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'PostgreSQL at DATABASE_URL';
  }
}

/**
 * The refusal of a command that would have made a new embedded database in `dataDir`: it names the folder, and
 * how to point at the one that holds the data.
 */
export function noEmbeddedDatabase(dataDir: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `there is no embedded database in ${dataDir}: point this command at the data dir that holds it, ` +
      'with --data-dir <dir> or PORTICO_DATA_DIR (the .portico folder where "npm start" ran), ' +
      'or at PostgreSQL with DATABASE_URL; "portico serve" or "portico migrate" makes a new one',
  );
}

/**
 * Opens the configured database and brings its schema up to date: the PostgreSQL server of
 * `DATABASE_URL`, or else the embedded PGlite database in `<data dir>/db`, locked to this process.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: OpenDatabaseOptions = {},
): Promise<OpenedDatabase> {
  const opened = await openUntraced(config, options);
  // While a process traces (observability/tracing.ts), a request's statements are spans of its trace.
  const tracing = activeTracing();
  return tracing ? { ...opened, db: tracing.traceDatabase(opened.db) } : opened;
}

async function openUntraced(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: OpenDatabaseOptions,
): Promise<OpenedDatabase> {
  const description = describeDatabase(config);
  if (config.databaseUrl !== undefined) {
    // Loaded only for a server: the embedded database starts without node-postgres.
    const { createPostgresDatabase } = await import('./postgres-database.ts');
    const db = createPostgresDatabase({ connectionString: config.databaseUrl });
    try {
      const applied = options.migrate === false ? [] : await migrate(db);
      return { db, applied, description, announce: () => Promise.resolve(), close: () => db.close() };
    } catch (error) {
      await db.close();
      const refused = isConnectionRefusal(error);
      if (!refused && !isConnectionFailure(error)) throw error;
      // Said to an operator starting Portico: name the server and what the socket or the server answered.
      const what = refused
        ? 'The PostgreSQL server of DATABASE_URL refused the connection'
        : 'Cannot reach the PostgreSQL server of DATABASE_URL';
      throw new AppError('SERVICE_UNAVAILABLE', `${what}: ${connectionFailureReason(error)}`, undefined, {
        cause: error,
      });
    }
  }
  // Checked before the lock, which would make the folder.
  const dir = join(config.dataDir, 'db');
  if (options.create === false && !(await exists(join(dir, 'PG_VERSION')))) {
    throw noEmbeddedDatabase(config.dataDir);
  }
  const lock = await lockDataDir(config.dataDir);
  let db: Database | undefined;
  let applied: Migration[];
  try {
    const migrations = await loadMigrations();
    const snapshot = (await exists(join(dir, 'PG_VERSION'))) ? undefined : await readSnapshot(migrations);
    if (snapshot) {
      db = await createPGliteDatabase(dir, { loadDataDir: snapshot });
      // As if initdb and the migrations had run now: the snapshot holds every migration, applied when it was made.
      await db.query('update schema_migrations set applied_at = now()');
      applied = [...migrations, ...(await migrate(db, migrations))];
    } else {
      db = await createPGliteDatabase(dir);
      applied = options.migrate === false ? [] : await migrate(db, migrations);
    }
  } catch (error) {
    await db?.close();
    await lock.release();
    throw error;
  }
  const opened = db;
  return {
    db: opened,
    applied,
    description,
    announce: (adminSocket) => lock.update({ adminSocket }),
    async close() {
      await opened.close();
      await lock.release();
    },
  };
}

const SNAPSHOT_DIR = fileURLToPath(new URL('../../node_modules/.cache/portico/', import.meta.url));
const PGLITE_PACKAGE = fileURLToPath(
  new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url),
);

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The snapshot file for these migrations on the installed PGlite, or undefined when PGlite's is unknown. */
async function snapshotPath(migrations: readonly Migration[]): Promise<string | undefined> {
  const pglite = await readFile(PGLITE_PACKAGE, 'utf8').catch(() => undefined);
  if (pglite === undefined) return undefined;
  const hash = createHash('sha256').update(pglite);
  for (const { version, name, sql } of migrations) hash.update(`${String(version)}\0${name}\0${sql}\0`);
  return join(SNAPSHOT_DIR, `pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar`);
}

async function readSnapshot(migrations: readonly Migration[]): Promise<Blob | undefined> {
  const path = await snapshotPath(migrations);
  if (path === undefined) return undefined;
  const bytes = await readFile(path).catch(() => undefined);
  return bytes && new Blob([bytes]);
}

/**
 * Writes the start snapshot (run by `npm install`): the data dir of an embedded database just made by initdb
 * and brought up to date by the shipped migrations. A fresh embedded database then starts from a copy of it
 * instead of running initdb and every migration again; it is made by the same PGlite and the same migrations
 * (both part of its name), so the copy holds what they would have made.
 *
 * @returns the snapshot's path, or undefined when the installed PGlite cannot be named
 */
export async function writeStartSnapshot(): Promise<string | undefined> {
  const migrations = await loadMigrations();
  const path = await snapshotPath(migrations);
  if (path === undefined || (await exists(path))) return path;
  const db: PGliteDatabase = await createPGliteDatabase();
  try {
    await migrate(db, migrations);
    const tarball = await db.dumpDataDir();
    await mkdir(SNAPSHOT_DIR, { recursive: true });
    // Written aside and renamed: a start never reads half a snapshot.
    const partial = `${path}.${String(process.pid)}.partial`;
    await writeFile(partial, Buffer.from(await tarball.arrayBuffer()));
    await rename(partial, path);
  } finally {
    await db.close();
  }
  return path;
}
