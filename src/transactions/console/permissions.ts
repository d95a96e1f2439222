import type { ConsoleRole } from '../../accounts/roles.ts';
import type { WorkflowDefinition } from '../templates/schema.ts';
import { isVoidEvent } from '../workflow.ts';
import { may, PERMISSIONS, type Permission } from './role-permissions.ts';

export { may, PERMISSIONS, type Permission };

/**
 * The events of a review: those that leave a state a recipient's submission enters (a process's `submitEvent`
 * leads there), void excepted: approve and request_changes in the example template. Reviewers may trigger them;
 * operators and admins may trigger every event.
 */
export function reviewEvents(workflow: WorkflowDefinition, submitEvents: readonly string[]): Set<string> {
  const reviewStates = new Set(
    workflow.events.filter((event) => submitEvents.includes(event.key)).map((event) => event.to),
  );
  return new Set(
    workflow.events
      .filter((event) => !isVoidEvent(event.key) && event.from.some((state) => reviewStates.has(state)))
      .map((event) => event.key),
  );
}

/** Whether a role may trigger `eventKey`: operators and admins any event, reviewers a review's. */
export function mayTrigger(role: ConsoleRole, eventKey: string, review: ReadonlySet<string>): boolean {
  return may(role, 'operate') || (may(role, 'review') && review.has(eventKey));
}
