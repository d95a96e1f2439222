import type { Transaction } from '../db/database.ts';
import { AppError, notFound, tooLong } from '../errors.ts';
import { writeOutbox } from '../webhooks/outbox.ts';
import type { Actor } from './actor.ts';
import { refreshCompletion, workflowFactsOf } from './completion.ts';
import { queueChangesRequested } from './recipients/notices.ts';
import { applyWorkflowAction } from './revisions.ts';
import type { Subject } from './subject.ts';
import { hashTransmitToken } from './recipients/transmit-tokens.ts';
import { decide, type WorkflowFacts } from './workflow.ts';

/**
 * Transitions: moving a transaction through its workflow. A change locks the transaction's row first, so that
 * changes to one transaction apply one after the other; every transition is logged (`transaction_events`) and
 * reported (a `transaction.state_changed` outbox row) in the same database transaction.
 */

/** A transaction locked for a change, with what the change needs to know. */
export interface LockedTransaction extends Subject {
  state: string;
}

/** The longest message an event may carry to the recipient. */
const MAX_EVENT_MESSAGE_LENGTH = 2000;

/** The result of a transition: the state left (null on creation) and the state entered. */
export interface Transition {
  sourceStateKey: string | null;
  targetStateKey: string;
}

/** Logs a transition in `transaction_events` and writes its `transaction.state_changed` outbox row. */
export async function recordTransition(
  tx: Transaction,
  subject: Subject,
  change: {
    eventKey: string;
    source: string | null;
    target: string;
    actor: Actor;
    /** What the actor said with the event, shown to the recipient. */
    message?: string | undefined;
  },
): Promise<void> {
  // A transition of an existing transaction (a source state) moves its state in the same statement.
  await tx.query(
    `with moved as (
       update transactions set state = $5, updated_at = clock_timestamp(),
         state_entered_at = case when state = $5 then state_entered_at else clock_timestamp() end
       where id = $2 and $4::text is not null)
     insert into transaction_events (organization_id, transaction_id, event_key, source_state, target_state, actor_type, actor_id, message)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      subject.organizationId,
      subject.id,
      change.eventKey,
      change.source,
      change.target,
      change.actor.type,
      change.actor.id,
      change.message ?? null,
    ],
  );
  await writeOutbox(tx, {
    transaction: subject,
    type: 'transaction.state_changed',
    facts: { eventKey: change.eventKey, previousState: change.source, state: change.target },
  });
}

/**
 * Locks a transaction of an organization (by id) or of a recipient (by transmit token) for the rest of the
 * database transaction, so that changes to one transaction apply one after the other.
 */
export async function lockTransaction(
  tx: Transaction,
  by: { id: string; organizationId: string } | { transmitToken: string },
): Promise<LockedTransaction | undefined> {
  const [where, params] =
    'transmitToken' in by
      ? ['t.transmit_token_hash = $1', [hashTransmitToken(by.transmitToken)]]
      : ['t.id = $1 and t.organization_id = $2', [by.id, by.organizationId]];
  const [row] = await tx.query<LockedTransaction>(
    `select t.id, t.organization_id as "organizationId", t.state, t.sender_entity_id as "senderEntityId",
       coalesce(t.input_data, '{}'::jsonb) as "inputData", tp.definition
     from transactions t join templates tp on tp.id = t.template_id
     where ${where} for update of t`,
    params,
  );
  return row;
}

/** Locks a transaction of the organization, or answers NOT_FOUND (another organization's reads the same). */
export async function lockOwnTransaction(
  tx: Transaction,
  options: { id: string; organizationId: string },
): Promise<LockedTransaction> {
  const subject = await lockTransaction(tx, options);
  if (!subject) throw notFound('transaction', options.id, { field: 'transactionId' });
  return subject;
}

/** Stands for the facts when no guard will read them: an unguarded event allowed from the current state. */
const UNREAD_FACTS: WorkflowFacts = { allProcessesComplete: false };

/**
 * What the workflow's guards know, read only when the decision on `eventKey` can depend on it: a guarded event,
 * or a refusal whose message lists the events allowed now (some of which may be guarded).
 */
async function factsFor(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
): Promise<WorkflowFacts> {
  const event = subject.definition.workflow.events.find((candidate) => candidate.key === eventKey);
  const unguardedAndAllowed = event?.guard === undefined && event?.from.includes(subject.state) === true;
  return unguardedAndAllowed ? UNREAD_FACTS : workflowFactsOf(tx, subject.id);
}

/**
 * Whether the workflow allows `eventKey` on the locked transaction now (from its state, with its guard), as
 * {@link applyEvent} would decide.
 */
export async function eventAllowed(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
): Promise<boolean> {
  return decide(subject.definition.workflow, subject.state, eventKey, await factsFor(tx, subject, eventKey))
    .ok;
}

/**
 * Applies a workflow event to a locked transaction: the transition, its log entry and outbox row, the actions of
 * the state it enters, the recipient's mail when they send a revision back (a request for changes, with the
 * event's message), and completion. Refused (INVALID_EVENT, with the current state and the events allowed)
 * when the event is unknown, not allowed from the current state or its guard does not hold.
 */
export async function applyEvent(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
  actor: Actor,
  message?: string,
): Promise<Transition> {
  const decision = decide(
    subject.definition.workflow,
    subject.state,
    eventKey,
    await factsFor(tx, subject, eventKey),
  );
  if (!decision.ok) {
    throw new AppError('INVALID_EVENT', decision.message, {
      currentState: subject.state,
      allowedEvents: decision.allowed,
    });
  }
  subject.state = decision.target;
  await recordTransition(tx, subject, {
    eventKey,
    source: decision.source,
    target: decision.target,
    actor,
    message,
  });
  let sentBack = false;
  for (const action of decision.actions) {
    if ((await applyWorkflowAction(tx, subject, action, eventKey)).sentBack) sentBack = true;
  }
  // One mail per event, however many processes it sent back; mailed after this commits.
  if (sentBack) await queueChangesRequested(tx, { transactionId: subject.id, message });
  await refreshCompletion(tx, subject);
  return { sourceStateKey: decision.source, targetStateKey: decision.target };
}

/** `triggerTransactionEvent`: an integrator applies a workflow event to a transaction of its organization. */
export async function triggerTransactionEvent(
  tx: Transaction,
  options: {
    organizationId: string;
    actor: Actor;
    input: { transactionId: string; eventKey: string; message?: string | null };
  },
): Promise<Transition> {
  const { input } = options;
  const message = input.message?.trim() || undefined;
  if (message !== undefined && message.length > MAX_EVENT_MESSAGE_LENGTH) {
    throw tooLong('message', MAX_EVENT_MESSAGE_LENGTH, { field: 'message' });
  }
  const subject = await lockOwnTransaction(tx, {
    id: input.transactionId,
    organizationId: options.organizationId,
  });
  return applyEvent(tx, subject, input.eventKey, options.actor, message);
}
