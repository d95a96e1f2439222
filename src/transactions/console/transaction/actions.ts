import type { Database, Transaction } from '../../../db/database.ts';
import { AppError, notFound } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import { signAsSender, type Countersignature } from '../../documents/countersign.ts';
import { recordActivity } from '../../history/activity.ts';
import type { SignatureResult } from '../../recipients/actions.ts';
import { reminderSettings } from '../../recipients/notice-sender.ts';
import { resetTransmitToken } from '../../recipients/transmit-tokens.ts';
import { AWAITS_RECIPIENT } from '../../recipients/turn.ts';
import { resendDeliveries } from '../../../webhooks/endpoints.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { finalStates } from '../../workflow.ts';

/** The latest a recipient's link may be made to work until, from now. */
export const MAX_LINK_DAYS = 365;
const DAY_MS = 24 * 3600 * 1000;

interface ActionTarget {
  organizationId: string;
  transactionId: string;
  actor: Actor;
}

/** A transaction of the organization, locked for the action, with what the actions need to know of it. */
async function lockForAction(tx: Transaction, target: ActionTarget) {
  const [row] = await tx.query<{
    state: string;
    definition: TemplateDefinition;
    completed: boolean;
    voided: boolean;
    hasLink: boolean;
    expiresAt: Date | null;
  }>(
    `select t.state, tp.definition, t.completed_at is not null as completed, t.voided_at is not null as voided,
       t.transmit_token_hash is not null as "hasLink", t.transmit_token_expires_at as "expiresAt"
     from transactions t join templates tp on tp.id = t.template_id
     where t.id = $1 and t.organization_id = $2 for update of t`,
    [target.transactionId, target.organizationId],
  );
  if (!row) throw notFound('transaction');
  if (row.voided || row.completed || finalStates(row.definition.workflow).has(row.state)) {
    throw new AppError(
      'CONFLICT',
      `This transaction is ${row.voided ? 'voided' : row.completed ? 'complete' : `in ${row.state}, a final state`}: its recipient has nothing more to do.`,
    );
  }
  return row;
}

/**
 * Sends the primary recipient a reminder now (with their link), when they have something to submit and the
 * template's reminders are not used up; the mail goes out after commit, as every recipient mail. CONFLICT says
 * why not otherwise. Joins the timeline as `reminded`.
 */
export function remindNow(db: Database, target: ActionTarget): Promise<{ queuedAt: Date }> {
  return db.transaction(async (tx) => {
    const transaction = await lockForAction(tx, target);
    const [notice] = await tx.query<{ sealed: boolean; remindersSent: number; awaits: boolean }>(
      `select n.token_sealed is not null as sealed, n.reminders_sent as "remindersSent",
         ${AWAITS_RECIPIENT('t')} as awaits
       from recipient_notices n join transactions t on t.id = n.transaction_id where n.transaction_id = $1`,
      [target.transactionId],
    );
    if (!notice?.sealed || !transaction.hasLink) {
      throw new AppError(
        'CONFLICT',
        'The recipient has no link to mail: reset the link to send them a new one.',
      );
    }
    if (!notice.awaits) {
      throw new AppError(
        'CONFLICT',
        'The recipient has nothing to submit now: a reminder would ask them for nothing.',
      );
    }
    const { max } = reminderSettings(transaction.definition);
    if (notice.remindersSent >= max) {
      throw new AppError(
        'CONFLICT',
        `Every reminder the template allows (${String(max)}) has gone: reset the link to send a new invitation.`,
      );
    }
    const [queued] = await tx.query<{ queuedAt: Date }>(
      `update recipient_notices set next_reminder_at = clock_timestamp(), updated_at = clock_timestamp()
       where transaction_id = $1 returning next_reminder_at as "queuedAt"`,
      [target.transactionId],
    );
    await recordActivity(tx, { ...target, kind: 'console', action: 'reminded', actor: target.actor });
    return { queuedAt: queued?.queuedAt ?? new Date() };
  });
}

/**
 * Replaces the recipient's link: the old one stops working at once (it then says it was replaced) and the new
 * one goes to the recipient by mail, as the first did. Joins the timeline as `link_reset`.
 */
