import type { TObject } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Database, Transaction } from '../db/database.ts';
import {
  formatPath,
  structureProblems,
  type LocatedProblem,
  type PathSegment,
} from '../validation/problems.ts';
import {
  ImportProblems,
  RECORD_TYPES,
  type ImportSource,
  type RecordType,
  type SourceRecord,
} from './import-files.ts';
import {
  Company,
  CompanyInvestment,
  CompanyUpdate,
  Fund,
  INVESTMENT_COLUMNS,
  SQL_TYPES,
  TEXT_PATTERN,
  UUID_PATTERN,
  YEAR_PATTERN,
  UPDATE_COLUMNS,
  type Column,
} from './records.ts';

/**
 * Imports portfolio data into a customer instance: every record is checked against the API's own schemas,
 * then everything is written in one database transaction, or nothing is. Records are upserted by id:
 * importing an id again updates the record in place and bumps its updatedAt; createdAt never changes.
 */

// strictNumbers: a JSON 1e400 parses as Infinity, which is no number to store.
const ajv = new Ajv2020({ allErrors: true, strict: false, strictNumbers: true });
addFormats.default(ajv);
ajv.addSchema(Fund);
const VALIDATORS = {
  companies: ajv.compile(Company),
  updates: ajv.compile(CompanyUpdate),
  investments: ajv.compile(CompanyInvestment),
};

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const CURRENCY_FIELDS = [
  'cashInBankAmountCurrency',
  'amountCurrency',
  'unrealizedValueCurrency',
  'fmvPerShareCurrency',
  'costPerShareCurrency',
  'roundSizeCurrency',
  'valuationOrCapCurrency',
];
/** Investment currencies that default to amountCurrency when a record leaves them out. */
const SECONDARY_CURRENCIES = [
  'fmvPerShareCurrency',
  'costPerShareCurrency',
  'roundSizeCurrency',
  'valuationOrCapCurrency',
];
/** Set by Portico, so an exported record can be imported again as it is; a given value is ignored. */
const IGNORED_FIELDS: Record<RecordType, string[]> = {
  companies: [],
  updates: ['updatedAt'],
  investments: [],
};
/** A stand-in that passes validation for a createdAt left out; the database's time replaces it. */
const PLACEHOLDER_TIME = '2000-01-01T00:00:00.000Z';
const BATCH = 1000;

interface Checked<T> {
  record: T;
  companyId: string;
  /** Whether the file gave createdAt (else it is the import's time for new records). */
  hasCreatedAt: boolean;
  /** Whether the file gave funds (else a company's funds stay as they are). */
  hasFunds: boolean;
  source: SourceRecord;
}

export interface ImportProgress {
  phase: 'checking' | RecordType;
  done: number;
  total: number;
}

export interface ImportSummary {
  revision: string;
  created: Record<RecordType, number>;
  updated: Record<RecordType, number>;
  funds: { created: number; updated: number };
}

type Problem = LocatedProblem & { file: string };

function nullableFields(schema: TObject): string[] {
  return Object.entries(schema.properties as Record<string, { type?: unknown }>)
    .filter(([, property]) => Array.isArray(property.type) && property.type.includes('null'))
    .map(([field]) => field);
}
const NULLABLE: Record<RecordType, string[]> = {
  companies: [],
  updates: nullableFields(CompanyUpdate),
  investments: nullableFields(CompanyInvestment),
};

/** Checks every record against its schema and the rules between records; collects every problem. */
function problemAt(problems: Problem[]) {
  return (record: SourceRecord, path: PathSegment[], message: string) => {
    const line = record.lineOf(path);
    problems.push({
      file: record.file,
      path: formatPath([...record.path, ...path]),
      ...(line === undefined ? {} : { line }),
      message,
    });
  };
}

