import { invitePersonByMail, resendInvitationByMail, type AccountPages } from '../../accounts/people-mail.ts';
import {
  changePersonRole,
  checkEndingAccess,
  peopleWithActions,
  reactivatePerson,
  type PersonWithActions,
} from '../../accounts/person-changes.ts';
import type { ConsoleRole } from '../../accounts/roles.ts';
import { deactivateUser, type RecordChange, type User } from '../../accounts/users.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { recordTeamChange, type TeamChange } from '../history/team-activity.ts';
import type { ConsoleCaller, ConsoleDeps } from './deps.ts';
import { consoleInvitationLink, consolePasswordResetLink } from './links.ts';

/** The console, as mail about its people's accounts names it and links to it. */
export function consolePages(deps: Pick<ConsoleDeps, 'mailer' | 'transactionsUrl'>): AccountPages {
  return {
    kind: 'organization',
    product: 'the Portico console',
    invitationLink: (token) => consoleInvitationLink(deps.transactionsUrl(), token),
    passwordResetLink: (token) => consolePasswordResetLink(deps.transactionsUrl(), token),
    publicUrl: () => deps.transactionsUrl(),
    mailer: deps.mailer,
  };
}

/** A console person, as the team page shows them. */
type TeamMember = User & { role: ConsoleRole };

/** What an admin does to a person from the team page, besides inviting them (accounts/person-changes.ts). */
const TEAM_ACTIONS = ['changeRole', 'reactivate', 'resendInvitation', 'deactivate', 'resetFactors'] as const;

/** The caller's organization, as the rules of a person's changes take it. */
const tenantOf = (caller: ConsoleCaller) => ({ kind: 'organization' as const, ...caller.organization });

/** A change to a person of the team, asked for by `caller` in the request of `requestId`. */
interface MemberChange {
  /** The person changed. */
  id: string;
  requestId?: string | undefined;
}

/** Records a change to the team in its activity (history/team-activity.ts), in the change's transaction. */
function recorded(
  caller: ConsoleCaller,
  action: TeamChange,
  requestId: string | undefined,
  details?: (person: User, before: User | undefined) => Record<string, unknown>,
): RecordChange {
  return (tx: Queryable, person, before) =>
    recordTeamChange(tx, {
      organizationId: caller.organization.id,
      userId: person.id,
      actorId: caller.user.id,
      action,
      details: details?.(person, before),
      requestId,
    });
}

/**
 * The organization's people, in the order they were invited, deactivated ones included, each with whether each
 * action of the team page can be done to them now by the caller, and why not (the page greys what cannot work).
 */
export async function teamOf(
  db: Queryable,
  caller: ConsoleCaller,
): Promise<{ people: (PersonWithActions<(typeof TEAM_ACTIONS)[number]> & { role: ConsoleRole })[] }> {
  const people = await peopleWithActions(db, tenantOf(caller), {
    callerId: caller.user.id,
    actions: TEAM_ACTIONS,
  });
  return { people: people as (PersonWithActions<(typeof TEAM_ACTIONS)[number]> & { role: ConsoleRole })[] };
}

/** Invites a person to the organization by mail (an admin's act), in the mail's words from the caller. */
export async function inviteToTeam(
  deps: Pick<ConsoleDeps, 'db' | 'mailer' | 'transactionsUrl'>,
  caller: ConsoleCaller,
  person: { email: string; role: ConsoleRole; name?: string | undefined; requestId?: string | undefined },
): Promise<{ person: TeamMember }> {
  const { requestId, ...invitation } = person;
  const { user } = await invitePersonByMail(deps.db, consolePages(deps), {
    tenant: caller.organization,
    ...invitation,
    invitedBy: caller.user,
    record: recorded(caller, 'invited', requestId, (invited) => ({ role: invited.role })),
  });
  return { person: user as TeamMember };
}

/** Deactivates a person of the organization (an admin's act, never their own, nor twice). */
export async function deactivateMember(
  db: Database,
  caller: ConsoleCaller,
  change: MemberChange,
): Promise<{ person: TeamMember }> {
  const tenant = tenantOf(caller);
  await checkEndingAccess(db, { tenant, id: change.id, callerId: caller.user.id }, 'deactivate');
  const person = await deactivateUser(db, tenant, {
    id: change.id,
    by: caller.user.id,
    record: recorded(caller, 'deactivated', change.requestId),
  });
  return { person: person as TeamMember };
}

/**
 * Gives a person of the organization another role (an admin's act, their own included), never leaving it without
 * an active admin.
 */
export async function changeMemberRole(
  db: Database,
  caller: ConsoleCaller,
  change: MemberChange & { role: ConsoleRole },
): Promise<{ person: TeamMember }> {
  const person = await changePersonRole(db, {
    tenant: tenantOf(caller),
    id: change.id,
    callerId: caller.user.id,
    role: change.role,
    record: recorded(caller, 'role_changed', change.requestId, (after, before) => ({
      from: before?.role,
      to: after.role,
    })),
  });
  return { person: person as TeamMember };
}

/** Gives a deactivated person of the organization their access back (an admin's act). */
export async function reactivateMember(
  db: Database,
  caller: ConsoleCaller,
  change: MemberChange,
): Promise<{ person: TeamMember }> {
  const person = await reactivatePerson(db, {
    tenant: tenantOf(caller),
    id: change.id,
    callerId: caller.user.id,
    record: recorded(caller, 'reactivated', change.requestId),
  });
  return { person: person as TeamMember };
}

/**
 * Mails a person who has not accepted their invitation a new one, from the caller (an admin's act): the older link
 * stops working; not twice within a minute.
 */
export async function resendTeamInvitation(
  deps: Pick<ConsoleDeps, 'db' | 'mailer' | 'transactionsUrl'>,
  caller: ConsoleCaller,
  change: MemberChange,
): Promise<{ person: TeamMember; expiresAt: Date }> {
  const { user, expiresAt } = await resendInvitationByMail(deps.db, consolePages(deps), {
    tenant: caller.organization,
    id: change.id,
    by: caller.user,
    record: recorded(caller, 'invitation_resent', change.requestId),
  });
  return { person: user as TeamMember, expiresAt };
}
