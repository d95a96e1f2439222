import type { ConsoleRole } from '../../accounts/roles.ts';

/**
 * What each console role may do: the table the server checks on every route (permissions.ts) and the page reads
 * to show only what a person may do. Pure, and shared with the pages as it is (web/console/roles.ts).
 */
export const PERMISSIONS = {
  /** See the queue, transactions, their timelines and the team. */
  read: ['admin', 'operator', 'reviewer', 'viewer'],
  /** Move transactions through their workflow (any event), remind recipients, void, assign; sign as the sender. */
  operate: ['admin', 'operator'],
  /** Comment on a recipient's answers and resolve comments; trigger the events of a review (see reviewEvents). */
  review: ['admin', 'reviewer'],
  /** Invite and deactivate people. */
  managePeople: ['admin'],
} as const satisfies Record<string, readonly ConsoleRole[]>;

export type Permission = keyof typeof PERMISSIONS;

/** Whether a role may do what `permission` names. */
export function may(role: ConsoleRole, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly ConsoleRole[]).includes(role);
}
