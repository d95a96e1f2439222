// `portico backup` and `portico restore` of an embedded deployment: a backup taken while the deployment is served
// (through the admin socket), restored into a fresh data dir, answers every question as the original did.
// Always on the embedded database, under TEST_DATABASE_URL too: it is what these commands are for.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer } from '../../src/admin/admin-server.ts';
import { MANIFEST_NAME, type BackupManifest } from '../../src/admin/backup.ts';
import { createTarWriter, readTarEntries, type TarEntry } from '../../src/admin/tar-archive.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createPostgresDatabase } from '../../src/db/postgres-database.ts';
import { createLocalFileStore } from '../../src/files/local-file-store.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { runPortico } from '../support/cli.ts';
import { DROP_DATABASE_TIMEOUT_MS, dropDatabases, TEST_DATABASE_URL } from '../support/db/database.ts';
import { askDeployment, seedDeployment, type SeededDeployment } from '../support/deployment-answers.ts';

let root: string;
let original: string;
let archive: string;
let seeded: SeededDeployment;
let before: Record<string, string>;
const MAIL = 'From: a@example.com\r\nSubject: kept\r\n\r\nkept\r\n';

const run = promisify(execFile);

const inDir = (dataDir: string, args: string[]) => runPortico(args, { env: { PORTICO_DATA_DIR: dataDir } });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-backup-'));
  original = join(root, 'original');
  archive = join(root, 'backup.tar.gz');
  const opened = await openDatabase({ dataDir: original, databaseUrl: undefined });
  const config = { environment: 'staging' as const, dataDir: original, webhooksAllowInsecure: false };
  const mailer = createMailer(
    { ...config, smtpUrl: undefined, mailFrom: 'x@example.com' },
    pino({ level: 'silent' }),
  );
  const admin = await startAdminServer({
    db: opened.db,
    config,
    services: { mailer, portfolioUrl: 'https://localhost:1', transactionsUrl: 'https://localhost:2' },
  });
  try {
    await opened.announce(admin.path);
    seeded = await seedDeployment(opened.db, createLocalFileStore(join(original, 'files')));
    await mkdir(join(original, 'mail'), { recursive: true });
    await writeFile(join(original, 'mail', 'invitation.eml'), MAIL);
    before = await askDeployment(opened.db, original, seeded);
    // While the deployment is served: the command goes through its admin socket.
    const ran = await inDir(original, ['backup', archive]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(
      /^Using the embedded database in .*original, through portico serve \(process \d+\)\n$/,
    );
    expect(ran.stdout).toMatch(/^Wrote .*backup\.tar\.gz \(\d+\.\d KB\) from /);
    expect(ran.stdout).toMatch(/database {2}\d+ tables, \d+ rows, schema 00\d\d/);
    expect(ran.stdout).toMatch(/files {5}[1-9]\d* \(/);
    expect(ran.stdout).toContain('mail      1 messages');
  } finally {
    await admin.app.close();
    mailer.close();
    await opened.close();
  }
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('portico backup and restore', { timeout: 90_000 }, () => {
  it('restores into a fresh data dir a deployment that answers every question as the original did', async () => {
    const fresh = join(root, 'fresh');
    const ran = await inDir(fresh, ['restore', archive]);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toMatch(/^Restored .* from a backup of \d{4}-/);
    expect(await readFile(join(fresh, 'mail', 'invitation.eml'), 'utf8')).toBe(MAIL);
    const opened = await openDatabase({ dataDir: fresh, databaseUrl: undefined });
    try {
      const after = await askDeployment(opened.db, fresh, seeded);
      expect(before.transaction).toContain('"transactionFiles":[{');
      expect(before.history).toMatch(/^\{"ok":true,"head":"[0-9a-f]{64}","entries":[1-9]\d*\}$/);
      expect(Object.keys(before).filter((name) => name.startsWith('download'))).not.toHaveLength(0);
      expect(
        Object.entries(before)
          .filter(([name]) => name !== 'history')
          .filter(([, answer]) => !/^200 /.test(answer) || answer.includes('"errors"')),
      ).toEqual([]);
      expect(after).toEqual(before);
      // Sequences go on past the copied rows: a new row gets a new value.
      const [made] = await opened.db.query<{ sequence: string; largest: string }>(
        `insert into entities (organization_id, name, email, type)
         select organization_id, 'After Restore', 'after@example.com', 'individual' from entities limit 1
         returning sequence, (select max(sequence) from entities) as largest`,
      );
      expect(Number(made?.sequence)).toBeGreaterThan(Number(made?.largest));
    } finally {
      await opened.close();
    }
  });

  it('refuses to restore over a deployment without --force, and replaces it with --force', async () => {
    const existing = join(root, 'existing');
    await mkdir(join(existing, 'db'), { recursive: true });
    await mkdir(join(existing, 'files'), { recursive: true });
    await writeFile(join(existing, 'files', 'left-over'), 'old');
    const refused = await inDir(existing, ['restore', archive]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('holds a deployment already (db, files)');
    expect(refused.stderr).toContain('--force');
    expect(await readdir(join(existing, 'files'))).toEqual(['left-over']);
    const forced = await inDir(existing, ['restore', '--force', archive]);
    expect(forced).toMatchObject({ code: 0, stderr: '' });
    expect(await readdir(join(existing, 'files'))).not.toContain('left-over');
    expect(await readFile(join(existing, 'mail', 'invitation.eml'), 'utf8')).toBe(MAIL);
  });

  it('refuses a damaged archive and one of a newer schema, writing nothing', async () => {
    const entries: TarEntry[] = [];
    for await (const entry of readTarEntries(archive)) entries.push(entry);
    const rewrite = async (name: string, change: (manifest: BackupManifest) => void, damage = false) => {
      const path = join(root, name);
      const writer = createTarWriter(path);
      for (const entry of entries) {
        if (entry.name === MANIFEST_NAME) {
          const manifest = JSON.parse(entry.data.toString('utf8')) as BackupManifest;
          change(manifest);
          await writer.add({ name: entry.name, data: Buffer.from(JSON.stringify(manifest)) });
        } else if (damage && entry.name.startsWith('database/organizations')) {
          await writer.add({
            name: entry.name,
            data: Buffer.from(entry.data.toString().replace('Demo', 'Fake')),
          });
        } else await writer.add(entry);
      }
      await writer.close();
      return path;
    };
    const target = join(root, 'refused');
    const damaged = await inDir(target, ['restore', await rewrite('damaged.tar.gz', () => undefined, true)]);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain(
      'is not a whole Portico backup: database/organizations.jsonl does not match its checksum',
    );
    const newer = await inDir(target, [
      'restore',
      await rewrite('newer.tar.gz', (manifest) => {
        manifest.schemaLevel = 9999;
      }),
    ]);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toMatch(/holds a database at schema 9999, newer than this Portico knows \(\d+\)/);
    await writeFile(join(root, 'truncated.tar.gz'), (await readFile(archive)).subarray(0, 2000));
    const truncated = await inDir(target, ['restore', join(root, 'truncated.tar.gz')]);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr).toContain('is not a whole Portico backup');
    const missing = await inDir(target, ['restore', join(root, 'no-such.tar.gz')]);
    expect(missing.stderr).toContain(`There is no backup at ${join(root, 'no-such.tar.gz')}`);
    expect(await readdir(target).catch(() => [])).toEqual([]);
  });

  it('refuses to back up a data dir that holds no database, creating none, or into a folder that does not exist', async () => {
    const empty = join(root, 'empty');
    const ran = await inDir(empty, ['backup', join(root, 'nothing.tar.gz')]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`There is no embedded database in ${empty}.`);
    const nowhere = await inDir(original, ['backup', join(root, 'no-such-folder', 'b.tar.gz')]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('(ENOENT): name a file in a folder that exists');
    expect(await readdir(empty).catch(() => [])).toEqual([]);
  });
});

// On the PostgreSQL server of TEST_DATABASE_URL, in a database made for the test and dropped after it.
describe.skipIf(TEST_DATABASE_URL === undefined)('moving to PostgreSQL', { timeout: 90_000 }, () => {
  let admin: Database;
  const made: string[] = [];
  /** A new database on the server of TEST_DATABASE_URL, dropped after the tests: its URL. */
  const scratchDatabase = async () => {
    const name = `portico_mt_${randomBytes(4).toString('hex')}`;
    await admin.query(`create database ${name}`);
    made.push(name);
    const url = new URL(TEST_DATABASE_URL ?? '');
    url.pathname = `/${name}`;
    return url.toString();
  };
  let url: string;
  beforeAll(async () => {
    admin = createPostgresDatabase({ connectionString: TEST_DATABASE_URL ?? '' });
    url = await scratchDatabase();
  });
  afterAll(async () => {
    await admin.close();
    await dropDatabases(TEST_DATABASE_URL ?? '', made);
  }, DROP_DATABASE_TIMEOUT_MS);

  it('moves the embedded deployment into PostgreSQL, which answers every question as the original did', async () => {
    const ran = await inDir(original, ['migrate-to', '--database-url', url]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(/^Using the embedded database in .*original\nUsing PostgreSQL at /);
    expect(ran.stdout).toMatch(
      /^Copied \d+ tables \(\d+ rows\) from the embedded database in .* read every table back the same\./,
    );
    expect(ran.stdout).toContain(`Files stay in ${join(original, 'files')}`);
    const moved = createPostgresDatabase({ connectionString: url });
    try {
      expect(await askDeployment(moved, original, seeded)).toEqual(before);
    } finally {
      await moved.close();
    }
    const again = await inDir(original, ['migrate-to', '--database-url', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The PostgreSQL database holds data already (');
  });

  it('restores a pg_dump of it with pg_restore into a new database that answers as the original did', async () => {
    // The commands of docs/operations.md, "Backup and restore", on the database migrate-to filled.
    const dump = join(root, 'portico.dump');
    await run('pg_dump', ['--format=custom', '--file', dump, url]);
    const restored = await scratchDatabase();
    await run('pg_restore', [
      '--no-owner',
      '--exit-on-error',
      '--single-transaction',
      '--dbname',
      restored,
      dump,
    ]);
    const db = createPostgresDatabase({ connectionString: restored });
    try {
      expect(await askDeployment(db, original, seeded)).toEqual(before);
    } finally {
      await db.close();
    }
  });
});
