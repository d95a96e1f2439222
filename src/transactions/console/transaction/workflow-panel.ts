import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Database, Queryable } from '../../../db/database.ts';
import { AppError, notFound } from '../../../errors.ts';
import type { FileStore } from '../../../files/file-store.ts';
import type { Actor } from '../../actor.ts';
import { workflowFactsOf } from '../../completion.ts';
import { ACTOR_LABEL, IS_WORKFLOW_EVENT, namedActor } from '../../history/timeline.ts';
import { signAsSender, type SignatureContext } from '../../recipients/actions.ts';
import type { DocumentWorkers } from '../../documents/document-workers.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import {
  applyEvent,
  lockOwnTransaction,
  previewLockedEvent,
  type LockedTransaction,
  type Transition,
} from '../../transitions.ts';
import {
  effectiveWorkflow,
  explainEvents,
  isVoidEvent,
  type EventPreview,
  type ExplainedEvent,
} from '../../workflow.ts';
import { may, mayTrigger, reviewEvents } from '../permissions.ts';
import { askApproval, needsSecondPerson, pendingApprovalOf, type PendingApproval } from './approvals.ts';

/** An event of the workflow as the console's panel shows it. */
export interface PanelEvent extends ExplainedEvent {
  /** Whether the person looking may trigger it (their role; see permissions.ts). */
  mayTrigger: boolean;
  /** Whether it needs a message: the reason of a void. */
  messageRequired: boolean;
  /** Whether a person of the console only asks for it, and a second person approves (`workflow.secondPerson`). */
  needsSecondPerson: boolean;
}

/** One step of the path a transaction took, as its workflow events logged it. */
export interface PathStep {
  id: string;
  eventKey: string;
  from: string | null;
  to: string;
  at: Date;
  actor: { type: Actor['type']; id: string | null; label: string };
  message: string | null;
}

/** What the console draws of a transaction's workflow, for one person. */
export interface WorkflowPanel {
  state: string;
  initialState: string;
  /** The id of the latest step: an event run from the panel names it, so that a stale page is refused. */
  version: string | null;
  states: { key: string; description: string | null; final: boolean }[];
  events: PanelEvent[];
  path: PathStep[];
  /** The request for an event that waits for a second person's approval, if one does. */
  pendingApproval: PendingApproval | null;
}

/** The submit events of a template's processes: what leads to a review. */
const submitEventsOf = (definition: TemplateDefinition) =>
  definition.processes.flatMap((process) => (process.submitEvent === undefined ? [] : [process.submitEvent]));

/** The path a transaction took: its workflow events, oldest first, each with its actor named. */
async function pathOf(db: Queryable, transactionId: string): Promise<PathStep[]> {
  const rows = await db.query<
    Omit<PathStep, 'actor'> & { actorType: Actor['type']; actorId: string | null; actorLabel: string | null }
  >(
    `select e.id, e.event_key as "eventKey", e.source_state as "from", e.target_state as "to", e.created_at as at,
       e.message, e.actor_type as "actorType", e.actor_id as "actorId",
       ${ACTOR_LABEL('e')} as "actorLabel"
     from transaction_events e where e.transaction_id = $1 and ${IS_WORKFLOW_EVENT('e')}
     order by e.created_at, e.sequence`,
    [transactionId],
  );
  return rows.map(({ actorType, actorId, actorLabel, ...step }) => ({
    ...step,
    actor: namedActor({ actorType, actorId, actorLabel }),
  }));
}

/**
 * A transaction's workflow as its console panel draws it for a person of `role`: the states, every event with
 * whether it can happen now and the engine's reason when not, whether this person may trigger it, the path
 * taken so far, and the version an event run from the panel must name. NOT_FOUND for another organization's.
 */
