import { AppError, isNot, outOfRange, tooLong } from '../../../errors.ts';
import { AWAITS_RECIPIENT } from '../../recipients/turn.ts';
import { isUuid } from '../../../validation/uuid.ts';
import type { QueuePosition } from './queue-cursor.ts';

/**
 * What the console asks of its work queue (queue.ts): the query, its checks and defaults, and the SQL it makes of
 * it with numbered parameters: its filters, and the select of a page's rows.
 */

/** The orders the queue can be read in. */
export const QUEUE_SORTS = ['newest', 'oldest', 'longest_in_state', 'recently_updated'] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];

/** Each sort's column and direction; `sequence` follows in the same direction. Constants, never input. */
export const SORTS: Record<QueueSort, { column: string; direction: 'asc' | 'desc' }> = {
  newest: { column: 'created_at', direction: 'desc' },
  oldest: { column: 'created_at', direction: 'asc' },
  longest_in_state: { column: 'state_entered_at', direction: 'asc' },
  recently_updated: { column: 'updated_at', direction: 'desc' },
};

/** The most rows a page holds, and how many it holds when the caller does not say. */
export const MAX_QUEUE_PAGE = 100;
export const DEFAULT_QUEUE_PAGE = 50;
/** How long the recipient may do nothing before their transaction is stalled, when the caller does not say. */
export const DEFAULT_STALLED_AFTER_DAYS = 7;
/** The shortest and longest search; shorter fragments would match nearly everything and use no index. */
export const MIN_QUEUE_SEARCH = 3;
export const MAX_QUEUE_SEARCH = 100;
const MAX_KEY_LENGTH = 100;
const MAX_DAYS = 3650;

/** What the console asks of the queue. Every field is optional. */
export interface QueueQuery {
  /**
   * A fragment (3 to 100 characters, any case) of the investor's name (their entity's, e.g. a trust's legal name),
   * of the contact person's name or e-mail address (the notice name and address), or of the sender entity's name;
   * or a transaction's id or the beginning of it.
   */
  search?: string | undefined;
  /** A template's key: transactions of every version of it. */
  templateKey?: string | undefined;
  /** One state (a tab); the tabs' counts leave this filter out. */
  state?: string | undefined;
  senderEntityId?: string | undefined;
  /** Only the transactions of one closing (console/closings). */
  closingId?: string | undefined;
  /** Only transactions in their state for at least this many days (0 to 3650). */
  inStateForDays?: number | undefined;
  /** @default 'newest' */
  sort?: QueueSort | undefined;
  /** Rows per page, 1 to 100. @default 50 */
  first?: number | undefined;
  /** The `nextCursor` of the previous page, given the same sort and filters. */
  after?: string | undefined;
  /** Days of the recipient's silence after which a row is stalled, 1 to 365. @default 7 */
  stalledAfterDays?: number | undefined;
}

/** A query checked and completed with its defaults. */
export interface CheckedQuery {
  search: string | undefined;
  templateKey: string | undefined;
  state: string | undefined;
  senderEntityId: string | undefined;
  closingId: string | undefined;
  inStateForDays: number | undefined;
  sort: QueueSort;
  first: number;
  after: string | undefined;
  stalledAfterDays: number;
}

function wholeNumber(value: number | undefined, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min || value > max) throw outOfRange(field, min, max, { field });
  return value;
}

function key(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_KEY_LENGTH) throw tooLong(field, MAX_KEY_LENGTH, { field });
  return value;
}

/**
 * Checks a queue query and fills in its defaults: BAD_USER_INPUT naming the field for a search shorter than 3 or
 * longer than 100 characters, an entity id that is not a UUID, an unknown sort, or a number out of its range.
 */
export function checkQueueQuery(query: QueueQuery): CheckedQuery {
  const search = query.search?.trim() || undefined;
  if (search !== undefined && search.length > MAX_QUEUE_SEARCH) {
    throw tooLong('A search', MAX_QUEUE_SEARCH, { field: 'search' });
  }
  if (search !== undefined && search.length < MIN_QUEUE_SEARCH) {
    throw new AppError('BAD_USER_INPUT', `A search needs at least ${String(MIN_QUEUE_SEARCH)} characters.`, {
      field: 'search',
    });
  }
  const senderEntityId = query.senderEntityId || undefined;
  if (senderEntityId !== undefined && !isUuid(senderEntityId)) {
    throw isNot(senderEntityId, 'an entity id', { field: 'senderEntityId' });
  }
  const closingId = query.closingId || undefined;
  if (closingId !== undefined && !isUuid(closingId)) {
    throw isNot(closingId, 'a closing id', { field: 'closingId' });
  }
  const sort = query.sort ?? 'newest';
  if (!QUEUE_SORTS.includes(sort)) throw isNot(sort, 'a sort of the queue', { field: 'sort' }, QUEUE_SORTS);
  return {
    search,
    templateKey: key(query.templateKey, 'templateKey'),
    state: key(query.state, 'state'),
    senderEntityId,
    closingId,
    inStateForDays: wholeNumber(query.inStateForDays, 'inStateForDays', 0, MAX_DAYS),
    sort,
    first: wholeNumber(query.first, 'first', 1, MAX_QUEUE_PAGE) ?? DEFAULT_QUEUE_PAGE,
    after: query.after || undefined,
    stalledAfterDays:
      wholeNumber(query.stalledAfterDays, 'stalledAfterDays', 1, 365) ?? DEFAULT_STALLED_AFTER_DAYS,
  };
}

