import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadMigrations, migrate } from '../../../src/db/migrate.ts';
import {
  createPGliteDatabase,
  type PGliteDatabase,
  type PGliteStartOptions,
} from '../../../src/db/pglite-database.ts';

/**
 * initdb's settings for test databases, chosen for a small tarball that loads fast: 1 MB WAL segments instead
 * of one 16 MB segment, and 8 MB of shared buffers, which PostgreSQL zeroes at every start, instead of 128 MB.
 */
const INITDB: PGliteStartOptions = {
  initDbStartParams: ['--wal-segsize=1', '-c', 'shared_buffers=8MB'],
};

/** What a template holds: the whole schema, or nothing but what initdb made (for tests of migrate itself). */
export type PGliteTemplate = 'migrated' | 'empty';

/**
 * The tarball's file: its name is a hash of everything that goes into it (the PGlite version, the initdb
 * settings and, for the migrated one, each migration), so a changed migration makes a new template and an
 * unchanged one is reused by the next run.
 */
async function templatePath(template: PGliteTemplate): Promise<string> {
  const hash = createHash('sha256');
  // The package does not export its package.json; it sits one level above the entry point (dist/index.js).
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const pglite = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  hash.update(JSON.stringify([template, pglite.version, INITDB]));
  if (template === 'migrated') {
    for (const migration of await loadMigrations()) hash.update(`\0${migration.name}\0${migration.sql}`);
  }
  return join(tmpdir(), `portico-test-pglite-${template}-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** Runs initdb (and, for `migrated`, every migration) once, and writes the data dir as a tarball to `path`. */
async function buildTemplate(template: PGliteTemplate, path: string): Promise<void> {
  const db = await createPGliteDatabase(undefined, INITDB);
  try {
    if (template === 'migrated') await migrate(db);
    // Tests use the one database PGlite opens; the two templates of initdb are 40% of the tarball.
    for (const name of ['template0', 'template1']) {
      await db.query(`alter database ${name} is_template false`);
      await db.query(`drop database ${name}`);
    }
    await db.query('checkpoint');
    const tarball = new Uint8Array(await (await db.dumpDataDir()).arrayBuffer());
    // Written under a name of its own and renamed into place: two workers building at once both succeed, and
    // no reader sees half a file.
    const partial = `${path}.${randomBytes(6).toString('hex')}.partial`;
    await writeFile(partial, tarball);
    await rename(partial, path);
  } finally {
    await db.close();
  }
}

/**
 * The path of a PGlite data dir tarball (migrated, or empty), built now if no earlier run (or the suite's
 * global setup) built it.
 */
export async function ensurePGliteTemplate(template: PGliteTemplate = 'migrated'): Promise<string> {
  const path = await templatePath(template);
  if (!existsSync(path)) await buildTemplate(template, path);
  return path;
}

/**
 * A fresh in-memory PGlite database, migrated (or empty): a copy of the template, which costs a load of the
 * tarball instead of initdb and the migrations.
 */
export async function createPGliteFromTemplate(
  template: PGliteTemplate = 'migrated',
): Promise<PGliteDatabase> {
  return createPGliteDatabase(undefined, { loadDataDir: await templateBlob(template) });
}

/**
 * Puts a copy of the migrated template where `openDatabase` finds the embedded database of a data dir
 * (`<dataDir>/db`): a `serve()` or a `portico` process on that data dir then opens it, finding nothing to
 * migrate, instead of running initdb and every migration. For tests where that database is a means, not what
 * is tested.
 */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  const db = await createPGliteDatabase(join(dataDir, 'db'), { loadDataDir: await templateBlob('migrated') });
  await db.close();
}

async function templateBlob(template: PGliteTemplate): Promise<Blob> {
  return new Blob([await readFile(await ensurePGliteTemplate(template))]);
}
