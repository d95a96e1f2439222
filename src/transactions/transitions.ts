import type { Transaction } from '../db/database.ts';
import { AppError, notFound, tooLong } from '../errors.ts';
import { writeOutbox } from '../webhooks/outbox.ts';
import type { Actor } from './actor.ts';
import { refreshCompletion, workflowFactsOf } from './completion.ts';
import { queueChangesRequested, queueVoided } from './recipients/notice-queue.ts';
import { applyWorkflowAction } from './revisions.ts';
import type { Subject } from './subject.ts';
import { hashTransmitToken } from './recipients/transmit-tokens.ts';
import {
  decide,
  factsOnPaper,
  isRecipientEvent,
  isVoidEvent,
  type Decision,
  type WorkflowFacts,
} from './workflow.ts';
import { previewEvent, type EventPreview } from './workflow-preview.ts';

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

/** What `triggerTransactionEvent` answers: the transition made, or with `dryRun` the one it would make. */
export interface TriggeredEvent extends Transition {
  dryRun: boolean;
  /** What the event does (a dry run's answer); null when it was run. */
  preview: EventPreview | null;
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
    /** The paper form of an event run on the recipient's behalf. */
    paperFileId?: string | undefined;
  },
): Promise<void> {
  // A transition of an existing transaction (a source state) moves its state in the same statement, and keeps
  // where its request came from beside its event (0034_history_origins.sql).
  const origin = change.actor.origin;
  const moved = `moved as (
       update transactions set state = $5, updated_at = clock_timestamp(),
         state_entered_at = case when state = $5 then state_entered_at else clock_timestamp() end
       where id = $2 and $4::text is not null)`;
  const insert = `insert into transaction_events (organization_id, transaction_id, event_key, source_state, target_state, actor_type, actor_id, message, request_id, paper_file_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
  await tx.query(
    origin === undefined
      ? `with ${moved} ${insert}`
      : `with ${moved}, made as (${insert} returning id)
         insert into transaction_history_origins
           (entry_id, organization_id, transaction_id, ip_address, user_agent, identified_by)
         select id, $1, $2, $11, $12, $13 from made`,
    [
      subject.organizationId,
      subject.id,
      change.eventKey,
      change.source,
      change.target,
      change.actor.type,
      change.actor.id,
      change.message ?? null,
      change.actor.requestId ?? null,
      change.paperFileId ?? null,
      ...(origin === undefined ? [] : [origin.ipAddress, origin.userAgent, origin.identifiedBy]),
    ],
  );
  await writeOutbox(tx, {
    transaction: subject,
    type: 'transaction.state_changed',
    facts: { eventKey: change.eventKey, previousState: change.source, state: change.target },
    requestId: change.actor.requestId,
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

/** Stands for the facts when no rule will read them: an unguarded event allowed from the current state. */
const UNREAD_FACTS: WorkflowFacts = { processes: [] };

/**
 * What the workflow's rules know, read only when the decision on `eventKey` can depend on it: a guarded event,
 * a recipient's event (it submits a revision, which must lack nothing), or a refusal whose message lists the
 * events allowed now (some of which may be guarded).
 */
async function factsFor(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
): Promise<WorkflowFacts> {
  const event = subject.definition.workflow.events.find((candidate) => candidate.key === eventKey);
  const unguardedAndAllowed =
    event?.guard === undefined &&
    event?.from.includes(subject.state) === true &&
    !isRecipientEvent(subject.definition, eventKey);
  return unguardedAndAllowed ? UNREAD_FACTS : workflowFactsOf(tx, subject);
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
 * The error of a refused decision: REVISION_INCOMPLETE when it submits a revision that lacks something, else
 * INVALID_EVENT; either with its message, the current state, the events allowed and the reason.
 */
function refusedEvent(state: string, decision: Extract<Decision, { ok: false }>): AppError {
  const code = decision.refusal === 'revision_incomplete' ? 'REVISION_INCOMPLETE' : 'INVALID_EVENT';
  return new AppError(code, decision.message, {
    currentState: state,
    allowedEvents: decision.allowed,
    reason: decision.reason,
  });
}

/**
 * Submits the open latest revisions of the processes a recipient's event submits: they are committed, as when
 * the recipient submits them (the event is allowed only when they lack nothing, or by `submitRevision`, which
 * commits first), or on paper: naming the paper form that stands for them.
 */
async function commitSubmittedRevisions(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
  paperFileId: string | undefined,
): Promise<void> {
  const processes = subject.definition.processes
    .filter((process) => process.submitEvent === eventKey)
    .map((process) => process.key);
  if (processes.length === 0) return;
  await tx.query(
    `update transaction_process_revisions r set committed_at = clock_timestamp(), paper_file_id = $3
     from transaction_processes p
     where p.transaction_id = $1 and p.key = any($2::text[]) and r.transaction_process_id = p.id
       and r.committed_at is null
       and r.number = (select max(number) from transaction_process_revisions where transaction_process_id = p.id)`,
    [subject.id, processes, paperFileId ?? null],
  );
}

/** Refuses an event that needs a message (a void: the reason, which the recipient is told) without one. */
function requireMessage(eventKey: string, message: string | undefined): void {
  if (isVoidEvent(eventKey) && (message === undefined || message.trim() === '')) {
    throw new AppError(
      'BAD_USER_INPUT',
      `${eventKey} needs a message: the reason, which the recipient is told`,
      { field: 'message' },
    );
  }
}

/**
 * Records a void in the database transaction of its event: the transaction's `voided_at` and reason (which its
 * recipient link then shows instead of the portal), the `transaction.voided` outbox row, and the mail telling
 * the primary recipient (sent after commit).
 */
async function recordVoid(
  tx: Transaction,
  subject: LockedTransaction,
  change: { source: string; target: string; actor: Actor; reason: string },
): Promise<void> {
  const [voided] = await tx.query<{ voidedAt: Date }>(
    `update transactions set voided_at = clock_timestamp(), void_reason = $2, updated_at = clock_timestamp()
     where id = $1 returning voided_at as "voidedAt"`,
    [subject.id, change.reason],
  );
  await writeOutbox(tx, {
    transaction: subject,
    type: 'transaction.voided',
    facts: {
      previousState: change.source,
      state: change.target,
      reason: change.reason,
      actorType: change.actor.type.toUpperCase(),
      voidedAt: voided?.voidedAt ?? null,
    },
    requestId: change.actor.requestId,
  });
  await queueVoided(tx, { transactionId: subject.id, requestId: change.actor.requestId });
}

/** A recipient's event run by staff on the recipient's behalf: the paper form received, among the transaction's files. */
export interface OnBehalf {
  paperFormId: string;
}

/** Where a paper form is among a transaction's files (`transaction_files.vulcan_key`): it answers no item field. */
export const PAPER_FORM_KEY = 'paper_form';

/**
 * Refuses to run `eventKey` on the recipient's behalf unless it is a recipient's event (BAD_USER_INPUT) and the
 * paper form is one uploaded to this transaction (NOT_FOUND).
 */
async function checkPaperForm(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
  onBehalf: OnBehalf,
): Promise<void> {
  if (!isRecipientEvent(subject.definition, eventKey)) {
    throw new AppError(
      'BAD_USER_INPUT',
      `${eventKey} is not a recipient's event: only what a recipient submits is run on their behalf`,
      { field: 'onBehalf' },
    );
  }
  const [form] = await tx.query(
    `select 1 from transaction_files where transaction_id = $1 and file_id = $2 and vulcan_key = $3`,
    [subject.id, onBehalf.paperFormId, PAPER_FORM_KEY],
  );
  if (!form) throw notFound('paper form', onBehalf.paperFormId, { field: 'onBehalf.paperFormId' });
}

