import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Queryable } from '../../../db/database.ts';
import { AppError, mayNotTrigger, notFound } from '../../../errors.ts';
import { isUuid } from '../../../validation/uuid.ts';
import { workflowFactsOf } from '../../completion.ts';
import { words } from '../../templates/key-words.ts';
import { effectiveWorkflow, explainEvents, inWords, isVoidEvent } from '../../workflow.ts';
import { mayTrigger } from '../permissions.ts';
import { remindRefusals } from '../transaction/actions.ts';
import { needsSecondPerson } from '../transaction/approvals.ts';
import { reviewEventsOf } from '../transaction/workflow-panel.ts';
import type { Selected, SelectedTemplate } from './selection.ts';

/**
 * Which selected transactions a bulk action can be done to now, and why not the others, by the rules the
 * single actions refuse by: a reminder's (`remindRefusals`, transaction/actions.ts), the workflow engine's for an
 * event (`explainEvents`, with the states and events in the template's words) and who may trigger it
 * (`mayTrigger`), and for an assignment whether the transaction is the person's already. Nothing is written.
 */

/** One action on many transactions: a reminder, a workflow event (a void with its reason), an assignment. */
export type BulkAction =
  | { kind: 'remind' }
  | { kind: 'event'; eventKey: string; message?: string | undefined }
  | { kind: 'assign'; userId: string };

/** A selected transaction as the preflight found it. */
export interface CheckedItem {
  id: string;
  investorName: string;
  templateName: string;
  state: string;
  /** The state as its template titles it. */
  stateTitle: string;
  stateEnteredAt: Date;
  /** Why the action cannot be done to it now, in words; null when it can. */
  reason: string | null;
  /** Whether a second person is asked to approve the event rather than it running (`workflow.secondPerson`). */
  asks: boolean;
}

/** The person an assignment is to: one of the organization's active people (NOT_FOUND otherwise). */
export async function assigneeOf(
  db: Queryable,
  options: { organizationId: string; userId: string },
): Promise<{ id: string; name: string }> {
  if (!isUuid(options.userId)) throw notFound('user', options.userId, { field: 'userId' });
  const [person] = await db.query<{ id: string; name: string }>(
    `select id, coalesce(nullif(name, ''), email) as name from users
     where id = $1 and organization_id = $2 and password_hash is not null and deactivated_at is null`,
    [options.userId, options.organizationId],
  );
  if (!person) throw notFound('user', options.userId, { field: 'userId' });
  return person;
}

/** The action's name as the page says it: "Remind", the event in the template's words, "Assign to Morgan". */
export function titleOf(
  action: BulkAction,
  templates: Iterable<SelectedTemplate>,
  assignee: { name: string } | null,
): string {
  if (action.kind === 'remind') return 'Remind';
  if (action.kind === 'assign') return `Assign to ${assignee?.name ?? 'a person'}`;
  for (const template of templates) {
    if (
      effectiveWorkflow(template.definition.workflow).events.some((event) => event.key === action.eventKey)
    ) {
      return inWords(template.definition.workflow).event(action.eventKey);
    }
  }
  return words(action.eventKey);
}

/** BAD_USER_INPUT for a void without its reason: the recipient is told it by mail. */
export function checkRunnable(action: BulkAction): void {
  if (action.kind === 'event' && isVoidEvent(action.eventKey) && !action.message?.trim()) {
    throw new AppError('BAD_USER_INPUT', 'A void needs its reason: the recipients are told it by mail.', {
      field: 'message',
    });
  }
}

/** Each selected transaction with whether `action` can be done to it now by a person of `role`, and why not. */
export async function checkEligibility(
  db: Queryable,
  options: {
    organizationId: string;
    role: ConsoleRole;
    action: BulkAction;
    selected: readonly Selected[];
    templates: ReadonlyMap<string, SelectedTemplate>;
  },
): Promise<CheckedItem[]> {
  const { action, selected, templates } = options;
  const remind =
    action.kind === 'remind'
      ? await remindRefusals(db, {
          organizationId: options.organizationId,
          transactionIds: selected.map((row) => row.id),
        })
      : undefined;
  const waiting =
    action.kind === 'event'
      ? await waitingApprovals(db, {
          organizationId: options.organizationId,
          transactionIds: selected.map((row) => row.id),
        })
      : undefined;
  const items: CheckedItem[] = [];
  for (const row of selected) {
    const template = templates.get(row.templateId);
    if (template === undefined) continue;
    const names = inWords(template.definition.workflow);
    let reason: string | null = null;
    let asks = false;
    if (action.kind === 'remind') {
      const refusal = remind?.get(row.id) ?? null;
      reason = refusal === null ? null : `Remind: ${refusal}`;
    } else if (action.kind === 'assign') {
      if (row.assigneeId === action.userId) reason = 'Assign: it is assigned to this person already.';
    } else {
      ({ reason, asks } = await eventRefusal(db, {
        row,
        template,
        role: options.role,
        eventKey: action.eventKey,
        waiting: waiting?.get(row.id),
      }));
    }
    items.push({
      id: row.id,
      investorName: row.investorName,
      templateName: template.name,
      state: row.state,
      stateTitle: names.state(row.state),
      stateEnteredAt: row.stateEnteredAt,
      reason,
      asks: reason === null && asks,
    });
  }
  return items;
}

