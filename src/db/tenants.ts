import { AppError, quote } from '../errors.ts';
import { checkTenantNames } from '../validation/tenant-names.ts';
import type { Queryable } from './database.ts';

/**
 * The two kinds of tenant, each a table with a unique short name: a Transactions organization (by handle) and a
 * Portfolio customer instance (by slug).
 */
const TENANT_TABLES = {
  organization: { table: 'organizations', short: 'handle' },
  instance: { table: 'portfolio_instances', short: 'slug' },
} as const;

/** What both kinds of tenant hold. */
export interface TenantRow {
  id: string;
  name: string;
  createdAt: Date;
}

/**
 * Inserts a tenant after checking its names (see `checkTenantNames`); BAD_USER_INPUT when the short name is
 * taken. Both services create their tenants through it, so the rules and the messages are the same.
 *
 * @example insertTenant(db, 'instance', { short: 'acme', name: 'Acme Ventures' })
 */
export async function insertTenant<Kind extends keyof typeof TENANT_TABLES>(
  db: Queryable,
  kind: Kind,
  options: { short: string; name: string },
): Promise<TenantRow & Record<(typeof TENANT_TABLES)[Kind]['short'], string>> {
  const { table, short } = TENANT_TABLES[kind];
  const name = checkTenantNames({ label: short, short: options.short, name: options.name });
  // The table and column names are the constants above, never input.
  const [row] = await db.query<TenantRow & Record<(typeof TENANT_TABLES)[Kind]['short'], string>>(
    `insert into ${table} (${short}, name) values ($1, $2) on conflict (${short}) do nothing
     returning id, ${short}, name, created_at as "createdAt"`,
    [options.short, name],
  );
  if (!row) {
    throw new AppError('BAD_USER_INPUT', `an ${kind} with ${short} ${quote(options.short)} exists already`);
  }
  return row;
}
