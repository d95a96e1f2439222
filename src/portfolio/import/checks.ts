import type { TObject } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Queryable } from '../../db/database.ts';
import {
  formatPath,
  structureProblems,
  type LocatedProblem,
  type PathSegment,
} from '../../validation/problems.ts';
import { jsonSchemaValidator, onFirstUse } from '../../validation/json-schema.ts';
import { isUuid } from '../../validation/uuid.ts';
import type { ImportSource, SourceRecord } from './files.ts';
import { RECORD_TYPES, type RecordType } from '../record-types.ts';
import {
  Company,
  CompanyInvestment,
  CompanyUpdate,
  Fund,
  TEXT_PATTERN,
  UUID_PATTERN,
  YEAR_PATTERN,
} from '../records.ts';

/**
 * Where a Portfolio import is validated: every rule a record is checked against before anything is written.
 * A record must match the API's own schema (with ISO 4217 currencies, and no value PostgreSQL would refuse:
 * year 0000, a NUL character, a number beyond a double), name its company by a UUID, and keep its id unique in
 * the import; a fund keeps one name across the import. Two rules need the instance's stored data and run in the
 * import's transaction: the company of an update or investment exists, and a stored record does not move to
 * another company. Every problem is collected, located by file, line and field.
 */

// strictNumbers: a JSON 1e400 parses as Infinity, which is no number to store.
const VALIDATORS = onFirstUse(() => {
  const ajv = jsonSchemaValidator({ allErrors: true, strict: false, strictNumbers: true });
  ajv.addSchema(Fund);
  return {
    companies: ajv.compile(Company),
    updates: ajv.compile(CompanyUpdate),
    investments: ajv.compile(CompanyInvestment),
  };
});

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
/** How many records one statement of an import covers, and how many are checked between progress reports. */
export const IMPORT_BATCH = 1000;

/** A record that passed its checks, with its defaults filled in, ready to be written. */
export interface CheckedRecord {
  record: Record<string, unknown>;
  /** The company of an update or investment, lower case; '' for a company. */
  companyId: string;
  /** Whether the file gave createdAt (else it is the import's time for new records). */
  hasCreatedAt: boolean;
  /** Whether the file gave funds (else a company's funds stay as they are). */
  hasFunds: boolean;
  source: SourceRecord;
}

/** The checked records of an import, by type. */
export type CheckedImport = Record<RecordType, CheckedRecord[]>;

/** A problem with one record of an import, located in its file. */
export type ImportProblem = LocatedProblem & { file: string };

/** Records a problem at a path inside a record. */
export type ReportProblem = (record: SourceRecord, path: PathSegment[], message: string) => void;

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

