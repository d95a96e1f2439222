import type { Queryable } from '../../db/database.ts';
import { IS_WORKFLOW_EVENT } from './timeline.ts';

/** One thing a person of the organization did in the console. */
export interface TeamActivityEntry {
  id: string;
  /** `workflow` (an event), `console` (a comment, a reminder, a new link, …) or `team` (an invitation, a deactivation). */
  kind: 'workflow' | 'console' | 'team';
  action: string;
  at: Date;
  actor: { id: string; label: string };
  /** The transaction it was done to, and whom it is for; null for the team's own changes. */
  transaction: { id: string; noticeName: string } | null;
  /** The person it was done to (an invitation, a deactivation); null otherwise. */
  person: { id: string; label: string } | null;
  details: Record<string, unknown>;
}

/** The most entries one page holds. */
export const TEAM_ACTIVITY_PAGE = 100;

/**
 * What the organization's people did in the console, newest first, a page at a time (`before`: the `at` of the
 * last entry of the page before): the workflow events they ran, what else they did to transactions (comments,
 * reminders, links, expiries), and the team's changes (invitations, deactivations). Narrowed to one person
 * with `userId`.
 */
export async function teamActivityOf(
  db: Queryable,
  options: { organizationId: string; userId?: string | undefined; before?: Date | undefined },
): Promise<TeamActivityEntry[]> {
  const rows = await db.query<
    Omit<TeamActivityEntry, 'actor' | 'transaction' | 'person'> & {
      actorId: string;
      actorLabel: string;
      transactionId: string | null;
      noticeName: string | null;
      personId: string | null;
      personLabel: string | null;
    }
  >(
    `with entries as (
       select e.id, 'workflow' as kind, e.event_key as action, e.created_at as at, e.actor_id as "actorId",
         e.transaction_id as "transactionId", null::uuid as "personId",
         jsonb_build_object('from', e.source_state, 'to', e.target_state, 'message', e.message) as details
       from transaction_events e
       where e.organization_id = $1 and e.actor_type = 'user' and ${IS_WORKFLOW_EVENT('e')}
       union all
       select a.id, 'console', a.action, a.created_at, a.actor_id, a.transaction_id, null, a.details
       from transaction_activity a where a.organization_id = $1 and a.actor_type = 'user'
       union all
       select l.id, 'team', 'invited', l.created_at, l.created_by::text, null, l.user_id, jsonb_build_object('role', u.role)
       from user_links l join users u on u.id = l.user_id
       where u.organization_id = $1 and l.purpose = 'invitation' and l.created_by is not null
       union all
       select u.id, 'team', 'deactivated', u.deactivated_at, u.deactivated_by::text, null, u.id, '{}'::jsonb
       from users u where u.organization_id = $1 and u.deactivated_by is not null
     )
     select entries.*, coalesce(nullif(actor.name, ''), actor.email) as "actorLabel",
       t.notice_name as "noticeName", coalesce(nullif(person.name, ''), person.email) as "personLabel"
     from entries
     join users actor on actor.id::text = entries."actorId" and actor.organization_id = $1
     left join transactions t on t.id = entries."transactionId"
     left join users person on person.id = entries."personId"
     where ($2::text is null or entries."actorId" = $2) and ($3::timestamptz is null or entries.at < $3)
     order by entries.at desc, entries.id
     limit ${String(TEAM_ACTIVITY_PAGE)}`,
    [options.organizationId, options.userId ?? null, options.before ?? null],
  );
  return rows.map(({ actorId, actorLabel, transactionId, noticeName, personId, personLabel, ...entry }) => ({
    ...entry,
    actor: { id: actorId, label: actorLabel },
    transaction: transactionId === null ? null : { id: transactionId, noticeName: noticeName ?? '' },
    person: personId === null ? null : { id: personId, label: personLabel ?? '' },
  }));
}
