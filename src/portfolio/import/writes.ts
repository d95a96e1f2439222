import type { Transaction } from '../../db/database.ts';
import { IMPORT_BATCH, type CheckedRecord } from './checks.ts';
import { SQL_TYPES, type Column } from '../records.ts';

/**
 * How a checked Portfolio import is written: inside the one database transaction of the import, a revision
 * bump on the instance, then funds, companies with their fund links, updates and investments as batched
 * json_to_recordset upserts by id, and finally the instance's company count. Importing an id again updates the
 * record in place and bumps its updatedAt; createdAt never changes.
 */

/** The instance an import writes into, the revision it makes and its time (to the millisecond). */
export interface ImportContext {
  instanceId: string;
  revision: string;
  now: string;
}

/** How many records of one kind an import added and changed. */
export interface WriteCounts {
  created: number;
  updated: number;
}

/**
 * Starts the import's revision: the instance row's lock orders imports, so revisions count commits. Throws
 * when the instance does not exist.
 */
export async function beginRevision(tx: Transaction, instanceId: string): Promise<ImportContext> {
  const [instance] = await tx.query<{ revision: string; now: string }>(
    `update portfolio_instances set revision = revision + 1 where id = $1
     returning revision::text, date_trunc('milliseconds', now()) as now`,
    [instanceId],
  );
  if (!instance) throw new Error(`instance ${instanceId} does not exist`);
  return { instanceId, revision: instance.revision, now: instance.now };
}

/**
 * Upserts the funds the companies name (a fund's name is the only thing that changes). A renamed fund changes
 * every company that shows it: those are marked changed, so that an incremental sync sees them again.
 */
export async function writeFunds(
  tx: Transaction,
  context: ImportContext,
  companies: CheckedRecord[],
): Promise<WriteCounts> {
  const funds = new Map<string, string>();
  for (const company of companies) {
    for (const fund of company.record.funds as { id: string; name: string }[])
      funds.set(fund.id.toLowerCase(), fund.name);
  }
  const fundRows = [...funds].map(([id, name]) => ({ id, name }));
  const counts = { created: 0, updated: 0 };
  for (let start = 0; start < fundRows.length; start += IMPORT_BATCH) {
    const written = await tx.query<{ id: string; inserted: boolean }>(
      `insert into portfolio_funds (instance_id, id, name, created_at, updated_at)
       select $1, r.id, r.name, $2, $2 from json_to_recordset($3::json) as r(id uuid, name text)
       on conflict (instance_id, id) do update set name = excluded.name, updated_at = excluded.updated_at
       where portfolio_funds.name is distinct from excluded.name
       returning id, (xmax = 0) as inserted`,
      [context.instanceId, context.now, JSON.stringify(fundRows.slice(start, start + IMPORT_BATCH))],
    );
    const renamed = written.filter((row) => !row.inserted).map((row) => row.id);
    counts.created += written.length - renamed.length;
    counts.updated += renamed.length;
    if (renamed.length > 0) {
      await tx.query(
        `update portfolio_companies c set updated_at = $2, updated_revision = $3
         from portfolio_company_funds cf
         where cf.instance_id = $1 and cf.fund_id = any($4::uuid[]) and c.instance_id = $1 and c.id = cf.company_id`,
        [context.instanceId, context.now, context.revision, renamed],
      );
    }
  }
  return counts;
}

/** Replaces the fund links of the companies whose record gave funds; the others keep theirs. */
async function writeFundLinks(tx: Transaction, instanceId: string, companies: CheckedRecord[]) {
  const withFunds = companies.filter((company) => company.hasFunds);
  if (withFunds.length === 0) return;
  await tx.query(
    'delete from portfolio_company_funds where instance_id = $1 and company_id = any($2::uuid[])',
    [instanceId, withFunds.map((company) => String(company.record.id))],
  );
  await tx.query(
    `insert into portfolio_company_funds (instance_id, company_id, fund_id)
     select $1, r.company_id, r.fund_id from json_to_recordset($2::json) as r(company_id uuid, fund_id uuid)`,
    [
      instanceId,
      JSON.stringify(
        withFunds.flatMap((company) =>
          (company.record.funds as { id: string }[]).map((fund) => ({
            company_id: company.record.id,
            fund_id: fund.id,
          })),
        ),
      ),
    ],
  );
}

