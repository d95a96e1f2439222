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
