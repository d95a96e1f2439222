/**
 * The Portfolio suite's data: a PostgreSQL schema of its own (`bench_portfolio` by default) holding one customer
 * instance with `companies` companies (1,000,000 by default) and their funds, and a second instance with a few,
 * written by SQL (`generate_series`) in one transaction. It is kept after the run and reused by the next one when
 * it still holds what this code would seed (`BENCH_PORTFOLIO_RESEED=1` seeds it again). See bench/README.md.
 */
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { loadMigrations, migrate } from '../src/db/migrate.ts';
import { createPostgresDatabase } from '../src/db/postgres-database.ts';
import { createInstance } from '../src/portfolio/instances.ts';
import { BENCH_DATABASE_URL } from './database.ts';

/**
 * Bumped whenever the seed below changes what it writes, so that a schema seeded by older code is seeded again
 * rather than reused.
 */
const SEED_VERSION = 1;

/** The `application_name` of the suite's connections to PostgreSQL. */
export const PORTFOLIO_APPLICATION_NAME = 'portico_bench_portfolio';
export const MAIN_SLUG = 'bench-portfolio';
export const OTHER_SLUG = 'bench-portfolio-other';
/** Funds of the main instance; every company is in 1 or 2 of them. */
export const FUND_COUNT = 6;
/** Companies of the second instance (interleaved in time with the main one's). */
export const OTHER_COMPANIES = 25;
/** The first company's createdAt; one company about every 157 s after it (5 years for 1,000,000). */
const FIRST_CREATED_AT = '2019-01-01T00:00:00Z';
const STEP_MS = 157_000;
/** Every 50th company has the createdAt of the one before it: ties that only the id orders. */
const TIE_EVERY = 50;
/**
 * Every 200th company was changed again at some time in the `RECENT_DAYS` days from `RECENT_FROM` (its
 * updatedAt); every other one has updatedAt = createdAt. So `updatedSince=RECENT_FROM` selects the companies
 * added since then (the last month's) plus those changed since then (1 in 200 of the older ones), as an
 * incremental sync would.
 */
const CHANGED_EVERY = 200;
export const RECENT_FROM = '2023-12-01T00:00:00.000Z';
const RECENT_DAYS = 30;

