import type { Database, Queryable } from '../../../db/database.ts';
import type { TemplateDefinition, WorkflowDefinition } from '../../templates/schema.ts';
import { words } from '../../templates/key-words.ts';
import { effectiveWorkflow, inWords, isVoidEvent } from '../../workflow.ts';
import {
  checkQueueQuery,
  pageFilters,
  pageSelect,
  Parameters,
  sharedFilters,
  SORTS,
  type CheckedQuery,
  type PageRow,
  type QueueQuery,
} from './queue-query.ts';
import { decodeQueueCursor, encodeQueueCursor, listFingerprint, type QueuePosition } from './queue-cursor.ts';

/**
 * The organization console's work queue: an organization's transactions, one page at a time, with a tab per
 * state of its templates and each tab's count. A row names its investor (the primary recipient's entity, e.g.
 * "Redwood Family Trust") and the contact person (the notice name and address, e.g. "Morgan Redwood"). Searched by
 * the investor's name, the contact's name or e-mail, the sender entity's name, or the transaction's id or a prefix
 * of it (see queue-query.ts); filtered by template (its key: every version), state, sender entity and time in state;
 * sorted newest, oldest, longest in state or recently updated, walked with keyset cursors (`sequence` breaks
 * ties). Every statement is scoped to the organization and every value is a parameter; the indexes are migration
 * 0016's and 0023's (the investor's name).
 *
 * A row is **stalled** when it is the primary recipient's turn and they have done nothing for `stalledAfterDays`
 * (7 by default): the transaction is not in a final state, the recipient has something to submit (as for
 * reminders: {@link AWAITS_RECIPIENT}), and neither entering the state nor the recipient's last act
 * (`recipient_active_at`, see recipients/activity.ts) is more recent than that.
 */

/** A tab: a state of the organization's templates and how many transactions are in it (with the other filters). */
export interface QueueTab {
  state: string;
  /** The state as the newest template that has it titles it, else its key in words. */
  title: string;
  count: number;
  /** Whether the workflow ends in this state (in a template that has it). */
  final: boolean;
}

/**
 * Where a transaction in a state stands, as its template's workflow tells (see {@link stageOf}): waiting on the
 * recipient, waiting on the organization's team, completed, voided, or a state its template does not list.
 */
export const STATE_STAGES = ['recipient', 'team', 'completed', 'voided', 'other'] as const;
export type StateStage = (typeof STATE_STAGES)[number];

/**
 * Where a transaction in `state` stands, from its template's workflow (the effective one: the built-in void
 * included) rather than from state keys: a final state is `voided` when a void event enters it and `completed`
 * otherwise; a state that goes on is the `recipient`'s while an event that leaves it is a recipient's (a process's
 * `submitEvent`: they have something to submit), and the `team`'s while only the organization moves it on (a
 * review, a countersignature); a state the workflow does not have is `other`.
 *
 * @example
 * stageOf(template, 'in_review'); // 'team' in the example template: only the sponsor's events leave it
 */
export function stageOf(
  template: {
    workflow: WorkflowDefinition;
    processes: readonly Pick<TemplateDefinition['processes'][number], 'submitEvent'>[];
  },
  state: string,
): StateStage {
  const workflow = effectiveWorkflow(template.workflow);
  const found = workflow.states.find((candidate) => candidate.key === state);
  if (found === undefined) return 'other';
  if (found.final === true) {
    return workflow.events.some((event) => isVoidEvent(event.key) && event.to === state)
      ? 'voided'
      : 'completed';
  }
  const submits = new Set(template.processes.flatMap((process) => process.submitEvent ?? []));
  return workflow.events.some((event) => event.from.includes(state) && submits.has(event.key))
    ? 'recipient'
    : 'team';
}

