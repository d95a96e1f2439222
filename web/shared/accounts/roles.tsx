import { Badge } from '@radix-ui/themes';

/** What a role is called, and what it lets a person do, in one short sentence. */
export interface RoleText {
  label: string;
  can: string;
}

/** A surface's roles, in the order a choice lists them, each with its {@link RoleText}. */
export type RoleTexts<Role extends string> = Readonly<Record<Role, RoleText>>;

/** A person's role, admins in indigo. */
export function RoleBadge<Role extends string>({ role, roles }: { role: Role; roles: RoleTexts<Role> }) {
  return <Badge color={role === 'admin' ? 'indigo' : 'gray'}>{roles[role].label}</Badge>;
}
