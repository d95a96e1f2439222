import type { Database, Queryable } from '../db/database.ts';
import { AppError, factorErrors, lastAdmin, notFound } from '../errors.ts';
import { FACTOR_KINDS_SQL } from './factors/factor-policy.ts';
import { issueLink, type IssuedLink } from './links.ts';
import type { Role } from './roles.ts';
import {
  isLastAdmin,
  personWithAdminsLocked,
  TENANT_COLUMN,
  USER_COLUMNS,
  type AccountTenant,
  type RecordChange,
  type User,
} from './users.ts';

/**
 * What an admin does to a person of their tenant from its people's page, besides inviting them: another role,
 * their access ended (deactivated in the console, removed in the dashboard) or given back, their invitation sent
 * again, their two-step sign-in reset. Each is refused, in words, when it cannot work as things are, by the same
 * rules the page reads to grey it beforehand ({@link peopleWithActions}): the server decides, the page shows it.
 */
export type PersonAction =
  'changeRole' | 'reactivate' | 'resendInvitation' | 'deactivate' | 'remove' | 'resetFactors';

/** Whether an action can be done now and, when it cannot, why, in the words its refusal says. */
export interface Availability {
  allowed: boolean;
  reason: string | null;
}

/** How long after an invitation was mailed to a person another may be: two clicks a moment apart send one mail. */
export const INVITE_AGAIN_AFTER_MS = 60_000;
/** The most invitations one person is mailed in a day, however they were asked for. */
export const INVITATIONS_PER_DAY = 10;
const DAY_MS = 24 * 3600 * 1000;

/** A person as the rules read them: the user, and the invitations mailed to them. */
interface PersonFacts extends User {
  lastInvitedAt: Date | null;
  /** The first invitation of the last 24 hours, and how many went in them. */
  firstInvitedToday: Date | null;
  invitationsToday: number;
  /** Whether they have a second factor (an authenticator app, a passkey) to reset. */
  hasSecondFactor: boolean;
  /** The database's now, which the times above are compared with. */
  now: Date;
}

/** The user of a person's facts, without the facts read beside it. */
function personOf({ id, email, name, role, active, deactivatedAt, createdAt }: PersonFacts): User {
  return { id, email, name, role, active, deactivatedAt, createdAt };
}

/** Who acts, and the tenant's name as the refusals say it. */
interface Acting {
  callerId: string;
  tenantName: string;
}

/** A person as refusals name them: their name, or their address until they have one. */
const labelOf = (user: Pick<User, 'name' | 'email'>) => user.name || user.email;

/** CONFLICT: something done to a deactivated person that needs them back first. */
function deactivated(user: User, then: string): AppError {
  return new AppError('CONFLICT', `${labelOf(user)} is deactivated: reactivate them first, then ${then}.`);
}

/**
 * Why `user` cannot be given `role` (any other role than admin when none is named), or undefined when they can:
 * not while deactivated, and never the last active admin made something else.
 */
function roleRefusal(
  user: User,
  otherActiveAdmins: number,
  acting: Acting,
  role?: Role,
): AppError | undefined {
  if (user.deactivatedAt !== null) return deactivated(user, 'change their role');
  if (role !== 'admin' && isLastAdmin(user, otherActiveAdmins)) {
    const self = user.id === acting.callerId;
    return self
      ? lastAdmin('you', acting.tenantName, 'change your role')
      : lastAdmin(labelOf(user), acting.tenantName, 'change their role');
  }
  return undefined;
}

/** Why `user` cannot be reactivated: they are not deactivated. */
function reactivateRefusal(user: User): AppError | undefined {
  return user.deactivatedAt === null
    ? new AppError('CONFLICT', `${labelOf(user)} is not deactivated: they may sign in already.`)
    : undefined;
}

/**
 * Why `user` cannot be sent their invitation again: they are deactivated, have accepted it, were sent one less
 * than a minute ago, or as many as a day allows.
 */
