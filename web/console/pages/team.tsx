import { Badge, DataList, Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { nameOf, PeopleList } from '../../shared/accounts/people-list.tsx';
import { RoleBadge } from '../../shared/accounts/roles.tsx';
import { SecondFactorPolicyForm } from '../../shared/accounts/factors/second-factor-policy.tsx';
import { dateFormatters } from '../../shared/format.ts';
import { HeadedSection } from '../../shared/layout/headed-section.tsx';
import { SsoSettings } from '../../shared/accounts/sso/sso-settings.tsx';
import { useResource } from '../../shared/use-resource.ts';
import { consoleApi } from '../api.ts';
import { may, ROLES } from '../roles.ts';
import { useSignedIn } from '../session.tsx';
import type { TeamActivityEntry, TeamAnswer, TeamMember } from '../types.ts';
import { label, words } from '../words.ts';

const { formatDateTime } = dateFormatters('short');
/** The most entries of the team's activity the page shows. */
const ACTIVITY_SHOWN = 20;

/** Where a person is: invited (no password yet), active, or deactivated (may no longer sign in). */
function StatusBadge({ person }: { person: TeamMember }) {
  if (person.deactivatedAt !== null) {
    return (
      <Badge color="gray" variant="outline">
        Deactivated
      </Badge>
    );
  }
  return person.active ? (
    <Badge color="green" highContrast>
      Active
    </Badge>
  ) : (
    <Badge color="amber" highContrast>
      Invited
    </Badge>
  );
}

/** How much of a comment the activity shows: the rest is on the transaction's page. */
const COMMENT_SHOWN = 120;

/** The changes to the team, in words before the person's name (src/transactions/history/team-activity.ts). */
const TEAM_CHANGES: Record<string, string> = {
  sessions_ended: 'ended the sessions of',
  factors_reset: 'reset the two-step sign-in of',
  factor_policy_changed: 'changed who must use two-step sign-in',
  sso_configured: 'set up single sign-on',
  sso_removed: 'removed single sign-on',
  sso_joined: 'joined through single sign-on',
  invited: 'invited',
  invitation_resent: 'sent a new invitation to',
  role_changed: 'changed the role of',
  deactivated: 'deactivated',
  reactivated: 'reactivated',
};

/** The titles the server gives a workflow entry's event and states (`details.titles`), each when it is there. */
function titlesOf(entry: TeamActivityEntry): { event?: string; from?: string; to?: string } {
  const { titles } = entry.details;
  if (typeof titles !== 'object' || titles === null) return {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const { event, from, to } = titles as Record<string, unknown>;
  return { event: text(event), from: text(from), to: text(to) };
}

/** What an entry of the team's activity says was done, in words: a workflow event by its template's title. */
function didWhat(entry: TeamActivityEntry): string {
  if (entry.kind === 'team') return TEAM_CHANGES[entry.action] ?? words(entry.action);
  if (entry.kind === 'workflow') return `chose ${titlesOf(entry).event ?? label(entry.action)} on`;
  return `${words(entry.action)} on`;
}

/** What follows the investor's name in an entry about a transaction: where a workflow event moved it. */
function whereTo(entry: TeamActivityEntry): string {
  const { from, to } = entry.details;
  if (entry.kind !== 'workflow' || typeof to !== 'string') return '';
  const titles = titlesOf(entry);
  const source = typeof from === 'string' ? (titles.from ?? words(from)) : 'created';
  return ` (${source} → ${titles.to ?? words(to)})`;
}

/** What follows the investor's name in an entry about a comment: its text, and that it is internal when it is. */
function whatSaid(entry: TeamActivityEntry): string {
  const { comment, forInvestor } = entry.details;
  if (typeof comment !== 'string') return '';
  const text = comment.length > COMMENT_SHOWN ? `${comment.slice(0, COMMENT_SHOWN)}…` : comment;
  return `: “${text}”${forInvestor === false ? ' (internal note)' : ''}`;
}

/** What follows the person's name in an entry of the team's activity: the role a change gave them. */
function toWhat(entry: TeamActivityEntry): string {
  const to = entry.action === 'sso_joined' ? entry.details.role : entry.details.to;
  if (entry.action === 'sso_joined' && typeof to === 'string' && to in ROLES) {
    return `as ${ROLES[to as keyof typeof ROLES].label.toLowerCase()}`;
  }
  return entry.action === 'role_changed' && typeof to === 'string' && to in ROLES
    ? ` to ${ROLES[to as keyof typeof ROLES].label.toLowerCase()}`
    : '';
}

/**
 * What the team did lately, newest first: the events its people ran, their comments, reminders and other
 * actions on transactions, and the changes to the team (GET /team/activity).
 */
function TeamActivity({ team }: { team: TeamAnswer | undefined }) {
  const activity = useResource(consoleApi, 'GET /team/activity');
  const { reload } = activity;
  // A change to the team made on this page is activity too: read it again once the team changed.
  useEffect(() => {
    if (team) reload();
  }, [team, reload]);
  const entries = activity.data?.entries.slice(0, ACTIVITY_SHOWN);
  return (
    <HeadedSection id="activity-heading" title="Recent activity" size="3">
      <ErrorCallout error={activity.error} />
      {entries === undefined ? null : entries.length === 0 ? (
        <Text size="2" color="gray">
          Nothing yet: what people do in the console shows here.
        </Text>
      ) : (
        <Flex direction="column" gap="2" asChild>
          <ul className="plain-list">
            {entries.map((entry) => (
              <li key={`${entry.kind} ${entry.id}`}>
                <Text size="2">
                  <Text weight="medium">{entry.actor.label}</Text> {didWhat(entry)}{' '}
                  {entry.transaction ? (
                    <ThemeLink asChild>
                      <Link to={`/transactions/${entry.transaction.id}`}>
                        {entry.transaction.investorName}
                      </Link>
                    </ThemeLink>
                  ) : (
                    // A change to single sign-on, or a person who joined through it, names no one else.
                    `${entry.action.startsWith('sso_') ? '' : (entry.person?.label ?? '')}${toWhat(entry)}`
                  )}
                  {whereTo(entry)}
                  {whatSaid(entry)}
                </Text>{' '}
                <Text size="1" color="gray">
                  {formatDateTime(entry.at)}
                </Text>
              </li>
            ))}
          </ul>
        </Flex>
      )}
    </HeadedSection>
  );
}

/**
 * The team: who may sign in to the organization's console, with their role and where they are (invited, active,
 * deactivated), what they did lately, and what each role may do; admins invite people by e-mail, change their
 * roles, mail an invitation again, deactivate them (not themselves) and reactivate them, each greyed with the
 * server's reason when it cannot work now (the last admin's own role); others see the list.
 */
/** The organization's single sign-on, for admins (the shared section, on the console's routes). */
function TeamSso() {
  const settings = useResource(consoleApi, 'GET /sso');
  return (
    <SsoSettings
      settings={settings}
      save={(body) => consoleApi('PUT /sso', { body })}
      remove={async () => {
        await consoleApi('DELETE /sso');
      }}
      roles={ROLES}
      people="the people of your organization"
    />
  );
}

export function TeamPage() {
  const signedIn = useSignedIn();
  const { user, tenant: organization } = signedIn;
  const team = useResource(consoleApi, 'GET /team');

  return (
    <Flex direction="column" gap="6">
      <PeopleList
        title="Team"
        signedIn={signedIn}
        people={team}
        roles={ROLES}
        status={(person) => <StatusBadge person={person} />}
        manage={
          may(user.role, 'managePeople')
            ? {
                initialRole: 'viewer',
                invite: async (invitation) => (await consoleApi('POST /team', { body: invitation })).person,
                actions: ({ actions }) => ({ ...actions, end: actions.deactivate }),
                changeRole: async (person, role) => {
                  await consoleApi('PUT /team/:id/role', { params: { id: person.id }, body: { role } });
                },
                resendInvitation: async (person) => {
                  await consoleApi('POST /team/:id/invitation', { params: { id: person.id } });
                },
                endSessions: async (person) =>
                  (await consoleApi('POST /team/:id/sessions/end', { params: { id: person.id } }))
                    .sessionsEnded,
                resetFactors: (person) =>
                  consoleApi('POST /team/:id/factors/reset', { params: { id: person.id } }),
                reactivate: async (person) => {
                  await consoleApi('POST /team/:id/reactivate', { params: { id: person.id } });
                },
                end: {
                  verb: 'Deactivate',
                  done: 'deactivated',
                  consequences: (person) => (
                    <>
                      {nameOf(person)} is signed out at once and can no longer sign in to {organization.name}
                      &apos;s console. What they did stays, under their name.
                    </>
                  ),
                  send: async (person) => {
                    await consoleApi('POST /team/:id/deactivate', { params: { id: person.id } });
                  },
                },
              }
            : undefined
        }
        notAllowed="Only admins invite and deactivate people."
      >
        Everyone here signs in to {organization.name}&apos;s console with their own password.
      </PeopleList>
      {may(user.role, 'managePeople') ? (
        <SecondFactorPolicyForm
          roles={ROLES}
          read={() => consoleApi('GET /security/second-factor')}
          save={(policy) => consoleApi('PUT /security/second-factor', { body: policy })}
          onSaved={team.reload}
        />
      ) : null}
      {may(user.role, 'managePeople') ? <TeamSso /> : null}
      <TeamActivity team={team.data} />
      <HeadedSection id="roles-heading" title="What each role may do" size="3">
        <DataList.Root orientation={{ initial: 'vertical', sm: 'horizontal' }}>
          {(Object.keys(ROLES) as (keyof typeof ROLES)[]).map((role) => (
            <DataList.Item key={role}>
              <DataList.Label minWidth="100px">
                <RoleBadge role={role} roles={ROLES} />
              </DataList.Label>
              <DataList.Value>{ROLES[role].can}</DataList.Value>
            </DataList.Item>
          ))}
        </DataList.Root>
      </HeadedSection>
    </Flex>
  );
}
