import type { EventType } from '../webhooks/event-types.ts';
import type { TemplateDefinition, WorkflowAction } from './templates/schema.ts';
import { allProcessesComplete, decide, isVoidEvent, type Decision, type WorkflowFacts } from './workflow.ts';

/**
 * The preview of an event: what running it would do (the transition, the mails, the webhooks, whether it
 * completes the transaction), worked out from the engine's decision without writing anything, as
 * `applyEvent` (transitions.ts) does it.
 */

/** A mail that running an event queues for the transaction's primary recipient (sent after commit). */
export interface PreviewedMail {
  /** Who gets it: the transaction's primary recipient (`noticeEmail`), of this recipient role. */
  to: 'primary_recipient';
  role: string;
  /**
   * `changes_requested`: a revision was sent back (an `openRevision` of an existing process), with the event's
   * message; `voided`: the transaction was voided, with the reason; `signed_copy`: it completed.
   */
  kind: 'changes_requested' | 'voided' | 'signed_copy';
}

/** What running an event would do, as `applyEvent` does it; nothing is written to find out. */
export interface EventPreview {
  /** The engine's decision: the transition and the actions of the state entered, or why it is refused. */
  decision: Decision;
  /** Whether the event needs a message (the reason of a void); without one it is refused (BAD_USER_INPUT). */
  messageRequired: boolean;
  /** The mails it queues (none when refused). */
  mails: PreviewedMail[];
  /** The webhook events it writes to the outbox, in order (none when refused). */
  webhooks: EventType[];
  /**
   * Whether it completes the transaction (a `transaction.completed` webhook and the signed copy's mail); null
   * when the facts cannot tell (`transactionComplete` unknown).
   */
  completes: boolean | null;
}

/**
 * Previews `eventKey` on a transaction of `definition` in `state`: the decision, and what running it will do —
 * the state entered and its actions, the mails queued for the primary recipient, the webhooks written — as
 * `applyEvent` (transitions.ts) does it. Completion is promised only when the facts make it certain.
 *
 * @example
 * previewEvent(definition, 'in_review', 'request_changes', { processes: [{ key: 'subscription', isComplete: false }] });
 * // { decision: { ok: true, target: 'changes_requested', actions: [{ openRevision: 'subscription' }], … },
 * //   messageRequired: false, mails: [{ to: 'primary_recipient', role: 'investor', kind: 'changes_requested' }],
 * //   webhooks: ['transaction.state_changed'], completes: false }
 */
export function previewEvent(
  definition: TemplateDefinition,
  state: string,
  eventKey: string,
  facts: WorkflowFacts,
): EventPreview {
  const decision = decide(definition.workflow, state, eventKey, facts);
  const messageRequired = isVoidEvent(eventKey);
  if (!decision.ok) return { decision, messageRequired, mails: [], webhooks: [], completes: false };
  const role = definition.recipientRoles.find((candidate) => candidate.primary === true)?.key ?? '';
  const mail = (kind: PreviewedMail['kind']): PreviewedMail => ({ to: 'primary_recipient', role, kind });
  const existing = new Set(facts.processes.map((process) => process.key));
  // An openRevision of an existing process sends it back (a request for changes): one mail per event.
  const sendsBack = decision.actions.some(
    (action) => 'openRevision' in action && existing.has(action.openRevision),
  );
  const completes = completesWith(decision.actions, facts, existing);
  const mails: PreviewedMail[] = [];
  const webhooks: EventType[] = ['transaction.state_changed'];
  if (messageRequired) {
    webhooks.push('transaction.voided');
    mails.push(mail('voided'));
  }
  if (sendsBack) mails.push(mail('changes_requested'));
  if (completes === true) {
    webhooks.push('transaction.completed');
    mails.push(mail('signed_copy'));
  }
  return { decision, messageRequired, mails, webhooks, completes };
}

/**
 * Whether an event whose state entered does `actions` completes the transaction: only if none of them opens a
 * process (a new revision or a new process is not complete), every existing process is complete and the
 * transaction was not complete before.
 */
function completesWith(
  actions: readonly WorkflowAction[],
  facts: WorkflowFacts,
  existing: ReadonlySet<string>,
): boolean | null {
  const opens = actions.some(
    (action) =>
      'openRevision' in action || ('createProcess' in action && !existing.has(action.createProcess)),
  );
  if (opens || facts.transactionComplete === true) return false;
  if (facts.transactionComplete === undefined) return null;
  return facts.processes.length > 0 && allProcessesComplete(facts.processes);
}
