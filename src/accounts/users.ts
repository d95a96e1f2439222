import type { Database, Queryable } from '../db/database.ts';
import { AppError, isNot, lastAdmin, linkErrors, notFound, tooLong, wrongCredentials } from '../errors.ts';
import { issueLink, redeemLink, type IssuedLink, type LinkPurpose } from './links.ts';
import { checkNewPassword, hashPassword, passwordMatches } from './passwords.ts';
import { endSessionsOf } from './sessions.ts';
import type { Role } from './roles.ts';
import { TENANT_TABLES } from './tenant-tables.ts';

/** The tenant a user belongs to: a customer instance (Portfolio) or an organization (Transactions). */
export type AccountTenant = { kind: 'instance'; id: string } | { kind: 'organization'; id: string };

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Whether the person has set a password (accepted the invitation). */
  active: boolean;
  /** When an admin deactivated them: they can no longer sign in, and their name stays on what they did. */
  deactivatedAt: Date | null;
  createdAt: Date;
}

/**
 * What a caller writes beside a change to a person (`before` it, when they were there), in the change's database
 * transaction, so that both are kept or neither is: the console's team activity (transactions/history/).
 */
export type RecordChange = (tx: Queryable, person: User, before?: User) => Promise<void>;

/** The column of `users` that holds the tenant of each kind: constants, never input. */
export const TENANT_COLUMN = {
  instance: TENANT_TABLES.instance.column,
  organization: TENANT_TABLES.organization.column,
} as const;

export const USER_COLUMNS = `id, email, name, role, password_hash is not null as active,
  deactivated_at as "deactivatedAt", created_at as "createdAt"`;

/** A row of `users` as a {@link User}, without what was read beside it (a password hash, a tenant). */
function userOf({ id, email, name, role, active, deactivatedAt, createdAt }: User): User {
  return { id, email, name, role, active, deactivatedAt, createdAt };
}

/** The longest e-mail address (RFC 5321) and name a user may have. */
const MAX_EMAIL = 254;
const MAX_NAME = 100;

/** An address in the form `users.email` keeps it (trimmed, lower case), to look a user up by. */
const storedForm = (email: string) => email.trim().toLowerCase();

/**
 * An e-mail address as Portico keeps it: trimmed, lower case, one @ with something on each side and no spaces.
 * Throws BAD_USER_INPUT naming the field `email` otherwise.
 */
export function normalizeEmail(email: string): string {
  const normalized = storedForm(email);
  if (normalized.length > MAX_EMAIL || !/^[^@\s<>,;"]+@[^@\s<>,;"]+\.[^@\s<>,;"]+$/.test(normalized)) {
    throw isNot(email, 'an e-mail address', { field: 'email' });
  }
  return normalized;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME) {
    throw tooLong('A name', MAX_NAME, { field: 'name' });
  }
  return trimmed;
}

/** The users of a tenant, oldest first. */
export function listUsers(db: Queryable, tenant: AccountTenant): Promise<User[]> {
  return db.query<User>(
    `select ${USER_COLUMNS} from users where ${TENANT_COLUMN[tenant.kind]} = $1 order by created_at, sequence`,
    [tenant.id],
  );
}

/** A user of the tenant by id; NOT_FOUND for an id of another tenant as for one that does not exist. */
export async function getUser(db: Queryable, tenant: AccountTenant, id: string): Promise<User> {
  const [user] = await db.query<User>(
    `select ${USER_COLUMNS} from users where ${TENANT_COLUMN[tenant.kind]} = $1 and id = $2`,
    [tenant.id, id],
  );
  if (!user) throw notFound('user');
  return user;
}

/**
 * Invites a person to the tenant with a role: a new user without a password, and an invitation link for the
 * caller to mail. Inviting someone who has not accepted yet issues a new link (the older one stops working)
 * and takes the new role; inviting someone deactivated brings them back, to set a password anew. CONFLICT if the address belongs to an active user of the tenant already.
 * `record` writes what the caller keeps of the invitation, in its transaction.
 */
