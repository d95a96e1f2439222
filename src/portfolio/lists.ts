import type { Queryable } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { clientDateTime } from '../validation/date-time.ts';
import type { Cursors, ListName, WalkState } from './cursor.ts';
import {
  INVESTMENT_COLUMNS,
  UPDATE_COLUMNS,
  isoTimestampSql,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  selectExpression,
  type Column,
  type CompanyInvestmentRecord,
  type CompanyRecord,
  type CompanyUpdateRecord,
} from './records.ts';

/**
 * The three lists of the Portfolio API as keyset walks. Each page is one SQL statement that seeks past the
 * previous page's last sort key over an index (never OFFSET), so page 10,000 costs what page 1 costs. A page of
 * companies reads each company's fund ids (one index-only probe each) and the names of the page's funds once,
 * in the same statement; their `{id, name}` objects are put together here, in the order of the names.
 *
 * A walk is pinned to the instance revision its first page saw: it covers exactly the records created up to
 * that import, so records added during the walk never shift it, and `total`, counted once on the first page
 * (or read from the instance's company count), is carried in the cursor instead of counted again.
 */
interface ListDefinition {
  table: string;
  /** The time column of the sort key; the id breaks ties. */
  timeColumn: string;
  /** The field of a record that holds the sort key's time. */
  timeField: string;
  descending: boolean;
  /** Whether the list belongs to one company (its path names it). */
  perCompany: boolean;
  select: string;
}

function selectList(alias: string, fields: Record<string, Column>): string {
  return Object.entries(fields)
    .map(([field, column]) => selectExpression(alias, field, column))
    .join(', ');
}

/** A company as the API shows it, with its funds, from `portfolio_companies r` (the dashboard's reads). */
export const COMPANY_SELECT = `r.id, r.legal_name as "legalName", ${isoTimestampSql('r.created_at')} as "createdAt",
  coalesce((
    select json_agg(json_build_object('id', f.id, 'name', f.name) order by f.name, f.id)
    from portfolio_company_funds cf
    join portfolio_funds f on f.instance_id = cf.instance_id and f.id = cf.fund_id
    where cf.instance_id = r.instance_id and cf.company_id = r.id
  ), '[]'::json) as funds`;

/**
 * A company of a page: its funds as their ids, read by one index-only probe of `portfolio_company_funds`. Joining
 * each company's funds for their names and sorting them there cost PostgreSQL twice what the rest of the page
 * did; the names of the page's funds are read once instead (`pageFunds`).
 */
const COMPANY_PAGE_SELECT = `r.id, r.legal_name as "legalName", ${isoTimestampSql('r.created_at')} as "createdAt",
  array(
    select cf.fund_id from portfolio_company_funds cf where cf.instance_id = r.instance_id and cf.company_id = r.id
  ) as funds`;

/** The funds of a page's companies as `[id, name]`, by name, then id: the order of a company's funds. */
const pageFunds = (instance: string) => `(
    select json_agg(json_build_array(f.id, f.name) order by f.name, f.id)
    from portfolio_funds f
    where f.instance_id = ${instance} and f.id in (select unnest(page.funds) from page)
  )`;

const LISTS: Record<ListName, ListDefinition> = {
  companies: {
    table: 'portfolio_companies',
    timeColumn: 'created_at',
    timeField: 'createdAt',
    descending: false,
    perCompany: false,
    select: COMPANY_PAGE_SELECT,
  },
  updates: {
    table: 'portfolio_updates',
    timeColumn: 'update_date',
    timeField: 'updateDate',
    descending: true,
    perCompany: true,
    select: selectList('r', UPDATE_COLUMNS),
  },
  investments: {
    table: 'portfolio_investments',
    timeColumn: 'date',
    timeField: 'date',
    descending: true,
    perCompany: true,
    select: selectList('r', INVESTMENT_COLUMNS),
  },
};

export interface ListRecords {
  companies: CompanyRecord;
  updates: CompanyUpdateRecord;
  investments: CompanyInvestmentRecord;
}

export interface Page<T> {
  data: T[];
  total: number;
  hasNextPage: boolean;
  nextCursor: string | null;
}

export interface ListRequest<Name extends ListName = ListName> {
  list: Name;
  instanceId: string;
  /** The company of an updates or investments list. */
  companyId?: string;
  limit: number;
  cursor?: string | undefined;
  updatedSince?: string | undefined;
}

/**
 * updatedSince in UTC to the millisecond: PostgreSQL reads no offset beyond ±15:59, which the date-time
 * format admits. BAD_USER_INPUT naming it for a time that does not exist (a leap second, which the format admits
 * too) or falls outside the years 0001 to 9999.
 */
function sinceTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const place = { name: 'updatedSince', part: 'query parameter', detailsKey: 'parameter' } as const;
  return clientDateTime(value, place).toISOString();
}

/**
 * A whole-number query parameter within its bounds, checked again here because Ajv coerces the query text
 * "Infinity" (or "1e309") to Infinity, which passes its integer check and skips its bounds, so the schema alone
 * lets it through. BAD_USER_INPUT naming the parameter otherwise.
 */
export function boundedInteger(
  value: number,
  parameter: string,
  bounds: { min: number; max: number },
): number {
  if (Number.isInteger(value) && value >= bounds.min && value <= bounds.max) return value;
  throw new AppError(
    'BAD_USER_INPUT',
    `The query parameter "${parameter}" must be ${value < bounds.min ? `>= ${String(bounds.min)}` : `<= ${String(bounds.max)}`}.`,
    { parameter },
  );
}

/**
 * The page sizes written into a page's statement rather than bound: the API's default and the most a page holds
 * (which the dashboard asks for). PostgreSQL plans a prepared statement again on every run while its generic plan
 * looks dearer than the runs' own, and with a bound LIMIT it always does (it assumes a tenth of the rows):
 * planning cost a quarter to a third of what PostgreSQL spent on a page of 50. With the size in the text it keeps one
 * generic plan. Other sizes stay bound: a text for each would let one client fill the prepared statements. So
 * does the size of a walk with updatedSince, whose time decides the best plan (an index for a recent one, a scan
 * for an old one), so that each of its pages is planned for its own time.
 */
const PLANNED_LIMITS = new Set([DEFAULT_LIMIT, MAX_LIMIT]);

/** The values a page's statement takes, by name: its text numbers those it uses, in its own order. */
interface PageValues {
  instance: string;
  company: string | null;
  since: string | null;
  revision: string | undefined;
  afterTime: string | undefined;
  afterId: string | undefined;
  limit: number;
}

/** What a page's statement text depends on: each such shape has one text, written once. */
interface PageShape {
  list: ListName;
  /** A later page of a walk (its revision and seek from the cursor), or the first (the revision read). */
  walk: boolean;
  company: boolean;
  since: boolean;
  /** The page's size plus one, when written into the text (`PLANNED_LIMITS`); bound otherwise. */
  plannedLimit: number | undefined;
}

interface PageStatement {
  sql: string;
  /** The values of its parameters `$1`, `$2`, …, by name. */
  values: (keyof PageValues)[];
}

/**
 * Page statements written, by shape: at most 3 lists × 2 × 2 × 2 × 3 sizes. Writing one afresh for each request
 * also had the prepared statements' map hash its 2 KB text each time.
 */
const pageStatements = new Map<string, PageStatement>();

function pageStatement(shape: PageShape): PageStatement {
  const key = `${shape.list} ${String(shape.walk)} ${String(shape.company)} ${String(shape.since)} ${String(shape.plannedLimit)}`;
  let statement = pageStatements.get(key);
  if (statement === undefined) {
    statement = writePageStatement(shape);
    pageStatements.set(key, statement);
  }
  return statement;
}

function writePageStatement(shape: PageShape): PageStatement {
  const list = LISTS[shape.list];
  const values: (keyof PageValues)[] = [];
  const p = (name: keyof PageValues): string => {
    values.push(name);
    return `$${String(values.length)}`;
  };
  const instance = p('instance');
  const company = shape.company ? `${p('company')}::uuid` : undefined;
  const scope = [`r.instance_id = ${instance}`];
  if (company !== undefined) scope.push(`r.company_id = ${company}`);
  if (shape.since) scope.push(`r.updated_at >= ${p('since')}::timestamptz`);
  // The records of the walk: those created up to the revision its first page saw.
  const coveredAt = (revision: string) => [...scope, `r.created_revision <= ${revision}`].join(' and ');
  const covered = coveredAt(shape.walk ? `${p('revision')}::bigint` : '(select revision from walk)');
  const direction = list.descending ? 'desc' : 'asc';
  const seek = shape.walk
    ? [
        `(r.${list.timeColumn}, r.id) ${list.descending ? '<' : '>'} (${p('afterTime')}::timestamptz, ${p('afterId')}::uuid)`,
      ]
    : [];
  const page = `page as (
      select ${list.select} from ${list.table} r
      where ${[covered, ...seek].join(' and ')}
      order by r.${list.timeColumn} ${direction}, r.id ${direction}
      limit ${shape.plannedLimit === undefined ? p('limit') : String(shape.plannedLimit)}
    )`;
  const columns = [
    `coalesce((
      select json_agg(page order by page."${list.timeField}" collate "C" ${direction}, page.id ${direction}) from page
    ), '[]'::json) as rows`,
    ...(shape.list === 'companies' ? [`${pageFunds(instance)} as funds`] : []),
  ].join(', ');

  if (shape.walk) return { sql: `with ${page} select ${columns}`, values };
  const total =
    shape.list === 'companies' && !shape.since
      ? 'i.companies_count'
      : `(select count(*) from ${list.table} r where ${coveredAt('i.revision')})`;
  const found =
    company === undefined
      ? 'true'
      : `exists (select 1 from portfolio_companies c where c.instance_id = i.id and c.id = ${company})`;
  // One statement, one snapshot: the revision, the total and the first page agree.
  return {
    sql: `with walk as (
        select i.revision, ${total}::float8 as total, ${found} as found
        from portfolio_instances i where i.id = ${instance}
      ), ${page}
      select walk.revision::text as revision, walk.total, walk.found, ${columns} from walk`,
    values,
  };
}

