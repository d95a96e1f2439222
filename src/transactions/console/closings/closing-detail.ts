import type { Queryable } from '../../../db/database.ts';
import { notFound } from '../../../errors.ts';
import { AWAITS_RECIPIENT } from '../../recipients/turn.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { inWords } from '../../workflow.ts';
import { DEFAULT_STALLED_AFTER_DAYS } from '../queue/queue-query.ts';
import type { ColumnRole, RowProblem } from './preflight.ts';

/** Where a closing stands, and what became of each row of its list (closings.ts). */
export type ClosingStatus = 'draft' | 'running' | 'finished' | 'stopped';
export type RowStatus = 'ready' | 'problem' | 'dropped' | 'created' | 'failed';

/** A closing's row as its page shows it. */
export interface ClosingRow {
  id: string;
  row: number;
  cells: Record<string, string>;
  investor: { name: string; email: string; entityType: string };
  status: RowStatus;
  problems: RowProblem[];
  transactionId: string | null;
  failure: string | null;
}

/** A closing as its page shows it: its settings, where it stands, its counts and its rows. */
export interface ClosingDetail {
  id: string;
  name: string;
  status: ClosingStatus;
  stopReason: string | null;
  /** Its template; `archived` while an admin has archived it, so that it starts no new transaction. */
  template: { id: string; name: string; version: number; archived: boolean };
  sender: { id: string; name: string };
  linkValidDays: number | null;
  note: string | null;
  columns: { name: string; role: ColumnRole | null }[];
  columnProblems: string[];
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Rows by status: how far a run is. */
  rowCounts: Record<RowStatus, number>;
  /** Its transactions by state, each with its title in the template's workflow. */
  states: { state: string; title: string; count: number }[];
  /** The money committed per currency, from the template's `commitment` answer (minor units). */
  committed: { currency: string; amount: number }[];
  /** Transactions whose investor has not opened their link yet. */
  notOpened: number;
  /** Transactions stalled as the queue says it: the investor's turn, and nothing done for a week. */
  stalled: number;
  /**
   * A draft's rows, each being checked and fixed; once run, only those not created (with why): the others are its
   * transactions, which the work queue lists. Read again every few seconds while it runs, so kept small.
   */
  rows: ClosingRow[];
}

/** A closing of the organization, or NOT_FOUND. */
async function closingRow(db: Queryable, organizationId: string, closingId: string) {
  const [closing] = await db.query<{
    id: string;
    name: string;
    status: ClosingStatus;
    stopReason: string | null;
    templateId: string;
    templateName: string;
    templateVersion: number;
    templateArchived: boolean;
    definition: TemplateDefinition;
    senderId: string;
    senderName: string;
    linkValidDays: number | null;
    note: string | null;
    columns: { name: string; role: ColumnRole | null }[];
    columnProblems: string[];
    createdAt: Date;
    startedAt: Date | null;
    finishedAt: Date | null;
  }>(
    `select c.id, c.name, c.status, c.stop_reason as "stopReason", t.id as "templateId", t.name as "templateName",
       t.version as "templateVersion",
       exists (select 1 from template_archives a where a.organization_id = t.organization_id and a.key = t.key)
         as "templateArchived",
       t.definition, s.id as "senderId", s.name as "senderName",
       c.link_valid_days as "linkValidDays", c.invitation_note as note, c.columns,
       c.column_problems as "columnProblems", c.created_at as "createdAt", c.started_at as "startedAt",
       c.finished_at as "finishedAt"
     from closings c join templates t on t.id = c.template_id join entities s on s.id = c.sender_entity_id
     where c.id = $1 and c.organization_id = $2`,
    [closingId, organizationId],
  );
  if (closing === undefined) throw notFound('closing', closingId);
  return closing;
}

