import type { RoleTexts } from '../shared/accounts/roles.tsx';
import type { PERMISSIONS as SERVER_PERMISSIONS } from '../../src/transactions/console/permissions.ts';
import type { Role } from './types.ts';

/** The console's roles, as an invitation lists them: what each is called, and what it lets a person do. */
export const ROLES: RoleTexts<Role> = {
  viewer: { label: 'Viewer', can: 'Sees transactions and the team, changes nothing.' },
  reviewer: { label: 'Reviewer', can: "Reviews recipients' answers: comments, approves, asks for changes." },
  operator: {
    label: 'Operator',
    can: 'Moves transactions through their workflow, reminds recipients, voids.',
  },
  admin: { label: 'Admin', can: 'All an operator does, and invites and deactivates people.' },
};

/**
 * Who may do what, as the server checks it on every route (src/transactions/console/permissions.ts). Its type
 * is the server's table itself (a literal tuple per permission), so this copy cannot say anything else.
 */
const PERMISSIONS: typeof SERVER_PERMISSIONS = {
  read: ['admin', 'operator', 'reviewer', 'viewer'],
  managePeople: ['admin'],
};

/** Whether a role may do what `permission` names: the page shows only what the server would allow. */
export function may(role: Role, permission: keyof typeof SERVER_PERMISSIONS): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}
