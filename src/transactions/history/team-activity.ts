import type { WorkflowDefinition } from '../templates/schema.ts';
import { inWords } from '../workflow.ts';
import type { Queryable } from '../../db/database.ts';
import { IS_WORKFLOW_EVENT } from './timeline.ts';

/** One thing a person of the organization did in the console. */
export interface TeamActivityEntry {
  id: string;
  /** `workflow` (an event), `console` (a comment, a reminder, a new link, …) or `team` (one of {@link TEAM_CHANGES}). */
  kind: 'workflow' | 'console' | 'team';
  action: string;
  at: Date;
  actor: { id: string; label: string };
  /** The transaction it was done to, named by its investor (the entity); null for the team's own changes. */
  transaction: { id: string; investorName: string } | null;
  /** The person it was done to (a change to the team); null otherwise. */
  person: { id: string; label: string } | null;
  /**
   * What else is known: a workflow event's states and their `titles`; a comment's text (`comment`) and whether
   * the investor reads it (`forInvestor`); a change to the team's roles.
   */
  details: Record<string, unknown>;
}

/**
 * The changes admins make to the team from the console, as its activity names them (`action`), each in words.
 * They are recorded as they are made, in the change's database transaction (`recordTeamChange`).
 */
export const TEAM_CHANGES = {
  /** Invited a person by mail, as a role (`details.role`); inviting again someone who has not accepted too. */
  invited: 'invited',
  /** Mailed a person who has not accepted a new invitation: the older link stopped working. */
  invitation_resent: 'sent a new invitation to',
  /** Gave a person another role (`details.from`, `details.to`). */
  role_changed: 'changed the role of',
  /** Ended a person's access: their sessions ended, and they can no longer sign in. */
  deactivated: 'deactivated',
  /** Gave a deactivated person their access back. */
  reactivated: 'reactivated',
  /** Ended every session of a person (`details.sessionsEnded`): each of their browsers signs in again. */
  sessions_ended: 'ended the sessions of',
  /**
   * Reset a person's second factors (`details.removed`: the kinds they had; `details.sessionsEnded`), by an admin
   * or the operator (`portico org users reset-factors`).
   */
  factors_reset: 'reset the two-step sign-in of',
  /** Changed who must sign in with a second factor (`details.from`, `details.to`: policies); no person. */
  factor_policy_changed: 'changed the two-step sign-in policy',
  /** Connected or changed the organization's single sign-on (`details.issuer`, `domains`, `ssoOnly`). */
  sso_configured: 'set up single sign-on',
  /** Disconnected the organization's single sign-on. */
  sso_removed: 'removed single sign-on',
  /** Joined through single sign-on: an account made at their first sign-in, as `details.role`. */
  sso_joined: 'joined through single sign-on',
} as const;
export type TeamChange = keyof typeof TEAM_CHANGES;

/**
 * Records a change an admin made to the team (`actorId`) for its activity, in the caller's transaction, so that
 * the change and its record are kept together or not at all.
 */
