/**
 * The console queue suite (issue 25): the organization console's work queue read (`readQueue`) over 1,000,000
 * transactions of 100 organizations on PostgreSQL, one of them with 200,000, beside the floor: the simplest
 * indexed read of the same organization. A database of its own (`portico_bench_queue` on the server of
 * BENCH_DATABASE_URL), made, migrated, seeded by SQL (`generate_series`) and dropped at the end. See
 * bench/README.md, "The console queue suite".
 */
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPostgresDatabase } from '../src/db/postgres-database.ts';
import { loadExampleTemplate } from '../src/demo/seed.ts';
import { readQueue, type QueueQuery } from '../src/transactions/console/queue/queue.ts';
import { countingQueries } from '../test/support/db/database.ts';
import { BENCH_DATABASE_URL } from './database.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';

export interface QueueBenchSettings {
  /** Transactions in all (1,000,000). */
  transactions: number;
  /** Organizations (100); the first holds `largest` of the transactions, the others share the rest. */
  organizations: number;
  largest: number;
  /** Measured reads per case (after `warmup` unmeasured ones), interleaved case by case. */
  iterations: number;
  warmup: number;
  /** The database the suite makes and drops. */
  database: string;
  /** Leave the database after the run (BENCH_QUEUE_KEEP=1), to look at its plans with psql. */
  keep: boolean;
}

/** One case measured: server time of the domain read (its SQL round trips), in milliseconds. */
interface QueueCase {
  name: string;
  /** The target p95 in ms, if the issue sets one. */
  targetMs?: number;
  /** Rows the read gave, statements it sent. */
  rows: number;
  statements: number;
  times: number[];
}

export interface QueueReport {
  seedSeconds: number;
  description: string;
  cases: QueueCase[];
  floor: QueueCase;
}

const FIRST_NAMES = (
  'James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan ' +
  'Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty Anthony ' +
  'Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily Andrew Donna Joshua Michelle Kenneth ' +
  'Carol Kevin Amanda Brian Dorothy George Melissa Timothy Deborah Ada Grace Hiro Yuki Priya Arjun Chen ' +
  'Mei Olga Lars Ingrid Mateo Lucia Omar Fatima Kwame Amara Sean Aoife'
).split(' ');
const LAST_NAMES = (
  'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez ' +
  'Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark ' +
  'Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams ' +
  'Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker ' +
  'Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper ' +
  'Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood James ' +
  'Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez ' +
  'Lovelace Hopper Tanaka Yamamoto Sharma Okafor Mensah Larsen Novak Kowalski Schmidt Fischer Rossi ' +
  "Dubois Moreau Silva Santos O'Brien Murray Byrne Wang"
).split(' ');
const DOMAINS = (
  'gmail.com outlook.com yahoo.com icloud.com proton.me fastmail.com family-office.example ' +
  'harborwealth.example northbridge.example pinecrest-advisors.example lakeside-trust.example ' +
  'meridian-partners.example aol.com hey.com zoho.com gmx.net web.de orange.fr libero.it btinternet.com'
).split(' ');
/** Investors that are companies: one of these words and one of the suffixes ("Larkspur Holdings LLC"). */
const COMPANY_WORDS = (
  'Larkspur Oakmont Bluestone Harrow Wexford Alder Cobalt Granite Juniper Marlow Northgate Osprey Pinewood ' +
  'Quarry Riverbend Saltmarsh Thornbury Upland Vantage Willow Ashford Brightwater Cedarline Driftwood Eastlake ' +
  'Foxhollow Glenmore Highcrest Ironwood Lindenwood Maplegrove Nettlebed Oxbow Primrose Redfern Silverleaf ' +
  'Tidewater Westbrook Yarrow Ravenscroft'
).split(' ');
const COMPANY_SUFFIXES = ['Holdings LLC', 'Capital LP', 'Partners LLC', 'Investments Ltd'];
const SENDERS = [
  'Harbor Growth Fund I, L.P.',
  'Northwind Ventures II, L.P.',
  'Cedar Ridge Capital Partners III',
  'Bluewater Opportunity Fund',
  'Summit Lane Secondary Fund IV',
];