/** Parameters of one statement, numbered as they are added. */
export class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${String(this.values.length)}`;
  }
}

/** `%fragment%` for LIKE, the fragment's own `%`, `_` and `\` matched as themselves. */
function containing(fragment: string): string {
  return `%${fragment.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * The ids a search matches as the beginning of a transaction id: the lowest and highest UUID that begin with
 * it, for a range of the primary key; undefined when the search cannot begin a UUID.
 */
export function idRange(search: string): [string, string] | undefined {
  const text = search.toLowerCase();
  if (!/^[0-9a-f-]+$/.test(text)) return undefined;
  // Dashes only where a UUID has them (after 8, 12, 16 and 20 digits).
  for (let index = 0; index < text.length; index += 1) {
    const dash = index === 8 || index === 13 || index === 18 || index === 23;
    if ((text[index] === '-') !== dash || index >= 36) return undefined;
  }
  const digits = text.replaceAll('-', '');
  const uuid = (hex: string) =>
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return [uuid(digits.padEnd(32, '0')), uuid(digits.padEnd(32, 'f'))];
}

/**
 * The filters every statement of a read shares (all but the state and the cursor), as SQL over `t`
 * (transactions) with their values added to `params`.
 */
export function sharedFilters(
  params: Parameters,
  organizationId: string,
  query: CheckedQuery,
  templateIds: string[] | undefined,
): string {
  const organization = params.add(organizationId);
  const where = [`t.organization_id = ${organization}`];
  if (templateIds !== undefined) where.push(`t.template_id = any(${params.add(templateIds)}::uuid[])`);
  if (query.senderEntityId !== undefined)
    where.push(`t.sender_entity_id = ${params.add(query.senderEntityId)}`);
  if (query.closingId !== undefined) where.push(`t.closing_id = ${params.add(query.closingId)}`);
  if (query.inStateForDays !== undefined) {
    where.push(
      `t.state_entered_at <= now() - make_interval(days => ${params.add(query.inStateForDays)}::int)`,
    );
  }
  if (query.search !== undefined) {
    // Each alternative is an index's (the organization's trigrams of three columns, migration 0023; the sender
    // index; the primary key): a BitmapOr of them, each with the organization in its condition. The investor's
    // entity is searched by the name its transaction keeps (`investor_name`): an arm through the recipients and
    // their entities (thousands of primary-key probes for a common fragment) doubled a search's time over 200,000
    // rows. The sender arm looks only at the organization's senders (the few the kept counts name): the name of an
    // investor's entity would match thousands of them, each a probe of the sender index for nothing.
    const pattern = params.add(containing(query.search));
    const any = [
      `t.investor_name ilike ${pattern}`,
      `t.notice_name ilike ${pattern}`,
      `t.notice_email ilike ${pattern}`,
      `t.sender_entity_id = any(array(
         select e.id from entities e
         where e.name ilike ${pattern} and e.id in (
           select c.sender_entity_id from transaction_state_counts c where c.organization_id = ${organization})))`,
    ];
    const range = idRange(query.search);
    if (range !== undefined) any.push(`t.id between ${params.add(range[0])} and ${params.add(range[1])}`);
    where.push(`(${any.join(' or ')})`);
  }
  return where.join(' and ');
}

/**
 * The filters of a page beyond the shared ones, over the `columns` it is read from (the transactions', or a
 * search's gathered matches'): its tab (state) and where the cursor left off.
 */
export function pageFilters(
  params: Parameters,
  query: CheckedQuery,
  position: QueuePosition | undefined,
  columns: { state: string; time: string; sequence: string },
): string[] {
  const where: string[] = [];
  if (query.state !== undefined) where.push(`${columns.state} = ${params.add(query.state)}`);
  if (position !== undefined) {
    const after = SORTS[query.sort].direction === 'desc' ? '<' : '>';
    where.push(
      `(${columns.time}, ${columns.sequence}) ${after} (${params.add(position.time)}::timestamptz, ${params.add(position.sequence)}::bigint)`,
    );
  }
  return where;
}

/** A row of a page as {@link pageSelect} reads it. */
export interface PageRow {
  id: string;
  templateId: string;
  state: string;
  investorName: string;
  noticeName: string;
  noticeEmail: string;
  senderEntityId: string;
  senderEntityName: string;
  createdAt: Date;
  updatedAt: Date;
  stateEnteredAt: Date;
  recipientActiveAt: Date | null;
  assigneeId: string | null;
  assigneeName: string | null;
  sortTime: string;
  sequence: string;
  awaitsRecipient: boolean;
  idle: boolean;
}

/**
 * The select of a page's rows (`where` picks them, over `t`), and whether each stalls. The page is read first
 * and only its rows are asked whether they are stalled: asked in the same select, the planner may answer it for
 * every process of the table at once.
 */
export function pageSelect(params: Parameters, query: CheckedQuery, where: string): string {
  const stalledAfter = params.add(query.stalledAfterDays);
  const { column } = SORTS[query.sort];
  return `select page.*, ${AWAITS_RECIPIENT('page')} as "awaitsRecipient"
     from (
       select t.id, t.template_id as "templateId", t.state,
         coalesce(t.investor_name, t.notice_name) as "investorName", t.notice_name as "noticeName",
         t.notice_email as "noticeEmail", t.sender_entity_id as "senderEntityId", s.name as "senderEntityName",
         t.created_at as "createdAt", t.updated_at as "updatedAt", t.state_entered_at as "stateEnteredAt",
         t.recipient_active_at as "recipientActiveAt", u.id as "assigneeId", u.name as "assigneeName",
         to_char(t.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortTime", t.sequence,
         t.completed_at, t.voided_at,
         greatest(t.state_entered_at, t.recipient_active_at) <= now() - make_interval(days => ${stalledAfter}::int)
           as idle
       from transactions t
       join entities s on s.id = t.sender_entity_id
       left join users u on u.id = t.assignee_user_id and u.organization_id = t.organization_id
       where ${where}
     ) page`;
}
