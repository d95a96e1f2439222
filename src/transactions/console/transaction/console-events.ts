import { words } from '../../templates/key-words.ts';
import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Database, Queryable, Transaction } from '../../../db/database.ts';
import { AppError, mayNotTrigger } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import {
  applyEvent,
  lockOwnTransaction,
  previewLockedEvent,
  type LockedTransaction,
  type OnBehalf,
  type Transition,
} from '../../transitions.ts';
import type { EventPreview } from '../../workflow-preview.ts';
import { mayTrigger } from '../permissions.ts';
import { askApproval, needsSecondPerson, type PendingApproval } from './approvals.ts';
import { pathOf, reviewEventsOf } from './workflow-panel.ts';

/**
 * The workflow events a person of the console runs on a transaction from its panel: what one would do
 * (`previewConsoleEvent`), running it (`runConsoleEvent`, or asking a second person's approval), and the two
 * checks both make, which an approval makes again when it runs the event (approvals.ts).
 */

/** Refuses a person who may not trigger `eventKey` with FORBIDDEN, saying who may. */
export function checkMayTrigger(subject: LockedTransaction, role: ConsoleRole, eventKey: string): void {
  const review = reviewEventsOf(subject.definition);
  if (mayTrigger(role, eventKey, review)) return;
  throw mayNotTrigger(eventKey, role, { inReview: review.has(eventKey), events: [...review], words });
}

/**
 * Refuses with STALE_STATE, saying who moved the transaction and when, unless its latest workflow step is still
 * `version` (the one the person's page showed).
 */
export async function checkNotStale(
  tx: Queryable,
  subject: LockedTransaction,
  version: string | null,
): Promise<void> {
  const path = await pathOf(tx, subject.id);
  const latest = path.at(-1);
  if ((latest?.id ?? null) === version) return;
  const moved = latest
    ? `${latest.actor.label} moved it to ${latest.to} (${latest.eventKey}) at ${latest.at.toISOString()}`
    : 'it moved';
  throw new AppError(
    'STALE_STATE',
    `This transaction changed after your page showed it: ${moved}. Look at its new state, then choose again.`,
    {
      state: subject.state,
      movedBy: latest?.actor.label ?? null,
      movedAt: latest?.at.toISOString() ?? null,
      eventKey: latest?.eventKey ?? null,
    },
  );
}

/** The transaction of the organization, locked, once the person may trigger `eventKey` on it. */
async function lockToTrigger(
  tx: Transaction,
  options: { organizationId: string; transactionId: string; eventKey: string; role: ConsoleRole },
): Promise<LockedTransaction> {
  const subject = await lockOwnTransaction(tx, {
    id: options.transactionId,
    organizationId: options.organizationId,
  });
  checkMayTrigger(subject, options.role, options.eventKey);
  return subject;
}

/**
 * What running `eventKey` would do to a transaction now, for a person who may run it: the state it enters and
 * its actions, the mails and webhooks; refused as running it would be (INVALID_EVENT with the reason,
 * FORBIDDEN). Nothing is written.
 */
export async function previewConsoleEvent(
  db: Database,
  options: { organizationId: string; transactionId: string; eventKey: string; role: ConsoleRole },
): Promise<EventPreview> {
  return db.transaction(async (tx) => {
    const subject = await lockToTrigger(tx, options);
    // The panel asks for a void's reason once it has shown what the void does (messageRequired).
    return previewLockedEvent(tx, subject, options.eventKey, null);
  });
}

/** What running an event from the console did: ran it, or asked a second person to approve it. */
export type ConsoleEventOutcome =
  ({ outcome: 'done' } & Transition) | { outcome: 'asked'; approval: PendingApproval };

/**
 * Runs `eventKey` on a transaction from the console, against the state the person saw (`version`): refused with
 * STALE_STATE when someone moved it since, so a double click or two colleagues at once make one move; with
 * FORBIDDEN for a role that may not; as the engine refuses otherwise (INVALID_EVENT with the reason, a void
 * without its reason BAD_USER_INPUT). An event the template names in `workflow.secondPerson` is asked for
 * instead (approvals.ts), once it passes the same checks. Logged with the person and the request. With
 * `onBehalf`, a recipient's event is run on their behalf with the paper form staff received (transitions.ts);
 * never one that waits for a second person, which would leave the paper form waiting with it.
 */
export async function runConsoleEvent(
  db: Database,
  options: {
    organizationId: string;
    transactionId: string;
    eventKey: string;
    message?: string | undefined;
    version: string | null;
    role: ConsoleRole;
    actor: Actor;
    onBehalf?: OnBehalf | undefined;
  },
): Promise<ConsoleEventOutcome> {
  return db.transaction(async (tx) => {
    const subject = await lockToTrigger(tx, options);
    await checkNotStale(tx, subject, options.version);
    const message = options.message?.trim() || undefined;
    const secondPerson = needsSecondPerson(subject.definition, options.eventKey);
    if (secondPerson && options.onBehalf !== undefined) {
      throw new AppError(
        'BAD_USER_INPUT',
        `${words(options.eventKey)} waits for a second person's approval, so it cannot be run on the recipient's behalf: ask the recipient to submit, or change the template`,
        { field: 'onBehalf' },
      );
    }
    if (secondPerson) {
      // Refused now as running it would be: a second person approves an event that can happen.
      await previewLockedEvent(tx, subject, options.eventKey, message);
      const approval = await askApproval(tx, subject, { ...options, message });
      return { outcome: 'asked' as const, approval };
    }
    return {
      outcome: 'done' as const,
      ...(await applyEvent(tx, subject, options.eventKey, options.actor, message, options.onBehalf)),
    };
  });
}
