import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Queryable } from '../../../db/database.ts';
import { notFound } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import { workflowFactsOf } from '../../completion.ts';
import { ACTOR_LABEL, IS_WORKFLOW_EVENT, namedActor } from '../../history/timeline.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import {
  decide,
  effectiveWorkflow,
  explainEvents,
  factsOnPaper,
  inWords,
  isRecipientEvent,
  isVoidEvent,
  type ExplainedEvent,
  type WorkflowFacts,
} from '../../workflow.ts';
import { mayTrigger, reviewEvents } from '../permissions.ts';
import { needsSecondPerson, pendingApprovalOf, type PendingApproval } from './approvals.ts';

/** An event of the workflow as the console's panel shows it. */
export interface PanelEvent extends ExplainedEvent {
  /** Whether the person looking may trigger it (their role; see permissions.ts). */
  mayTrigger: boolean;
  /** Whether it needs a message: the reason of a void. */
  messageRequired: boolean;
  /** Whether a person of the console only asks for it, and a second person approves (`workflow.secondPerson`). */
  needsSecondPerson: boolean;
  /**
   * Whether the person may run it on the recipient's behalf with a paper form they received: a recipient's event
   * refused now only for what the revision it submits lacks, which they may trigger, and which waits for no one.
   */
  onBehalf: boolean;
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

/** The events of a template's review (see `reviewEvents`), which its processes' submit events lead to. */
export function reviewEventsOf(definition: TemplateDefinition): Set<string> {
  const submitEvents = definition.processes.flatMap((process) =>
    process.submitEvent === undefined ? [] : [process.submitEvent],
  );
  return reviewEvents(effectiveWorkflow(definition.workflow), submitEvents);
}

/** The path a transaction took: its workflow events, oldest first, each with its actor named. */
export async function pathOf(db: Queryable, transactionId: string): Promise<PathStep[]> {
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

/** Whether a recipient's event would be allowed now if a paper form stood for what it submits. */
function allowedOnPaper(
  definition: TemplateDefinition,
  state: string,
  facts: WorkflowFacts,
  eventKey: string,
): boolean {
  return (
    isRecipientEvent(definition, eventKey) &&
    decide(definition.workflow, state, eventKey, factsOnPaper(facts, eventKey)).ok
  );
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
  const facts = await workflowFactsOf(db, { id: options.transactionId, definition });
  const review = reviewEventsOf(definition);
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
    events: explainEvents(definition.workflow, state, facts, inWords(definition.workflow)).map((event) => {
      const may = mayTrigger(options.role, event.key, review);
      const secondPerson = needsSecondPerson(definition, event.key);
      return {
        ...event,
        mayTrigger: may,
        messageRequired: isVoidEvent(event.key),
        needsSecondPerson: secondPerson,
        onBehalf:
          may && !secondPerson && !event.allowed && allowedOnPaper(definition, state, facts, event.key),
      };
    }),
    path,
    pendingApproval: await pendingApprovalOf(db, options.transactionId),
  };
}
