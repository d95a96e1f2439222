import { invitePersonByMail, type AccountPages } from '../../accounts/people-mail.ts';
import type { ConsoleRole } from '../../accounts/roles.ts';
import { deactivateUser, listUsers, type User } from '../../accounts/users.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { ConsoleCaller, ConsoleDeps } from './deps.ts';
import { consoleInvitationLink, consolePasswordResetLink } from './links.ts';

/** The console, as mail about its people's accounts names it and links to it. */
export function consolePages(deps: Pick<ConsoleDeps, 'mailer' | 'transactionsUrl'>): AccountPages {
  return {
    kind: 'organization',
    product: 'the Portico console',
    invitationLink: (token) => consoleInvitationLink(deps.transactionsUrl(), token),
    passwordResetLink: (token) => consolePasswordResetLink(deps.transactionsUrl(), token),
    mailer: deps.mailer,
  };
}

/** A console person, as the team page shows them. */
type TeamMember = User & { role: ConsoleRole };

/** The organization's people, in the order they were invited, deactivated ones included. */
export async function teamOf(db: Queryable, caller: ConsoleCaller): Promise<{ people: TeamMember[] }> {
  const people = await listUsers(db, { kind: 'organization', id: caller.organization.id });
  return { people: people as TeamMember[] };
}

/** Invites a person to the organization by mail (an admin's act). */
export async function inviteToTeam(
  deps: Pick<ConsoleDeps, 'db' | 'mailer' | 'transactionsUrl'>,
  caller: ConsoleCaller,
  person: { email: string; role: ConsoleRole; name?: string | undefined },
): Promise<{ person: TeamMember }> {
  const { user } = await invitePersonByMail(deps.db, consolePages(deps), {
    tenant: caller.organization,
    ...person,
    invitedBy: caller.user.id,
  });
  return { person: user as TeamMember };
}

/** Deactivates a person of the organization (an admin's act, never their own). */
export async function deactivateMember(
  db: Database,
  caller: ConsoleCaller,
  id: string,
): Promise<{ person: TeamMember }> {
  if (id === caller.user.id) {
    throw new AppError('CONFLICT', 'You cannot deactivate yourself: ask another admin.');
  }
  const person = await deactivateUser(
    db,
    { kind: 'organization', id: caller.organization.id },
    { id, by: caller.user.id },
  );
  return { person: person as TeamMember };
}
