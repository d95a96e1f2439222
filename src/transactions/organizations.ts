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