export async function workflowPanelOf(
  db: Queryable,
  options: { organizationId: string; transactionId: string; role: ConsoleRole },
): Promise<WorkflowPanel> {
  const [transaction] = await db.query<{ state: string; definition: TemplateDefinition }>(
    `select t.state, tp.definition from transactions t join templates tp on tp.id = t.template_id
     where t.id = $1 and t.organization_id = $2`,
    [options.transactionId, options.organizationId],
  );
  if (!transaction) throw notFound('transaction');
  const { definition, state } = transaction;
  const workflow = effectiveWorkflow(definition.workflow);
  const facts = await workflowFactsOf(db, options.transactionId);
  const review = reviewEvents(workflow, submitEventsOf(definition));
  const path = await pathOf(db, options.transactionId);
  return {
    state,
    initialState: workflow.initialState,
    version: path.at(-1)?.id ?? null,
    states: workflow.states.map((each) => ({
      key: each.key,
      description: each.description ?? null,
      final: each.final === true,
    })),
    events: explainEvents(definition.workflow, state, facts).map((event) => ({
      ...event,
      mayTrigger: mayTrigger(options.role, event.key, review),
      messageRequired: isVoidEvent(event.key),
      needsSecondPerson: needsSecondPerson(definition, event.key),
    })),
    path,
    pendingApproval: await pendingApprovalOf(db, options.transactionId),
  };
}

/** Refuses a person who may not trigger `eventKey` with FORBIDDEN, saying who may. */
export function checkMayTrigger(subject: LockedTransaction, role: ConsoleRole, eventKey: string): void {
  const review = reviewEvents(
    effectiveWorkflow(subject.definition.workflow),
    submitEventsOf(subject.definition),
  );
  if (mayTrigger(role, eventKey, review)) return;
  // Who may, in words: a review's event is the reviewers' too; any other, the reviewers' are named beside it.
  const who = review.has(eventKey)
    ? `Only admins, operators and reviewers trigger ${eventKey}`
    : `Only admins and operators trigger ${eventKey}${review.size > 0 ? `; reviewers trigger ${[...review].join(', ')}` : ''}`;
  throw new AppError('FORBIDDEN', `${who}. You are a ${role}.`, { eventKey });
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
    const subject = await lockOwnTransaction(tx, {
      id: options.transactionId,
      organizationId: options.organizationId,
    });
    checkMayTrigger(subject, options.role, options.eventKey);
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
 * instead (approvals.ts), once it passes the same checks. Logged with the person and the request.
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
  },
): Promise<ConsoleEventOutcome> {
  return db.transaction(async (tx) => {
    const subject = await lockOwnTransaction(tx, {
      id: options.transactionId,
      organizationId: options.organizationId,
    });
    checkMayTrigger(subject, options.role, options.eventKey);
    await checkNotStale(tx, subject, options.version);
    const message = options.message?.trim() || undefined;
    if (needsSecondPerson(subject.definition, options.eventKey)) {
      // Refused now as running it would be: a second person approves an event that can happen.
      await previewLockedEvent(tx, subject, options.eventKey, message);
      const approval = await askApproval(tx, subject, { ...options, message });
      return { outcome: 'asked' as const, approval };
    }
    return {
      outcome: 'done' as const,
      ...(await applyEvent(tx, subject, options.eventKey, options.actor, message)),
    };
  });
}

/**
 * Signs a document of a transaction as its sender (the organization's countersignature), from the console, by
 * typed name with explicit consent; refused for a role that may not operate.
 */
export async function signInConsole(
  db: Database,
  options: {
    organizationId: string;
    transactionId: string;
    role: ConsoleRole;
    documentKey: string;
    signedName: string;
    consent: boolean;
    context: SignatureContext;
    files: FileStore;
    workers?: DocumentWorkers | undefined;
  },
) {
  const { role, ...request } = options;
  if (!may(role, 'operate')) {
    throw new AppError(
      'FORBIDDEN',
      `Only admins and operators sign for the organization. You are a ${role}.`,
    );
  }
  return db.transaction((tx) => signAsSender(tx, request));
}
