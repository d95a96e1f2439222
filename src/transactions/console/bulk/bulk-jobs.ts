import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Database, Queryable } from '../../../db/database.ts';
import { AppError, notFound } from '../../../errors.ts';
import { isUuid } from '../../../validation/uuid.ts';
import { idempotent } from '../../idempotency.ts';
import {
  assigneeOf,
  checkEligibility,
  checkRunnable,
  titleOf,
  type BulkAction,
  type CheckedItem,
} from './eligibility.ts';
import { effectiveWorkflow, inWords, isVoidEvent } from '../../workflow.ts';
import { selectTransactions, type BulkSelection, type SelectedTemplate } from './selection.ts';

/**
 * Bulk actions: the preflight (what the action would do to each selected transaction, nothing written), making
 * the job that does it (once per idempotency key), and the job as its page shows it. The job itself runs in
 * bulk-runs.ts.
 */

/** The most items a page of the preflight or of a job lists. */
export const BULK_PAGE = 100;
/** What an item whose transaction moved after the preflight is skipped with. */
export const CHANGED_SINCE_CHECKED = 'Changed since you checked: look at it again, then act on it alone.';

/** The preflight's reasons, each with how many transactions it blocks, most first. */
function reasonsOf(items: readonly CheckedItem[]): { reason: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    if (item.reason !== null) counts.set(item.reason, (counts.get(item.reason) ?? 0) + 1);
  }
  return [...counts]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** A workflow event the selection's templates have, as the page offers it. */
export interface BulkEvent {
  key: string;
  /** Its title in the first template that has it ("Approve"). */
  title: string;
  /** Whether it is the built-in void, which needs its reason. */
  isVoid: boolean;
}

/** The events of the templates, each once, in the order the templates list them; void last. */
function eventsOf(templates: Iterable<SelectedTemplate>): BulkEvent[] {
  const events = new Map<string, BulkEvent>();
  for (const template of templates) {
    const names = inWords(template.definition.workflow);
    for (const event of effectiveWorkflow(template.definition.workflow).events) {
      if (!events.has(event.key)) {
        events.set(event.key, {
          key: event.key,
          title: names.event(event.key),
          isVoid: isVoidEvent(event.key),
        });
      }
    }
  }
  return [...events.values()].sort((a, b) => Number(a.isVoid) - Number(b.isVoid));
}

interface BulkRequest {
  organizationId: string;
  role: ConsoleRole;
  selection: BulkSelection;
  action: BulkAction;
  /** The most transactions the selection may hold. @default MAX_BULK_SELECTION */
  max?: number | undefined;
}

/** The selection, checked for `action`, with the action's title. */
async function checked(db: Queryable, request: BulkRequest) {
  const { organizationId, action } = request;
  const assignee =
    action.kind === 'assign' ? await assigneeOf(db, { organizationId, userId: action.userId }) : null;
  const { selected, templates } = await selectTransactions(db, request);
  const items = await checkEligibility(db, { ...request, selected, templates });
  return { items, title: titleOf(action, templates.values(), assignee), assignee, templates };
}

/** What a bulk action would do, for the page before it runs. */
export interface BulkPreflight {
  title: string;
  /** The database's time of the check: the job skips a transaction that moved after it. */
  checkedAt: Date;
  total: number;
  eligible: number;
  blocked: number;
  /** Of the eligible, how many wait for a second person's approval instead of running. */
  asks: number;
  reasons: { reason: string; count: number }[];
  /** The workflow events of the selection's templates, for the page's choice of action (see {@link eventsOf}). */
  events: BulkEvent[];
  /** A page of the items, from `offset`. */
  items: CheckedItem[];
  nextOffset: number | null;
}

/**
 * What `action` would do to each transaction of the selection, for a person of `role`: eligible, or blocked
 * with the reason, counted and grouped by reason, the items a page at a time. Nothing is written.
 * SELECTION_TOO_LARGE over the limit; NOT_FOUND for a person to assign to who is not the organization's.
 */
export async function preflightBulk(
  db: Database,
  request: BulkRequest & { offset?: number | undefined },
): Promise<BulkPreflight> {
  const [{ now } = { now: new Date() }] = await db.query<{ now: Date }>('select clock_timestamp() as now');
  const { items, title, templates } = await checked(db, request);
  const offset = request.offset ?? 0;
  const blocked = items.filter((item) => item.reason !== null).length;
  return {
    title,
    checkedAt: now,
    total: items.length,
    eligible: items.length - blocked,
    blocked,
    asks: items.filter((item) => item.asks).length,
    reasons: reasonsOf(items),
    events: eventsOf(templates.values()),
    items: items.slice(offset, offset + BULK_PAGE),
    nextOffset: offset + BULK_PAGE < items.length ? offset + BULK_PAGE : null,
  };
}

/**
 * Makes the job that does `action` to the selection, checked again now: each eligible transaction an item to
 * do, with the state it is in; each blocked one kept with its reason; one that moved after `checkedAt` (the
 * preflight the person saw) skipped as changed. One job per `idempotencyKey`: the same key again answers the
 * first job (a double click, a retry), with another request IDEMPOTENCY_KEY_REUSED. BAD_USER_INPUT for a void
 * without its reason.
 */
