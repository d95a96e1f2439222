import type { RoleTexts } from '../shared/accounts/roles.tsx';
import type { Role } from './types.ts';

/** The dashboard's roles, as an invitation lists them: what each is called, and what it lets a person do. */
export const ROLES: RoleTexts<Role> = {
  member: { label: 'Member', can: "Sees the portfolio and the keys' names, changes nothing." },
  admin: { label: 'Admin', can: 'Generates and revokes API keys, invites and removes people.' },
};
