import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Database } from '../db/database.ts';
import { readTableRows, schemaLevel, tablesInCopyOrder } from '../db/table-copy.ts';
import { AppError } from '../errors.ts';
import { createTarWriter, type TarEntry } from './tar-archive.ts';

/**
 * `portico backup`: one `.tar.gz` holding a consistent copy of an embedded deployment — every table of the
 * database (the instance secrets that sign links and seal webhook secrets included: they must travel with the
 * data they protect), the local files, the mail written to the data dir and `demo.json`. The TLS certificate
 * stays behind (a restored deployment makes or is given its own).
 *
 * Layout: `database/<table>.jsonl` (one row a line, as `to_jsonb` wrote it, tables in an order in which they
 * can be inserted), `files/…`, `mail/…`, `demo.json`, and last `manifest.json` (see {@link BackupManifest}).
 */

/** What `manifest.json` says: enough to check the archive whole before anything is restored from it. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  /** Raised when the layout changes in a way an older Portico could not read. */
  formatVersion: number;
  /** The Portico that wrote it. */
  portico: string;
  createdAt: string;
  /** The last migration of the schema the rows belong to (`schema_migrations`). */
  schemaLevel: number;
  /** Every other member of the archive, in order, with its size and SHA-256 (and, for a table, its rows). */
  entries: { name: string; bytes: number; sha256: string; rows?: number }[];
}

export const BACKUP_FORMAT = 'portico-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';

/** What a backup wrote, for the operator. */
export interface BackupSummary {
  path: string;
  /** The archive's size on disk. */
  bytes: number;
  schemaLevel: number;
  tables: number;
  rows: number;
  files: number;
  fileBytes: number;
  mails: number;
}

const PORTICO_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The parts of the data dir that travel, besides the database: each a folder (walked) or a file. */
const DATA_DIR_PARTS = [
  { name: 'files', folder: true },
  { name: 'mail', folder: true },
  { name: 'demo.json', folder: false },
] as const;

/** Every regular file under `dir` (paths relative to it, `/`-separated), skipping in-progress `.` files. */
async function* filesUnder(dir: string, base = dir): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path, base);
    else if (entry.isFile()) yield relative(base, path).split(sep).join('/');
  }
}

/** A backup that cannot be written where the operator said (`code`: the system's error code). */
export function cannotWrite(path: string, code: string, cause?: unknown): AppError {
  return new AppError(
    'BAD_USER_INPUT',
    `Cannot write ${path} (${code}): name a file in a folder that exists and that Portico may write to.`,
    undefined,
    { cause },
  );
}

/**
 * Writes a backup of the embedded database `db` and the data dir `dataDir` to `path` (a new file: it is written
 * beside it and renamed into place whole). The tables are read in one database transaction — on the embedded
 * database, which runs one at a time, a moment no write can split — and the files after it, so every file a
 * row names is there.
 */
export async function writeBackup(
  db: Database,
  options: { dataDir: string; path: string },
): Promise<BackupSummary> {
  if (db.kind !== 'pglite')
    throw new AppError(
      'BAD_USER_INPUT',
      'portico backup copies the embedded database; with DATABASE_URL, back up with pg_dump (docs/operations.md, "Backup and restore").',
    );
  const exists = await stat(options.path).then(
    () => true,
    () => false,
  );
  if (exists) throw new AppError('CONFLICT', `${options.path} exists already; name a new file.`);
  const partial = `${options.path}.partial`;
  const writer = createTarWriter(partial);
  const entries: BackupManifest['entries'] = [];
  const add = async (entry: TarEntry, rows?: number) => {
    entries.push({
      name: entry.name,
      bytes: entry.data.length,
      sha256: createHash('sha256').update(entry.data).digest('hex'),
      ...(rows === undefined ? {} : { rows }),
    });
    await writer.add(entry);
  };
  const summary = { tables: 0, rows: 0, files: 0, fileBytes: 0, mails: 0 };
  try {
    const level = await db.transaction(async (tx) => {
      for (const table of await tablesInCopyOrder(tx)) {
        const lines: string[] = [];
        for await (const batch of readTableRows(tx, table)) lines.push(...batch);
        const text = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
        await add({ name: `database/${table.name}.jsonl`, data: Buffer.from(text) }, lines.length);
        summary.tables += 1;
        summary.rows += lines.length;
      }
      return schemaLevel(tx);
    });
    for (const part of DATA_DIR_PARTS) {
      const path = join(options.dataDir, part.name);
      if (!part.folder) {
        const data = await readFile(path).catch(() => undefined);
        if (data) await add({ name: part.name, data });
        continue;
      }
      for await (const file of filesUnder(path)) {
        const data = await readFile(join(path, file));
        await add({ name: `${part.name}/${file}`, data });
        if (part.name === 'files') {
          summary.files += 1;
          summary.fileBytes += data.length;
        } else summary.mails += 1;
      }
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      portico: PORTICO_VERSION,
      createdAt: new Date().toISOString(),
      schemaLevel: level,
      entries,
    };
    await writer.add({ name: MANIFEST_NAME, data: Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`) });
    await writer.close();
    await rename(partial, options.path);
    return { path: options.path, bytes: (await stat(options.path)).size, schemaLevel: level, ...summary };
  } catch (error) {
    await writer.close().catch(() => undefined);
    await rm(partial, { force: true });
    // The folder is missing or not writable: said to the operator, who named it.
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR')
      throw cannotWrite(options.path, code, error);
    throw error;
  }
}