function resendRefusal(facts: PersonFacts): AppError | undefined {
  if (facts.deactivatedAt !== null) return deactivated(facts, 'send their invitation again');
  const who = labelOf(facts);
  if (facts.active) {
    return new AppError(
      'CONFLICT',
      `${who} has accepted their invitation already: they sign in with their own password, and "Forgot your password?" mails them a new one.`,
    );
  }
  const now = facts.now.getTime();
  const since = facts.lastInvitedAt === null ? Infinity : now - facts.lastInvitedAt.getTime();
  if (since < INVITE_AGAIN_AFTER_MS) {
    const wait = Math.max(1, Math.ceil((INVITE_AGAIN_AFTER_MS - since) / 1000));
    return new AppError(
      'RATE_LIMITED',
      `An invitation went to ${who} ${String(Math.floor(since / 1000))} seconds ago: another can be sent in ${String(wait)} seconds.`,
      undefined,
      { retryAfterSeconds: wait },
    );
  }
  if (facts.invitationsToday >= INVITATIONS_PER_DAY && facts.firstInvitedToday !== null) {
    const wait = Math.max(1, Math.ceil((facts.firstInvitedToday.getTime() + DAY_MS - now) / 1000));
    return new AppError(
      'RATE_LIMITED',
      `${String(facts.invitationsToday)} invitations went to ${who} in the last 24 hours, the most a day allows: another can be sent in ${String(Math.ceil(wait / 3600))} hours.`,
      undefined,
      { retryAfterSeconds: wait },
    );
  }
  return undefined;
}

/** Why the caller cannot end `user`'s access (`verb`: deactivate, remove): never their own, nor twice. */
function endRefusal(user: User, acting: Acting, verb: 'deactivate' | 'remove'): AppError | undefined {
  if (user.id === acting.callerId) {
    return new AppError('CONFLICT', `You cannot ${verb} yourself: ask another admin.`);
  }
  if (user.deactivatedAt !== null) {
    return new AppError('CONFLICT', `${labelOf(user)} is deactivated already.`);
  }
  return undefined;
}

/**
 * Why the caller cannot reset `facts`' two-step sign-in: never their own (they change theirs in their account),
 * nor a deactivated person's, nor one who has none.
 */
export function resetFactorsRefusal(
  facts: Pick<PersonFacts, 'id' | 'name' | 'email' | 'deactivatedAt' | 'hasSecondFactor'>,
  callerId: string,
): AppError | undefined {
  if (facts.id === callerId) return factorErrors.resetOwn();
  if (facts.deactivatedAt !== null) {
    return new AppError('CONFLICT', `${labelOf(facts)} is deactivated: their sessions ended already.`);
  }
  if (!facts.hasSecondFactor) return factorErrors.nothingToReset(labelOf(facts));
  return undefined;
}

/** Why an action cannot be done to a person now, or undefined when it can. */
function refusalOf(
  action: PersonAction,
  facts: PersonFacts,
  otherActiveAdmins: number,
  acting: Acting,
): AppError | undefined {
  switch (action) {
    case 'changeRole':
      return roleRefusal(facts, otherActiveAdmins, acting);
    case 'reactivate':
      return reactivateRefusal(facts);
    case 'resendInvitation':
      return resendRefusal(facts);
    case 'deactivate':
    case 'remove':
      return endRefusal(facts, acting, action);
    case 'resetFactors':
      return resetFactorsRefusal(facts, acting.callerId);
  }
}

/** The people of a tenant (or the one of `id`), with the invitations mailed to them. */
function factsOf(db: Queryable, tenant: AccountTenant, id?: string): Promise<PersonFacts[]> {
  return db.query<PersonFacts>(
    `select ${USER_COLUMNS}, l."lastInvitedAt", l."firstInvitedToday", l."invitationsToday",
       cardinality(${FACTOR_KINDS_SQL('users.id')}) > 0 as "hasSecondFactor", clock_timestamp() as now
     from users left join lateral (
       select max(created_at) as "lastInvitedAt",
         min(created_at) filter (where created_at > clock_timestamp() - interval '1 day') as "firstInvitedToday",
         (count(*) filter (where created_at > clock_timestamp() - interval '1 day'))::integer as "invitationsToday"
       from user_links where user_id = users.id and purpose = 'invitation'
     ) l on true
     where ${TENANT_COLUMN[tenant.kind]} = $1 and ($2::uuid is null or id = $2)
     order by created_at, sequence`,
    [tenant.id, id ?? null],
  );
}

/** A person as a page lists them, with whether each of `actions` can be done to them now, and why not. */
export type PersonWithActions<Action extends PersonAction> = User & { actions: Record<Action, Availability> };

/**
 * The people of the tenant, oldest first, each with whether each of `actions` can be done to them now by the
 * caller, and why not: what the page shows beside its buttons, decided by the rules the actions refuse by.
 */
export async function peopleWithActions<Action extends PersonAction>(
  db: Queryable,
  tenant: AccountTenant & { name: string },
  options: { callerId: string; actions: readonly Action[] },
): Promise<PersonWithActions<Action>[]> {
  const people = await factsOf(db, tenant);
  const acting = { callerId: options.callerId, tenantName: tenant.name };
  const activeAdmins = people.filter(
    (person) => person.role === 'admin' && person.active && person.deactivatedAt === null,
  );
  return people.map((facts) => {
    const user = personOf(facts);
    const others = activeAdmins.filter((admin) => admin.id !== user.id).length;
    const entries = options.actions.map((action) => {
      const refusal = refusalOf(action, facts, others, acting);
      return [action, { allowed: refusal === undefined, reason: refusal?.message ?? null }] as const;
    });
    return { ...user, actions: Object.fromEntries(entries) as Record<Action, Availability> };
  });
}

