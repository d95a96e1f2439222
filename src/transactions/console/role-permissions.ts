import { allows, type ConsoleRole, type RoleTable } from '../../accounts/roles.ts';

/**
 * What each console role may do: the table each route of the console declares its need from (contract.ts), the
 * signed-in kit checks before the route runs, and the page reads to show only what a person may do. Pure, and
 * shared with the pages as it is (web/console/roles.ts).
 */
export const PERMISSIONS = {
  read: {
    roles: ['admin', 'operator', 'reviewer', 'viewer'],
    does: 'see transactions, their timelines and the team',
  },
  operate: {
    roles: ['admin', 'operator'],
    does: 'move transactions, remind recipients, reset and extend their links, assign, resend webhooks and sign for the organization',
  },
  review: { roles: ['admin', 'reviewer'], does: "comment on recipients' answers and resolve comments" },
  managePeople: { roles: ['admin'], does: 'invite and deactivate people' },
  manageTemplates: { roles: ['admin'], does: 'import templates, and archive or restore them' },
} as const satisfies RoleTable<ConsoleRole>;

export type Permission = keyof typeof PERMISSIONS;

/** Whether a role may do what `permission` names. */
export function may(role: ConsoleRole, permission: Permission): boolean {
  return allows(PERMISSIONS, role, permission);
}
