import { randomBytes } from 'node:crypto';
import type { Role } from '../accounts/roles.ts';
import { inviteUser, setPasswordWithLink, type AccountTenant } from '../accounts/users.ts';
import type { Database } from '../db/database.ts';

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
