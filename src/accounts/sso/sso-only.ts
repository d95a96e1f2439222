import type { Queryable } from '../../db/database.ts';
import { AppError, ssoErrors } from '../../errors.ts';
import type { User } from '../users.ts';
import { domainOf } from './connections.ts';

/**
 * "SSO only" at a password sign-in: the people of a domain whose connection signs them in only through the
 * identity provider are refused a password (SSO_REQUIRED, which says where to go instead), except the tenant's
 * admins, the break-glass way in when the provider is down or misconfigured. The refusal is the same whether the
 * password was right or wrong, so that it tells no one whether they guessed it; only an admin's right password
 * opens the account. Accounts the same password opens in other tenants, not covered, open as ever.
 *
 * @example
 * const matches = await underSsoOnly(db, 'organization', email, () => checkCredentialsInAnyTenant(db, …));
 */
export async function underSsoOnly<Match extends { user: User; tenantId: string }>(
  db: Queryable,
  kind: 'organization' | 'instance',
  email: string,
  check: () => Promise<Match[]>,
): Promise<Match[]> {
  const domain = domainOf(email);
  const [ssoOnly] = await db.query<{ tenantId: string }>(
    `select coalesce(c.organization_id, c.instance_id) as "tenantId"
     from sso_domains d join sso_connections c on c.id = d.connection_id
     where d.tenant_kind = $1 and d.domain = $2 and c.sso_only`,
    [kind, domain],
  );
  if (!ssoOnly) return check();
  let matches: Match[];
  try {
    matches = await check();
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') throw ssoErrors.required(domain);
    throw error;
  }
  const open = matches.filter((match) => match.tenantId !== ssoOnly.tenantId || match.user.role === 'admin');
  if (open.length === 0) throw ssoErrors.required(domain);
  return open;
}
