import { Box, Button, Flex, Table, Text } from '@radix-ui/themes';
import { useState, type ReactNode } from 'react';
import { dateFormatters } from '../format.ts';
import { ConfirmDialog } from '../list/confirm-dialog.tsx';
import { ListPage } from '../list/list-page.tsx';
import { Notice } from '../notice.tsx';
import { useApiAction } from '../use-api-action.ts';
import type { Resource } from '../use-resource.ts';
import { ChangeRoleDialog } from './change-role-dialog.tsx';
import { InviteDialog, type Invitation } from './invite-dialog.tsx';
import { RoleBadge, type RoleTexts } from './roles.tsx';
import type { SignedIn } from './session.tsx';

/** The "Since" column's dates: short months, as tables want. */
const { formatDate } = dateFormatters('short');

/** What a list of people shows of each: the fields the dashboard's people and the console's team share. */
export interface ListedPerson<Role extends string> {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Whether they have set a password (accepted their invitation). */
  active: boolean;
  /** When their access was ended, where it can be given back (the console's deactivation). */
  deactivatedAt?: string | null;
  createdAt: string;
}

/** Whether an action can be done to a person now and, when it cannot, why: the server's words. */
export interface Availability {
  allowed: boolean;
  reason: string | null;
}

/** The actions of a person's row, as the server says each can be done now. */
export interface PersonActions {
  changeRole: Availability;
  resendInvitation: Availability;
  /** Ending their access (deactivate, remove). */
  end: Availability;
  /** Giving it back, where it can be (the console's). */
  reactivate?: Availability;
  /** Resetting their two-step sign-in (none to reset, their own). */
  resetFactors?: Availability;
}

/** What a person is called on a page: their name, or their address until they have one. */
export function nameOf(person: { name: string; email: string }): string {
  return person.name || person.email;
}

/** What those who manage people may do from the list, and how each is sent to the surface's routes. */
export interface PeopleManagement<Role extends string, Person extends ListedPerson<Role>> {
  initialRole: NoInfer<Role>;
  /** Sends the invitation and answers the person invited. */
  invite: (invitation: Invitation<Role>) => Promise<{ email: string }>;
  /** Whether each action can be done to a person now, and why not, as the server said with the list. */
  actions: (person: Person) => PersonActions;
  changeRole: (person: Person, role: Role) => Promise<void>;
  /** Mails a new invitation; the older link stops working. */
  resendInvitation: (person: Person) => Promise<void>;
  /** Gives a person whose access ended it back, where a surface keeps them (the console). */
  reactivate?: ((person: Person) => Promise<void>) | undefined;
  /** Ends every session of a colleague (they sign in again); answers how many ended. */
  endSessions?: ((person: Person) => Promise<number>) | undefined;
  /**
   * Resets a colleague's two-step sign-in (their authenticator app and recovery codes go, their sessions end, they
   * are mailed); answers whether the mail went.
   */
  resetFactors?: ((person: Person) => Promise<{ mailed: boolean }>) | undefined;
  end: {
    /** The button's verb, e.g. "Remove", "Deactivate". */
    verb: string;
    /** The past participle the announcement uses, e.g. "removed". */
    done: string;
    /** What follows from ending it, for the confirmation. */
    consequences: (person: Person) => ReactNode;
    send: (person: Person) => Promise<void>;
  };
}

/**
 * The people of the signed-in tenant (the dashboard's Settings → People, the console's Team), under what the
 * page says of them (`children`): each with their name (as text, whatever it holds; "(you)" on one's own row;
 * their address once, for someone invited without a name), address, role and `status`, and since when. Those who
 * manage people (`manage`) invite them by e-mail, change their roles (their own too), mail an invitation again
 * to someone who has not accepted, end their access (`end`: remove, deactivate) after a confirmation, never
 * their own, and give it back (`reactivate`); each action the row offers is greyed, with the server's reason
 * beside it, when it cannot work now. The others read `notAllowed`. What was done is announced in a live region.
 *
 * @example
 * <PeopleList title="Team" signedIn={useSignedIn()} people={team} roles={ROLES} … manage={{ initialRole, invite, … }}>
 *   Everyone here signs in to the console with their own password.
 * </PeopleList>
 */