export function resetLink(db: Database, target: ActionTarget): Promise<{ expiresAt: Date }> {
  return db.transaction(async (tx) => {
    await lockForAction(tx, target);
    await resetTransmitToken(tx, {
      organizationId: target.organizationId,
      transactionId: target.transactionId,
      requestId: target.actor.requestId,
    });
    const [row] = await tx.query<{ expiresAt: Date }>(
      'select transmit_token_expires_at as "expiresAt" from transactions where id = $1',
      [target.transactionId],
    );
    await recordActivity(tx, { ...target, kind: 'console', action: 'link_reset', actor: target.actor });
    return { expiresAt: row?.expiresAt ?? new Date() };
  });
}

/**
 * Sets until when the recipient's link works: a time to come, within {@link MAX_LINK_DAYS} days (BAD_USER_INPUT
 * naming `expiresAt` otherwise). Joins the timeline as `expiry_set`, with the time before and after.
 */
export function setLinkExpiry(
  db: Database,
  target: ActionTarget & { expiresAt: Date },
): Promise<{ expiresAt: Date }> {
  const now = Date.now();
  if (Number.isNaN(target.expiresAt.getTime()) || target.expiresAt.getTime() <= now) {
    throw new AppError('BAD_USER_INPUT', 'Choose a time to come for the link to stop working.', {
      field: 'expiresAt',
    });
  }
  if (target.expiresAt.getTime() > now + MAX_LINK_DAYS * DAY_MS) {
    throw new AppError('BAD_USER_INPUT', `A link works for at most ${String(MAX_LINK_DAYS)} days from now.`, {
      field: 'expiresAt',
    });
  }
  return db.transaction(async (tx) => {
    const transaction = await lockForAction(tx, target);
    if (!transaction.hasLink) {
      throw new AppError('CONFLICT', 'The recipient has no link: reset the link to send them a new one.');
    }
    await tx.query(
      'update transactions set transmit_token_expires_at = $2, updated_at = clock_timestamp() where id = $1',
      [target.transactionId, target.expiresAt],
    );
    await recordActivity(tx, {
      ...target,
      kind: 'console',
      action: 'expiry_set',
      actor: target.actor,
      details: { from: transaction.expiresAt, to: target.expiresAt },
    });
    return { expiresAt: target.expiresAt };
  });
}

/**
 * Sends a webhook delivery about one of the organization's transactions again (its attempts start over, as
 * `portico webhooks resend` does), and records who asked in that transaction's timeline (`webhook_resent`).
 * NOT_FOUND for a delivery of another organization.
 */
export function resendWebhook(
  db: Database,
  options: { organizationId: string; deliveryId: string; actor: Actor },
): Promise<void> {
  return db.transaction(async (tx) => {
    const [delivery] = await tx.query<{ transactionId: string; endpointId: string; eventType: string }>(
      `select o.transaction_id as "transactionId", d.endpoint_id as "endpointId", d.event_type as "eventType"
       from webhook_deliveries d join outbox_events o on o.id = d.event_id
       where d.id = $1 and d.organization_id = $2 for update of d`,
      [options.deliveryId, options.organizationId],
    );
    if (!delivery) throw notFound('webhook delivery');
    await resendDeliveries(tx, { organizationId: options.organizationId, deliveryId: options.deliveryId });
    await recordActivity(tx, {
      organizationId: options.organizationId,
      transactionId: delivery.transactionId,
      kind: 'console',
      action: 'webhook_resent',
      actor: options.actor,
      details: {
        deliveryId: options.deliveryId,
        endpointId: delivery.endpointId,
        eventType: delivery.eventType,
      },
    });
  });
}

/**
 * Signs a document of a transaction as its sender (the organization's countersignature, documents/countersign.ts),
 * from the console, by typed name with explicit consent (its route lets only those who operate call it).
 */
export async function signInConsole(db: Database, options: Countersignature): Promise<SignatureResult> {
  return db.transaction((tx) => signAsSender(tx, options));
}