export interface PortfolioSeed {
  db: Database;
  schema: string;
  description: string;
  instanceId: string;
  otherInstanceId: string;
  companies: number;
  /** Seconds the seed took: in this run, or when the reused schema was seeded. */
  seedSeconds: number;
  reused: boolean;
  close(): Promise<void>;
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

interface SeedMarker {
  seed_version: number;
  companies: number;
  migration_version: number;
  seconds: number;
  seeded_at: Date;
}

/**
 * What the schema holds, when it is the complete result of this seed: the marker (written last, once the seed
 * committed and the tables were vacuumed) and the instances with their counts as the seed left them.
 */
async function existingSeed(
  db: Database,
  companies: number,
): Promise<{ marker: SeedMarker; instanceId: string; otherInstanceId: string } | undefined> {
  const [table] = await db.query<{ present: boolean }>(
    `select to_regclass('bench_portfolio_seed') is not null as present`,
  );
  if (!table?.present) return undefined;
  const [marker] = await db.query<SeedMarker>('select * from bench_portfolio_seed');
  const latest = Math.max(...(await loadMigrations()).map((migration) => migration.version));
  if (
    !marker ||
    marker.seed_version !== SEED_VERSION ||
    marker.companies !== companies ||
    marker.migration_version !== latest
  ) {
    return undefined;
  }
  const instances = await db.query<{
    id: string;
    slug: string;
    revision: string;
    count: string;
    counted: string;
  }>(
    `select i.id, i.slug, i.revision::text, i.companies_count::text as count,
       (select count(*) from portfolio_companies c where c.instance_id = i.id)::text as counted
     from portfolio_instances i where i.slug in ($1, $2)`,
    [MAIN_SLUG, OTHER_SLUG],
  );
  const main = instances.find((row) => row.slug === MAIN_SLUG);
  const other = instances.find((row) => row.slug === OTHER_SLUG);
  if (
    !main ||
    !other ||
    main.revision !== '1' ||
    main.count !== String(companies) ||
    main.counted !== String(companies) ||
    other.count !== String(OTHER_COMPANIES) ||
    other.counted !== String(OTHER_COMPANIES)
  ) {
    return undefined;
  }
  return { marker, instanceId: main.id, otherInstanceId: other.id };
}

/** Writes both instances and their data into a freshly migrated schema; returns the instances' ids. */
async function seed(
  db: Database,
  companies: number,
  log: (line: string) => void,
): Promise<{ instanceId: string; otherInstanceId: string }> {
  return db.transaction(async (tx) => {
    const step = async (label: string, work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      log(`    ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    };
    // The rows are consistent by construction; skipping the foreign-key triggers (superuser only) saves a
    // lookup per fund link. Without the privilege the seed runs with them, only slower.
    await tx.query('savepoint replica');
    try {
      await tx.query('set local session_replication_role = replica');
      await tx.query('release savepoint replica');
    } catch {
      await tx.query('rollback to savepoint replica');
      log('    (no superuser: foreign keys are checked while seeding)');
    }
    const main = await createInstance(tx, { slug: MAIN_SLUG, name: 'Bench Portfolio' });
    const other = await createInstance(tx, { slug: OTHER_SLUG, name: 'Bench Portfolio (other tenant)' });

    const funds = async (instanceId: string, count: number, prefix: string) =>
      tx.query(
        `insert into portfolio_funds (instance_id, id, name, created_at, updated_at)
         select $1, gen_random_uuid(), $2 || ' ' || to_char(g, 'FMRN'), $3::timestamptz, $3::timestamptz
         from generate_series(1, $4::int) g`,
        [instanceId, prefix, FIRST_CREATED_AT, count],
      );
    await funds(main.id, FUND_COUNT, 'Bench Ventures');
    await funds(other.id, 2, 'Other Partners');

    // Company g of the main instance: created at FIRST_CREATED_AT + k * STEP_MS + a jitter of under 66 s (so
    // still in g's order), where k = g, or g - 1 for every TIE_EVERY-th company (a tie with the one before). The
    // ids are random, so within a tie the id order is not the insertion order. The other tenant's few companies
    // are spread over the same years, among the main one's.
    const companyRows = (instanceId: string, count: number, name: string, createdAtMs: string) =>
      tx.query(
        `insert into portfolio_companies
           (instance_id, id, legal_name, created_at, updated_at, created_revision, updated_revision)
         select $1, gen_random_uuid(), $2 || ' ' || g, t.created_at,
           case when g % ${CHANGED_EVERY} = 7
             then greatest(t.created_at, timestamptz '${RECENT_FROM}'
               + (hashint4(-g) & 2147483647) % ${RECENT_DAYS * 86_400_000}::bigint * interval '1 millisecond')
             else t.created_at end,
           1, 1
         from generate_series(1, $3::int) g,
           lateral (select timestamptz '${FIRST_CREATED_AT}' + (${createdAtMs}) * interval '1 millisecond'
             as created_at) t`,
        [instanceId, name, count],
      );
    const tie = `(g - (g % ${TIE_EVERY} = 0)::int)::bigint`;
    await step(`${companies.toLocaleString('en-US')} companies`, () =>
      companyRows(
        main.id,
        companies,
        'Bench Company',
        `${tie} * ${STEP_MS} + (hashint4(${tie}::int) & 65535)`,
      ),
    );
    await companyRows(
      other.id,
      OTHER_COMPANIES,
      'Other Company',
      `g::bigint * ${Math.floor((companies * STEP_MS) / OTHER_COMPANIES)} + 500`,
    );

    // 1 or 2 funds per company, picked by bytes of its random id: about half have two.
    await step('fund links', () =>
      tx.query(
        `with f as (
           select instance_id, array_agg(id order by name, id) as ids, count(*)::int as n
           from portfolio_funds where instance_id in ($1, $2) group by instance_id
         )
         insert into portfolio_company_funds (instance_id, company_id, fund_id)
         select c.instance_id, c.id, f.ids[1 + pick.fund]
         from portfolio_companies c
         join f on f.instance_id = c.instance_id
         cross join lateral (
           select get_byte(uuid_send(c.id), 0) % f.n as fund
           union all
           select (get_byte(uuid_send(c.id), 0) % f.n + 1 + get_byte(uuid_send(c.id), 2) % (f.n - 1)) % f.n
           where get_byte(uuid_send(c.id), 1) < 128
         ) pick`,
        [main.id, other.id],
      ),
    );
    // As an import leaves an instance: one committed import (revision 1), its companies counted.
    await tx.query(
      `update portfolio_instances i set revision = 1,
         companies_count = (select count(*) from portfolio_companies c where c.instance_id = i.id)
       where i.id in ($1, $2)`,
      [main.id, other.id],
    );
    return { instanceId: main.id, otherInstanceId: other.id };
  });
}

/**
 * Opens the Portfolio suite's schema, seeding it first unless it already holds this seed for `companies`
 * companies (and `reseed` is false).
 */
export async function openPortfolioSeed(options: {
  companies: number;
  schema: string;
  reseed: boolean;
  log: (line: string) => void;
}): Promise<PortfolioSeed> {
  const { companies, schema, log } = options;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const open = () =>
    createPostgresDatabase({
      connectionString: BENCH_DATABASE_URL,
      // Named, so that the suite can tell its own backends' CPU from the rest of the server's.
      connectionOptions: `-c search_path=${schema} -c application_name=${PORTFOLIO_APPLICATION_NAME}`,
    });
  const description = `PostgreSQL ${redacted(BENCH_DATABASE_URL)}, schema ${schema}`;
  const exists = await withAdmin(async (client) => {
    const result = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
    return result.rowCount === 1;
  }).catch((error: unknown) => {
    throw new Error(
      `cannot reach PostgreSQL at ${redacted(BENCH_DATABASE_URL)} (${String(error)}); set BENCH_DATABASE_URL`,
      { cause: error },
    );
  });

  if (exists && !options.reseed) {
    const db = open();
    try {
      // A migration added since the seed makes it stale; existingSeed then refuses it.
      await migrate(db);
      const found = await existingSeed(db, companies);
      if (found) {
        log(
          `  reusing the seed in schema ${schema} (${companies.toLocaleString('en-US')} companies, seeded ` +
            `${found.marker.seeded_at.toISOString()} in ${found.marker.seconds.toFixed(0)} s; ` +
            'BENCH_PORTFOLIO_RESEED=1 seeds it again)',
        );
        return {
          db,
          schema,
          description,
          instanceId: found.instanceId,
          otherInstanceId: found.otherInstanceId,
          companies,
          seedSeconds: found.marker.seconds,
          reused: true,
          close: () => db.close(),
        };
      }
      log(`  schema ${schema} does not hold this seed: seeding it again`);
    } catch (error) {
      await db.close();
      throw error;
    }
    await db.close();
  }

  await withAdmin(async (client) => {
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`create schema ${schema}`);
  });
  const db = open();
  try {
    const started = performance.now();
    log(`  seeding ${companies.toLocaleString('en-US')} companies into schema ${schema}:`);
    await migrate(db);
    const ids = await seed(db, companies, log);
    const analyzeStarted = performance.now();
    // What autovacuum would soon do: statistics for the planner, and the visibility map that lets a count
    // read the index only.
    await db.exec(
      'vacuum (analyze) portfolio_instances, portfolio_funds, portfolio_companies, portfolio_company_funds',
    );
    log(`    vacuum analyze: ${((performance.now() - analyzeStarted) / 1000).toFixed(1)} s`);
    const seconds = (performance.now() - started) / 1000;
    const latest = Math.max(...(await loadMigrations()).map((migration) => migration.version));
    await db.exec(`create table bench_portfolio_seed (
      seed_version integer not null, companies integer not null, migration_version integer not null,
      seconds double precision not null, seeded_at timestamptz not null default now())`);
    await db.query(
      `insert into bench_portfolio_seed (seed_version, companies, migration_version, seconds)
       values ($1, $2, $3, $4)`,
      [SEED_VERSION, companies, latest, seconds],
    );
    log(`  seeded in ${seconds.toFixed(1)} s`);
    return {
      db,
      schema,
      description,
      ...ids,
      companies,
      seedSeconds: seconds,
      reused: false,
      close: () => db.close(),
    };
  } catch (error) {
    await db.close().catch(() => undefined);
    // A half-seeded schema is useless: the next run would seed it again anyway.
    await withAdmin((client) => client.query(`drop schema if exists ${schema} cascade`)).catch(
      () => undefined,
    );
    throw error;
  }
}
