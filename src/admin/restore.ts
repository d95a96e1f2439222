import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { lockDataDir } from '../db/data-dir-lock.ts';
import { loadMigrations, migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open-database.ts';
import { createPGliteDatabase } from '../db/pglite-database.ts';
import { resetIdentities, tablesInCopyOrder, writeTableRows, type CopiedTable } from '../db/table-copy.ts';
import type { Queryable } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, MANIFEST_NAME, type BackupManifest } from './backup.ts';
import { readTarEntries, type TarEntry } from './tar-archive.ts';

/** What a restore did, for the operator. */
export interface RestoreSummary {
  dataDir: string;
  /** When the backup was made, and by which Portico. */
  createdAt: string;
  portico: string;
  /** The schema level of the backup, and the migrations applied after it to reach this Portico's. */
  schemaLevel: number;
  migrated: number[];
  tables: number;
  rows: number;
  files: number;
  mails: number;
}

/** What of the data dir a restore writes: a data dir holding any of them is not fresh. */
const RESTORED_PARTS = ['db', 'files', 'mail', 'demo.json'];

/** Rows inserted by one statement. */
const BATCH_ROWS = 500;

function damaged(path: string, why: string): AppError {
  return new AppError('BAD_USER_INPUT', `${path} is not a whole Portico backup: ${why}.`);
}

/**
 * Reads the whole archive once and checks it against its manifest: every member present with its size and
 * SHA-256, nothing else, a format and a schema this Portico knows. Nothing is written before it passes.
 */
async function verifyArchive(path: string, knownLevel: number): Promise<BackupManifest> {
  const seen = new Map<string, { bytes: number; sha256: string }>();
  let manifest: BackupManifest | undefined;
  const readable = await access(path, constants.R_OK).then(
    () => true,
    () => false,
  );
  if (!readable) throw new AppError('NOT_FOUND', `There is no backup at ${path} (or it cannot be read).`);
  try {
    for await (const entry of readTarEntries(path)) {
      if (entry.name === MANIFEST_NAME) {
        manifest = JSON.parse(entry.data.toString('utf8')) as BackupManifest;
        continue;
      }
      seen.set(entry.name, {
        bytes: entry.data.length,
        sha256: createHash('sha256').update(entry.data).digest('hex'),
      });
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw damaged(path, error instanceof Error ? error.message : String(error));
  }
  if (manifest?.format !== BACKUP_FORMAT) throw damaged(path, `it has no ${MANIFEST_NAME}`);
  if (manifest.formatVersion > BACKUP_FORMAT_VERSION)
    throw new AppError(
      'BAD_USER_INPUT',
      `${path} was written by Portico ${manifest.portico} in a newer backup format (${String(manifest.formatVersion)}); restore it with that Portico or a later one.`,
    );
  if (manifest.schemaLevel > knownLevel)
    throw new AppError(
      'BAD_USER_INPUT',
      `${path} holds a database at schema ${String(manifest.schemaLevel)}, newer than this Portico knows (${String(knownLevel)}); restore it with Portico ${manifest.portico} or a later one.`,
    );
  for (const expected of manifest.entries) {
    const found = seen.get(expected.name);
    if (!found) throw damaged(path, `${expected.name} is missing`);
    if (found.bytes !== expected.bytes || found.sha256 !== expected.sha256)
      throw damaged(path, `${expected.name} does not match its checksum`);
    seen.delete(expected.name);
  }
  const [extra] = seen.keys();
  if (extra !== undefined) throw damaged(path, `${extra} is not in its manifest`);
  return manifest;
}

/** The parts of `dataDir` a restore would replace that are there already. */
async function existingParts(dataDir: string): Promise<string[]> {
  const names = await readdir(dataDir).catch(() => [] as string[]);
  return RESTORED_PARTS.filter((part) => names.includes(part));
}

/** Writes one data-dir member of the archive into `dataDir`, owner-readable only, never outside it. */
async function writeMember(dataDir: string, entry: TarEntry): Promise<void> {
  const base = resolve(dataDir);
  const path = resolve(base, entry.name);
  if (!path.startsWith(base + sep)) throw new Error(`archive member escapes the data dir: ${entry.name}`);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, entry.data, { mode: 0o600 });
}

