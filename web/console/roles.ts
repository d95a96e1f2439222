import { may } from '../../src/transactions/console/role-permissions.ts';
import type { RoleTexts } from '../shared/accounts/roles.tsx';
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

/** Whether a role may do what a permission names: the server's own table (role-permissions.ts, pure). */
export { may };