export async function recordTeamChange(
  tx: Queryable,
  change: {
    organizationId: string;
    /** The person changed; null for a change to the whole team (its policy). */
    userId: string | null;
    /** The admin who changed it; null for the operator of Portico (the `portico` command). */
    actorId: string | null;
    action: TeamChange;
    details?: Record<string, unknown> | undefined;
    requestId?: string | undefined;
  },
): Promise<void> {
  await tx.query(
    `insert into team_changes (organization_id, user_id, actor_id, action, details, request_id, actor_type)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      change.organizationId,
      change.userId,
      change.actorId,
      change.action,
      JSON.stringify(change.details ?? {}),
      change.requestId ?? null,
      change.actorId === null ? 'operator' : 'user',
    ],
  );
}

/** How the activity names the operator of Portico, who acts from the `portico` command (an SQL literal). */
const OPERATOR_LABEL = "'The operator of Portico'";

/** The most entries one page holds. */
export const TEAM_ACTIVITY_PAGE = 100;

/**
 * What the organization's people did in the console, newest first, a page at a time (`before`: the `at` of the
 * last entry of the page before): the workflow events they ran, what else they did to transactions (comments,
 * reminders, links, expiries), and the team's changes ({@link TEAM_CHANGES}). Narrowed to one person with
 * `userId`.
 */
export async function teamActivityOf(
  db: Queryable,
  options: { organizationId: string; userId?: string | undefined; before?: Date | undefined },
): Promise<TeamActivityEntry[]> {
  const rows = await db.query<
    Omit<TeamActivityEntry, 'actor' | 'transaction' | 'person'> & {
      actorId: string | null;
      actorLabel: string;
      transactionId: string | null;
      investorName: string | null;
      personId: string | null;
      personLabel: string | null;
      workflow: WorkflowDefinition | null;
    }
  >(
    `with entries as (
       select e.id, 'workflow' as kind, e.event_key as action, e.created_at as at, e.actor_id as "actorId",
         e.transaction_id as "transactionId", null::uuid as "personId",
         jsonb_build_object('from', e.source_state, 'to', e.target_state, 'message', e.message) as details
       from transaction_events e
       where e.organization_id = $1 and e.actor_type = 'user' and ${IS_WORKFLOW_EVENT('e')}
       union all
       select a.id, 'console', a.action, a.created_at, a.actor_id, a.transaction_id, null,
         case when a.details ? 'commentId' then a.details || coalesce((
           select jsonb_build_object('comment', c.body, 'forInvestor', c.for_investor) from review_comments c
           where c.organization_id = $1 and c.id::text = a.details ->> 'commentId'), '{}') else a.details end
       from transaction_activity a where a.organization_id = $1 and a.actor_type = 'user'
       union all
       select c.id, 'team', c.action, c.created_at, c.actor_id::text, null, c.user_id, c.details
       from team_changes c where c.organization_id = $1 and (c.actor_id is not null or c.actor_type = 'operator')
     )
     select entries.*, coalesce(nullif(actor.name, ''), actor.email, ${OPERATOR_LABEL}) as "actorLabel",
       coalesce(t.investor_name, t.notice_name) as "investorName", coalesce(nullif(person.name, ''), person.email) as "personLabel",
       case when entries.kind = 'workflow' then tp.definition -> 'workflow' end as workflow
     from entries
     left join users actor on actor.id::text = entries."actorId" and actor.organization_id = $1
     left join transactions t on t.id = entries."transactionId"
     left join templates tp on tp.id = t.template_id
     left join users person on person.id = entries."personId"
     where (actor.id is not null or (entries.kind = 'team' and entries."actorId" is null))
       and ($2::text is null or entries."actorId" = $2) and ($3::timestamptz is null or entries.at < $3)
     order by entries.at desc, entries.id
     limit ${String(TEAM_ACTIVITY_PAGE)}`,
    [options.organizationId, options.userId ?? null, options.before ?? null],
  );
  return rows.map(
    ({ actorId, actorLabel, transactionId, investorName, personId, personLabel, workflow, ...entry }) => ({
      ...entry,
      details: workflow === null ? entry.details : withTitles(entry, workflow),
      actor: { id: actorId ?? '', label: actorLabel },
      transaction: transactionId === null ? null : { id: transactionId, investorName: investorName ?? '' },
      person: personId === null ? null : { id: personId, label: personLabel ?? '' },
    }),
  );
}

/**
 * A workflow entry's details with the titles its template gives the event and the states it moved between
 * (`titles: { event, from, to }`; `from` null on creation), so that the page names them as the transaction's page
 * does.
 */
function withTitles(
  entry: Pick<TeamActivityEntry, 'action' | 'details'>,
  workflow: WorkflowDefinition,
): Record<string, unknown> {
  const names = inWords(workflow);
  const { from, to } = entry.details;
  return {
    ...entry.details,
    titles: {
      event: names.event(entry.action),
      from: typeof from === 'string' ? names.state(from) : null,
      to: typeof to === 'string' ? names.state(to) : null,
    },
  };
}