/** The address of database `name` on the server of `url`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs `sql` on the bench's server (BENCH_DATABASE_URL): making and dropping a suite's database. */
export async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Seeds the organizations, their templates (a subscription in two versions, a side letter, a transfer: the
 * example template's workflow), sender entities, users, transactions, their creation and state events, and a
 * process with its revision for each transaction of the largest organization (what `stalled` reads). The
 * indexes of the tables written are dropped first and made again after, as they are in the migrations.
 */
async function seed(
  client: pg.Client,
  settings: QueueBenchSettings,
  log: (line: string) => void,
): Promise<void> {
  const step = async (what: string, sql: string, params: unknown[] = []) => {
    const started = performance.now();
    const result = await client.query(sql, params);
    log(
      `    ${what}: ${((performance.now() - started) / 1000).toFixed(1)} s (${String(result.rowCount ?? 0)} rows)`,
    );
  };
  await client.query(`set maintenance_work_mem = '512MB'`);
  await client.query(`set work_mem = '64MB'`);
  await client.query('select setseed(0.25)');
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `select indexname as name, indexdef as definition from pg_indexes
     where schemaname = current_schema()
       and tablename in ('transactions', 'transaction_events', 'transaction_processes', 'transaction_process_revisions',
         'entities', 'transaction_recipients')
       and indexname not in (select conname from pg_constraint)`,
  );
  for (const index of indexes) await client.query(`drop index ${index.name}`);

  // The tabs' counts are written once after the load, as migration 0016 writes them for existing rows, rather
  // than by its trigger a million times; the investors' names are written with the transactions, as migration
  // 0023's triggers would keep them.
  await client.query('alter table transactions disable trigger user');
  await client.query('alter table transaction_recipients disable trigger user');
  await step(
    'organizations',
    `insert into organizations (handle, name)
     select 'bench-queue-' || lpad(g::text, 3, '0'), 'Bench Capital ' || g from generate_series(1, $1) g`,
    [settings.organizations],
  );
  await client.query(
    `create temp table bench_orgs as
     select row_number() over (order by handle)::int as n, id from organizations`,
  );
  const example = await loadExampleTemplate();
  await step(
    'templates',
    `insert into templates (organization_id, key, version, name, definition)
     select o.id, k.key, k.version, k.name,
       jsonb_set(jsonb_set($1::jsonb, '{key}', to_jsonb(k.key)), '{name}', to_jsonb(k.name))
     from bench_orgs o cross join (values ('subscription', 1, 'Fund subscription'),
       ('subscription', 2, 'Fund subscription'), ('side_letter', 1, 'Side letter'),
       ('transfer', 1, 'Transfer of interest')) k(key, version, name)`,
    [JSON.stringify(example)],
  );
  await client.query(
    `create temp table bench_templates as
     select o.n, (row_number() over (partition by o.n order by t.key, t.version) - 1)::int as slot, t.id
     from templates t join bench_orgs o on o.id = t.organization_id`,
  );
  await step(
    'sender entities',
    `insert into entities (organization_id, name, email, type)
     select o.id, s.name, 'operations' || s.i || '@fund' || o.n || '.example', 'fund'
     from bench_orgs o cross join unnest($1::text[]) with ordinality s(name, i)`,
    [SENDERS],
  );
  await client.query(
    `create temp table bench_entities as
     select o.n, (row_number() over (partition by o.n order by e.sequence) - 1)::int as slot, e.id
     from entities e join bench_orgs o on o.id = e.organization_id`,
  );
  await step(
    'users',
    `insert into users (organization_id, email, name, role)
     select o.id, 'operator' || i || '@org' || o.n || '.example', 'Operator ' || i, 'operator'
     from bench_orgs o cross join generate_series(1, 4) i`,
  );
  await client.query(
    `create temp table bench_users as
     select o.n, (row_number() over (partition by o.n order by u.sequence) - 1)::int as slot, u.id
     from users u join bench_orgs o on o.id = u.organization_id`,
  );
  // States: 15% draft, 30% in progress, 10% in review, 5% changes requested, 5% countersigning, 35% completed.
  // Created over two years; updated and entered their state somewhere since; 30% assigned. Investors: half are
  // people named as their notice name, a quarter their family's trust ("Martinez Family Trust"), a quarter a
  // company ("Larkspur Holdings LLC", 40 words and 4 suffixes), every organization's alike.
  await step(
    'transactions',
    `with x as (
       select g, case when g <= $2 then 1 else 2 + (g - $2 - 1) % ($3 - 1) end as n,
         random() as r_state, random() as r_template, random() as r_sender, random() as r_first,
         random() as r_last, random() as r_domain, random() as r_age, random() as r_updated, random() as r_entered,
         random() as r_active, random() as r_assignee, random() as r_kind, random() as r_word, random() as r_suffix
       from generate_series(1, $1) g
     ), y as (
       select x.*,
         case when r_state < 0.15 then 'draft' when r_state < 0.45 then 'in_progress'
              when r_state < 0.55 then 'in_review' when r_state < 0.60 then 'changes_requested'
              when r_state < 0.65 then 'countersigning' else 'completed' end as state,
         ($4::text[])[1 + floor(r_first * array_length($4::text[], 1))::int] as first_name,
         ($5::text[])[1 + floor(r_last * array_length($5::text[], 1))::int] as last_name,
         ($6::text[])[1 + floor(r_domain * array_length($6::text[], 1))::int] as domain,
         ($7::text[])[1 + floor(r_word * array_length($7::text[], 1))::int] || ' ' ||
           ($8::text[])[1 + floor(r_suffix * array_length($8::text[], 1))::int] as company,
         now() - r_age * interval '730 days' as created
       from x
     )
     insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email,
       investor_name, created_at, updated_at, state_entered_at, recipient_active_at, completed_at, assignee_user_id)
     select o.id, tp.id, e.id, y.state, y.first_name || ' ' || y.last_name,
       lower(replace(y.first_name || '.' || y.last_name, '''', '')) || (y.g % 89) || '@' || y.domain,
       case when y.r_kind < 0.5 then y.first_name || ' ' || y.last_name
            when y.r_kind < 0.75 then y.last_name || ' Family Trust' else y.company end,
       y.created, y.created + y.r_updated * (now() - y.created),
       case when y.state = 'draft' then y.created else y.created + y.r_entered * y.r_updated * (now() - y.created) end,
       case when y.state <> 'draft' and y.r_active < 0.8 then y.created + y.r_active * y.r_updated * (now() - y.created) end,
       case when y.state = 'completed' then y.created + y.r_updated * (now() - y.created) end,
       u.id
     from y
     join bench_orgs o on o.n = y.n
     join bench_templates tp on tp.n = y.n and tp.slot =
       case when y.r_template < 0.2 then 0 when y.r_template < 0.6 then 1 when y.r_template < 0.85 then 2 else 3 end
     join bench_entities e on e.n = y.n and e.slot = floor(y.r_sender * 5)::int
     left join bench_users u on u.n = y.n and y.r_assignee < 0.3 and u.slot = floor(y.r_assignee / 0.3 * 4)::int
     order by y.g`,
    [
      settings.transactions,
      settings.largest,
      settings.organizations,
      FIRST_NAMES,
      LAST_NAMES,
      DOMAINS,
      COMPANY_WORDS,
      COMPANY_SUFFIXES,
    ],
  );
  await step(
    'events',
    `insert into transaction_events (organization_id, transaction_id, event_key, source_state, target_state,
       actor_type, created_at)
     select organization_id, id, 'created', null, 'draft', 'api_key', created_at from transactions
     union all
     select organization_id, id,
       case state when 'in_progress' then 'send' when 'in_review' then 'submit'
         when 'changes_requested' then 'request_changes' when 'countersigning' then 'approve' else 'countersign' end,
       case state when 'in_progress' then 'draft' when 'in_review' then 'in_progress'
         when 'changes_requested' then 'in_review' when 'countersigning' then 'in_review' else 'countersigning' end,
       state, case when state = 'in_review' then 'recipient' else 'api_key' end, state_entered_at
     from transactions where state <> 'draft'`,
  );
  await step(
    'processes (largest organization)',
    `insert into transaction_processes (organization_id, transaction_id, key, created_at)
     select t.organization_id, t.id, 'subscription', t.created_at
     from transactions t join bench_orgs o on o.id = t.organization_id where o.n = 1`,
  );
  await step(
    'revisions (largest organization)',
    `insert into transaction_process_revisions (organization_id, transaction_process_id, transaction_id, number,
       created_at, committed_at)
     select p.organization_id, p.id, p.transaction_id, 1, p.created_at,
       case when t.state in ('draft', 'in_progress', 'changes_requested') then null else t.state_entered_at end
     from transaction_processes p join transactions t on t.id = p.transaction_id`,
  );
  // The largest organization's investors as entities and primary recipients (people, trusts and companies, by
  // their legal names), as a real organization's entities hold them: a search's fragment matches thousands of
  // them.
  await client.query(
    `create temp table bench_investors as
     select t.id as transaction_id, t.organization_id, gen_random_uuid() as entity_id, t.investor_name,
       t.notice_email,
       case when t.investor_name = t.notice_name then 'individual'
            when t.investor_name like '% Family Trust' then 'trust' else 'company' end as type
     from transactions t join bench_orgs o on o.id = t.organization_id where o.n = 1`,
  );
  await step(
    'investor entities (largest organization)',
    `insert into entities (id, organization_id, name, email, type)
     select entity_id, organization_id, investor_name, notice_email, type from bench_investors`,
  );
  await step(
    'recipients (largest organization)',
    `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
     select organization_id, transaction_id, entity_id, 'investor' from bench_investors`,
  );
  await step(
    "the tabs' counts",
    `insert into transaction_state_counts (organization_id, template_id, sender_entity_id, state, stripe, count)
     select organization_id, template_id, sender_entity_id, state, 0, count(*)
     from transactions group by organization_id, template_id, sender_entity_id, state`,
  );
  await client.query('alter table transactions enable trigger user');
  await client.query('alter table transaction_recipients enable trigger user');
  const started = performance.now();
  for (const index of indexes) await client.query(index.definition);
  log(
    `    ${String(indexes.length)} indexes made again: ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await step('vacuum (analyze)', 'vacuum (analyze)');
}

/** p50, p95 or p99 of some times. */
function percentile(times: readonly number[], p: number): number {
  const sorted = times.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * Seeds the database, then measures each case `iterations` times, round after round (each round reads every
 * case once, the floor among them), after `warmup` rounds not measured.
 */
export async function benchConsoleQueue(options: {
  settings: QueueBenchSettings;
  defer: (cleanup: () => Promise<unknown>) => void;
}): Promise<QueueReport> {
  const { settings } = options;
  const log = (line: string) => {
    console.log(line);
  };
  const name = settings.database;
  const url = withDatabase(BENCH_DATABASE_URL, name);
  console.log(`\nconsole queue on PostgreSQL, database ${name}`);
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const db: Database = createPostgresDatabase({ connectionString: url });
  options.defer(async () => {
    await db.close();
    if (!settings.keep) await admin(`drop database if exists ${name} with (force)`);
  });
  await migrate(db);
  const seedStarted = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    console.log(
      `  seeding ${settings.transactions.toLocaleString('en-US')} transactions of ${String(settings.organizations)} ` +
        `organizations (the largest: ${settings.largest.toLocaleString('en-US')})`,
    );
    await seed(client, settings, log);
  } finally {
    await client.end();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`  seeded in ${seedSeconds.toFixed(1)} s`);

  const [largest] = await db.query<{ id: string }>(
    `select id from organizations where handle = 'bench-queue-001'`,
  );
  const organizationId = largest?.id ?? '';
  const counting = countingQueries(db);
  const queue = (query: QueueQuery) => async () => {
    const page = await readQueue(counting.db, { organizationId, query });
    return page.rows.length;
  };
  const floorRead = async () =>
    (
      await counting.db.query(
        `select id, template_id, state, investor_name, notice_name, notice_email, sender_entity_id, created_at,
           updated_at, state_entered_at, recipient_active_at, assignee_user_id, sequence
         from transactions where organization_id = $1 order by created_at desc limit 50`,
        [organizationId],
      )
    ).length;
  const first = await readQueue(db, { organizationId, query: {} });
  const cases: { name: string; targetMs?: number; read: () => Promise<number> }[] = [
    { name: 'first page + tab counts, every state (newest)', targetMs: 50, read: queue({}) },
    {
      name: 'first page + tab counts, tab in_review (longest in state)',
      targetMs: 50,
      read: queue({ state: 'in_review', sort: 'longest_in_state' }),
    },
    {
      name: 'search by e-mail fragment "rtinez" + tab counts',
      targetMs: 100,
      read: queue({ search: 'rtinez' }),
    },
    { name: 'search by name fragment "ander" + tab counts', targetMs: 100, read: queue({ search: 'ander' }) },
    {
      name: 'search by legal name fragment "larkspur" + tab counts',
      targetMs: 100,
      read: queue({ search: 'larkspur' }),
    },
    {
      name: 'second page, every state (newest, cursor)',
      read: queue({ after: first.nextCursor ?? undefined }),
    },
    {
      name: 'first page + tab counts, template + sender + in state >= 30 days',
      read: queue({
        templateKey: 'subscription',
        senderEntityId: first.rows[0]?.senderEntity.id,
        inStateForDays: 30,
      }),
    },
    { name: 'floor: where organization_id = $1 order by created_at desc limit 50', read: floorRead },
  ];
  const measured: QueueCase[] = cases.map((c) => ({
    name: c.name,
    ...(c.targetMs === undefined ? {} : { targetMs: c.targetMs }),
    rows: 0,
    statements: 0,
    times: [],
  }));
  for (const [index, c] of cases.entries()) {
    counting.reset();
    const rows = await c.read();
    const entry = measured[index];
    if (entry) {
      entry.rows = rows;
      entry.statements = counting.count();
    }
  }
  for (let round = 0; round < settings.warmup + settings.iterations; round += 1) {
    for (const [index, c] of cases.entries()) {
      const started = performance.now();
      await c.read();
      const elapsed = performance.now() - started;
      if (round >= settings.warmup) measured[index]?.times.push(elapsed);
    }
  }
  const floor = measured.at(-1);
  if (!floor) throw new Error('no floor measured');
  return {
    seedSeconds,
    description: `PostgreSQL ${new URL(url).host}, database ${name}`,
    cases: measured.slice(0, -1),
    floor,
  };
}

/** The suite's table (p50/p95/p99 and the ratio of each p50 to the floor's) and its targets. */
export function printQueueReport(report: QueueReport): TargetResult[] {
  const floorP50 = percentile(report.floor.times, 50);
  const row = (c: QueueCase) => [
    c.name,
    String(c.rows),
    String(c.statements),
    percentile(c.times, 50).toFixed(2),
    percentile(c.times, 95).toFixed(2),
    percentile(c.times, 99).toFixed(2),
    `${(percentile(c.times, 50) / floorP50).toFixed(1)}x`,
    c.targetMs === undefined ? '' : `p95 <= ${String(c.targetMs)} ms`,
  ];
  console.log(
    `\nconsole queue (${report.description}), ${String(report.floor.times.length)} reads per case:`,
  );
  printMarkdownTable(
    ['read', 'rows', 'SQL', 'p50 ms', 'p95 ms', 'p99 ms', 'p50 to floor', 'target'],
    [...report.cases.map(row), row(report.floor)],
  );
  console.log(`  seeded in ${report.seedSeconds.toFixed(1)} s`);
  console.log('\nTargets (console queue, PostgreSQL):');
  return report.cases.flatMap((c) => {
    if (c.targetMs === undefined) return [];
    const p95 = percentile(c.times, 95);
    return [
      targetResult(`${c.name}: p95 <= ${String(c.targetMs)} ms`, `${p95.toFixed(1)} ms`, c.targetMs / p95),
    ];
  });
}
