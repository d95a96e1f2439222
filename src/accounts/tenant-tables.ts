/**
 * Where each kind of tenant whose people sign in is kept: its table, the column of `users` that names it, and
 * its handle (what the pages and the CLI call it by). Constants, never input: they are written into SQL.
 */
export const TENANT_TABLES = {
  instance: { table: 'portfolio_instances', column: 'instance_id', handle: 'slug' },
  organization: { table: 'organizations', column: 'organization_id', handle: 'handle' },
} as const;