/** A reporter that adds each problem, located by file, path and line, to `problems`. */
export function problemReporter(problems: ImportProblem[]): ReportProblem {
  return (record, path, message) => {
    const line = record.lineOf(path);
    problems.push({
      file: record.file,
      path: formatPath([...record.path, ...path]),
      ...(line === undefined ? {} : { line }),
      message,
    });
  };
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

/** The record with Portico's fields and the defaults of fields left out filled in, as it will be stored. */
function withDefaults(type: RecordType, given: Record<string, unknown>) {
  const record: Record<string, unknown> = { ...given };
  for (const field of IGNORED_FIELDS[type]) record[field] = PLACEHOLDER_TIME;
  for (const field of NULLABLE[type]) if (!(field in record)) record[field] = null;
  const hasCreatedAt = 'createdAt' in record;
  if (!hasCreatedAt && type !== 'investments') record.createdAt = PLACEHOLDER_TIME;
  const hasFunds = 'funds' in record;
  if (type === 'companies' && !hasFunds) record.funds = [];
  if (type === 'investments') {
    for (const field of SECONDARY_CURRENCIES) if (!(field in record)) record[field] = record.amountCurrency;
  }
  return { record, hasCreatedAt, hasFunds };
}

/** The companyId rule: updates and investments name their company by UUID; companies have no such field. */
function checkCompanyId(type: RecordType, companyId: unknown, source: SourceRecord, problem: ReportProblem) {
  if (type !== 'companies' && typeof companyId !== 'string') {
    problem(source, ['companyId'], 'is required: the id of the company the record belongs to');
  } else if (type !== 'companies' && !isUuid(String(companyId))) {
    problem(source, ['companyId'], 'must be a UUID');
  } else if (type === 'companies' && companyId !== undefined) {
    problem(source, ['companyId'], 'is not a field of a company');
  }
}

/** Well-formed codes that ISO 4217 does not know (a malformed one is the schema's to report). */
function checkCurrencies(given: Record<string, unknown>, source: SourceRecord, problem: ReportProblem) {
  for (const field of CURRENCY_FIELDS) {
    const code = given[field];
    if (typeof code === 'string' && /^[A-Z]{3}$/.test(code) && !CURRENCIES.has(code)) {
      problem(source, [field], `"${code}" is not an ISO 4217 currency code`);
    }
  }
}

/** The schema's rules; whether the record passed them. */
function checkSchema(
  type: RecordType,
  record: Record<string, unknown>,
  given: Record<string, unknown>,
  source: SourceRecord,
  problem: ReportProblem,
): boolean {
  const validate = VALIDATORS()[type];
  if (validate(record)) return true;
  const reported = new Set<string>();
  for (const found of structureProblems(validate.errors?.map(withPatternMessage) ?? [])) {
    // One problem a field: an empty title breaks minLength and the pattern alike.
    const key = formatPath(found.path);
    if (reported.has(key)) continue;
    reported.add(key);
    // A default filled in for a field the record left out is not the record's mistake.
    const field = String(found.path[0]);
    if (found.path.length === 1 && SECONDARY_CURRENCIES.includes(field) && !(field in given)) continue;
    problem(source, found.path, found.message);
  }
  return false;
}

/** One fund, one name: a file that names a fund two ways is a mistake, not a rename. */
function checkFundNames(companies: CheckedRecord[], problem: ReportProblem) {
  const fundNames = new Map<string, string>();
  for (const company of companies) {
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
}

/**
 * Checks every record of an import against its schema and the rules between records, without the database;
 * collects every problem. `progress` hears how many records were checked, every thousand.
 */
export function checkRecords(
  source: ImportSource,
  progress: (done: number) => void,
): { checked: CheckedImport; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const problem = problemReporter(problems);
  const checked: CheckedImport = { companies: [], updates: [], investments: [] };
  let done = 0;
  for (const type of RECORD_TYPES) {
    const seen = new Map<string, SourceRecord>();
    for (const item of source[type]) {
      done += 1;
      if (done % IMPORT_BATCH === 0) progress(done);
      const { companyId, ...given } = item.value;
      const { record, hasCreatedAt, hasFunds } = withDefaults(type, given);
      checkCompanyId(type, companyId, item, problem);
      checkCurrencies(given, item, problem);
      if (!checkSchema(type, record, given, item, problem)) continue;
      const id = String(record.id).toLowerCase();
      const earlier = seen.get(id);
      if (earlier) {
        const line = earlier.lineOf([]);
        problem(
          item,
          ['id'],
          `${id} appears twice (also at ${earlier.file}${line === undefined ? '' : `:${line}`})`,
        );
      }
      seen.set(id, item);
      checked[type].push({
        record,
        companyId: typeof companyId === 'string' ? companyId.toLowerCase() : '',
        hasCreatedAt,
        hasFunds,
        source: item,
      });
    }
  }
  checkFundNames(checked.companies, problem);
  return { checked, problems };
}

/**
 * Updates and investments must belong to a company of the instance, in this import or before it: run in the
 * import's transaction, after its companies are written.
 */
export async function checkCompaniesExist(
  tx: Queryable,
  options: { instanceId: string; records: CheckedRecord[]; problem: ReportProblem },
): Promise<void> {
  const companyIds = [...new Set(options.records.map((item) => item.companyId))];
  const known = new Set<string>();
  for (let start = 0; start < companyIds.length; start += IMPORT_BATCH) {
    const rows = await tx.query<{ id: string }>(
      'select id from portfolio_companies where instance_id = $1 and id = any($2::uuid[])',
      [options.instanceId, companyIds.slice(start, start + IMPORT_BATCH)],
    );
    for (const row of rows) known.add(row.id);
  }
  for (const item of options.records) {
    if (!known.has(item.companyId))
      options.problem(item.source, ['companyId'], `no company ${item.companyId} in this instance`);
  }
}

/**
 * Records do not move between companies, so that an incremental sync of a company never misses one that left
 * it: each record of `batch` whose id the upsert did not write (`written`) is stored under another company.
 */
export function checkNoneMoved(batch: CheckedRecord[], written: Set<string>, problem: ReportProblem): void {
  for (const item of batch) {
    if (!written.has(String(item.record.id).toLowerCase())) {
      problem(
        item.source,
        ['companyId'],
        'this id belongs to a record of another company; records cannot move',
      );
    }
  }
}
