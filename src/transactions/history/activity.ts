import type { Queryable } from '../../db/database.ts';
import type { Actor } from '../actor.ts';

/** Who did something to a transaction (see actor.ts). */
export type ActivityActor = Actor;

/** What kinds of activity the timeline keeps besides workflow events and webhook attempts. */
export type ActivityKind = 'recipient' | 'mail' | 'api' | 'console';

/**
 * Appends one entry to a transaction's activity (`transaction_activity`), in the caller's database transaction
 * so that it is written exactly when the change it reports is.
 *
 * @example
 * await recordActivity(tx, { organizationId, transactionId, kind: 'console', action: 'commented', actor, details: { field } });
 */
export async function recordActivity(
  db: Queryable,
  entry: {
    organizationId: string;
    transactionId: string;
    kind: ActivityKind;
    action: string;
    actor: ActivityActor;
    details?: Record<string, unknown>;
    /**
     * Recorded only when the same actor has not done the same thing to the transaction within this many
     * milliseconds (a page opened again and again is one entry, not one per reload).
     */
    onceWithinMs?: number;
  },
): Promise<void> {
  await db.query(
    `insert into transaction_activity
       (organization_id, transaction_id, kind, action, actor_type, actor_id, request_id, details)
     select $1, $2, $3, $4, $5, $6, $7, $8
     where $9::integer is null or not exists (
       select 1 from transaction_activity
       where transaction_id = $2 and action = $4 and actor_type = $5 and actor_id is not distinct from $6
         and created_at > clock_timestamp() - $9 * interval '1 millisecond')`,
    [
      entry.organizationId,
      entry.transactionId,
      entry.kind,
      entry.action,
      entry.actor.type,
      entry.actor.id,
      entry.actor.requestId ?? null,
      JSON.stringify(entry.details ?? {}),
      entry.onceWithinMs ?? null,
    ],
  );
}

/**
 * Appends the same entry to many transactions' activity in one statement (a bulk reminder's batch), in the
 * caller's database transaction: one row per transaction, as {@link recordActivity} writes it for one.
 */
export async function recordActivities(
  db: Queryable,
  entries: readonly {
    organizationId: string;
    transactionId: string;
    kind: ActivityKind;
    action: string;
    actor: ActivityActor;
    details?: Record<string, unknown>;
  }[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `insert into transaction_activity
       (organization_id, transaction_id, kind, action, actor_type, actor_id, request_id, details)
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
       $8::jsonb[])`,
    [
      entries.map((entry) => entry.organizationId),
      entries.map((entry) => entry.transactionId),
      entries.map((entry) => entry.kind),
      entries.map((entry) => entry.action),
      entries.map((entry) => entry.actor.type),
      entries.map((entry) => entry.actor.id),
      entries.map((entry) => entry.actor.requestId ?? null),
      entries.map((entry) => JSON.stringify(entry.details ?? {})),
    ],
  );
}

/** What a recipient did through their link, for the transaction's activity. */
export interface RecipientAct {
  action: 'opened' | 'saved' | 'uploaded' | 'signed' | 'submitted';
  requestId: string;
  details?: Record<string, unknown>;
  /** See `recordActivity`. */
  onceWithinMs?: number;
}

/**
 * Records what the transaction's primary recipient (the one its link opens for) did through their link, in the
 * database transaction of the act.
 */
export async function recordRecipientAct(
  db: Queryable,
  transaction: { id: string; organizationId: string },
  act: RecipientAct,
): Promise<void> {
  const [primary] = await db.query<{ id: string }>(
    'select id from transaction_recipients where transaction_id = $1 order by created_at, sequence limit 1',
    [transaction.id],
  );
  await recordActivity(db, {
    organizationId: transaction.organizationId,
    transactionId: transaction.id,
    kind: 'recipient',
    action: act.action,
    actor: { type: 'recipient', id: primary?.id ?? null, requestId: act.requestId },
    details: act.details,
    onceWithinMs: act.onceWithinMs,
  });
}
