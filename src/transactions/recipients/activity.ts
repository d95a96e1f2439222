import type { Queryable } from '../../db/database.ts';
import type { TemplateDefinition } from '../templates/schema.ts';

/**
 * What counts as the primary recipient doing something, for the console's "stalled" (console/queue/queue.ts): saving
 * an item through their link (an upload saves its item too), signing a document as the primary recipient, and
 * submitting a revision. Opening the link, previews and mail do not count; nor do the sender's signatures.
 * `saveItem` sets `transactions.recipient_active_at` in the statement that touches the transaction already;
 * signing and submitting call {@link recordRecipientActivity}.
 */

/** Notes that the primary recipient of a transaction acted now (`transactions.recipient_active_at`). */
export async function recordRecipientActivity(tx: Queryable, transactionId: string): Promise<void> {
  await tx.query('update transactions set recipient_active_at = clock_timestamp() where id = $1', [
    transactionId,
  ]);
}

/** Whether `role` is the template's primary recipient role: the one whose link opens the transaction. */
export function isPrimaryRole(definition: Pick<TemplateDefinition, 'recipientRoles'>, role: string): boolean {
  return definition.recipientRoles.some((candidate) => candidate.primary === true && candidate.key === role);
}
