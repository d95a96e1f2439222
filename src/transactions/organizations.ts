import type { Queryable } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { insertTenant } from '../db/tenants.ts';

/** An organization: a tenant of the Transactions service, named by its handle. */
export interface Organization {
  id: string;
  handle: string;
  name: string;
  createdAt: Date;
}

const COLUMNS = 'id, handle, name, created_at as "createdAt"';

/** Creates an organization (a tenant of the Transactions service); its handle must be free. */
export const createOrganization = (
  db: Queryable,
  { handle, name }: { handle: string; name: string },
): Promise<Organization> => insertTenant(db, 'organization', { short: handle, name });

/** The organization with this handle, if any. */
export async function findOrganizationByHandle(
  db: Queryable,
  handle: string,
): Promise<Organization | undefined> {
  const [organization] = await db.query<Organization>(
    `select ${COLUMNS} from organizations where handle = $1`,
    [handle],
  );
  return organization;
}

/** The organization with this handle, or a NOT_FOUND error that says so. */
export async function getOrganizationByHandle(db: Queryable, handle: string): Promise<Organization> {
  const organization = await findOrganizationByHandle(db, handle);
  if (!organization) throw notFound('organization with handle', handle);
  return organization;
}

/** An organization as `portico org list` shows it: with how much it holds. */
export interface OrganizationSummary extends Organization {
  /** Template keys, each counted once whatever its versions. */
  templates: number;
  transactions: number;
  /** API keys not revoked. */
  activeKeys: number;
  /** Console users, deactivated ones left out. */
  users: number;
}

/** Every organization by handle, with the counts an operator looks at first. */
export function listOrganizations(db: Queryable): Promise<OrganizationSummary[]> {
  return db.query<OrganizationSummary>(
    `select o.id, o.handle, o.name, o.created_at as "createdAt",
       (select count(distinct key) from templates t where t.organization_id = o.id)::int as templates,
       (select count(*) from transactions t where t.organization_id = o.id)::int as transactions,
       (select count(*) from api_keys k where k.organization_id = o.id and k.revoked_at is null)::int as "activeKeys",
       (select count(*) from users u where u.organization_id = o.id and u.deactivated_at is null)::int as users
     from organizations o order by o.handle`,
  );
}
