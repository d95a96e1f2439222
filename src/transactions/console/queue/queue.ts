import type { Database, Queryable } from '../../../db/database.ts';
import { AWAITS_RECIPIENT } from '../../recipients/turn.ts';
import type { WorkflowDefinition } from '../../templates/schema.ts';
import {
  checkQueueQuery,
  Parameters,
  sharedFilters,
  type CheckedQuery,
  type QueueQuery,
  type QueueSort,
} from './queue-query.ts';
import { decodeQueueCursor, encodeQueueCursor, listFingerprint, type QueuePosition } from './queue-cursor.ts';

/**
 * The organization console's work queue: an organization's transactions, one page at a time, with a tab per
 * state of its templates and each tab's count. Searched by the investor's name or e-mail (the notice name and
 * address), the sender entity's name, or the transaction's id or a prefix of it (not a recipient entity's name:
 * see queue-query.ts); filtered by template (its key: every version), state, sender entity and time in state;
 * sorted newest, oldest, longest in state or recently updated, walked with keyset cursors (`sequence` breaks
 * ties). Every statement is scoped to the organization and every value is a parameter; the indexes are migration
 * 0016's.
 *
 * A row is **stalled** when it is the primary recipient's turn and they have done nothing for `stalledAfterDays`
 * (7 by default): the transaction is not in a final state, the recipient has something to submit (as for
 * reminders: {@link AWAITS_RECIPIENT}), and neither entering the state nor the recipient's last act
 * (`recipient_active_at`, see recipients/activity.ts) is more recent than that.
 */

/** A tab: a state of the organization's templates and how many transactions are in it (with the other filters). */
export interface QueueTab {
  state: string;
  count: number;
  /** Whether the workflow ends in this state (in a template that has it). */
  final: boolean;
}

/** A row of the queue. */
export interface QueueRow {
  id: string;
  template: { id: string; key: string; name: string; version: number };
  state: string;
  noticeName: string;
  noticeEmail: string;
  senderEntity: { id: string; name: string };
  createdAt: Date;
  updatedAt: Date;
  /** When the transaction entered its state: "in review for 6 days". */
  stateEnteredAt: Date;
  /** When the primary recipient last acted (saved, uploaded, signed, submitted); null if never. */
  recipientActiveAt: Date | null;
  /** Whether the recipient has done nothing for `stalledAfterDays` while it is their turn (see above). */
  stalled: boolean;
  assignee: { id: string; name: string } | null;
}

/** A page of the queue. */
export interface QueuePage {
  rows: QueueRow[];
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
  /** The tabs with their counts, on the first page only (null on the pages after: the console keeps them). */
  tabs: QueueTab[] | null;
}

// What a route's schema needs of the query, from the module the console's routes import.
export {
  DEFAULT_QUEUE_PAGE,
  DEFAULT_STALLED_AFTER_DAYS,
  MAX_QUEUE_PAGE,
  MAX_QUEUE_SEARCH,
  MIN_QUEUE_SEARCH,
  QUEUE_SORTS,
} from './queue-query.ts';
export type { QueueQuery, QueueSort } from './queue-query.ts';

/** Each sort's column and direction; `sequence` follows in the same direction. Constants, never input. */
const SORTS: Record<QueueSort, { column: string; direction: 'asc' | 'desc' }> = {
  newest: { column: 'created_at', direction: 'desc' },
  oldest: { column: 'created_at', direction: 'asc' },
  longest_in_state: { column: 'state_entered_at', direction: 'asc' },
  recently_updated: { column: 'updated_at', direction: 'desc' },
};

/** A template of the organization, with what the tabs and `stalled` need of its workflow. */
interface QueueTemplate {
  id: string;
  key: string;
  name: string;
  version: number;
  states: WorkflowDefinition['states'];
}

