import { Badge } from '@radix-ui/themes';
import type { Role } from '../types.ts';

/** What each role is called, and what it lets a person do. */
export const ROLE_TEXT: Record<Role, { label: string; can: string }> = {
  admin: { label: 'Admin', can: 'Generates and revokes API keys, invites and removes people.' },
  member: { label: 'Member', can: "Sees the portfolio and the keys' names, changes nothing." },
};

/** A person's role, admins in indigo. */
export function RoleBadge({ role }: { role: Role }) {
  return <Badge color={role === 'admin' ? 'indigo' : 'gray'}>{ROLE_TEXT[role].label}</Badge>;
}
