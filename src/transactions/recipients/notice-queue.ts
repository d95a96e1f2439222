import type { Queryable, Transaction } from '../../db/database.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { seal } from '../../keys/sealed-box.ts';

/**
 * The queue of a transaction's primary recipient's mail (the person at `noticeEmail`): one `recipient_notices` row
 * per transaction, with when each message is due. An invitation with their link when the transaction is created
 * and whenever its transmit token is reset (saying the old link stopped working), then reminders on the
 * template's schedule while they have something to submit; a mail with the sponsor's message when a revision is
 * sent back to them (a request for changes), one with the link to their signed copy when the transaction
 * completes, and one with the organization's reason when it is voided (the last message: nothing else goes after
 * it).
 *
 * Nothing is lost: `queueInvitation`, `queueChangesRequested`, `queueSignedCopy` and `queueVoided` write the due
 * message in the database transaction of its cause, which has locked the transaction's row first (see
 * transitions.ts); each queued message joins the transaction's activity. The sender (notice-sender.ts) mails them
 * after that committed.
 */

/** The instance secret the recipient's token is sealed under while mail may still repeat it. */
export const NOTICE_TOKEN_SECRET = 'recipient_links';

/** The messages a transaction's primary recipient gets. */
export type MessageKind = 'invitation' | 'changes_requested' | 'signed_copy' | 'voided' | 'reminder';

/** The column of `recipient_notices` that holds when each message is due. */
export const DUE_COLUMN = {
  invitation: 'invitation_due_at',
  changes_requested: 'changes_due_at',
  signed_copy: 'signed_copy_due_at',
  voided: 'voided_due_at',
  reminder: 'next_reminder_at',
} as const satisfies Record<MessageKind, string>;

/**
 * Queues the invitation of a transaction's primary recipient, in the caller's database transaction: due at once,
 * with the token sealed (for the mail that repeats the link) and the reminders started over. Called when a
 * transaction is created and, with `linkReplaced`, when its transmit token is reset.
 */
export async function queueInvitation(
  tx: Transaction,
  options: {
    organizationId: string;
    transactionId: string;
    transmitToken: string;
    linkReplaced?: boolean;
    /** The request that queues it (as for each queue below): sending it logs it with the transaction id. */
    requestId?: string | undefined;
  },
): Promise<void> {
  const sealed = seal(options.transmitToken, await loadInstanceSecret(tx, NOTICE_TOKEN_SECRET));
  // A request for changes or a signed copy still due goes too, with the new link (read when it is sent).
  await tx.query(
    `with queued as (
       insert into recipient_notices
         (transaction_id, organization_id, token_sealed, invitation_due_at, link_replaced, request_id)
       values ($1, $2, $3, clock_timestamp(), $4, $5)
       on conflict (transaction_id) do update set token_sealed = excluded.token_sealed,
         request_id = excluded.request_id,
         invitation_due_at = excluded.invitation_due_at, link_replaced = excluded.link_replaced,
         next_reminder_at = null, reminders_sent = 0, failures = 0, last_failure = null,
         updated_at = clock_timestamp()
       returning transaction_id, organization_id)
     insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
     select organization_id, transaction_id, 'mail', 'queued', 'system', jsonb_build_object('message', 'invitation')
     from queued`,
    [
      options.transactionId,
      options.organizationId,
      sealed,
      options.linkReplaced ?? false,
      options.requestId ?? null,
    ],
  );
}

/**
 * Queues the mail of a request for changes (an event that sent a revision back to the recipient), in the
 * database transaction of that event: due at once, with what the sponsor said. A second request before the first
 * went replaces it: one mail, with the latest message. Nothing is queued when no link can be sent any more.
 */
export async function queueChangesRequested(
  tx: Transaction,
  options: { transactionId: string; message: string | undefined; requestId?: string | undefined },
): Promise<void> {
  await tx.query(
    `with queued as (
       update recipient_notices set changes_due_at = clock_timestamp(), changes_message = $2,
         request_id = $3, updated_at = clock_timestamp()
       where transaction_id = $1 and token_sealed is not null returning transaction_id, organization_id)
     insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
     select organization_id, transaction_id, 'mail', 'queued', 'system', jsonb_build_object('message', 'changes_requested')
     from queued`,
    [options.transactionId, options.message ?? null, options.requestId ?? null],
  );
}

/**
 * Queues the mail with the link to the recipient's signed copy, in the database transaction that completed the
 * transaction: due at once. The sealed token stays until it went.
 */
export async function queueSignedCopy(
  tx: Transaction,
  options: { transactionId: string; requestId?: string | undefined },
): Promise<void> {
  await tx.query(
    `with queued as (
       update recipient_notices set signed_copy_due_at = clock_timestamp(), request_id = $2,
         updated_at = clock_timestamp()
       where transaction_id = $1 and token_sealed is not null returning transaction_id, organization_id)
     insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
     select organization_id, transaction_id, 'mail', 'queued', 'system', jsonb_build_object('message', 'signed_copy')
     from queued`,
    [options.transactionId, options.requestId ?? null],
  );
}

/**
 * Queues the mail telling the recipient their transaction was voided, in the database transaction of the void:
 * due at once, with the reason read from the transaction when it is sent. Nothing else is due after it (no
 * invitation, reminder or request for changes: the link shows the void); a signed copy still due goes too.
 * Nothing is queued when no link can be sent any more.
 */
export async function queueVoided(
  tx: Transaction,
  options: { transactionId: string; requestId?: string | undefined },
): Promise<void> {
  await tx.query(
    `with queued as (
       update recipient_notices set voided_due_at = clock_timestamp(), request_id = $2, invitation_due_at = null,
         changes_due_at = null, changes_message = null, next_reminder_at = null, updated_at = clock_timestamp()
       where transaction_id = $1 and token_sealed is not null returning transaction_id, organization_id)
     insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
     select organization_id, transaction_id, 'mail', 'queued', 'system', jsonb_build_object('message', 'voided')
     from queued`,
    [options.transactionId, options.requestId ?? null],
  );
}

/**
 * How many recipient mails are due and not yet sent (the mail queue, for metrics): the rows the sender
 * (notice-sender.ts) would claim now, counted through the partial indexes of their due columns. A claimed row counts again once
 * its claim runs out unsent.
 */
export async function countDueNotices(db: Queryable): Promise<number> {
  const [row] = await db.query<{ due: string }>(
    `select count(*) as due from recipient_notices
     where token_sealed is not null and (invitation_due_at <= now() or changes_due_at <= now()
       or signed_copy_due_at <= now() or voided_due_at <= now() or next_reminder_at <= now())`,
  );
  return Number(row?.due ?? 0);
}
