import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { loadMigrations, migrate, type Migration } from '../../src/db/migrate.ts';
import { createPostgresDatabase } from '../../src/db/postgres-database.ts';
import {
  DIALECT,
  TEST_DATABASE_URL,
  createTestDatabase,
  createTestSchema,
  type TestDatabase,
} from '../support/db/database.ts';
import { createPGliteFromTemplate } from '../support/db/pglite-template.ts';
import pg from 'pg';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A database with nothing in it, and how to reach it again: on PostgreSQL a new schema (each `connect()` is a
 * pool of its own, as another process would have), on PGlite one in-memory database that initdb made and nothing
 * else did (`connect()` gives it again: one PGlite is one database).
 */
async function emptyDatabase(): Promise<{ connect(): Promise<Database> }> {
  if (TEST_DATABASE_URL === undefined) {
    const db = await createPGliteFromTemplate('empty');
    cleanups.push(() => db.close());
    return { connect: () => Promise.resolve(db) };
  }
  const url = TEST_DATABASE_URL;
  const { options, drop } = await createTestSchema(url);
  cleanups.push(drop);
  return {
    connect() {
      const db = createPostgresDatabase({ connectionString: url, connectionOptions: options });
      cleanups.push(() => db.close());
      return Promise.resolve(db);
    },
  };
}

async function tablesOf(db: Database): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `select table_name as name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
  );
  return rows.map((row) => row.name);
}

async function recordedVersions(db: Database): Promise<number[]> {
  const rows = await db.query<{ version: number }>('select version from schema_migrations order by version');
  return rows.map((row) => row.version);
}

describe(`migrate on the test database (${DIALECT})`, () => {
  // Already migrated by createTestDatabase(); these tests only read it (and check that migrating again is a no-op).
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await test.close();
  });

  it('applies nothing to a database that is up to date', async () => {
    const before = await recordedVersions(test.db);

    expect(await migrate(test.db)).toEqual([]);
    expect(await recordedVersions(test.db)).toEqual(before);
  });

  it('records every shipped migration once, in version order', async () => {
    const shipped = await loadMigrations();
    expect(shipped.length).toBeGreaterThan(0);
    expect(shipped.map((m) => m.version)).toEqual([...shipped.map((m) => m.version)].sort((a, b) => a - b));

    const rows = await test.db.query<{ version: number; name: string }>(
      'select version, name from schema_migrations order by version',
    );
    expect(rows).toEqual(shipped.map(({ version, name }) => ({ version, name })));
  });

  it('creates every table of the initial migration', async () => {
    const sql = await readFile(
      new URL('../../src/db/migrations/0001_transactions.sql', import.meta.url),
      'utf8',
    );
    const declared = [...sql.matchAll(/^create table (\w+)/gim)].map((match) => match[1]);
    expect(declared).toContain('organizations');
    expect(declared).toContain('transaction_events');

    const tables = await tablesOf(test.db);
    for (const table of declared) expect(tables, table).toContain(table);
    expect(tables).toContain('schema_migrations');
  });
});

describe(`migrate on a fresh database (${DIALECT})`, () => {
  it('lets two concurrent migrate() calls on a fresh database both succeed, applying each migration once', async () => {
    const empty = await emptyDatabase();
    const [one, two] = await Promise.all([empty.connect(), empty.connect()]);
    const shipped = await loadMigrations();

    const [appliedByOne, appliedByTwo] = await Promise.all([migrate(one), migrate(two)]);

    const applied = [...appliedByOne, ...appliedByTwo].map((m) => m.version).sort((a, b) => a - b);
    expect(applied).toEqual(shipped.map((m) => m.version));
    const rows = await one.query<{ version: number; copies: string }>(
      'select version, count(*)::text as copies from schema_migrations group by version order by version',
    );
    expect(rows).toEqual(shipped.map((m) => ({ version: m.version, copies: '1' })));
    expect(await tablesOf(two)).toContain('organizations');
  });

  it.skipIf(TEST_DATABASE_URL === undefined)(
    'makes two nodes wait while another holds the migration lock, then apply each migration once',
    async () => {
      const url = TEST_DATABASE_URL ?? '';
      const { options, drop } = await createTestSchema(url);
      cleanups.push(drop);
      // The two nodes name themselves, so that the test sees their sessions wait, and no other file's.
      const name = `portico-lock-${String(process.pid)}-${String(Date.now())}`;
      const node = () => {
        const db = createPostgresDatabase({
          connectionString: url,
          connectionOptions: `${options} -c application_name=${name}`,
        });
        cleanups.push(() => db.close());
        return db;
      };
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      cleanups.push(() => holder.end());
      // A third node in the middle of migrating: it holds the lock that migrate() takes.
      await holder.query("select pg_advisory_lock(hashtext('portico.schema_migrations'))");

      const both = Promise.all([migrate(node()), migrate(node())]);
      const waiting = async () => {
        const [row] = await holder
          .query<{ waiting: number }>(
            `select count(*)::int as waiting from pg_locks l join pg_stat_activity a on a.pid = l.pid
           where l.locktype = 'advisory' and not l.granted and a.application_name = $1`,
            [name],
          )
          .then((result) => result.rows);
        return row?.waiting ?? 0;
      };
      const deadline = Date.now() + 20_000;
      while ((await waiting()) < 2) {
        if (Date.now() > deadline) throw new Error('the two nodes never waited for the migration lock');
        await new Promise((resolve) => setImmediate(resolve));
      }
      await holder.query("select pg_advisory_unlock(hashtext('portico.schema_migrations'))");

      const [first, second] = await both;
      const shipped = await loadMigrations();
      const applied = [...first, ...second].map((m) => m.version).sort((a, b) => a - b);
      expect(applied).toEqual(shipped.map((m) => m.version));
    },
  );

  it('applies pending migrations from a directory in version order, ignoring other files', async () => {
    // Characters that mean something in a URL, as an install path may hold them.
    const dir = await mkdtemp(join(tmpdir(), 'portico-migrations #1?%20-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, '0002_add_colour.sql'), 'alter table widgets add column colour text;');
    await writeFile(join(dir, '0001_widgets.sql'), 'create table widgets (id integer primary key);');
    await writeFile(join(dir, 'README.md'), 'not a migration');
    await writeFile(join(dir, '0003_Bad-Name.sql'), 'select 1;');

    const migrations = await loadMigrations(dir);
    expect(migrations.map(({ version, name }) => ({ version, name }))).toEqual([
      { version: 1, name: 'widgets' },
      { version: 2, name: 'add_colour' },
    ]);

    const db = await (await emptyDatabase()).connect();
    expect((await migrate(db, migrations.slice(0, 1))).map((m) => m.version)).toEqual([1]);
    expect((await migrate(db, migrations)).map((m) => m.version)).toEqual([2]);
    await db.query("insert into widgets (id, colour) values (1, 'teal')");
    expect(await recordedVersions(db)).toEqual([1, 2]);
  });

  it('rolls back a failing migration and does not record it, keeping those applied before it', async () => {
    const db = await (await emptyDatabase()).connect();
    const migrations: Migration[] = [
      { version: 1, name: 'widgets', sql: 'create table widgets (id integer primary key);' },
      {
        version: 2,
        name: 'broken',
        sql: 'create table gadgets (id integer primary key); alter table no_such_table add column x text;',
      },
    ];

    await expect(migrate(db, migrations)).rejects.toThrow(/no_such_table/);
    expect(await recordedVersions(db)).toEqual([1]);
    const tables = await tablesOf(db);
    expect(tables).toContain('widgets');
    expect(tables).not.toContain('gadgets');
  });
});