export async function inviteUser(
  db: Database,
  options: {
    tenant: AccountTenant;
    email: string;
    role: Role;
    name?: string | undefined;
    invitedBy?: string | undefined;
    record?: RecordChange | undefined;
  },
): Promise<{ user: User; link: IssuedLink }> {
  const email = normalizeEmail(options.email);
  const name = checkName(options.name ?? '');
  const column = TENANT_COLUMN[options.tenant.kind];
  return db.transaction(async (tx) => {
    const [user] = await tx.query<User>(
      `insert into users (${column}, email, name, role) values ($1, $2, $3, $4)
       on conflict (${column}, email) where ${column} is not null
       do update set role = excluded.role, name = case when excluded.name = '' then users.name else excluded.name end,
         password_hash = null, deactivated_at = null, deactivated_by = null
       where users.password_hash is null or users.deactivated_at is not null
       returning ${USER_COLUMNS}`,
      [options.tenant.id, email, name, options.role],
    );
    if (!user) throw new AppError('CONFLICT', `${email} has an account here already.`, { field: 'email' });
    const link = await issueLink(tx, {
      userId: user.id,
      purpose: 'invitation',
      createdBy: options.invitedBy,
    });
    await options.record?.(tx, user);
    return { user, link };
  });
}

/**
 * Checks an e-mail address and password against the tenant's users. Throws INVALID_CREDENTIALS, with the same
 * message and in about the same time, whether the address is unknown, has no password yet, or the password is
 * wrong: the answer never tells which addresses have accounts.
 */
export async function checkCredentials(
  db: Queryable,
  tenant: AccountTenant,
  credentials: { email: string; password: string },
): Promise<User> {
  const [row] = await db.query<User & { passwordHash: string | null }>(
    `select ${USER_COLUMNS}, password_hash as "passwordHash" from users
     where ${TENANT_COLUMN[tenant.kind]} = $1 and email = $2 and deactivated_at is null`,
    [tenant.id, storedForm(credentials.email)],
  );
  if (!(await passwordMatches(row?.passwordHash, credentials.password)) || !row) {
    throw wrongCredentials();
  }
  return userOf(row);
}

/** The most accounts one sign-in opens: a person's instances, oldest first. */
const MAX_ACCOUNTS_PER_ADDRESS = 50;

/**
 * The users of any tenant of this kind whose address and password these are, with their tenant's id: a person
 * may belong to several customer instances under one address, with one password for all of them (see
 * {@link setPasswordWithLink}). Only the tenants of `tenantIds` when given. Throws INVALID_CREDENTIALS as
 * {@link checkCredentials} when none matches.
 *
 * Exactly one password hash is checked, whatever the address: its oldest account's, or a decoy when it has none.
 * The accounts that share that hash open with it. So the time a sign-in takes tells nothing of whether an
 * address has accounts, or how many.
 */
export async function checkCredentialsInAnyTenant(
  db: Queryable,
  kind: AccountTenant['kind'],
  credentials: { email: string; password: string },
  options: { tenantIds?: readonly string[] | undefined } = {},
): Promise<{ user: User; tenantId: string }[]> {
  const column = TENANT_COLUMN[kind];
  const rows = await db.query<User & { passwordHash: string; tenantId: string }>(
    `select ${USER_COLUMNS}, password_hash as "passwordHash", ${column} as "tenantId" from users
     where ${column} is not null and email = $1 and password_hash is not null and deactivated_at is null
       and ($2::uuid[] is null or ${column} = any($2::uuid[]))
     order by created_at, sequence limit ${String(MAX_ACCOUNTS_PER_ADDRESS)}`,
    [storedForm(credentials.email), options.tenantIds ?? null],
  );
  const checked = rows[0]?.passwordHash;
  if (!(await passwordMatches(checked, credentials.password))) {
    throw wrongCredentials();
  }
  return rows
    .filter((row) => row.passwordHash === checked)
    .map((row) => ({ user: userOf(row), tenantId: row.tenantId }));
}

/** Removes a user of the tenant, ending their sessions; NOT_FOUND as {@link getUser}. */
export async function removeUser(db: Queryable, tenant: AccountTenant, id: string): Promise<User> {
  const [user] = await db.query<User>(
    `delete from users where ${TENANT_COLUMN[tenant.kind]} = $1 and id = $2 returning ${USER_COLUMNS}`,
    [tenant.id, id],
  );
  if (!user) throw notFound('user');
  return user;
}

