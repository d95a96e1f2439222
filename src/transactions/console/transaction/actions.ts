import type { Database, Queryable } from '../../../db/database.ts';
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

/** How long after a reminder was asked for another may be: two clicks a moment apart send one mail. */
export const REMIND_AGAIN_AFTER_MS = 60_000;

/** The actions on the recipient's link the console offers. */
export const LINK_ACTIONS = ['remind', 'resetLink', 'setLinkExpiry'] as const;
export type LinkAction = (typeof LINK_ACTIONS)[number];

/** What the link actions depend on, read in one statement. */
interface LinkFacts {
  state: string;
  definition: TemplateDefinition;
  completed: boolean;
  voided: boolean;
  hasLink: boolean;
  expiresAt: Date | null;
  /** Whether the recipient's notice holds their link sealed, so that a reminder can carry it. */
  sealed: boolean;
  remindersSent: number;
  /** Whether the recipient has something to submit (recipients/turn.ts). */
  awaits: boolean;
  /** When someone last asked for a reminder from the console, and the database's now. */
  lastRemindedAt: Date | null;
  now: Date;
}

/**
 * The select of {@link LinkFacts} over `t` (transactions), its where clause to follow; `definition` is the
 * template's column (`tp.definition`), or null where the caller reads each template once.
 */
const linkFacts = (
  definition: string,
) => `select t.id, t.state, ${definition} as definition, t.template_id as "templateId", t.completed_at is not null as completed,
       t.voided_at is not null as voided, t.transmit_token_hash is not null as "hasLink",
       t.transmit_token_expires_at as "expiresAt", coalesce(n.token_sealed is not null, false) as sealed,
       coalesce(n.reminders_sent, 0) as "remindersSent", ${AWAITS_RECIPIENT('t')} as awaits,
       (select max(a.created_at) from transaction_activity a
        where a.transaction_id = t.id and a.kind = 'console' and a.action = 'reminded') as "lastRemindedAt",
       clock_timestamp() as now
     from transactions t join templates tp on tp.id = t.template_id
     left join recipient_notices n on n.transaction_id = t.id`;
const LINK_FACTS = linkFacts('tp.definition');

/**
 * The link facts of a transaction of the organization (NOT_FOUND for another's), locked for an action when
 * `lock` is set, so that two actions at once take turns and the second sees what the first did.
 */
async function linkFactsOf(
  tx: Queryable,
  target: Omit<ActionTarget, 'actor'>,
  lock: boolean,
): Promise<LinkFacts> {
  if (lock) {
    // The lock first, the facts after it in a statement of their own: on PostgreSQL a statement sees what was
    // committed when it began, so facts read by the locking statement itself would miss what the action it
    // waited for wrote (a reminder asked for a moment ago).
    const [locked] = await tx.query(
      'select 1 from transactions where id = $1 and organization_id = $2 for update',
      [target.transactionId, target.organizationId],
    );
    if (!locked) throw notFound('transaction');
  }
  const [row] = await tx.query<LinkFacts>(`${LINK_FACTS} where t.id = $1 and t.organization_id = $2`, [
    target.transactionId,
    target.organizationId,
  ]);
  if (!row) throw notFound('transaction');
  return row;
}

/** Why a link action cannot be done now, in the words its refusal says; null when it can. */
function refusalOf(facts: LinkFacts, action: LinkAction): string | null {
  if (facts.voided || facts.completed || finalStates(facts.definition.workflow).has(facts.state)) {
    const what = facts.voided ? 'voided' : facts.completed ? 'complete' : `in ${facts.state}, a final state`;
    return `This transaction is ${what}: its recipient has nothing more to do.`;
  }
  if (action === 'setLinkExpiry' && !facts.hasLink) {
    return 'The recipient has no link: reset the link to send them a new one.';
  }
  if (action !== 'remind') return null;
  if (!facts.sealed || !facts.hasLink) {
    return 'The recipient has no link to mail: reset the link to send them a new one.';
  }
  if (!facts.awaits) return 'The recipient has nothing to submit now: a reminder would ask them for nothing.';
  const { max } = reminderSettings(facts.definition);
  if (facts.remindersSent >= max) {
    return `Every reminder the template allows (${String(max)}) has gone: reset the link to send a new invitation.`;
  }
  const since =
    facts.lastRemindedAt === null ? Infinity : facts.now.getTime() - facts.lastRemindedAt.getTime();
  if (since < REMIND_AGAIN_AFTER_MS) {
    const wait = Math.max(1, Math.ceil((REMIND_AGAIN_AFTER_MS - since) / 1000));
    return `A reminder was asked for ${String(Math.floor(since / 1000))} seconds ago: another can be asked in ${String(wait)} seconds.`;
  }
  return null;
}

/** Throws CONFLICT with the reason when the action cannot be done now. */
function checkLinkAction(facts: LinkFacts, action: LinkAction): void {
  const refusal = refusalOf(facts, action);
  if (refusal !== null) throw new AppError('CONFLICT', refusal);
}

/**
 * Whether each link action can be done now, and why not: what the page shows beside its buttons, decided by the
 * same rules the actions refuse by.
 */
export async function linkActionsOf(
  db: Queryable,
  target: Omit<ActionTarget, 'actor'>,
): Promise<Record<LinkAction, { allowed: boolean; reason: string | null }>> {
  const facts = await linkFactsOf(db, target, false);
  const availability = (action: LinkAction) => {
    const reason = refusalOf(facts, action);
    return { allowed: reason === null, reason };
  };
  return {
    remind: availability('remind'),
    resetLink: availability('resetLink'),
    setLinkExpiry: availability('setLinkExpiry'),
  };
}

/**
 * Why a reminder cannot be sent now to each of the organization's `transactionIds` (null when it can), by the
 * rules {@link remindNow} refuses by, read in one statement: a bulk reminder's preflight (console/bulk). Ids of
 * another organization are left out.
 */
export async function remindRefusals(
  db: Queryable,
  options: { organizationId: string; transactionIds: readonly string[] },
): Promise<Map<string, string | null>> {
  // Each template read once: thousands of transactions share a few definitions.
  const rows = await db.query<Omit<LinkFacts, 'definition'> & { id: string; templateId: string }>(
    `${linkFacts('null')} where t.id = any($1::uuid[]) and t.organization_id = $2`,
    [options.transactionIds, options.organizationId],
  );
  const templates = await db.query<{ id: string; definition: TemplateDefinition }>(
    'select id, definition from templates where id = any($1::uuid[])',
    [[...new Set(rows.map((row) => row.templateId))]],
  );
  const definitions = new Map(templates.map((template) => [template.id, template.definition]));
  return new Map(
    rows.flatMap((row) => {
      const definition = definitions.get(row.templateId);
      return definition === undefined ? [] : [[row.id, refusalOf({ ...row, definition }, 'remind')] as const];
    }),
  );
}

/**
 * Sends the primary recipient a reminder now (with their link), when they have something to submit, the
 * template's reminders are not used up and none was asked for in the last minute; the mail goes out after
 * commit, as every recipient mail. CONFLICT says why not otherwise. Joins the timeline as `reminded`.
 */
export function remindNow(db: Database, target: ActionTarget): Promise<{ queuedAt: Date }> {
  return db.transaction(async (tx) => {
    checkLinkAction(await linkFactsOf(tx, target, true), 'remind');
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
    checkLinkAction(await linkFactsOf(tx, target, true), 'resetLink');
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
    const transaction = await linkFactsOf(tx, target, true);
    checkLinkAction(transaction, 'setLinkExpiry');
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
