import type { Queryable, Transaction } from '../db/database.ts';
import type { EventType } from './event-types.ts';

/** The channel a commit that wrote an outbox row notifies, and that idle webhook workers listen on. */
export const OUTBOX_CHANNEL = 'portico_outbox';

/**
 * Writes an outbox row for the webhook service, in the database transaction of the change it reports: it is
 * never lost, and never sent for a change that rolled back. `fanOutEvents` (delivery.ts) turns it into
 * deliveries later. The same statement notifies `OUTBOX_CHANNEL`, which PostgreSQL delivers at commit (never for
 * a rollback, once however many rows one transaction writes), so an idle worker wakes at once instead of at its
 * next poll.
 */
export async function writeOutbox(
  tx: Transaction,
  options: {
    transaction: { id: string; organizationId: string };
    type: EventType;
    facts: Record<string, unknown>;
    /** The request that made the change, named in the log lines of its deliveries. */
    requestId?: string | undefined;
  },
): Promise<void> {
  const { transaction } = options;
  await tx.query(
    `with event as (
       insert into outbox_events (organization_id, type, transaction_id, payload, request_id)
       values ($1, $2, $3, $4, $5)
       returning id
     )
     select pg_notify('${OUTBOX_CHANNEL}', '') from event`,
    [
      transaction.organizationId,
      options.type,
      transaction.id,
      { transactionId: transaction.id, organizationId: transaction.organizationId, ...options.facts },
      options.requestId ?? null,
    ],
  );
}

/**
 * Seconds since the oldest outbox row not yet fanned out to deliveries was written, 0 when none waits (the outbox
 * lag, for metrics): the first row of the pending index.
 */
export async function outboxLagSeconds(db: Queryable): Promise<number> {
  const [row] = await db.query<{ seconds: number }>(
    `select extract(epoch from now() - created_at)::float8 as seconds from outbox_events
     where dispatched_at is null order by sequence limit 1`,
  );
  return Math.max(row?.seconds ?? 0, 0);
}