function checkRecords(
  source: ImportSource,
  progress: (done: number) => void,
): { checked: Record<RecordType, Checked<Record<string, unknown>>[]>; problems: Problem[] } {
  const problems: Problem[] = [];
  const problem = problemAt(problems);
  const checked = { companies: [], updates: [], investments: [] } as Record<
    RecordType,
    Checked<Record<string, unknown>>[]
  >;
  let done = 0;
  for (const type of RECORD_TYPES) {
    const seen = new Map<string, SourceRecord>();
    for (const source_ of source[type]) {
      done += 1;
      if (done % BATCH === 0) progress(done);
      const { companyId, ...given } = source_.value;
      const record: Record<string, unknown> = { ...given };
      for (const field of IGNORED_FIELDS[type]) record[field] = PLACEHOLDER_TIME;
      for (const field of NULLABLE[type]) if (!(field in record)) record[field] = null;
      const hasCreatedAt = 'createdAt' in record;
      if (!hasCreatedAt && type !== 'investments') record.createdAt = PLACEHOLDER_TIME;
      const hasFunds = 'funds' in record;
      if (type === 'companies' && !hasFunds) record.funds = [];
      if (type === 'investments') {
        for (const field of SECONDARY_CURRENCIES)
          if (!(field in record)) record[field] = record.amountCurrency;
      }
      if (type !== 'companies' && typeof companyId !== 'string') {
        problem(source_, ['companyId'], 'is required: the id of the company the record belongs to');
      } else if (
        type !== 'companies' &&
        !/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(String(companyId))
      ) {
        problem(source_, ['companyId'], 'must be a UUID');
      } else if (type === 'companies' && companyId !== undefined) {
        problem(source_, ['companyId'], 'is not a field of a company');
      }
      // Well-formed codes that ISO 4217 does not know (a malformed one is the schema's to report).
      for (const field of CURRENCY_FIELDS) {
        const code = given[field];
        if (typeof code === 'string' && /^[A-Z]{3}$/.test(code) && !CURRENCIES.has(code)) {
          problem(source_, [field], `"${code}" is not an ISO 4217 currency code`);
        }
      }
      const validate = VALIDATORS[type];
      if (!validate(record)) {
        const reported = new Set<string>();
        for (const found of structureProblems(validate.errors?.map(withPatternMessage) ?? [])) {
          // One problem a field: an empty title breaks minLength and the pattern alike.
          const key = formatPath(found.path);
          if (reported.has(key)) continue;
          reported.add(key);
          // A default filled in for a field the record left out is not the record's mistake.
          const field = String(found.path[0]);
          if (found.path.length === 1 && SECONDARY_CURRENCIES.includes(field) && !(field in given)) continue;
          problem(source_, found.path, found.message);
        }
        continue;
      }
      const id = String(record.id).toLowerCase();
      const earlier = seen.get(id);
      if (earlier) {
        const line = earlier.lineOf([]);
        problem(
          source_,
          ['id'],
          `${id} appears twice (also at ${earlier.file}${line === undefined ? '' : `:${line}`})`,
        );
      }
      seen.set(id, source_);
      checked[type].push({
        record,
        companyId: typeof companyId === 'string' ? companyId.toLowerCase() : '',
        hasCreatedAt,
        hasFunds,
        source: source_,
      });
    }
  }
  // One fund, one name: a file that names a fund two ways is a mistake, not a rename.
  const fundNames = new Map<string, string>();
  for (const company of checked.companies) {
    const inCompany = new Set<string>();
    for (const fund of company.record.funds as { id: string; name: string }[]) {
      const id = fund.id.toLowerCase();
      const known = fundNames.get(id);
      if (inCompany.has(id)) problem(company.source, ['funds'], `fund ${fund.id} is listed twice`);
      if (known !== undefined && known !== fund.name) {
        problem(
          company.source,
          ['funds'],
          `fund ${fund.id} is named "${known}" elsewhere and "${fund.name}" here`,
        );
      }
      inCompany.add(id);
      fundNames.set(id, fund.name);
    }
  }
  return { checked, problems };
}

const PATTERN_MESSAGES: Record<string, string> = {
  [TEXT_PATTERN]: 'must hold more than spaces, and no NUL character',
  [UUID_PATTERN]: 'must be a UUID (8-4-4-4-12 hexadecimal digits)',
  [YEAR_PATTERN]: 'must be in the years 0001 to 9999',
};

