import { Box, Flex, Table, Text } from '@radix-ui/themes';
import { useState, type ReactNode } from 'react';
import { dateFormatters } from '../format.ts';
import { ConfirmDialog } from '../list/confirm-dialog.tsx';
import { ListPage } from '../list/list-page.tsx';
import { Notice } from '../notice.tsx';
import type { Resource } from '../use-resource.ts';
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
  createdAt: string;
}

/** What a person is called on a page: their name, or their address until they have one. */
export function nameOf(person: { name: string; email: string }): string {
  return person.name || person.email;
}

/**
 * The people of the signed-in tenant (the dashboard's Settings → People, the console's Team), under what the
 * page says of them (`children`): each with their name (as text, whatever it holds; "(you)" on one's own row),
 * address, role and `status`, and since when. Those who manage people (`manage`) invite them by e-mail and end
 * their access (`end`: remove, deactivate) after a confirmation, never their own; the others read `notAllowed`.
 * What was done is announced in a live region.
 *
 * @example
 * <PeopleList title="Team" signedIn={useSignedIn()} people={team} roles={ROLES} … manage={{ initialRole, invite, end }}>
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
  /** For those who may manage people: how to invite, and how to end a person's access; undefined for others. */
  manage:
    | {
        initialRole: NoInfer<Role>;
        /** Sends the invitation and answers the person invited. */
        invite: (invitation: Invitation<Role>) => Promise<Person>;
        end: {
          /** The button's verb, e.g. "Remove", "Deactivate". */
          verb: string;
          /** The past participle the announcement uses, e.g. "removed". */
          done: string;
          /** Whether the person's access can be ended (not one's own, not already ended). */
          allowed: (person: Person) => boolean;
          /** What follows from ending it, for the confirmation. */
          consequences: (person: Person) => ReactNode;
          send: (person: Person) => Promise<void>;
        };
      }
    | undefined;
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
              setAnnouncement(`Invitation mailed to ${person.email}. Its link works once, for 7 days.`);
              people.reload();
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
              <Text size="1" color="gray" className="show-on-phone">
                {person.email}
              </Text>
              <Box className="show-on-phone" mt="1">
                {badges(person)}
              </Box>
            </Flex>
          </Table.RowHeaderCell>
          <Table.Cell className="hide-on-phone">{person.email}</Table.Cell>
          <Table.Cell className="hide-on-phone">{badges(person)}</Table.Cell>
          <Table.Cell className="hide-on-phone">
            <time dateTime={person.createdAt}>{formatDate(person.createdAt)}</time>
          </Table.Cell>
          <Table.Cell justify="end">
            {manage && person.id !== you && manage.end.allowed(person) ? (
              <ConfirmDialog
                trigger={manage.end.verb}
                triggerLabel={`${manage.end.verb} ${nameOf(person)}`}
                title={`${manage.end.verb} ${nameOf(person)}?`}
                confirm={manage.end.verb}
                onConfirm={async () => {
                  await manage.end.send(person);
                  setAnnouncement(`${nameOf(person)} was ${manage.end.done}.`);
                  people.reload();
                }}
              >
                {manage.end.consequences(person)}
              </ConfirmDialog>
            ) : null}
          </Table.Cell>
        </Table.Row>
      )}
    </ListPage>
  );
}
