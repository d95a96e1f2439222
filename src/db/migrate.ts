import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './database.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const LOCK = "select pg_advisory_xact_lock(hashtext('portico.schema_migrations'))";
const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** One schema migration: a file `NNNN_name.sql` of the migrations folder. */
export interface Migration {
  /** The file's number `NNNN`: migrations apply in its order; `schema_migrations` records it once applied. */
  version: number;
  /** The rest of the file name, without `.sql`. */
  name: string;
  /** The file's statements, run as one script in one transaction. */
  sql: string;
}

/** The migrations shipped with Portico, in order: `src/db/migrations/NNNN_name.sql`. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => FILE_PATTERN.test(file)).sort();
  return Promise.all(
    files.map(async (file) => {
      const [, version = '', name = ''] = FILE_PATTERN.exec(file) ?? [];
      return { version: Number(version), name, sql: await readFile(join(dir, file), 'utf8') };
    }),
  );
}

/**
 * Applies the migrations not yet recorded in `schema_migrations`, each in its own transaction.
 * Safe to run from several processes at once: an advisory lock lets one apply while the others wait
 * and then find nothing left to do.
 *
 * @returns the migrations applied by this call
 */
export async function migrate(db: Database, migrations?: Migration[]): Promise<Migration[]> {
  const all = migrations ?? (await loadMigrations());
  // Every start after the first finds them all applied: told by two reads, not a transaction per migration (on
  // the embedded database, about a tenth of a start's time to its first answer). A migration recorded is
  // committed, so reading without the lock misses nothing: one still pending takes the locked path below.
  if (await allApplied(db, all)) return [];
  await db.transaction(async (tx) => {
    await tx.query(LOCK);
    await tx.exec(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
  });
  const applied: Migration[] = [];
  for (const migration of all) {
    const done = await db.transaction(async (tx) => {
      await tx.query(LOCK);
      const [existing] = await tx.query('select 1 from schema_migrations where version = $1', [
        migration.version,
      ]);
      if (existing) return false;
      await tx.exec(migration.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (done) applied.push(migration);
  }
  return applied;
}

/** Whether `schema_migrations` records every one of `migrations` already. */
async function allApplied(db: Queryable, migrations: readonly Migration[]): Promise<boolean> {
  const [table] = await db.query<{ exists: boolean }>(
    "select to_regclass('schema_migrations') is not null as exists",
  );
  if (!table?.exists) return false;
  const recorded = await db.query<{ version: number }>('select version from schema_migrations');
  const versions = new Set(recorded.map(({ version }) => version));
  return migrations.every(({ version }) => versions.has(version));
}

/** A migration as `portico migrate --status` shows it: applied (and when), or pending. */
export interface MigrationState {
  version: number;
  name: string;
  /** When it was applied; null while it is pending. */
  appliedAt: Date | null;
  /**
   * Whether this Portico ships it: false for one a newer release applied (this node runs older code against a
   * newer schema, which a release that only adds supports; see docs/operations.md, "Upgrading").
   */
  known: boolean;
}

/** `NNNN_name`, as the migrations folder names a migration. */
export function migrationName(migration: Pick<Migration, 'version' | 'name'>): string {
  return `${String(migration.version).padStart(4, '0')}_${migration.name}`;
}

/**
 * Every migration, shipped or recorded, in order: which are applied and when, and which are pending. Reads
 * only: a database that was never migrated has every shipped migration pending.
 */
export async function migrationStatus(db: Queryable, migrations?: Migration[]): Promise<MigrationState[]> {
  const shipped = migrations ?? (await loadMigrations());
  const [table] = await db.query<{ exists: boolean }>(
    "select to_regclass('schema_migrations') is not null as exists",
  );
  const recorded = table?.exists
    ? await db.query<{ version: number; name: string; appliedAt: Date }>(
        'select version, name, applied_at as "appliedAt" from schema_migrations order by version',
      )
    : [];
  const byVersion = new Map<number, MigrationState>();
  for (const { version, name } of shipped)
    byVersion.set(version, { version, name, appliedAt: null, known: true });
  for (const { version, name, appliedAt } of recorded) {
    byVersion.set(version, { version, name, appliedAt, known: byVersion.has(version) });
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}
