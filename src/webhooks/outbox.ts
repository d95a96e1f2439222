import type { Transaction } from '../db/database.ts';
import type { EventType } from './event-types.ts';

/**
 * Writes an outbox row for the webhook service, in the database transaction of the change it reports: it is
 * never lost, and never sent for a change that rolled back. `fanOutEvents` (delivery.ts) turns it into
 * deliveries later.
 */
export async function writeOutbox(
  tx: Transaction,
  options: {
    transaction: { id: string; organizationId: string };
    type: EventType;
    facts: Record<string, unknown>;
  },
): Promise<void> {
  const { transaction } = options;
  await tx.query(
    'insert into outbox_events (organization_id, type, transaction_id, payload) values ($1, $2, $3, $4)',
    [
      transaction.organizationId,
      options.type,
      transaction.id,
      { transactionId: transaction.id, organizationId: transaction.organizationId, ...options.facts },
    ],
  );
}
