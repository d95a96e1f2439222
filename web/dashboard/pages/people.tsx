import { Badge, Flex, Table } from '@radix-ui/themes';
import { useState } from 'react';
import { api } from '../api.ts';
import { InviteDialog } from '../../shared/accounts/invite-dialog.tsx';
import { RoleBadge } from '../../shared/accounts/roles.tsx';
import { ROLES } from '../roles.ts';
import { nameOf, PersonCell } from '../../shared/accounts/person-cell.tsx';
import { ConfirmDialog } from '../../shared/list/confirm-dialog.tsx';
import { ListPage } from '../../shared/list/list-page.tsx';
import { Notice } from '../../shared/notice.tsx';
import { formatDate } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import type { InvitedAnswer, PeopleAnswer } from '../types.ts';
import { useResource } from '../../shared/use-resource.ts';

/**
 * Settings → People: who can sign in to the instance, with their role and whether they accepted their
 * invitation; admins invite people by e-mail and remove them (not themselves).
 */
export function PeoplePage() {
  const { user, tenant: instance } = useSignedIn();
  const people = useResource<PeopleAnswer>(api, `/instances/${instance.slug}/people`);
  const [announcement, setAnnouncement] = useState<string>();
  const isAdmin = user.role === 'admin';

  return (
    <ListPage
      title="People"
      documentTitle={`People · ${instance.name}`}
      intro={<>Everyone here signs in to {instance.name}&apos;s dashboard with their own password.</>}
      add={
        isAdmin ? (
          <InviteDialog
            roles={ROLES}
            initialRole="member"
            invite={async (invitation) => {
              const { person } = await api<InvitedAnswer>(
                'POST',
                `/instances/${instance.slug}/people`,
                invitation,
              );
              setAnnouncement(`Invitation mailed to ${person.email}. Its link works once, for 7 days.`);
              people.reload();
            }}
          />
        ) : null
      }
      notAllowed={isAdmin ? null : 'Only admins invite and remove people.'}
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
        { label: 'Role' },
        { label: 'Since', wide: true },
      ]}
      actionsLabel="Actions"
    >
      {(person) => (
        <Table.Row key={person.id}>
          <PersonCell person={person} you={person.id === user.id} />
          <Table.Cell className="hide-on-phone">{person.email}</Table.Cell>
          <Table.Cell>
            <Flex gap="1" wrap="wrap">
              <RoleBadge role={person.role} roles={ROLES} />
              {person.active ? null : (
                <Badge color="amber" highContrast>
                  Invited
                </Badge>
              )}
            </Flex>
          </Table.Cell>
          <Table.Cell className="hide-on-phone">
            <time dateTime={person.createdAt}>{formatDate(person.createdAt)}</time>
          </Table.Cell>
          <Table.Cell justify="end">
            {isAdmin && person.id !== user.id ? (
              <ConfirmDialog
                trigger="Remove"
                triggerLabel={`Remove ${nameOf(person)}`}
                title={`Remove ${nameOf(person)}?`}
                confirm="Remove"
                onConfirm={async () => {
                  await api('DELETE', `/instances/${instance.slug}/people/${person.id}`);
                  setAnnouncement(`${nameOf(person)} was removed.`);
                  people.reload();
                }}
              >
                {nameOf(person)} is signed out at once and can no longer sign in to {instance.name}. Keys they
                generated keep working until an admin revokes them.
              </ConfirmDialog>
            ) : null}
          </Table.Cell>
        </Table.Row>
      )}
    </ListPage>
  );
}
