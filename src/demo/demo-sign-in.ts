import { randomBytes } from 'node:crypto';
import { passwordMatches } from '../accounts/passwords.ts';
import type { Role } from '../accounts/roles.ts';
import { TENANT_TABLES } from '../accounts/tenant-tables.ts';
import { inviteUser, setPasswordWithLink, type AccountTenant } from '../accounts/users.ts';
import type { Database, Queryable } from '../db/database.ts';

/** A demo person's sign-in, as the banner and `demo.json` show it. */
export interface DemoSignIn {
  email: string;
  password: string;
}

/**
 * A person of a demo tenant who can sign in at once, made as any person is (an invitation, whose link is used
 * at once instead of mailed), with a fresh random password per data dir.
 */
export async function createDemoSignIn(
  db: Database,
  options: { tenant: AccountTenant; email: string; name: string; role: Role },
): Promise<DemoSignIn> {
  const password = randomBytes(12).toString('base64url');
  const { link } = await inviteUser(db, options);
  await setPasswordWithLink(db, {
    purpose: 'invitation',
    tenantKind: options.tenant.kind,
    token: link.token,
    password,
  });
  return { email: options.email, password };
}

/**
 * Whether a demo sign-in still opens its pages: `works`; `changed` (the person has set another password since);
 * or why the person cannot sign in at all: `deactivated`, `removed`, or `invited` (invited again after being
 * deactivated, and not yet accepted).
 */
export type DemoSignInNow = 'works' | 'changed' | 'deactivated' | 'removed' | 'invited';

/**
 * What a demo sign-in is now, as the sign-in page would find it: the page checks an address against its oldest
 * account that can sign in (see `checkCredentialsInAnyTenant`), so this reads that account, or failing one the
 * address's other accounts of the kind, and checks the password against its hash with the same argon2id. At
 * most one hash is checked (about 50 ms of one core), none when no account of the address can sign in.
 */
export async function demoSignInNow(
  db: Queryable,
  kind: AccountTenant['kind'],
  signIn: DemoSignIn,
): Promise<DemoSignInNow> {
  const [account] = await db.query<{ passwordHash: string | null; deactivated: boolean }>(
    `select password_hash as "passwordHash", deactivated_at is not null as deactivated from users
     where ${TENANT_TABLES[kind].column} is not null and email = $1
     order by (password_hash is not null and deactivated_at is null) desc, created_at, sequence limit 1`,
    [signIn.email],
  );
  if (!account) return 'removed';
  if (account.deactivated) return 'deactivated';
  if (account.passwordHash === null) return 'invited';
  return (await passwordMatches(account.passwordHash, signIn.password)) ? 'works' : 'changed';
}