export function PeopleList<Role extends string, Person extends ListedPerson<Role>>({
  title,
  signedIn,
  people,
  roles,
  status,
  manage,
  notAllowed,
  children,
}: {
  title: string;
  /** Who reads the list, and the tenant whose people it lists. */
  signedIn: SignedIn<{ id: string }, { name: string }>;
  people: Resource<{ people: Person[] }>;
  roles: RoleTexts<Role>;
  /** Badges beside the role: invited, deactivated. */
  status: (person: Person) => ReactNode;
  /** For those who may manage people: what they may do; undefined for others. */
  manage: PeopleManagement<Role, Person> | undefined;
  notAllowed: string;
  children: ReactNode;
}) {
  const you = signedIn.user.id;
  const [announcement, setAnnouncement] = useState<string>();
  const badges = (person: Person) => (
    <Flex gap="1" wrap="wrap">
      <RoleBadge role={person.role} roles={roles} />
      {status(person)}
    </Flex>
  );
  /** Announces what was done, and reads the list again. */
  const done = (what: string) => {
    setAnnouncement(what);
    people.reload();
  };

  return (
    <ListPage
      title={title}
      documentTitle={`${title} · ${signedIn.tenant.name}`}
      intro={children}
      add={
        manage ? (
          <InviteDialog
            roles={roles}
            initialRole={manage.initialRole}
            invite={async (invitation) => {
              const person = await manage.invite(invitation);
              done(`Invitation mailed to ${person.email}. Its link works once, for 7 days.`);
            }}
          />
        ) : null
      }
      notAllowed={manage ? null : notAllowed}
      status={
        <div role="status">
          {announcement === undefined ? null : (
            <Notice tone="done" highContrast>
              {announcement}
            </Notice>
          )}
        </div>
      }
      rows={people.data?.people}
      error={people.error}
      columns={[
        { label: 'Name' },
        { label: 'E-mail address', wide: true },
        { label: 'Role', wide: true },
        { label: 'Since', wide: true },
      ]}
      actionsLabel="Actions"
    >
      {(person) => (
        <Table.Row key={person.id}>
          <Table.RowHeaderCell>
            <Flex direction="column">
              <Text weight="medium">
                {nameOf(person)}
                {person.id === you ? <Text color="gray"> (you)</Text> : null}
              </Text>
              {/* On a phone, where their columns are hidden, the address and the role under the name. */}
              {person.name === '' ? null : (
                <Text size="1" color="gray" className="show-on-phone">
                  {person.email}
                </Text>
              )}
              <Box className="show-on-phone" mt="1">
                {badges(person)}
              </Box>
            </Flex>
          </Table.RowHeaderCell>
          {/* Someone invited without a name is called by their address already: it is not said twice. */}
          <Table.Cell className="hide-on-phone">{person.name === '' ? null : person.email}</Table.Cell>
          <Table.Cell className="hide-on-phone">{badges(person)}</Table.Cell>
          {/* A date on one line: "Nov 28, 2026" broken in two reads as two facts. */}
          <Table.Cell className="hide-on-phone" style={{ whiteSpace: 'nowrap' }}>
            <time dateTime={person.createdAt}>{formatDate(person.createdAt)}</time>
          </Table.Cell>
          <Table.Cell justify="end">
            {manage ? (
              <RowActions
                person={person}
                self={person.id === you}
                roles={roles}
                manage={manage}
                done={done}
              />
            ) : null}
          </Table.Cell>
        </Table.Row>
      )}
    </ListPage>
  );
}

/**
 * The buttons of one person's row, for those who manage people: those that fit where the person is (invited,
 * active, access ended), each greyed with the server's reason beside it when it cannot work now.
 */
