/**
 * What a person may do in their tenant's pages. A file of its own so that the CLI can offer the roles as choices
 * without loading the account store.
 *
 * The customer dashboard has two roles: admins manage keys and people; members see. The organization console
 * has four (see `console/permissions.ts` in transactions for what each may do).
 */
export const DASHBOARD_ROLES = ['admin', 'member'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

/** admin: everything, people included · operator: the queue, events, reminders, voids · reviewer: reviews · viewer: reads. */
export const CONSOLE_ROLES = ['admin', 'operator', 'reviewer', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** A role of either kind of tenant. */
export type Role = DashboardRole | ConsoleRole;

/** Each role in a few words, for invitations and the CLI's help. */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  admin: 'an admin (you can manage API keys and people)',
  member: 'a member',
  operator: 'an operator (you can move transactions through their workflow, remind recipients and void)',
  reviewer: "a reviewer (you can review recipients' answers, comment, approve and ask for changes)",
  viewer: 'a viewer (you can see transactions, not change them)',
};

/**
 * What each role of one surface may do: a permission's name → the roles that have it, and what it lets them do
 * in words ("invite and deactivate people"), which the refusal and the page both say. Pure, so that a page can
 * read its surface's table as it is.
 */
export type RoleTable<R extends Role = Role> = Readonly<
  Record<string, { readonly roles: readonly R[]; readonly does: string }>
>;

/** Whether `role` has `permission` in `table`. */
export function allows(table: RoleTable, role: Role, permission: string): boolean {
  return table[permission]?.roles.includes(role) ?? false;
}

/** The roles that have a permission, named in words, e.g. "admins and operators". */
export function rolesInWords(roles: readonly Role[]): string {
  const plural = roles.map((role) => `${role}s`);
  return plural.length === 1
    ? (plural[0] ?? '')
    : `${plural.slice(0, -1).join(', ')} and ${plural.at(-1) ?? ''}`;
}