/**
 * Applies a workflow event to a locked transaction: the transition, its log entry and outbox row, the actions of
 * the state it enters, the recipient's mail when they send a revision back (a request for changes, with the
 * event's message), a void's record, webhook and mail, and completion. A recipient's event submits the revisions
 * it stands for. Refused (INVALID_EVENT, with the current state, the events allowed and the engine's reason) when
 * the event is unknown, not allowed from the current state or its guard does not hold; REVISION_INCOMPLETE when
 * it submits a revision that lacks required answers, consents, uploads or signatures, unless it is run on the
 * recipient's behalf (`onBehalf`): the paper form they signed then stands for the revision; a void without a
 * message is refused (BAD_USER_INPUT, field `message`).
 */
export async function applyEvent(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
  actor: Actor,
  message?: string,
  onBehalf?: OnBehalf,
): Promise<Transition> {
  if (onBehalf !== undefined) await checkPaperForm(tx, subject, eventKey, onBehalf);
  const facts = await factsFor(tx, subject, eventKey);
  const decision = decide(
    subject.definition.workflow,
    subject.state,
    eventKey,
    onBehalf === undefined ? facts : factsOnPaper(facts, eventKey),
  );
  if (!decision.ok) throw refusedEvent(subject.state, decision);
  requireMessage(eventKey, message);
  await commitSubmittedRevisions(tx, subject, eventKey, onBehalf?.paperFormId);
  subject.state = decision.target;
  await recordTransition(tx, subject, {
    eventKey,
    source: decision.source,
    target: decision.target,
    actor,
    message,
    paperFileId: onBehalf?.paperFormId,
  });
  if (isVoidEvent(eventKey) && message !== undefined) {
    await recordVoid(tx, subject, {
      source: decision.source,
      target: decision.target,
      actor,
      reason: message.trim(),
    });
  }
  let sentBack = false;
  for (const action of decision.actions) {
    if ((await applyWorkflowAction(tx, subject, action, eventKey)).sentBack) sentBack = true;
  }
  // One mail per event, however many processes it sent back; mailed after this commits.
  if (sentBack) {
    await queueChangesRequested(tx, { transactionId: subject.id, message, requestId: actor.requestId });
  }
  await refreshCompletion(tx, subject, actor.requestId);
  return { sourceStateKey: decision.source, targetStateKey: decision.target };
}

