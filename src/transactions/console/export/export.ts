import type { Writable } from 'node:stream';
import type { Database, Queryable } from '../../../db/database.ts';
import { AppError } from '../../../errors.ts';
import type { QueuePosition } from '../queue/queue-cursor.ts';
import {
  checkQueueQuery,
  pageFilters,
  Parameters,
  sharedFilters,
  SORTS,
  type CheckedQuery,
  type QueueQuery,
} from '../queue/queue-query.ts';
import {
  exportSheet,
  type ExportAnswers,
  type ExportRow,
  type ExportSheet,
  type ExportTemplate,
} from './export-columns.ts';
import { csvWriter, xlsxWriter, type ExportFormat, type SheetWriter } from './export-formats.ts';

export { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from './export-formats.ts';

/**
 * The work queue as a spreadsheet: the transactions the queue lists for its filters (search, template, state,
 * sender, time in state, sort; no pages), in the queue's order, one row each, with their current answers (each
 * process's latest revision), as CSV or XLSX (export-formats.ts), for a fund's team to hand to its administrator.
 * The columns (export-columns.ts): the transaction's own facts, then a column per answer field of the templates
 * the rows use; two header rows, titles for people and machine keys for programs.
 *
 * In two steps, so that a refusal is an ordinary error answer and not a broken download: {@link planQueueExport}
 * checks the filters, counts the rows (at most {@link MAX_EXPORT_ROWS}) and makes the columns from the templates
 * the rows use; {@link writeQueueExport} then reads the rows a page at a time by a keyset cursor, as the queue
 * walks them, and writes each page as the next is read, waiting for the reader when it lags: memory holds two
 * pages, never the export. Every statement is scoped to the organization and every value is a parameter.
 */

/** The most transactions one export holds: more is refused, asking for narrower filters. */
export const MAX_EXPORT_ROWS = 100_000;
/** Transactions read, and written, at a time. */
export const EXPORT_PAGE = 500;

/** The queue's filters an export takes: all but its pages. */
export type ExportFilters = Omit<QueueQuery, 'first' | 'after' | 'stalledAfterDays'>;

/** An export made ready by {@link planQueueExport}: what it holds and its columns. */
export interface QueueExport {
  organizationId: string;
  query: CheckedQuery;
  /** The ids of the template key's versions, when the filters name a template. */
  templateIds: string[] | undefined;
  /** How many transactions it holds (as counted before writing). */
  count: number;
  sheet: ExportSheet;
}

/** What {@link writeQueueExport} wrote. */
export interface ExportWritten {
  rows: number;
  /** False when the stream ended before the export did (the reader went away). */
  complete: boolean;
}

/**
 * Runs a read of the export: for a search, in a database transaction whose statements are planned for their
 * values, as the queue does (`planned` in queue.ts: a generic plan would test the pattern on every row of the
 * organization where the trigram indexes find the few that match).
 */
function planned<T>(db: Database, query: CheckedQuery, read: (reader: Queryable) => Promise<T>): Promise<T> {
  if (query.search === undefined) return read(db);
  return db.transaction(async (tx) => {
    await tx.query('set local plan_cache_mode = force_custom_plan');
    return read(tx);
  });
}

/** The filters as SQL over `t`: the queue's shared filters and its tab (the state); more with `position`. */
function whereOf(
  params: Parameters,
  plan: Pick<QueueExport, 'organizationId' | 'query' | 'templateIds'>,
  position?: QueuePosition,
): string {
  const { column } = SORTS[plan.query.sort];
  return [
    sharedFilters(params, plan.organizationId, plan.query, plan.templateIds),
    ...pageFilters(params, plan.query, position, {
      state: 't.state',
      time: `t.${column}`,
      sequence: 't.sequence',
    }),
  ].join(' and ');
}

/**
 * Makes an export of the organization's queue ready: checks the filters as the queue does (BAD_USER_INPUT
 * naming the field), counts the transactions they keep with the templates those use (one statement), and makes
 * the columns from those templates. BAD_USER_INPUT, before anything is written, when more than `maxRows`
 * transactions would be exported. Another organization's template key keeps no transaction: an export of no
 * rows (its header rows, with the fixed columns alone).
 *
 * @example
 * const plan = await planQueueExport(db, { organizationId, filters: { state: 'in_review' } });
 * await writeQueueExport(db, plan, { format: 'csv', output: response }); // any Writable
 */
export async function planQueueExport(
  db: Database,
  options: { organizationId: string; filters: ExportFilters; maxRows?: number | undefined },
): Promise<QueueExport> {
  const { organizationId } = options;
  const maxRows = options.maxRows ?? MAX_EXPORT_ROWS;
  const query = checkQueueQuery({ ...options.filters, first: undefined, after: undefined });
  const templateIds =
    query.templateKey === undefined
      ? undefined
      : (
          await db.query<{ id: string }>(`select id from templates where organization_id = $1 and key = $2`, [
            organizationId,
            query.templateKey,
          ])
        ).map((template) => template.id);
  const scope = { organizationId, query, templateIds };
  const used = await planned(db, query, (reader) => {
    const params = new Parameters();
    return reader.query<{ templateId: string; count: number }>(
      `select t.template_id as "templateId", count(*)::int as count from transactions t
       where ${whereOf(params, scope)} group by t.template_id`,
      params.values,
    );
  });
  const count = used.reduce((sum, template) => sum + template.count, 0);
  if (count > maxRows) {
    throw new AppError(
      'BAD_USER_INPUT',
      `These filters keep ${count.toLocaleString('en-US')} transactions, and an export holds at most ` +
        `${maxRows.toLocaleString('en-US')}: narrow the filters (a template, a state, a sender, a search) and export again.`,
      { count, limit: maxRows },
    );
  }
  const templates =
    used.length === 0
      ? []
      : await db.query<ExportTemplate>(
          `select id, key, name, version, definition from templates
           where organization_id = $1 and id = any($2::uuid[]) order by key, version desc`,
          [organizationId, used.map((template) => template.templateId)],
        );
  return { ...scope, count, sheet: exportSheet(templates) };
}

/** A transaction of a page, and where the walk stands after it. */
interface PageRow extends ExportRow {
  sortTime: string;
  sequence: string;
}

/** A page's transaction as its statement writes it in JSON: its times in milliseconds since 1970. */
interface PageJson extends Omit<PageRow, 'createdAt' | 'updatedAt' | 'completedAt'> {
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

// Each statement of a page answers one JSON text, read with JSON.parse: a driver reads a row's fields one by one,
// which took most of an export's time (PGlite, a page of 500: 30 ms read as rows, 11 as one text).
const millis = (time: string) => `floor(extract(epoch from ${time}) * 1000)`;

/** The next page of the export's transactions after `position`, in the queue's order. */
async function readPage(
  db: Database,
  plan: QueueExport,
  position: QueuePosition | undefined,
  size: number,
): Promise<PageRow[]> {
  const { column, direction } = SORTS[plan.query.sort];
  const [read] = await planned(db, plan.query, (reader) => {
    const params = new Parameters();
    const where = whereOf(params, plan, position);
    return reader.query<{ page: string }>(
      `select coalesce(json_agg(json_build_object(
           'id', t.id, 'templateId', t.template_id, 'state', t.state,
           'investorName', coalesce(t.investor_name, t.notice_name), 'noticeName', t.notice_name,
           'noticeEmail', t.notice_email, 'senderName', s.name, 'createdAt', ${millis('t.created_at')},
           'updatedAt', ${millis('t.updated_at')}, 'completedAt', ${millis('t.completed_at')},
           'sortTime', to_char(t.sort_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           'sequence', t.sequence::text)
         order by t.sort_at ${direction}, t.sequence ${direction}), '[]')::text as page
       from (
         select t.*, t.${column} as sort_at from transactions t where ${where}
         order by t.${column} ${direction}, t.sequence ${direction} limit ${params.add(size)}) t
       join entities s on s.id = t.sender_entity_id and s.organization_id = t.organization_id`,
      params.values,
    );
  });
  return (JSON.parse(read?.page ?? '[]') as PageJson[]).map((row) => ({
    ...row,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    completedAt: row.completedAt === null ? null : new Date(row.completedAt),
  }));
}

const NO_ANSWERS: ExportAnswers = new Map();

/**
 * The current answers of some transactions of the organization: the items of each of their processes' latest
 * revision, by transaction and `vulcanKey`. The organization is checked on the transactions (by their primary
 * key), whose revisions and items are theirs: a condition on the revisions' or items' `organization_id` lets a
 * planner without statistics (PGlite never analyzes) read the organization's every revision through that index
 * for each page.
 */
async function readAnswers(
  db: Queryable,
  organizationId: string,
  transactionIds: readonly string[],
): Promise<Map<string, ExportAnswers>> {
  const [read] = await db.query<{ answers: string }>(
    `select coalesce(json_object_agg(answered.transaction_id, answered.items), '{}')::text as answers
     from (
       select i.transaction_id, json_object_agg(i.vulcan_key, i.data) as items
       from (select distinct on (r.transaction_process_id) r.id
             from transactions t join transaction_process_revisions r on r.transaction_id = t.id
             where t.id = any($2::uuid[]) and t.organization_id = $1
             order by r.transaction_process_id, r.number desc) latest
       join transaction_items i on i.transaction_process_revision_id = latest.id
       group by i.transaction_id) answered`,
    [organizationId, transactionIds],
  );
  const byTransaction = JSON.parse(read?.answers ?? '{}') as Record<string, Record<string, unknown>>;
  // As maps: an item's key is the template's, never taken for an object's own property.
  return new Map(
    Object.entries(byTransaction).map(([id, items]) => [
      id,
      new Map(
        Object.entries(items).filter(
          (entry): entry is [string, Record<string, unknown>] =>
            entry[1] !== null && typeof entry[1] === 'object',
        ),
      ),
    ]),
  );
}

/** The names of the organization's files among `ids`. */
async function readFileNames(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const files = await db.query<{ id: string; name: string }>(
    `select id, coalesce(override_filename, original_filename) as name from files
     where organization_id = $1 and id = any($2::uuid[])`,
    [organizationId, [...new Set(ids)]],
  );
  return new Map(files.map((file) => [file.id, file.name]));
}

/**
 * Writes an export made ready by {@link planQueueExport} to `output` in `format`: its header rows, then its
 * transactions a page (`pageSize`, {@link EXPORT_PAGE}) at a time, each page read (its rows, their answers, the
 * names of the files they name) while the one before is written. Stops, without an error, when `output`
 * ends first (the reader went away). A transaction that changes state or is made meanwhile may be in it or not,
 * as in the queue's next page.
 */
export async function writeQueueExport(
  db: Database,
  plan: QueueExport,
  options: { format: ExportFormat; output: Writable; pageSize?: number | undefined },
): Promise<ExportWritten> {
  const { output } = options;
  const size = options.pageSize ?? EXPORT_PAGE;
  const writer: SheetWriter =
    options.format === 'xlsx'
      ? await xlsxWriter(output, plan.sheet.columns)
      : csvWriter(output, plan.sheet.columns);
  /**
   * A page's rows, and then what its cells need: its transactions' answers and the names of the files they name.
   * The next page's rows are asked for as soon as this one's are known, so that the database reads them while this
   * page's answers are read and its rows written: at most two pages are held.
   */
  const pageAfter = (position: QueuePosition | undefined) => {
    const rows = readPage(db, plan, position, size);
    const cells = rows.then(async (page) => {
      const answers =
        page.length === 0
          ? new Map<string, ExportAnswers>()
          : await readAnswers(
              db,
              plan.organizationId,
              page.map((row) => row.id),
            );
      const answersOf = (row: ExportRow) => answers.get(row.id) ?? NO_ANSWERS;
      const fileNames = await readFileNames(
        db,
        plan.organizationId,
        page.flatMap((row) => plan.sheet.fileIdsOf(row, answersOf(row))),
      );
      return page.map((row) => plan.sheet.cellsOf(row, answersOf(row), fileNames));
    });
    // Each is awaited in its turn, or left unread when the export stops first.
    rows.catch(() => undefined);
    cells.catch(() => undefined);
    return { rows, cells };
  };
  let rows = 0;
  // Nothing to read when the count found none (no template to read them by either).
  let current = plan.count > 0 ? pageAfter(undefined) : undefined;
  while (current !== undefined) {
    const page = await current.rows;
    const last = page.at(-1);
    const next =
      page.length === size && last !== undefined
        ? pageAfter({ time: last.sortTime, sequence: last.sequence })
        : undefined;
    const cells = await current.cells;
    if (output.destroyed) return { rows, complete: false };
    await writer.write(cells);
    rows += page.length;
    current = next;
  }
  if (output.destroyed) return { rows, complete: false };
  await writer.end();
  return { rows, complete: true };
}

/** The file name of an export made on `day` (UTC): `transactions-2026-11-28.csv`. */
export function exportFileName(format: ExportFormat, day: Date = new Date()): string {
  return `transactions-${day.toISOString().slice(0, 10)}.${format}`;
}
