import { allows, type DashboardRole, type RoleTable } from '../../accounts/roles.ts';

/**
 * What each dashboard role may do: the table each route of the dashboard declares its need from (contract.ts)
 * and the signed-in kit checks before the route runs. Pure, and shared with the pages as it is
 * (web/dashboard/roles.ts).
 */
export const PERMISSIONS = {
  read: { roles: ['admin', 'member'], does: "see the portfolio, its people and its keys' names" },
  manageKeys: { roles: ['admin'], does: 'generate and revoke keys' },
  managePeople: { roles: ['admin'], does: 'invite and remove people' },
} as const satisfies RoleTable<DashboardRole>;

export type Permission = keyof typeof PERMISSIONS;

/** Whether a role may do what `permission` names. */
export function may(role: DashboardRole, permission: Permission): boolean {
  return allows(PERMISSIONS, role, permission);
}