/**
 * Previews an event on a locked transaction without writing anything: what {@link applyEvent} would do, refused
 * exactly as it would be (INVALID_EVENT, or BAD_USER_INPUT for a void without a message). A `message` of null
 * is one not asked for yet (the console's preview, which asks for a void's reason once it has shown the effects):
 * the preview then says that one is required instead of refusing.
 */
export async function previewLockedEvent(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
  message?: string | null,
): Promise<EventPreview> {
  const preview = previewEvent(
    subject.definition,
    subject.state,
    eventKey,
    await workflowFactsOf(tx, subject),
  );
  if (!preview.decision.ok) throw refusedEvent(subject.state, preview.decision);
  if (message !== null) requireMessage(eventKey, message);
  return preview;
}

/**
 * `triggerTransactionEvent`: an integrator applies a workflow event to a transaction of its organization, or
 * with `dryRun` previews it: the transaction is locked and read, refused as the real run would be, and nothing
 * is written.
 */
export async function triggerTransactionEvent(
  tx: Transaction,
  options: {
    organizationId: string;
    actor: Actor;
    input: {
      transactionId: string;
      eventKey: string;
      message?: string | null;
      dryRun?: boolean | null;
    };
  },
): Promise<TriggeredEvent> {
  const { input } = options;
  const message = input.message?.trim() || undefined;
  if (message !== undefined && message.length > MAX_EVENT_MESSAGE_LENGTH) {
    throw tooLong('message', MAX_EVENT_MESSAGE_LENGTH, { field: 'message' });
  }
  const subject = await lockOwnTransaction(tx, {
    id: input.transactionId,
    organizationId: options.organizationId,
  });
  if (input.dryRun === true) {
    const preview = await previewLockedEvent(tx, subject, input.eventKey, message);
    const target = preview.decision.ok ? preview.decision.target : subject.state;
    return { sourceStateKey: subject.state, targetStateKey: target, dryRun: true, preview };
  }
  const transition = await applyEvent(tx, subject, input.eventKey, options.actor, message);
  return { ...transition, dryRun: false, preview: null };
}