interface PageRow {
  id: string;
  templateId: string;
  state: string;
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
 * A page of the organization's work queue, with the tabs' counts on the first page (see {@link QueueQuery} for
 * what can be asked). Two or three statements: the organization's templates, then the page and, on the first
 * page, the counts, side by side (a search: in a transaction, one after the other, see `planned`).
 * BAD_USER_INPUT for a query out of its limits (see {@link checkQueueQuery}), INVALID_CURSOR for a cursor of
 * another list.
 *
 * @example
 * const page = await readQueue(db, { organizationId, query: { state: 'in_review', sort: 'longest_in_state' } });
 * const next = await readQueue(db, { organizationId, query: { state: 'in_review', sort: 'longest_in_state', after: page.nextCursor ?? undefined } });
 */
export async function readQueue(
  db: Database,
  options: { organizationId: string; query: QueueQuery },
): Promise<QueuePage> {
  const { organizationId } = options;
  const query = checkQueueQuery(options.query);
  const fingerprint = listFingerprint([
    organizationId,
    query.sort,
    query.search ?? null,
    query.templateKey ?? null,
    query.state ?? null,
    query.senderEntityId ?? null,
    query.inStateForDays ?? null,
  ]);
  const position = query.after === undefined ? undefined : decodeQueueCursor(query.after, fingerprint);

  const templates = await db.query<QueueTemplate>(
    `select id, key, name, version, definition -> 'workflow' -> 'states' as states
     from templates where organization_id = $1 order by key, version desc`,
    [organizationId],
  );
  const shown = templates.filter(
    (template) => query.templateKey === undefined || template.key === query.templateKey,
  );
  const templateIds = query.templateKey === undefined ? undefined : shown.map((template) => template.id);

  const [rows, counts] = await planned(db, query, (reader) =>
    Promise.all([
      readRows(reader, { organizationId, query, templateIds, position }),
      position === undefined ? countStates(reader, { organizationId, query, templateIds }) : undefined,
    ]),
  );

  const byId = new Map(templates.map((template) => [template.id, template]));
  const page = rows.slice(0, query.first);
  const last = page.at(-1);
  return {
    rows: page.map((row) => toQueueRow(row, byId.get(row.templateId))),
    nextCursor:
      rows.length > query.first && last !== undefined
        ? encodeQueueCursor(fingerprint, { time: last.sortTime, sequence: last.sequence })
        : null,
    tabs: counts === undefined ? null : tabsOf(shown, counts),
  };
}

/**
 * Runs a read's page and counts: as they come, or for a search in a database transaction whose statements are
 * planned for their values. Every statement is prepared, and after a few runs PostgreSQL may plan a search for
 * any pattern: it then reads every row of the organization and tests the pattern on each (54 ms for 40,000 rows,
 * about 250 for 200,000) where the trigram indexes find the few that match (10 ms). The transaction costs two
 * round trips more and runs the two statements one after the other.
 */
function planned<T>(db: Database, query: CheckedQuery, read: (reader: Queryable) => Promise<T>): Promise<T> {
  if (query.search === undefined) return read(db);
  return db.transaction(async (tx) => {
    await tx.query('set local plan_cache_mode = force_custom_plan');
    return read(tx);
  });
}

/** What every statement of a read is about: the organization, the query, and what was looked up for it. */
interface ReadScope {
  organizationId: string;
  query: CheckedQuery;
  /** The ids of the template key's versions, when the query names a template. */
  templateIds: string[] | undefined;
}

async function readRows(
  db: Queryable,
  options: ReadScope & { position: QueuePosition | undefined },
): Promise<PageRow[]> {
  const { query, position } = options;
  const params = new Parameters();
  const stalledAfter = params.add(query.stalledAfterDays);
  const where = [sharedFilters(params, options.organizationId, query, options.templateIds)];
  if (query.state !== undefined) where.push(`t.state = ${params.add(query.state)}`);
  const { column, direction } = SORTS[query.sort];
  if (position !== undefined) {
    const after = direction === 'desc' ? '<' : '>';
    where.push(
      `(t.${column}, t.sequence) ${after} (${params.add(position.time)}::timestamptz, ${params.add(position.sequence)}::bigint)`,
    );
  }
  const limit = params.add(query.first + 1);
  // The page is read first and only its rows are asked whether they are stalled: asked in the same select, the
  // planner may answer it for every process of the table at once.
  return db.query<PageRow>(
    `select page.*, ${AWAITS_RECIPIENT('page')} as "awaitsRecipient"
     from (
       select t.id, t.template_id as "templateId", t.state, t.notice_name as "noticeName",
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
       where ${where.join(' and ')}
       order by t.${column} ${direction}, t.sequence ${direction}
       limit ${limit}
     ) page
     order by page."sortTime" ${direction}, page.sequence ${direction}`,
    params.values,
  );
}

async function countStates(db: Queryable, options: ReadScope): Promise<Map<string, number>> {
  const { query, organizationId, templateIds } = options;
  if (query.search === undefined && query.inStateForDays === undefined) {
    // Filters the kept counts have: their sum (transaction_state_counts, migration 0016).
    const kept = await db.query<{ state: string; count: number }>(
      `select state, sum(count)::int as count from transaction_state_counts
       where organization_id = $1 and ($2::uuid[] is null or template_id = any($2::uuid[]))
         and ($3::uuid is null or sender_entity_id = $3)
       group by state`,
      [organizationId, templateIds ?? null, query.senderEntityId ?? null],
    );
    return new Map(kept.filter((row) => row.count > 0).map((row) => [row.state, row.count]));
  }
  const params = new Parameters();
  const where = sharedFilters(params, organizationId, query, templateIds);
  const rows = await db.query<{ state: string; count: number }>(
    `select t.state, count(*)::int as count from transactions t where ${where} group by t.state`,
    params.values,
  );
  return new Map(rows.map((row) => [row.state, row.count]));
}

/**
 * The tabs: every state of the templates shown (each template's latest version first, states in workflow
 * order, each state once), then any state a transaction is in that no template lists any more.
 */
function tabsOf(templates: readonly QueueTemplate[], counts: ReadonlyMap<string, number>): QueueTab[] {
  const tabs = new Map<string, QueueTab>();
  for (const template of templates) {
    for (const state of template.states) {
      const tab = tabs.get(state.key) ?? {
        state: state.key,
        count: counts.get(state.key) ?? 0,
        final: false,
      };
      tab.final ||= state.final === true;
      tabs.set(state.key, tab);
    }
  }
  for (const [state, count] of counts) {
    if (!tabs.has(state)) tabs.set(state, { state, count, final: false });
  }
  return [...tabs.values()];
}

function toQueueRow(row: PageRow, template: QueueTemplate | undefined): QueueRow {
  const final = template?.states.some((state) => state.key === row.state && state.final === true) ?? false;
  return {
    id: row.id,
    template: {
      id: row.templateId,
      key: template?.key ?? '',
      name: template?.name ?? '',
      version: template?.version ?? 0,
    },
    state: row.state,
    noticeName: row.noticeName,
    noticeEmail: row.noticeEmail,
    senderEntity: { id: row.senderEntityId, name: row.senderEntityName },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    stateEnteredAt: row.stateEnteredAt,
    recipientActiveAt: row.recipientActiveAt,
    stalled: row.awaitsRecipient && row.idle && !final,
    assignee: row.assigneeId === null ? null : { id: row.assigneeId, name: row.assigneeName ?? '' },
  };
}