/**
 * Deactivates a person of the tenant (an admin's act), ending their sessions and their unused links: they can no
 * longer sign in, and their name stays on what they did. NOT_FOUND as {@link getUser}; deactivating someone
 * deactivated already changes nothing, and records nothing (`record`, as {@link inviteUser}'s).
 */
export async function deactivateUser(
  db: Database,
  tenant: AccountTenant,
  options: { id: string; by: string; record?: RecordChange | undefined },
): Promise<User> {
  return db.transaction(async (tx) => {
    const column = TENANT_COLUMN[tenant.kind];
    const [before] = await tx.query<User>(
      `select ${USER_COLUMNS} from users where ${column} = $1 and id = $2 for update`,
      [tenant.id, options.id],
    );
    if (!before) throw notFound('user');
    if (before.deactivatedAt !== null) return before;
    const [user] = await tx.query<User>(
      `update users set deactivated_at = clock_timestamp(), deactivated_by = $2 where id = $1
       returning ${USER_COLUMNS}`,
      [before.id, options.by],
    );
    if (!user) throw notFound('user');
    await endSessionsOf(tx, user.id);
    await tx.query(
      `update user_links set expires_at = least(expires_at, clock_timestamp())
       where user_id = $1 and used_at is null`,
      [user.id],
    );
    await options.record?.(tx, user, before);
    return user;
  });
}

/**
 * A password reset link for the active user of this address, or undefined when there is none: the caller
 * answers the same either way, so that the form tells no one which addresses have accounts.
 */
export async function requestPasswordReset(
  db: Database,
  tenant: AccountTenant,
  email: string,
): Promise<{ user: User; link: IssuedLink } | undefined> {
  const [user] = await db.query<User>(
    `select ${USER_COLUMNS} from users
     where ${TENANT_COLUMN[tenant.kind]} = $1 and email = $2 and password_hash is not null
       and deactivated_at is null`,
    [tenant.id, storedForm(email)],
  );
  if (!user) return undefined;
  return { user, link: await issueLink(db, { userId: user.id, purpose: 'password_reset' }) };
}

/**
 * Sets a password through a mailed link, using it up: an invitation (which also makes the user active, and
 * may set their name) or a password reset. A person has one password per address: it is set for every active
 * account of the address in tenants of this kind too (the link proves the mailbox, which could reset each of
 * them anyway), so that one check signs them in to all (see {@link checkCredentialsInAnyTenant}). Every session
 * of those accounts ends: whoever knew the old password is signed out. The link's errors as `redeemLink`;
 * BAD_USER_INPUT for a password `checkNewPassword` refuses, which leaves the link unused.
 */
export function setPasswordWithLink(
  db: Database,
  options: {
    purpose: LinkPurpose;
    /** The kind of tenant whose pages take the link: another kind's link is LINK_INVALID there. */
    tenantKind: AccountTenant['kind'];
    token: string;
    password: string;
    name?: string | undefined;
  },
): Promise<User & { tenantId: string }> {
  return db.transaction(async (tx) => {
    const { userId } = await redeemLink(tx, options.token, options.purpose);
    const [current] = await tx.query<{ email: string }>(
      `select email from users
       where id = $1 and ${TENANT_COLUMN[options.tenantKind]} is not null and deactivated_at is null`,
      [userId],
    );
    if (!current) throw linkErrors.notValidHere();
    checkNewPassword(options.password, current.email);
    const name = options.name === undefined ? undefined : checkName(options.name);
    const column = TENANT_COLUMN[options.tenantKind];
    const passwordHash = await hashPassword(options.password);
    const [user] = await tx.query<User & { tenantId: string }>(
      `update users set password_hash = $2, name = coalesce($3, name) where id = $1
       returning ${USER_COLUMNS}, ${column} as "tenantId"`,
      [userId, passwordHash, name ?? null],
    );
    if (!user) throw linkErrors.notValidHere();
    const others = await tx.query<{ id: string }>(
      `update users set password_hash = $2
       where email = $3 and ${column} is not null and id <> $1 and password_hash is not null returning id`,
      [userId, passwordHash, current.email],
    );
    for (const account of [userId, ...others.map((other) => other.id)]) await endSessionsOf(tx, account);
    return user;
  });
}