/** A closing with its counts and rows (NOT_FOUND when it is not the organization's). */
export async function closingDetail(
  db: Queryable,
  options: { organizationId: string; closingId: string },
): Promise<ClosingDetail> {
  const { organizationId, closingId } = options;
  const closing = await closingRow(db, organizationId, closingId);
  const [vulcanKey, field] = (closing.definition.commitment ?? '').split('.');
  const [rows, counted, states, committed, progress] = await Promise.all([
    closingRows(db, {
      organizationId,
      closingId,
      ...(closing.status === 'draft' ? {} : { status: 'failed' as const }),
    }),
    db.query<{ status: RowStatus; count: number }>(
      `select status, count(*)::int as count from closing_rows
       where closing_id = $1 and organization_id = $2 group by status`,
      [closingId, organizationId],
    ),
    db.query<{ state: string; count: number }>(
      `select state, count(*)::int as count from transactions
       where closing_id = $1 and organization_id = $2 group by state order by state`,
      [closingId, organizationId],
    ),
    vulcanKey === undefined || field === undefined
      ? Promise.resolve([])
      : db.query<{ currency: string; amount: string }>(
          // Each transaction's latest answer of the commitment: its newest revision's item.
          `select answer ->> 'currency' as currency, sum((answer ->> 'amount')::bigint)::text as amount
           from (
             select distinct on (i.transaction_id) i.data -> $4::text as answer
             from transaction_items i
             join transaction_process_revisions r on r.id = i.transaction_process_revision_id
             join transactions t on t.id = i.transaction_id
             where t.closing_id = $1 and t.organization_id = $2 and i.vulcan_key = $3
             order by i.transaction_id, r.created_at desc, r.sequence desc
           ) latest
           where jsonb_typeof(answer) = 'object' and answer ? 'amount'
           group by 1 order by 1`,
          [closingId, organizationId, vulcanKey, field],
        ),
    db.query<{ notOpened: number; stalled: number }>(
      `select count(*) filter (where not exists (
           select 1 from transaction_activity a
           where a.transaction_id = t.id and a.action = 'opened' and a.actor_type = 'recipient'))::int as "notOpened",
         count(*) filter (where t.completed_at is null and t.voided_at is null and ${AWAITS_RECIPIENT('t')}
           and greatest(t.state_entered_at, coalesce(t.recipient_active_at, t.state_entered_at))
               < now() - make_interval(days => $3))::int as stalled
       from transactions t where t.closing_id = $1 and t.organization_id = $2`,
      [closingId, organizationId, DEFAULT_STALLED_AFTER_DAYS],
    ),
  ]);
  const rowCounts: Record<RowStatus, number> = { ready: 0, problem: 0, dropped: 0, created: 0, failed: 0 };
  for (const { status, count } of counted) rowCounts[status] = count;
  return {
    id: closing.id,
    name: closing.name,
    status: closing.status,
    stopReason: closing.stopReason,
    template: {
      id: closing.templateId,
      name: closing.templateName,
      version: closing.templateVersion,
      archived: closing.templateArchived,
    },
    sender: { id: closing.senderId, name: closing.senderName },
    linkValidDays: closing.linkValidDays,
    note: closing.note,
    columns: closing.columns,
    columnProblems: closing.columnProblems,
    createdAt: closing.createdAt,
    startedAt: closing.startedAt,
    finishedAt: closing.finishedAt,
    rowCounts,
    states: states.map((each) => ({
      ...each,
      title: inWords(closing.definition.workflow).state(each.state),
    })),
    committed: committed.map((sum) => ({ currency: sum.currency, amount: Number(sum.amount) })),
    notOpened: progress[0]?.notOpened ?? 0,
    stalled: progress[0]?.stalled ?? 0,
    rows,
  };
}

/** A closing's rows in list order: all of them, those of `ids`, or those of a `status`. */
export async function closingRows(
  db: Queryable,
  options: { organizationId: string; closingId: string; ids?: readonly string[]; status?: RowStatus },
): Promise<ClosingRow[]> {
  const rows = await db.query<
    Omit<ClosingRow, 'investor'> & { entityType: string; name: string; email: string }
  >(
    `select id, row_number as row, cells, investor_name as name, investor_email as email,
       entity_type as "entityType", status, problems, transaction_id as "transactionId", failure
     from closing_rows where closing_id = $1 and organization_id = $2 and ($3::uuid[] is null or id = any($3::uuid[]))
       and ($4::text is null or status = $4)
     order by row_number`,
    [options.closingId, options.organizationId, options.ids ?? null, options.status ?? null],
  );
  return rows.map(({ name, email, entityType, ...row }) => ({
    ...row,
    investor: { name, email, entityType },
  }));
}

/** The organization's closings, newest first, with how far each is. */
export async function listClosings(db: Queryable, organizationId: string) {
  return db.query<{
    id: string;
    name: string;
    status: ClosingStatus;
    templateName: string;
    createdAt: Date;
    rows: number;
    created: number;
  }>(
    `select c.id, c.name, c.status, t.name as "templateName", c.created_at as "createdAt",
       (select count(*)::int from closing_rows r where r.closing_id = c.id and r.status <> 'dropped') as rows,
       (select count(*)::int from closing_rows r where r.closing_id = c.id and r.status = 'created') as created
     from closings c join templates t on t.id = c.template_id
     where c.organization_id = $1
     order by c.created_at desc, c.sequence desc
     limit 200`,
    [organizationId],
  );
}