/**
 * One page of a list. Throws NOT_FOUND for a company the instance does not have and INVALID_CURSOR for a
 * cursor this walk did not hand out.
 */
export async function listPage<Name extends ListName>(
  { db, cursors }: { db: Queryable; cursors: Cursors },
  request: ListRequest<Name>,
): Promise<Page<ListRecords[Name]>> {
  const name = request.list;
  const list = LISTS[name];
  const companyId = list.perCompany ? (request.companyId ?? null) : null;
  const walk =
    request.cursor === undefined
      ? undefined
      : cursors.decode(request.cursor, { list: name, instanceId: request.instanceId, companyId });
  const since = sinceTime(request.updatedSince);
  const limit = boundedInteger(request.limit, 'limit', { min: 1, max: MAX_LIMIT });
  if (walk && since !== undefined && since !== walk.updatedSince) {
    throw new AppError(
      'INVALID_CURSOR',
      `The cursor belongs to a walk with ${walk.updatedSince === null ? 'no updatedSince' : `updatedSince=${walk.updatedSince}`}: pass the same updatedSince on every page, or leave it out after the first.`,
    );
  }
  const updatedSince = walk ? walk.updatedSince : (since ?? null);

  const statement = pageStatement({
    list: name,
    walk: walk !== undefined,
    company: companyId !== null,
    since: updatedSince !== null,
    plannedLimit: updatedSince === null && PLANNED_LIMITS.has(limit) ? limit + 1 : undefined,
  });
  const values: PageValues = {
    instance: request.instanceId,
    company: companyId,
    since: updatedSince,
    revision: walk?.revision,
    afterTime: walk?.after[0],
    afterId: walk?.after[1],
    limit: limit + 1,
  };
  const [row] = await db.query<{
    rows: ListRecords[Name][];
    funds?: [string, string][] | null;
    revision?: string;
    total?: number;
    found?: boolean;
  }>(
    statement.sql,
    statement.values.map((value) => values[value]),
  );
  if (!row || row.found === false) throw notFound('company', companyId);

  const data = row.rows;
  const hasNextPage = data.length > limit;
  if (hasNextPage) data.length = limit;
  // Until here, a company's funds are their ids.
  if (name === 'companies') withFundNames(data as { funds: unknown }[], row.funds ?? []);
  const state: Omit<WalkState, 'after'> = walk ?? {
    list: name,
    instanceId: request.instanceId,
    companyId,
    updatedSince,
    revision: row.revision ?? '0',
    total: row.total ?? 0,
  };
  const last = data.at(-1) as Record<string, string> | undefined;
  const nextCursor =
    hasNextPage && last
      ? cursors.encode({ ...state, after: [last[list.timeField] ?? '', last.id ?? ''] })
      : null;
  return { data, total: state.total, hasNextPage, nextCursor };
}

/**
 * Puts each company's funds together from their ids (as the page's statement reads them) and the page's funds
 * (`[id, name]`, in the order a company shows its funds): `{id, name}` objects in that order, as `COMPANY_SELECT`
 * reads them.
 */
export function withFundNames(companies: { funds: unknown }[], funds: [string, string][]): void {
  const fundOf = new Map(funds.map(([id, name], rank) => [id, { rank, id, name }]));
  for (const company of companies) {
    company.funds = (company.funds as string[])
      .map((id) => {
        const fund = fundOf.get(id);
        // Read in the same statement (one snapshot) as the companies that reference them.
        if (!fund) throw new Error(`fund ${id} of a company is not among its page's funds`);
        return fund;
      })
      .sort((a, b) => a.rank - b.rank)
      .map(({ id, name }) => ({ id, name }));
  }
}