/** A row of the queue. */
export interface QueueRow {
  id: string;
  template: { id: string; key: string; name: string; version: number };
  state: string;
  /** The state as its template titles it, else its key in words. */
  stateTitle: string;
  /** Where the transaction stands in its state (see {@link stageOf}): the colour of its state's badge. */
  stage: StateStage;
  /**
   * The investor: the name of the primary recipient's entity (a person's own name, or a trust's or a company's),
   * kept on the transaction (migration 0023).
   */
  investorName: string;
  /** The contact person: whom the invitation and the mail go to. */
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

/** A template of the organization, with what the tabs, `stalled` and the stages need of its definition. */
interface QueueTemplate {
  id: string;
  key: string;
  name: string;
  version: number;
  workflow: WorkflowDefinition;
  /** Its processes' `submitEvent`s (the recipient's events), as {@link stageOf} reads them. */
  processes: Pick<TemplateDefinition['processes'][number], 'submitEvent'>[];
}

/**
 * A page of the organization's work queue, with the tabs' counts on the first page (see {@link QueueQuery} for
 * what can be asked). Two or three statements: the organization's templates, then the page and, on the first
 * page, the counts, side by side; for a search, one statement that reads both (see `readPage`), in a transaction
 * (see `planned`).
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
    query.closingId ?? null,
    query.inStateForDays ?? null,
  ]);
  const position = query.after === undefined ? undefined : decodeQueueCursor(query.after, fingerprint);

  const templates = await db.query<QueueTemplate>(
    `select id, key, name, version, definition -> 'workflow' as workflow,
       coalesce((select jsonb_agg(jsonb_build_object('submitEvent', p -> 'submitEvent'))
                 from jsonb_array_elements(definition -> 'processes') p where p ? 'submitEvent'), '[]') as processes
     from templates where organization_id = $1 order by key, version desc`,
    [organizationId],
  );
  const shown = templates.filter(
    (template) => query.templateKey === undefined || template.key === query.templateKey,
  );
  const templateIds = query.templateKey === undefined ? undefined : shown.map((template) => template.id);

  const { rows, counts } = await planned(db, query, (reader) =>
    readPage(reader, { organizationId, query, templateIds, position }),
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
 * Runs a read's page and counts: as they come, or for a search in a database transaction whose statement is
 * planned for its values. Every statement is prepared, and after a few runs PostgreSQL may plan a search for
 * any pattern: it then reads every row of the organization and tests the pattern on each (54 ms for 40,000 rows,
 * about 250 for 200,000) where the trigram indexes find the few that match (10 ms). The transaction costs two
 * round trips more.
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

/**
 * A row as a search's statement reads it: on the first page with the tabs' counts, and when the page is empty one
 * row of counts alone (its id null).
 */
interface SearchRow extends Omit<PageRow, 'id'> {
  id: string | null;
  counts?: Record<string, number>;
}

/**
 * A page's rows (one more than asked: whether there is a next page) and, on the first page, the tabs' counts.
 * Without a search, two statements side by side: the page walks its sort's index, the counts sum the kept ones
 * (or count rows). A search is one statement: it gathers the organization's matches once (through its trigram
 * index: as many rows as match), counts them by state and sorts them for the page. Left to order and limit the
 * match, the planner may walk the organization's rows in order and test each until the page is full: a few
 * thousand rows for a fragment of one row in a hundred, every row for one that matches nothing (110 ms where
 * gathering took 12, and the counts read the matches a second time: bench/RESULTS.md, 2026-11-28).
 */
async function readPage(
  db: Queryable,
  options: ReadScope & { position: QueuePosition | undefined },
): Promise<{ rows: PageRow[]; counts: Map<string, number> | undefined }> {
  const { query, position } = options;
  const first = position === undefined;
  if (query.search === undefined) {
    const [rows, counts] = await Promise.all([
      readRows(db, options),
      first ? countStates(db, options) : undefined,
    ]);
    return { rows, counts };
  }
  const params = new Parameters();
  const shared = sharedFilters(params, options.organizationId, query, options.templateIds);
  const { column, direction } = SORTS[query.sort];
  const onPage = pageFilters(params, query, position, {
    state: 'm.state',
    time: 'm.at',
    sequence: 'm.sequence',
  });
  const limit = params.add(query.first + 1);
  // The first page's counts ride on each row (left joined: an empty page is one row of counts alone).
  const counted = first
    ? {
        with: `, counted as (
           select coalesce(json_object_agg(state, count), '{}') as counts
           from (select state, count(*)::int as count from matched group by state) by_state)`,
        select: 'counted.counts, ',
        from: 'counted left join',
        on: 'on true',
      }
    : { with: '', select: '', from: '', on: '' };
  const listed = await db.query<SearchRow>(
    `with matched as materialized (
       select t.id, t.state, t.${column} as at, t.sequence from transactions t where ${shared}),
     chosen as (
       select m.id from matched m ${onPage.length === 0 ? '' : `where ${onPage.join(' and ')}`}
       order by m.at ${direction}, m.sequence ${direction} limit ${limit})
     ${counted.with}
     select ${counted.select}listed.*
     from ${counted.from} (${pageSelect(params, query, 't.id in (select id from chosen)')}) listed ${counted.on}
     order by listed."sortTime" ${direction}, listed.sequence ${direction}`,
    params.values,
  );
  const counts = first ? listed[0]?.counts : undefined;
  return {
    rows: listed.filter((row): row is SearchRow & PageRow => row.id !== null),
    counts: counts === undefined ? undefined : new Map(Object.entries(counts)),
  };
}

/** A page without a search: the organization's rows in the sort's order, through its index. */
async function readRows(
  db: Queryable,
  options: ReadScope & { position: QueuePosition | undefined },
): Promise<PageRow[]> {
  const { query, position } = options;
  const params = new Parameters();
  const { column, direction } = SORTS[query.sort];
  const where = [
    sharedFilters(params, options.organizationId, query, options.templateIds),
    ...pageFilters(params, query, position, {
      state: 't.state',
      time: `t.${column}`,
      sequence: 't.sequence',
    }),
  ];
  const limit = params.add(query.first + 1);
  const order = `t.${column} ${direction}, t.sequence ${direction}`;
  return db.query<PageRow>(
    `${pageSelect(params, query, `${where.join(' and ')} order by ${order} limit ${limit}`)}
     order by page."sortTime" ${direction}, page.sequence ${direction}`,
    params.values,
  );
}

async function countStates(db: Queryable, options: ReadScope): Promise<Map<string, number>> {
  const { query, organizationId, templateIds } = options;
  if (query.search === undefined && query.inStateForDays === undefined && query.closingId === undefined) {
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
    for (const state of template.workflow.states) {
      const tab = tabs.get(state.key) ?? {
        state: state.key,
        title: inWords(template.workflow).state(state.key),
        count: counts.get(state.key) ?? 0,
        final: false,
      };
      tab.final ||= state.final === true;
      tabs.set(state.key, tab);
    }
  }
  for (const [state, count] of counts) {
    if (!tabs.has(state)) tabs.set(state, { state, title: words(state), count, final: false });
  }
  return [...tabs.values()];
}

function toQueueRow(row: PageRow, template: QueueTemplate | undefined): QueueRow {
  const stage = template === undefined ? 'other' : stageOf(template, row.state);
  const final = stage === 'completed' || stage === 'voided';
  return {
    id: row.id,
    template: {
      id: row.templateId,
      key: template?.key ?? '',
      name: template?.name ?? '',
      version: template?.version ?? 0,
    },
    state: row.state,
    stateTitle: template === undefined ? words(row.state) : inWords(template.workflow).state(row.state),
    stage,
    investorName: row.investorName,
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