export async function createBulkJob(
  db: Database,
  request: BulkRequest & { userId: string; checkedAt: Date; idempotencyKey: string },
): Promise<{ id: string }> {
  checkRunnable(request.action);
  const { organizationId, action } = request;
  const message = action.kind === 'event' ? action.message?.trim() || null : null;
  return idempotent(
    db,
    {
      organizationId,
      key: request.idempotencyKey,
      operation: 'console.bulk',
      input: { selection: request.selection, action, checkedAt: request.checkedAt.toISOString() },
    },
    async (tx) => {
      const { items, title, assignee } = await checked(tx, request);
      const [job] = await tx.query<{ id: string }>(
        `insert into bulk_jobs (organization_id, action, event_key, message, assignee_user_id, title, requested_by)
         values ($1, $2, $3, $4, $5, $6, $7) returning id`,
        [
          organizationId,
          action.kind,
          action.kind === 'event' ? action.eventKey : null,
          message,
          assignee?.id ?? null,
          title,
          request.userId,
        ],
      );
      if (!job) throw new Error('the new bulk job is gone');
      const moved = (item: CheckedItem) => item.stateEnteredAt.getTime() > request.checkedAt.getTime();
      const status = items.map((item) =>
        item.reason !== null ? 'blocked' : moved(item) ? 'skipped' : 'pending',
      );
      await tx.query(
        `insert into bulk_job_items
           (organization_id, job_id, transaction_id, position, checked_state, checked_entered_at, status, reason)
         select $1, $2, item.id, item.position, item.state, item.entered, item.status, item.reason
         from unnest($3::uuid[], $4::int[], $5::text[], $6::timestamptz[], $7::text[], $8::text[])
           as item (id, position, state, entered, status, reason)`,
        [
          organizationId,
          job.id,
          items.map((item) => item.id),
          items.map((_, index) => index),
          items.map((item) => item.state),
          items.map((item) => item.stateEnteredAt),
          status,
          items.map((item, index) => (status[index] === 'skipped' ? CHANGED_SINCE_CHECKED : item.reason)),
        ],
      );
      if (!status.includes('pending')) {
        await tx.query(
          `update bulk_jobs set status = 'finished', finished_at = clock_timestamp() where id = $1`,
          [job.id],
        );
      }
      return { id: job.id };
    },
  );
}

/** What became of an item: to do, done, a second person asked, failed, skipped as changed, or blocked at first. */
export const ITEM_STATUSES = ['pending', 'done', 'asked', 'failed', 'skipped', 'blocked'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** A bulk job as its page shows it. */
export interface BulkJob {
  id: string;
  title: string;
  /** The reason of a void, or an event's message. */
  message: string | null;
  status: 'running' | 'finished';
  requestedBy: string;
  createdAt: Date;
  finishedAt: Date | null;
  counts: Record<ItemStatus, number>;
  items: {
    transactionId: string;
    investorName: string;
    status: ItemStatus;
    reason: string | null;
    updatedAt: Date;
  }[];
  nextOffset: number | null;
}

/**
 * A job of the organization (NOT_FOUND for another's), with its items' counts and a page of its items, those of
 * one `status` when given.
 */
export async function readBulkJob(
  db: Queryable,
  options: {
    organizationId: string;
    jobId: string;
    status?: ItemStatus | undefined;
    offset?: number | undefined;
  },
): Promise<BulkJob> {
  if (!isUuid(options.jobId)) throw notFound('bulk action', options.jobId);
  const [job] = await db.query<
    Omit<BulkJob, 'counts' | 'items' | 'nextOffset'> & { counts: Record<string, number> }
  >(
    `select j.id, j.title, j.message, j.status, coalesce(nullif(u.name, ''), u.email, 'Someone') as "requestedBy",
       j.created_at as "createdAt", j.finished_at as "finishedAt",
       coalesce((select json_object_agg(status, count) from (
         select i.status, count(*)::int as count from bulk_job_items i where i.job_id = j.id group by i.status
       ) by_status), '{}') as counts
     from bulk_jobs j left join users u on u.id = j.requested_by
     where j.id = $1 and j.organization_id = $2`,
    [options.jobId, options.organizationId],
  );
  if (!job) throw notFound('bulk action', options.jobId);
  if (options.status !== undefined && !ITEM_STATUSES.includes(options.status)) {
    throw new AppError('BAD_USER_INPUT', `Unknown status ${options.status}.`, { field: 'status' });
  }
  const offset = options.offset ?? 0;
  const items = await db.query<BulkJob['items'][number]>(
    `select i.transaction_id as "transactionId", coalesce(t.investor_name, t.notice_name) as "investorName",
       i.status, i.reason, i.updated_at as "updatedAt"
     from bulk_job_items i join transactions t on t.id = i.transaction_id
     where i.job_id = $1 and i.organization_id = $2 and ($3::text is null or i.status = $3)
     order by i.position limit $4 offset $5`,
    [options.jobId, options.organizationId, options.status ?? null, BULK_PAGE + 1, offset],
  );
  const counts = Object.fromEntries(
    ITEM_STATUSES.map((status) => [status, job.counts[status] ?? 0]),
  ) as Record<ItemStatus, number>;
  return {
    ...job,
    counts,
    items: items.slice(0, BULK_PAGE),
    nextOffset: items.length > BULK_PAGE ? offset + BULK_PAGE : null,
  };
}
