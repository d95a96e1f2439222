import type { ConsoleRole } from '../../accounts/roles.ts';
import type { WorkflowDefinition } from '../templates/schema.ts';
import { isVoidEvent } from '../workflow.ts';
import { AppError } from '../../errors.ts';
import { may, PERMISSIONS, type Permission } from './role-permissions.ts';

export { may, PERMISSIONS, type Permission };

/** The roles named in words, e.g. "admins and operators". */
function rolesInWords(permission: Permission): string {
  const roles = PERMISSIONS[permission].map((role) => `${role}s`);
  return roles.length === 1 ? (roles[0] ?? '') : `${roles.slice(0, -1).join(', ')} and ${roles.at(-1) ?? ''}`;
}

/**
 * Refuses with FORBIDDEN, naming who may, unless the caller's role allows `permission` (role-permissions.ts). The
 * caller is any `ConsoleCaller` (caller.ts), named by its shape so that the pages can read this file's types
 * without the server's request types.
 *
 * @example
 * requirePermission(caller, 'managePeople', 'invite people');
 */
export function requirePermission(
  caller: { user: { role: ConsoleRole }; organization: { name: string } },
  permission: Permission,
  what: string,
): void {
  if (!may(caller.user.role, permission)) {
    throw new AppError(
      'FORBIDDEN',
      `Only ${rolesInWords(permission)} ${what}; you are a ${caller.user.role} of ${caller.organization.name}.`,
      { permission },
    );
  }
}

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
