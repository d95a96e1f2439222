import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.ts';
import { ssoErrors } from '../../errors.ts';
import { hashPassword } from '../passwords.ts';
import { normalizeEmail, TENANT_COLUMN, USER_COLUMNS, type User } from '../users.ts';
import type { ConnectionInUse } from './connections.ts';
import { domainOf } from './connections.ts';

/**
 * The password hash an account made or taken up at sign-in gets: the one its person's other accounts of this kind
 * share (one password per person, see users.ts), else `$2`, the hash of a password no one knows. `$3` is the
 * address.
 */
const samePassword = (column: string) =>
  `coalesce((select p.password_hash from users p
     where p.email = $3 and p.${column} is not null and p.password_hash is not null
     order by p.created_at, p.sequence limit 1), $2)`;

/** What the identity provider said of the person, from the ID token's claims. */
export interface ProviderClaims {
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

/** What a caller writes beside an account made at sign-in, in its transaction (the console's team activity). */
export type RecordJoin = (tx: Queryable, change: { tenantId: string; user: User }) => Promise<void>;

/**
 * The person the identity provider signed in, as a user of the connection's tenant: the active user of the address
 * the provider vouched for (`email_verified` true), or, when the connection allows new accounts, a new one with its
 * default role (`record` writes it to the tenant's activity). Someone invited who had not set a password is
 * signed in too: the provider proved the mailbox as the invitation would have. An account made or taken up here
 * has a password no one knows (an unusable hash keeps the account active); its person can still set one through
 * a password reset where passwords are allowed.
 *
 * Refusals: SSO_EMAIL_NOT_VERIFIED, SSO_DOMAIN_NOT_COVERED (an address of a domain the connection does not cover),
 * SSO_ACCOUNT_DEACTIVATED, SSO_NO_ACCOUNT (new accounts not allowed).
 */
export async function personSignedInBySso(
  db: Database,
  options: { connection: ConnectionInUse; claims: ProviderClaims; record?: RecordJoin | undefined },
): Promise<{ user: User; joined: boolean }> {
  const { connection, claims } = options;
  if (claims.email_verified !== true || typeof claims.email !== 'string') throw ssoErrors.emailNotVerified();
  const email = normalizeEmail(claims.email);
  const domain = domainOf(email);
  if (!connection.domains.includes(domain)) throw ssoErrors.domainNotCovered(domain);
  const column = TENANT_COLUMN[connection.tenant.kind];
  // Hashed outside the transaction: it is slow on purpose, and needed only when the account is new or invited.
  const unusable = await hashPassword(randomBytes(32).toString('base64url'));
  return db.transaction(async (tx) => {
    const [found] = await tx.query<User>(
      `select ${USER_COLUMNS} from users where ${column} = $1 and email = $2 for update`,
      [connection.tenant.id, email],
    );
    if (found) {
      if (found.deactivatedAt !== null) throw ssoErrors.deactivated();
      if (!found.active) {
        const [activated] = await tx.query<User>(
          `update users set password_hash = ${samePassword(column)} where id = $1 returning ${USER_COLUMNS}`,
          [found.id, unusable, email],
        );
        return { user: activated ?? found, joined: false };
      }
      return { user: found, joined: false };
    }
    if (!connection.allowNewAccounts) throw ssoErrors.noAccount(email);
    const name = typeof claims.name === 'string' ? claims.name.trim().slice(0, 100) : '';
    const [made] = await tx.query<User>(
      `insert into users (${column}, email, name, role, password_hash)
       values ($1, $3, $4, $5, ${samePassword(column)})
       returning ${USER_COLUMNS}`,
      [connection.tenant.id, unusable, email, name, connection.defaultRole],
    );
    if (!made) throw new Error('an account made without its row');
    await options.record?.(tx, { tenantId: connection.tenant.id, user: made });
    return { user: made, joined: true };
  });
}
