import type { Queryable } from '../db/database.ts';
import { linkErrors } from '../errors.ts';
import { checkLink, type LinkPurpose } from './links.ts';
import { TENANT_TABLES } from './tenant-tables.ts';
import type { AccountTenant } from './users.ts';

/** What the page of a mailed link that works shows above its form. */
export interface WorkingLink {
  /** The address and name of the account it sets a password for. */
  email: string;
  name: string;
  /** The name of the tenant the account belongs to. */
  tenantName: string;
  expiresAt: Date;
}

/**
 * Whether a mailed link (an invitation, a password reset) works on the pages of this kind of tenant, without
 * using it: the page asks before it shows its form, so that a bad, used or expired link says so at once rather
 * than after a password was typed twice. Throws what using it would (`setPasswordWithLink`): LINK_INVALID,
 * LINK_USED, LINK_EXPIRED, and LINK_INVALID for a link of another kind of tenant's pages or of a deactivated
 * person.
 */
export async function checkMailedLink(
  db: Queryable,
  options: { purpose: LinkPurpose; tenantKind: AccountTenant['kind']; token: string },
): Promise<WorkingLink> {
  const { userId, expiresAt } = await checkLink(db, options.token, options.purpose);
  const { table, column } = TENANT_TABLES[options.tenantKind];
  const [account] = await db.query<Omit<WorkingLink, 'expiresAt'>>(
    `select u.email, u.name, t.name as "tenantName" from users u join ${table} t on t.id = u.${column}
     where u.id = $1 and u.deactivated_at is null`,
    [userId],
  );
  if (!account) throw linkErrors.notValidHere();
  return { ...account, expiresAt };
}