/** Upserts companies and their fund links (after the funds). `progress` hears how many are written. */
export async function writeCompanies(
  tx: Transaction,
  context: ImportContext,
  companies: CheckedRecord[],
  progress: (done: number) => void,
): Promise<WriteCounts> {
  const counts = { created: 0, updated: 0 };
  for (let start = 0; start < companies.length; start += IMPORT_BATCH) {
    const batch = companies.slice(start, start + IMPORT_BATCH);
    const written = await tx.query<{ inserted: boolean }>(
      `insert into portfolio_companies
         (instance_id, id, legal_name, created_at, updated_at, created_revision, updated_revision)
       select $1, r.id, r.legal_name, coalesce(date_trunc('milliseconds', r.created_at), $3), $3, $2, $2
       from json_to_recordset($4::json) as r(id uuid, legal_name text, created_at timestamptz)
       on conflict (instance_id, id) do update set legal_name = excluded.legal_name,
         updated_at = excluded.updated_at, updated_revision = excluded.updated_revision
       returning (xmax = 0) as inserted`,
      [
        context.instanceId,
        context.revision,
        context.now,
        JSON.stringify(
          batch.map(({ record, hasCreatedAt }) => ({
            id: record.id,
            legal_name: record.legalName,
            created_at: hasCreatedAt ? record.createdAt : null,
          })),
        ),
      ],
    );
    const inserted = written.filter((row) => row.inserted).length;
    counts.created += inserted;
    counts.updated += written.length - inserted;
    await writeFundLinks(tx, context.instanceId, batch);
    progress(start + batch.length);
  }
  return counts;
}

/** Rows for json_to_recordset: the record's fields under their column names. */
function rowsOf(checked: CheckedRecord[], columns: Record<string, Column>) {
  return checked.map(({ record, companyId, hasCreatedAt }) => {
    const row: Record<string, unknown> = { company_id: companyId };
    for (const [field, { column }] of Object.entries(columns)) row[column] = record[field];
    if (!hasCreatedAt) row.created_at = null;
    return row;
  });
}

function recordsetColumns(columns: Record<string, Column>): string {
  return [
    'company_id uuid',
    ...Object.values(columns)
      .filter(({ column }) => !['created_at', 'updated_at'].includes(column))
      .map(({ column, kind }) => `${column} ${SQL_TYPES[kind]}`),
    'created_at timestamptz',
  ].join(', ');
}

/**
 * Upserts updates or investments into `table`. A record already stored under another company is not written
 * (the upsert's `where`); `onBatch` hears each batch with the ids that were, to tell which moved, and how many
 * records are done.
 */
export async function writeCompanyRecords(
  tx: Transaction,
  context: ImportContext,
  options: {
    table: string;
    columns: Record<string, Column>;
    records: CheckedRecord[];
    onBatch: (batch: CheckedRecord[], written: Set<string>, done: number) => void;
  },
): Promise<WriteCounts> {
  const { table, columns, records } = options;
  const written = Object.values(columns)
    .map(({ column }) => column)
    .filter((column) => !['id', 'created_at', 'updated_at'].includes(column));
  // Stored to the millisecond, as the API shows them and cursors hold them.
  const timestamps = Object.values(columns)
    .filter(({ kind }) => kind === 'timestamp')
    .map(({ column }) => column);
  const sql = `insert into ${table} (instance_id, id, company_id, ${written.join(', ')},
      created_at, updated_at, created_revision, updated_revision)
    select $1, r.id, r.company_id, ${written.map((column) => (timestamps.includes(column) ? `date_trunc('milliseconds', r.${column})` : `r.${column}`)).join(', ')},
      coalesce(date_trunc('milliseconds', r.created_at), $3), $3, $2, $2
    from json_to_recordset($4::json) as r(${recordsetColumns(columns)})
    on conflict (instance_id, id) do update set
      ${[...written, 'updated_at', 'updated_revision'].map((column) => `${column} = excluded.${column}`).join(', ')}
    where ${table}.company_id = excluded.company_id
    returning id, (xmax = 0) as inserted`;
  const counts = { created: 0, updated: 0 };
  for (let start = 0; start < records.length; start += IMPORT_BATCH) {
    const batch = records.slice(start, start + IMPORT_BATCH);
    const returned = await tx.query<{ id: string; inserted: boolean }>(sql, [
      context.instanceId,
      context.revision,
      context.now,
      JSON.stringify(rowsOf(batch, columns)),
    ]);
    for (const row of returned) {
      if (row.inserted) counts.created += 1;
      else counts.updated += 1;
    }
    options.onBatch(batch, new Set(returned.map((row) => row.id)), start + batch.length);
  }
  return counts;
}

/** Stores the total GET /companies reports, exact as of this import, so that no page has to count. */
export async function writeCompaniesCount(tx: Transaction, instanceId: string): Promise<void> {
  await tx.query(
    `update portfolio_instances set companies_count = (
       select count(*) from portfolio_companies where instance_id = $1
     ) where id = $1`,
    [instanceId],
  );
}