/**
 * The user of this address (or id) in the tenant, with the tenant's admins locked (FOR UPDATE) for the rest of
 * the transaction: two changes at once cannot each leave the other admin as the last one, then both go. Answers
 * how many other admins the tenant has who are not deactivated (`otherAdmins`: the operator's count, who sets a
 * tenant up before anyone has accepted an invitation) and how many of them have set a password too
 * (`otherActiveAdmins`: a page's count, where someone must still be able to sign in and manage people). NOT_FOUND
 * when the address or id has no user here.
 */
export async function personWithAdminsLocked(
  tx: Queryable,
  tenant: AccountTenant,
  which: { email: string } | { id: string },
): Promise<{ user: User; otherAdmins: number; otherActiveAdmins: number }> {
  const column = TENANT_COLUMN[tenant.kind];
  const admins = await tx.query<{ id: string; active: boolean }>(
    `select id, password_hash is not null and deactivated_at is null as active
     from users where ${column} = $1 and role = 'admin' and deactivated_at is null for update`,
    [tenant.id],
  );
  const byEmail = 'email' in which;
  const [user] = await tx.query<User>(
    `select ${USER_COLUMNS} from users where ${column} = $1 and ${byEmail ? 'email' : 'id'} = $2`,
    [tenant.id, byEmail ? storedForm(which.email) : which.id],
  );
  if (!user) {
    throw byEmail ? notFound('user with the e-mail address', storedForm(which.email)) : notFound('user');
  }
  const others = admins.filter((admin) => admin.id !== user.id);
  return {
    user,
    otherAdmins: others.length,
    otherActiveAdmins: others.filter((admin) => admin.active).length,
  };
}

/** Whether taking `user` out of the admins (a removal, another role) would leave none of the `others` counted. */
export function isLastAdmin(user: Pick<User, 'role' | 'deactivatedAt'>, others: number): boolean {
  return user.role === 'admin' && user.deactivatedAt === null && others === 0;
}

/**
 * Removes the person of this address from the tenant (an operator's act): their sessions end with them, and their
 * name goes from what they did. CONFLICT rather than leave the tenant without an admin; NOT_FOUND for an address
 * without a user here. `tenantLabel` names the tenant in that message, e.g. `instance "acme"`.
 */
export function removeUserByEmail(
  db: Database,
  tenant: AccountTenant,
  options: { email: string; tenantLabel: string },
): Promise<User> {
  return db.transaction(async (tx) => {
    const { user, otherAdmins } = await personWithAdminsLocked(tx, tenant, { email: options.email });
    if (isLastAdmin(user, otherAdmins)) throw lastAdmin(user.email, options.tenantLabel, 'remove them');
    // Their sessions go with them (user_sessions cascades), and a request still running cannot write one back.
    await endSessionsOf(tx, user.id);
    await tx.query('delete from users where id = $1', [user.id]);
    return user;
  });
}

/**
 * Gives the person of this address in the tenant another role (an operator's act); it counts from their next
 * request. CONFLICT rather than leave the tenant without an admin; NOT_FOUND as {@link removeUserByEmail}.
 */
export function changeRole(
  db: Database,
  tenant: AccountTenant,
  options: { email: string; role: Role; tenantLabel: string },
): Promise<User> {
  return db.transaction(async (tx) => {
    const { user, otherAdmins } = await personWithAdminsLocked(tx, tenant, { email: options.email });
    if (options.role !== 'admin' && isLastAdmin(user, otherAdmins)) {
      throw lastAdmin(user.email, options.tenantLabel, `make them ${options.role}`);
    }
    const [changed] = await tx.query<User>(
      `update users set role = $2 where id = $1 returning ${USER_COLUMNS}`,
      [user.id, options.role],
    );
    return changed ?? user;
  });
}
