import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, copyFile, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
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
    if (!(await exists(join(dir, 'PG_VERSION'))) && (await copySnapshot(migrations, dir))) {
      db = await createPGliteDatabase(dir);
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

/** The snapshot's folder for these migrations on the installed PGlite, or undefined when PGlite's is unknown. */
async function snapshotPath(migrations: readonly Migration[]): Promise<string | undefined> {
  const pglite = await readFile(PGLITE_PACKAGE, 'utf8').catch(() => undefined);
  if (pglite === undefined) return undefined;
  const hash = createHash('sha256').update(pglite);
  for (const { version, name, sql } of migrations) hash.update(`${String(version)}\0${name}\0${sql}\0`);
  return join(SNAPSHOT_DIR, `pglite-migrated-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * Copies a folder's tree: its folders first, then every file at once (the copies run on libuv's threads, each
 * cloned where the file system can). A data dir's 1,400 files take a third of Node's `fs.cp`'s CPU, which copies
 * one file at a time with checks of its own around each.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const inCopy = (entry: { parentPath: string; name: string }) =>
    join(to, relative(from, entry.parentPath), entry.name);
  await mkdir(to);
  // Listed parents first: each folder's parent exists when it is made.
  for (const entry of entries) if (entry.isDirectory()) await mkdir(inCopy(entry), { recursive: true });
  await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) =>
        copyFile(join(entry.parentPath, entry.name), inCopy(entry), constants.COPYFILE_FICLONE),
      ),
  );
}

/**
 * Copies the start snapshot into `dir` as a whole, or answers false when there is none for these migrations or
 * `dir` already holds something (which is never overwritten). The copy is made beside `dir` and renamed into
 * place, so that a start stopped halfway leaves no data dir that looks initialised and is not. The snapshot is a
 * data dir itself, copied by the file system: as a tar archive, it was read into memory and written out again
 * file by file through PGlite's WebAssembly file system, which cost a fresh start about 2 s of CPU more than
 * opening a data dir does, where the copy costs about 0.3 s (bench/RESULTS.md, 2026-11-29).
 */
async function copySnapshot(migrations: readonly Migration[], dir: string): Promise<boolean> {
  const path = await snapshotPath(migrations);
  if (path === undefined || !(await exists(join(path, 'PG_VERSION')))) return false;
  const existing = await readdir(dir).catch(() => undefined);
  if (existing !== undefined && existing.length > 0) return false;
  const partial = `${dir}.${String(process.pid)}.partial`;
  await rm(partial, { recursive: true, force: true });
  try {
    await copyTree(path, partial);
    // Over an empty folder too (rename(2) replaces one).
    await rename(partial, dir);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  return true;
}

/**
 * Writes the start snapshot (run by `npm install`): the data dir of an embedded database just made by initdb
 * and brought up to date by the shipped migrations, closed cleanly. A fresh embedded database then starts from a
 * copy of it instead of running initdb and every migration again; it is made by the same PGlite and the same
 * migrations (both part of its name), so the copy holds what they would have made.
 *
 * @returns the snapshot's path, or undefined when the installed PGlite cannot be named
 */
export async function writeStartSnapshot(): Promise<string | undefined> {
  const migrations = await loadMigrations();
  const path = await snapshotPath(migrations);
  if (path === undefined || (await exists(join(path, 'PG_VERSION')))) return path;
  await mkdir(SNAPSHOT_DIR, { recursive: true });
  // Made aside and renamed: a start never copies half a snapshot.
  const partial = `${path}.${String(process.pid)}.partial`;
  await rm(partial, { recursive: true, force: true });
  try {
    const db: PGliteDatabase = await createPGliteDatabase(partial);
    try {
      await migrate(db, migrations);
    } finally {
      await db.close();
    }
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    // Another install made the same snapshot meanwhile: theirs is as good.
    if (await exists(join(path, 'PG_VERSION'))) return path;
    throw error;
  }
  return path;
}