/** A request for a second person's approval waiting on a transaction: who asked, for which event. */
interface WaitingApproval {
  eventKey: string;
  requestedBy: string;
}

/** The request waiting on each of the transactions that has one (one at most waits on each). */
async function waitingApprovals(
  db: Queryable,
  options: { organizationId: string; transactionIds: readonly string[] },
): Promise<Map<string, WaitingApproval>> {
  const rows = await db.query<WaitingApproval & { transactionId: string }>(
    `select a.transaction_id as "transactionId", a.event_key as "eventKey",
       coalesce(nullif(u.name, ''), u.email, 'Someone') as "requestedBy"
     from event_approvals a left join users u on u.id = a.requested_by
     where a.organization_id = $1 and a.transaction_id = any($2::uuid[]) and a.decided_at is null`,
    [options.organizationId, options.transactionIds],
  );
  return new Map(rows.map(({ transactionId, ...waiting }) => [transactionId, waiting]));
}

/**
 * Why `eventKey` cannot be run on one transaction now, as the engine and the role check say, and for an event a
 * second person approves, while another request waits on it (`askApproval` refuses a second one).
 */
async function eventRefusal(
  db: Queryable,
  options: {
    row: Selected;
    template: SelectedTemplate;
    role: ConsoleRole;
    eventKey: string;
    waiting: WaitingApproval | undefined;
  },
): Promise<{ reason: string | null; asks: boolean }> {
  const { row, template, eventKey, waiting } = options;
  const { definition } = template;
  const names = inWords(definition.workflow);
  const event = effectiveWorkflow(definition.workflow).events.find((each) => each.key === eventKey);
  if (event === undefined) {
    return { reason: `${names.event(eventKey)}: not an event of ${template.name}`, asks: false };
  }
  const review = reviewEventsOf(definition);
  if (!mayTrigger(options.role, eventKey, review)) {
    const refused = mayNotTrigger(eventKey, options.role, {
      inReview: review.has(eventKey),
      events: [...review],
      words: names.event,
    });
    return { reason: refused.message, asks: false };
  }
  // The facts (processes, revisions) matter only to an event that leaves the state: read only for those.
  const facts = event.from.includes(row.state)
    ? await workflowFactsOf(db, { id: row.id, definition })
    : { processes: [] };
  const explained = explainEvents(definition.workflow, row.state, facts, names).find(
    (each) => each.key === eventKey,
  );
  const reason = explained?.reason ?? null;
  const asks = needsSecondPerson(definition, eventKey);
  if (reason === null && asks && waiting !== undefined) {
    return {
      reason: `${names.event(eventKey)}: ${waiting.requestedBy} asked for ${names.event(waiting.eventKey)} already, which a second person approves or declines first.`,
      asks: false,
    };
  }
  return { reason, asks };
}

/** An action as the route takes it: its kind and the fields of that kind. */
export interface ActionInput {
  kind: BulkAction['kind'];
  eventKey?: string | undefined;
  message?: string | undefined;
  userId?: string | undefined;
}

/** The action a route's input names: BAD_USER_INPUT naming the field an event or an assignment lacks. */
export function actionOf(input: ActionInput): BulkAction {
  if (input.kind === 'remind') return { kind: 'remind' };
  if (input.kind === 'event') {
    if (input.eventKey === undefined) {
      throw new AppError('BAD_USER_INPUT', 'Choose the event to run.', { field: 'action.eventKey' });
    }
    return { kind: 'event', eventKey: input.eventKey, message: input.message };
  }
  if (input.userId === undefined) {
    throw new AppError('BAD_USER_INPUT', 'Choose the person to assign to.', { field: 'action.userId' });
  }
  return { kind: 'assign', userId: input.userId };
}