/** Who acts on a person, in which tenant, and what the caller records beside the change. */
interface PersonChange {
  tenant: AccountTenant & { name: string };
  /** The person changed. */
  id: string;
  /** The admin who changes them. */
  callerId: string;
  record?: RecordChange | undefined;
}

/**
 * Throws the refusal of `ending` (deactivate, remove) the person's access when there is one (see
 * {@link peopleWithActions}); NOT_FOUND for a person of another tenant, as for one that does not exist.
 */
export async function checkEndingAccess(
  db: Queryable,
  change: Omit<PersonChange, 'record'>,
  ending: 'deactivate' | 'remove',
): Promise<void> {
  const [facts] = await factsOf(db, change.tenant, change.id);
  if (!facts) throw notFound('user');
  const refusal = endRefusal(facts, { callerId: change.callerId, tenantName: change.tenant.name }, ending);
  if (refusal) throw refusal;
}

/**
 * Gives a person of the tenant another role (an admin's act), which counts from their next request: CONFLICT for
 * a deactivated person, and rather than leave the tenant without an active admin (one's own role included);
 * NOT_FOUND for a person of another tenant. The same role again changes nothing and records nothing.
 */
export function changePersonRole(db: Database, change: PersonChange & { role: Role }): Promise<User> {
  return db.transaction(async (tx) => {
    const { user, otherActiveAdmins } = await personWithAdminsLocked(tx, change.tenant, { id: change.id });
    const acting = { callerId: change.callerId, tenantName: change.tenant.name };
    const refusal = roleRefusal(user, otherActiveAdmins, acting, change.role);
    if (refusal) throw refusal;
    if (user.role === change.role) return user;
    const [changed] = await tx.query<User>(
      `update users set role = $2 where id = $1 returning ${USER_COLUMNS}`,
      [user.id, change.role],
    );
    if (!changed) throw notFound('user');
    await change.record?.(tx, changed, user);
    return changed;
  });
}

/**
 * Gives a deactivated person their access back (an admin's act): they sign in with the password they had; one who
 * had not accepted their invitation needs it sent again (their links ended with the deactivation). CONFLICT for a
 * person who is not deactivated; NOT_FOUND as {@link changePersonRole}.
 */
export function reactivatePerson(db: Database, change: PersonChange): Promise<User> {
  return db.transaction(async (tx) => {
    const [user] = await tx.query<User>(
      `select ${USER_COLUMNS} from users where ${TENANT_COLUMN[change.tenant.kind]} = $1 and id = $2 for update`,
      [change.tenant.id, change.id],
    );
    if (!user) throw notFound('user');
    const refusal = reactivateRefusal(user);
    if (refusal) throw refusal;
    const [back] = await tx.query<User>(
      `update users set deactivated_at = null, deactivated_by = null where id = $1 returning ${USER_COLUMNS}`,
      [user.id],
    );
    if (!back) throw notFound('user');
    await change.record?.(tx, back, user);
    return back;
  });
}

/**
 * Issues a new invitation link for a person who has not accepted theirs (an admin's act), for the caller to mail:
 * the older link stops working. CONFLICT for a person who has accepted or is deactivated; RATE_LIMITED (with
 * Retry-After) within a minute of the last invitation mailed to them, or past {@link INVITATIONS_PER_DAY} in a
 * day; NOT_FOUND as {@link changePersonRole}.
 */
export function reissueInvitation(
  db: Database,
  change: PersonChange,
): Promise<{ user: User; link: IssuedLink }> {
  return db.transaction(async (tx) => {
    // The person's row locked first, the facts after it in a statement of their own: on PostgreSQL a statement
    // sees what was committed when it began, so a second click that waited for the first sees its link.
    const [locked] = await tx.query(
      `select 1 from users where ${TENANT_COLUMN[change.tenant.kind]} = $1 and id = $2 for update`,
      [change.tenant.id, change.id],
    );
    if (!locked) throw notFound('user');
    const [facts] = await factsOf(tx, change.tenant, change.id);
    if (!facts) throw notFound('user');
    const refusal = resendRefusal(facts);
    if (refusal) throw refusal;
    const user = personOf(facts);
    const link = await issueLink(tx, { userId: user.id, purpose: 'invitation', createdBy: change.callerId });
    await change.record?.(tx, user, user);
    return { user, link };
  });
}
