import { Badge, DataList, Flex, Heading, Table } from '@radix-ui/themes';
import { useState } from 'react';
import { InviteDialog } from '../../shared/accounts/invite-dialog.tsx';
import { nameOf, PersonCell } from '../../shared/accounts/person-cell.tsx';
import { RoleBadge } from '../../shared/accounts/roles.tsx';
import { dateFormatters } from '../../shared/format.ts';
import { ConfirmDialog } from '../../shared/list/confirm-dialog.tsx';
import { ListPage } from '../../shared/list/list-page.tsx';
import { Notice } from '../../shared/notice.tsx';
import { useResource } from '../../shared/use-resource.ts';
import { api } from '../api.ts';
import { may, ROLES } from '../roles.ts';
import { useSignedIn } from '../session.tsx';
import type { InvitedAnswer, TeamAnswer, TeamMember } from '../types.ts';

const { formatDate } = dateFormatters('short');

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

/** A person's role and where they are, as badges. */
function RoleAndStatus({ person }: { person: TeamMember }) {
  return (
    <Flex gap="1" wrap="wrap" mt={{ initial: '1', sm: '0' }}>
      <RoleBadge role={person.role} roles={ROLES} />
      <StatusBadge person={person} />
    </Flex>
  );
}

/**
 * The team: who may sign in to the organization's console, with their role and where they are (invited, active,
 * deactivated); admins invite people by e-mail and deactivate them (not themselves), others see the list.
 */
export function TeamPage() {
  const { user, tenant: organization } = useSignedIn();
  const team = useResource<TeamAnswer>(api, '/team');
  const [announcement, setAnnouncement] = useState<string>();
  const managesPeople = may(user.role, 'managePeople');

  return (
    <Flex direction="column" gap="6">
      <ListPage
        title="Team"
        documentTitle={`Team · ${organization.name}`}
        intro={<>Everyone here signs in to {organization.name}&apos;s console with their own password.</>}
        add={
          managesPeople ? (
            <InviteDialog
              roles={ROLES}
              initialRole="viewer"
              invite={async (invitation) => {
                const { person } = await api<InvitedAnswer>('POST', '/team', invitation);
                setAnnouncement(`Invitation mailed to ${person.email}. Its link works once, for 7 days.`);
                team.reload();
              }}
            />
          ) : null
        }
        notAllowed={managesPeople ? null : 'Only admins invite and deactivate people.'}
        status={
          <div role="status">
            {announcement === undefined ? null : (
              <Notice tone="done" highContrast>
                {announcement}
              </Notice>
            )}
          </div>
        }
        rows={team.data?.people}
        error={team.error}
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
            <PersonCell
              person={person}
              you={person.id === user.id}
              onPhone={<RoleAndStatus person={person} />}
            />
            <Table.Cell className="hide-on-phone">{person.email}</Table.Cell>
            <Table.Cell className="hide-on-phone">
              <RoleAndStatus person={person} />
            </Table.Cell>
            <Table.Cell className="hide-on-phone">
              <time dateTime={person.createdAt}>{formatDate(person.createdAt)}</time>
            </Table.Cell>
            <Table.Cell justify="end">
              {managesPeople && person.id !== user.id && person.deactivatedAt === null ? (
                <ConfirmDialog
                  trigger="Deactivate"
                  triggerLabel={`Deactivate ${nameOf(person)}`}
                  title={`Deactivate ${nameOf(person)}?`}
                  confirm="Deactivate"
                  onConfirm={async () => {
                    await api('POST', `/team/${person.id}/deactivate`);
                    setAnnouncement(`${nameOf(person)} was deactivated.`);
                    team.reload();
                  }}
                >
                  {nameOf(person)} is signed out at once and can no longer sign in to {organization.name}
                  &apos;s console. What they did stays, under their name.
                </ConfirmDialog>
              ) : null}
            </Table.Cell>
          </Table.Row>
        )}
      </ListPage>
      <section aria-labelledby="roles-heading">
        <Heading as="h2" size="3" id="roles-heading" mb="3">
          What each role may do
        </Heading>
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
      </section>
    </Flex>
  );
}