/** Says what a pattern of ours means instead of quoting it. */
function withPatternMessage(error: ErrorObject): ErrorObject {
  const pattern = (error.params as { pattern?: string }).pattern;
  const message =
    error.keyword === 'pattern' && pattern !== undefined ? PATTERN_MESSAGES[pattern] : undefined;
  return message === undefined ? error : { ...error, message };
}

/** Rows for json_to_recordset: the record's fields under their column names. */
function rowsOf(checked: Checked<Record<string, unknown>>[], columns: Record<string, Column>) {
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
 * Upserts updates or investments; a record already stored under another company is refused (records do not
 * move between companies, so an incremental sync of a company never misses one that left it).
 */
async function upsertCompanyRecords(
  tx: Transaction,
  context: { instanceId: string; revision: string; now: string },
  table: string,
  columns: Record<string, Column>,
  checked: Checked<Record<string, unknown>>[],
  problem: (record: SourceRecord, path: PathSegment[], message: string) => void,
  progress: (done: number) => void,
): Promise<{ created: number; updated: number }> {
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
  let created = 0;
  let updated = 0;
  for (let start = 0; start < checked.length; start += BATCH) {
    const batch = checked.slice(start, start + BATCH);
    const returned = await tx.query<{ id: string; inserted: boolean }>(sql, [
      context.instanceId,
      context.revision,
      context.now,
      JSON.stringify(rowsOf(batch, columns)),
    ]);
    const ids = new Set(returned.map((row) => row.id));
    for (const row of returned) {
      if (row.inserted) created += 1;
      else updated += 1;
    }
    for (const item of batch) {
      if (!ids.has(String(item.record.id).toLowerCase())) {
        problem(
          item.source,
          ['companyId'],
          'this id belongs to a record of another company; records cannot move',
        );
      }
    }
    progress(start + batch.length);
  }
  return { created, updated };
}

/**
 * Imports what `readImportFile` read from one or more files into an instance, in one database transaction.
 * Throws ImportProblems, naming the file, line and field of each, when anything is wrong; nothing is written
 * then.
 */
export async function importPortfolio(
  db: Database,
  options: {
    instanceId: string;
    sources: ImportSource[];
    onProgress?: (progress: ImportProgress) => void;
  },
): Promise<ImportSummary> {
  const report = (progress: ImportProgress) => {
    options.onProgress?.(progress);
  };
  const merged: ImportSource = { companies: [], updates: [], investments: [] };
  for (const source of options.sources) {
    for (const type of RECORD_TYPES) merged[type].push(...source[type]);
  }
  const total = RECORD_TYPES.reduce((sum, type) => sum + merged[type].length, 0);
  const { checked, problems } = checkRecords(merged, (done) => {
    // The last report comes once, below, whatever the count.
    if (done < total) report({ phase: 'checking', done, total });
  });
  report({ phase: 'checking', done: total, total });
  if (problems.length > 0) throw new ImportProblems(problems);

  const problem = problemAt(problems);

  return db.transaction(async (tx) => {
    // The instance row's lock orders imports: revisions count commits.
    const [instance] = await tx.query<{ revision: string; now: string }>(
      `update portfolio_instances set revision = revision + 1 where id = $1
       returning revision::text, date_trunc('milliseconds', now()) as now`,
      [options.instanceId],
    );
    if (!instance) throw new Error(`instance ${options.instanceId} does not exist`);
    const context = { instanceId: options.instanceId, revision: instance.revision, now: instance.now };
    const counts = () => ({ companies: 0, updates: 0, investments: 0 });
    const summary: ImportSummary = {
      revision: instance.revision,
      created: counts(),
      updated: counts(),
      funds: { created: 0, updated: 0 },
    };

    // Funds first, then companies and their fund links.
    const funds = new Map<string, string>();
    for (const company of checked.companies) {
      for (const fund of company.record.funds as { id: string; name: string }[])
        funds.set(fund.id.toLowerCase(), fund.name);
    }
    const fundRows = [...funds].map(([id, name]) => ({ id, name }));
    for (let start = 0; start < fundRows.length; start += BATCH) {
      const written = await tx.query<{ id: string; inserted: boolean }>(
        `insert into portfolio_funds (instance_id, id, name, created_at, updated_at)
         select $1, r.id, r.name, $2, $2 from json_to_recordset($3::json) as r(id uuid, name text)
         on conflict (instance_id, id) do update set name = excluded.name, updated_at = excluded.updated_at
         where portfolio_funds.name is distinct from excluded.name
         returning id, (xmax = 0) as inserted`,
        [options.instanceId, context.now, JSON.stringify(fundRows.slice(start, start + BATCH))],
      );
      const renamed = written.filter((row) => !row.inserted).map((row) => row.id);
      summary.funds.created += written.length - renamed.length;
      summary.funds.updated += renamed.length;
      // A renamed fund changes every company that shows it: an incremental sync must see them again.
      if (renamed.length > 0) {
        await tx.query(
          `update portfolio_companies c set updated_at = $2, updated_revision = $3
           from portfolio_company_funds cf
           where cf.instance_id = $1 and cf.fund_id = any($4::uuid[]) and c.instance_id = $1 and c.id = cf.company_id`,
          [options.instanceId, context.now, context.revision, renamed],
        );
      }
    }

    for (let start = 0; start < checked.companies.length; start += BATCH) {
      const batch = checked.companies.slice(start, start + BATCH);
      const written = await tx.query<{ inserted: boolean }>(
        `insert into portfolio_companies
           (instance_id, id, legal_name, created_at, updated_at, created_revision, updated_revision)
         select $1, r.id, r.legal_name, coalesce(date_trunc('milliseconds', r.created_at), $3), $3, $2, $2
         from json_to_recordset($4::json) as r(id uuid, legal_name text, created_at timestamptz)
         on conflict (instance_id, id) do update set legal_name = excluded.legal_name,
           updated_at = excluded.updated_at, updated_revision = excluded.updated_revision
         returning (xmax = 0) as inserted`,
        [
          options.instanceId,
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
      summary.created.companies += inserted;
      summary.updated.companies += written.length - inserted;
      const withFunds = batch.filter((company) => company.hasFunds);
      if (withFunds.length > 0) {
        const ids = withFunds.map((company) => String(company.record.id));
        await tx.query(
          'delete from portfolio_company_funds where instance_id = $1 and company_id = any($2::uuid[])',
          [options.instanceId, ids],
        );
        await tx.query(
          `insert into portfolio_company_funds (instance_id, company_id, fund_id)
           select $1, r.company_id, r.fund_id from json_to_recordset($2::json) as r(company_id uuid, fund_id uuid)`,
          [
            options.instanceId,
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
      report({ phase: 'companies', done: start + batch.length, total: checked.companies.length });
    }

    // Updates and investments must belong to a company of the instance (in this import or before it).
    const companyIds = [
      ...new Set([...checked.updates, ...checked.investments].map((item) => item.companyId)),
    ];
    const known = new Set<string>();
    for (let start = 0; start < companyIds.length; start += BATCH) {
      const rows = await tx.query<{ id: string }>(
        'select id from portfolio_companies where instance_id = $1 and id = any($2::uuid[])',
        [options.instanceId, companyIds.slice(start, start + BATCH)],
      );
      for (const row of rows) known.add(row.id);
    }
    for (const item of [...checked.updates, ...checked.investments]) {
      if (!known.has(item.companyId))
        problem(item.source, ['companyId'], `no company ${item.companyId} in this instance`);
    }
    if (problems.length > 0) throw new ImportProblems(problems);

    for (const [type, table, columns] of [
      ['updates', 'portfolio_updates', UPDATE_COLUMNS],
      ['investments', 'portfolio_investments', INVESTMENT_COLUMNS],
    ] as const) {
      const counts = await upsertCompanyRecords(
        tx,
        context,
        table,
        columns,
        checked[type],
        problem,
        (done) => {
          report({ phase: type, done, total: checked[type].length });
        },
      );
      summary.created[type] = counts.created;
      summary.updated[type] = counts.updated;
    }
    if (problems.length > 0) throw new ImportProblems(problems);

    // The total GET /companies reports, exact as of this import, so that no page has to count.
    await tx.query(
      `update portfolio_instances set companies_count = (
         select count(*) from portfolio_companies where instance_id = $1
       ) where id = $1`,
      [options.instanceId],
    );
    return summary;
  });
}
