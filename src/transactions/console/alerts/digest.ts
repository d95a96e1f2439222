import type { Queryable } from '../../../db/database.ts';
import { ALERT_KINDS, type AlertKind } from './alert-kinds.ts';

/**
 * What a digest lists: what happened in one organization between two times, read from the tables that record it
 * already, so no other feature's code tells the alerts anything:
 * - `submitted` and `changes_answered`: a process's revision submitted (`committed_at`), by the investor, on
 *   paper or through the API; its first revision is a submission, a later one answers a request for changes;
 * - `completed`: a transaction's `completed_at`;
 * - `closing_finished`: a closing's `finished_at` (it created every ready row's transaction);
 * - `webhook_failing`: a webhook endpoint's `failing_since` (its attempts began to fail).
 */

/** How many events of each kind a digest lists; it counts the rest and links to the console for them. */
export const LISTED_PER_KIND = 50;

/** One event of a digest. */
export interface DigestEvent {
  kind: AlertKind;
  /** The transaction, closing or webhook endpoint it is about. */
  id: string;
  /** The investor's name, the closing's name, or the endpoint's address. */
  name: string;
  /** The template's title (a closing's too), or what became of an endpoint. */
  detail: string | null;
  at: Date;
}

/** What happened of each kind picked, in the order of {@link ALERT_KINDS}: the first events and their count. */
export type DigestContent = { kind: AlertKind; events: DigestEvent[]; total: number }[];

/**
 * The events of `kinds` in an organization after `since` up to `through` (inclusive), at most
 * {@link LISTED_PER_KIND} of each, oldest first. A transaction's several processes submitted together are one
 * event.
 */
export async function digestContent(
  db: Queryable,
  window: { organizationId: string; since: Date; through: Date; kinds: readonly AlertKind[] },
): Promise<DigestContent> {
  const rows = await db.query<DigestEvent & { total: number }>(
    `with events as (
       select case when max(r.number) = 1 then 'submitted' else 'changes_answered' end as kind,
         t.id, coalesce(t.investor_name, t.notice_name) as name, tp.name as detail, max(r.committed_at) as at
       from transaction_process_revisions r
       join transactions t on t.id = r.transaction_id and t.organization_id = r.organization_id
       join templates tp on tp.id = t.template_id
       where r.organization_id = $1 and r.committed_at > $2 and r.committed_at <= $3
       group by t.id, tp.name, r.number = 1
       union all
       select 'completed', t.id, coalesce(t.investor_name, t.notice_name), tp.name, t.completed_at
       from transactions t join templates tp on tp.id = t.template_id
       where t.organization_id = $1 and t.completed_at > $2 and t.completed_at <= $3
       union all
       select 'closing_finished', c.id, c.name, tp.name, c.finished_at
       from closings c join templates tp on tp.id = c.template_id
       where c.organization_id = $1 and c.status = 'finished' and c.finished_at > $2 and c.finished_at <= $3
       union all
       select 'webhook_failing', e.id, e.url,
         case when e.disabled_at is not null then 'turned off after failing' end, e.failing_since
       from webhook_endpoints e
       where e.organization_id = $1 and e.failing_since > $2 and e.failing_since <= $3
     ),
     picked as (
       select events.*, count(*) over (partition by kind)::int as total,
         row_number() over (partition by kind order by at, id) as n
       from events where kind = any($4::text[])
     )
     select kind, id, name, detail, at, total from picked where n <= $5 order by kind, n`,
    [window.organizationId, window.since, window.through, window.kinds, LISTED_PER_KIND],
  );
  return ALERT_KINDS.flatMap((kind) => {
    const events = rows.filter((row) => row.kind === kind);
    const [first] = events;
    if (!first) return [];
    return [
      {
        kind,
        total: first.total,
        events: events.map(({ kind: of, id, name, detail, at }) => ({ kind: of, id, name, detail, at })),
      },
    ];
  });
}
