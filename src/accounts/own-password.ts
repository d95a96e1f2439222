import type { Database } from '../db/database.ts';
import { notSignedIn, wrongCurrentPassword } from '../errors.ts';
import { checkNewPassword, hashPassword, passwordMatches } from './passwords.ts';
import { endOtherSessionsOf } from './sessions.ts';
import { TENANT_COLUMN, type AccountTenant } from './users.ts';

/**
 * Changes a signed-in person's password from their page: their current password must be right (BAD_USER_INPUT
 * naming `currentPassword` otherwise), and the new one obeys the rules of every new password (`checkNewPassword`,
 * as a mailed link's page). A person has one password per address: like a mailed link (`setPasswordWithLink`), it
 * is set for each account of the address in tenants of this kind that has one. Every other session of those
 * accounts ends, whoever knew the old password; the session of `keptSessionId`, where it was changed, stays.
 */
export function changeOwnPassword(
  db: Database,
  options: {
    tenantKind: AccountTenant['kind'];
    userId: string;
    currentPassword: string;
    password: string;
    keptSessionId: string;
  },
): Promise<{ otherSessionsEnded: number }> {
  const column = TENANT_COLUMN[options.tenantKind];
  return db.transaction(async (tx) => {
    const [person] = await tx.query<{ email: string; passwordHash: string }>(
      `select email, password_hash as "passwordHash" from users
       where id = $1 and ${column} is not null and password_hash is not null and deactivated_at is null
       for update`,
      [options.userId],
    );
    if (!person) throw notSignedIn();
    if (!(await passwordMatches(person.passwordHash, options.currentPassword))) throw wrongCurrentPassword();
    checkNewPassword(options.password, person.email);
    const passwordHash = await hashPassword(options.password);
    const accounts = await tx.query<{ id: string }>(
      `update users set password_hash = $2
       where email = $1 and ${column} is not null and password_hash is not null returning id`,
      [person.email, passwordHash],
    );
    const ids = accounts.map((account) => account.id);
    return { otherSessionsEnded: await endOtherSessionsOf(tx, ids, options.keptSessionId) };
  });
}