function RowActions<Role extends string, Person extends ListedPerson<Role>>({
  person,
  self,
  roles,
  manage,
  done,
}: {
  person: Person;
  self: boolean;
  roles: RoleTexts<Role>;
  manage: PeopleManagement<Role, Person>;
  done: (what: string) => void;
}) {
  const action = useApiAction();
  const label = nameOf(person);
  const ended = person.deactivatedAt !== undefined && person.deactivatedAt !== null;
  const { reactivate } = manage;
  const availability = manage.actions(person);
  const offered = {
    changeRole: !ended,
    resendInvitation: !ended && !person.active,
    end: !ended && !self,
    reactivate: ended && reactivate !== undefined,
    // Offered only to reset what there is: a row per colleague saying they have none would be noise.
    resetFactors:
      !ended &&
      !self &&
      person.active &&
      manage.resetFactors !== undefined &&
      availability.resetFactors?.allowed !== false,
  };
  /** The reasons of the offered actions that cannot work now, each once, and the id of the text of each. */
  const reasons = [
    ...new Set(
      (Object.keys(offered) as (keyof typeof offered)[]).flatMap((key) => {
        const reason = offered[key] ? availability[key]?.reason : null;
        return reason === null || reason === undefined ? [] : [reason];
      }),
    ),
  ];
  const unavailable = (key: keyof PersonActions) => {
    const reason = availability[key]?.reason;
    return availability[key]?.allowed !== false || reason === null || reason === undefined
      ? undefined
      : { reasonId: `person-${person.id}-reason-${String(reasons.indexOf(reason))}` };
  };

  return (
    <Flex direction="column" align="end" gap="1">
      <Flex gap="2" wrap="wrap" justify="end">
        {offered.changeRole ? (
          <ChangeRoleDialog
            person={{ id: person.id, role: person.role, label }}
            self={self}
            roles={roles}
            unavailable={unavailable('changeRole')}
            change={async (role) => {
              await manage.changeRole(person, role);
              done(`${self ? 'You are' : `${label} is`} now ${roles[role].label.toLowerCase()}.`);
            }}
          />
        ) : null}
        {offered.resendInvitation ? (
          <Button
            variant="soft"
            size="1"
            aria-label={`Resend invitation to ${label}`}
            disabled={unavailable('resendInvitation') !== undefined}
            aria-describedby={unavailable('resendInvitation')?.reasonId}
            loading={action.busy}
            onClick={() =>
              void action.run(async () => {
                await manage.resendInvitation(person);
                done(
                  `A new invitation is mailed to ${person.email}; the link mailed before no longer works. The new one works once, for 7 days.`,
                );
              })
            }
          >
            Resend invitation
          </Button>
        ) : null}
        {!ended && !self && person.active && manage.endSessions ? (
          <Button
            variant="soft"
            size="1"
            aria-label={`End sessions of ${label}`}
            loading={action.busy}
            onClick={() =>
              void action.run(async () => {
                const count = (await manage.endSessions?.(person)) ?? 0;
                done(`${label} is signed out of ${String(count)} session${count === 1 ? '' : 's'}.`);
              })
            }
          >
            End sessions
          </Button>
        ) : null}
        {offered.resetFactors ? (
          <ConfirmDialog
            trigger="Reset two-step sign-in"
            triggerLabel={`Reset two-step sign-in of ${label}`}
            title={`Reset the two-step sign-in of ${label}?`}
            confirm="Reset two-step sign-in"
            onConfirm={async () => {
              const reset = await manage.resetFactors?.(person);
              done(
                reset?.mailed === false
                  ? `The two-step sign-in of ${label} was reset and they are signed out, but the mail to them could not be sent: tell them yourself.`
                  : `The two-step sign-in of ${label} was reset: they are signed out, and mailed about it.`,
              );
            }}
          >
            Their authenticator app, recovery codes and passkeys stop working, and they are signed out
            everywhere. They sign in with their password, and add an app or a passkey again. Do this only when
            you know it is them asking (a lost phone, say): they are mailed about it.
          </ConfirmDialog>
        ) : null}
        {offered.reactivate && reactivate ? (
          <Button
            variant="soft"
            size="1"
            aria-label={`Reactivate ${label}`}
            disabled={unavailable('reactivate') !== undefined}
            aria-describedby={unavailable('reactivate')?.reasonId}
            loading={action.busy}
            onClick={() =>
              void action.run(async () => {
                await reactivate(person);
                done(
                  person.active
                    ? `${label} was reactivated: they sign in with their password again.`
                    : `${label} was reactivated: resend their invitation, so that they can set a password.`,
                );
              })
            }
          >
            Reactivate
          </Button>
        ) : null}
        {offered.end ? (
          <ConfirmDialog
            trigger={manage.end.verb}
            triggerLabel={`${manage.end.verb} ${label}`}
            title={`${manage.end.verb} ${label}?`}
            confirm={manage.end.verb}
            unavailable={unavailable('end')}
            onConfirm={async () => {
              await manage.end.send(person);
              done(`${label} was ${manage.end.done}.`);
            }}
          >
            {manage.end.consequences(person)}
          </ConfirmDialog>
        ) : null}
      </Flex>
      {reasons.map((reason, index) => (
        <Text
          as="p"
          size="1"
          color="gray"
          align="right"
          key={reason}
          id={`person-${person.id}-reason-${String(index)}`}
        >
          Not now: {reason}
        </Text>
      ))}
      {action.error === undefined ? null : (
        <Text as="p" size="1" color="red" align="right" role="alert">
          {action.error.message}
        </Text>
      )}
    </Flex>
  );
}
