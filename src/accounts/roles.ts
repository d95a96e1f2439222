/**
 * What a person may do in their tenant's pages: admins manage keys and people; members see. A file of its own
 * so that the CLI can offer the roles as choices without loading the account store.
 */
export const ROLES = ['admin', 'member'] as const;
export type Role = (typeof ROLES)[number];
