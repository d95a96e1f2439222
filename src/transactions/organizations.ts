import type { Queryable } from '../db/database.ts';
import { AppError, quote } from '../errors.ts';

export interface Organization {
  id: string;
  handle: string;
  name: string;
  createdAt: Date;
}

const COLUMNS = 'id, handle, name, created_at as "createdAt"';
const HANDLE = /^[a-z0-9][a-z0-9-]{1,62}$/;

/**
 * Checks a tenant's short name (an organization's handle, a customer instance's slug) and its display name.
 * @returns the display name, trimmed
 */
export function checkTenantNames(options: { label: string; short: string; name: string }): string {
  if (!HANDLE.test(options.short)) {
    throw new AppError(
      'BAD_USER_INPUT',
      `${options.label} ${quote(options.short)} must be 2–63 lower-case letters, digits or hyphens, starting with a letter or digit`,
    );
  }
  if (options.name.trim() === '') throw new AppError('BAD_USER_INPUT', 'name must not be blank');
  if (options.name.trim().length > 200) {
    throw new AppError('BAD_USER_INPUT', 'name may be at most 200 characters');
  }
  return options.name.trim();
}

export async function createOrganization(
  db: Queryable,
  options: { handle: string; name: string },
): Promise<Organization> {
  const name = checkTenantNames({ label: 'handle', short: options.handle, name: options.name });
  const [organization] = await db.query<Organization>(
    `insert into organizations (handle, name) values ($1, $2) on conflict (handle) do nothing returning ${COLUMNS}`,
    [options.handle, name],
  );
  if (!organization)
    throw new AppError(
      'BAD_USER_INPUT',
      `an organization with handle ${quote(options.handle)} exists already`,
    );
  return organization;
}

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
  if (!organization) throw new AppError('NOT_FOUND', `no organization with handle ${quote(handle)}`);
  return organization;
}
