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
  },
): Promise<void> {
  await db.query(
    `insert into transaction_activity
       (organization_id, transaction_id, kind, action, actor_type, actor_id, request_id, details)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      entry.organizationId,
      entry.transactionId,
      entry.kind,
      entry.action,
      entry.actor.type,
      entry.actor.id,
      entry.actor.requestId ?? null,
      JSON.stringify(entry.details ?? {}),
    ],
  );
}