/** Opens a new embedded database in `dataDir` at exactly schema `level`, locked to this process. */
async function openAtLevel(dataDir: string, level: number, latest: number) {
  if (level === latest) return openDatabase({ dataDir, databaseUrl: undefined });
  const lock = await lockDataDir(dataDir);
  try {
    const db = await createPGliteDatabase(join(dataDir, 'db'));
    await migrate(
      db,
      (await loadMigrations()).filter((migration) => migration.version <= level),
    );
    return {
      db,
      async close() {
        await db.close();
        await lock.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Inserts the rows of one `database/<table>.jsonl` member, a batch at a time. */
async function restoreTable(db: Queryable, table: CopiedTable, data: Buffer): Promise<number> {
  const lines = data
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '');
  for (let start = 0; start === 0 || start < lines.length; start += BATCH_ROWS)
    await writeTableRows(db, table, lines.slice(start, start + BATCH_ROWS), start === 0);
  return lines.length;
}

/**
 * `portico restore`: makes the embedded deployment of `dataDir` from a backup. The archive is checked whole
 * first; the data dir must be fresh (nothing of a database, files or mail in it) unless `force`, which replaces
 * them. The database is made at the backup's schema level, filled in one transaction, then migrated to this
 * Portico's level.
 */
export async function restoreBackup(options: {
  dataDir: string;
  path: string;
  force: boolean;
}): Promise<RestoreSummary> {
  const { dataDir, path } = options;
  const migrations = await loadMigrations();
  const latest = migrations.at(-1)?.version ?? 0;
  const manifest = await verifyArchive(path, latest);
  const existing = await existingParts(dataDir);
  if (existing.length > 0 && !options.force)
    throw new AppError(
      'CONFLICT',
      `${dataDir} holds a deployment already (${existing.join(', ')}); restore into a new data dir, or add --force to replace it.`,
    );
  // A server holding the data dir refuses the lock: nothing of its deployment is touched.
  await (await lockDataDir(dataDir)).release();
  // What --force replaces is moved aside, and put back should the restore fail.
  const aside = join(dataDir, `.replaced-${randomBytes(4).toString('hex')}`);
  if (existing.length > 0) await mkdir(aside, { mode: 0o700 });
  for (const part of existing) await rename(join(dataDir, part), join(aside, part));
  const summary = { tables: 0, rows: 0, files: 0, mails: 0 };
  let migrated: number[];
  try {
    const opened = await openAtLevel(dataDir, manifest.schemaLevel, latest);
    try {
      const tables = new Map((await tablesInCopyOrder(opened.db)).map((table) => [table.name, table]));
      await opened.db.transaction(async (tx) => {
        for await (const entry of readTarEntries(path)) {
          if (entry.name === MANIFEST_NAME) continue;
          const tableName = /^database\/(.+)\.jsonl$/.exec(entry.name)?.[1];
          if (tableName === undefined) {
            await writeMember(dataDir, entry);
            if (entry.name.startsWith('files/')) summary.files += 1;
            if (entry.name.startsWith('mail/')) summary.mails += 1;
            continue;
          }
          const table = tables.get(tableName);
          if (!table) throw damaged(path, `its table ${tableName} is not in the schema it names`);
          summary.rows += await restoreTable(tx, table, entry.data);
          summary.tables += 1;
        }
        await resetIdentities(tx, [...tables.values()]);
      });
      migrated = (await migrate(opened.db, migrations)).map((migration) => migration.version);
    } finally {
      await opened.close();
    }
  } catch (error) {
    for (const part of RESTORED_PARTS) await rm(join(dataDir, part), { recursive: true, force: true });
    for (const part of existing) await rename(join(aside, part), join(dataDir, part));
    await rm(aside, { recursive: true, force: true });
    throw error;
  }
  await rm(aside, { recursive: true, force: true });
  return {
    dataDir,
    createdAt: manifest.createdAt,
    portico: manifest.portico,
    schemaLevel: manifest.schemaLevel,
    migrated,
    ...summary,
  };
}
