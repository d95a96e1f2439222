import { Badge, Flex, RadioCards, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { api } from '../api.ts';
import { ConfirmDialog } from '../../shared/list/confirm-dialog.tsx';
import { emailProblem, personNameProblem } from '../../shared/form/checks.ts';
import { EmailField, NameField } from '../../shared/form/person-fields.tsx';
import { DialogForm, FormDialog } from '../../shared/list/form-dialog.tsx';
import { ListPage } from '../../shared/list/list-page.tsx';
import { Notice } from '../../shared/notice.tsx';
import { formatDate } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import type { Person, Role } from '../types.ts';
import { errorsOfFields, useApiAction } from '../../shared/use-api-action.ts';
import { useFormFields } from '../../shared/form/use-form-fields.ts';
import { useResource } from '../use-resource.ts';

const ROLE_TEXT: Record<Role, { label: string; can: string }> = {
  admin: { label: 'Admin', can: 'Generates and revokes API keys, invites and removes people.' },
  member: { label: 'Member', can: "Sees the portfolio and the keys' names, changes nothing." },
};

/**
 * Settings → People: who can sign in to the instance, with their role and whether they accepted their
 * invitation; admins invite people by e-mail and remove them (not themselves).
 */
export function PeoplePage() {
  const { user, instance } = useSignedIn();
  const people = useResource<{ people: Person[] }>(`/instances/${instance.slug}/people`);
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
            slug={instance.slug}
            onInvited={(person) => {
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
          <Table.RowHeaderCell>
            <Flex direction="column">
              <Text weight="medium">
                {person.name || person.email}
                {person.id === user.id ? <Text color="gray"> (you)</Text> : null}
              </Text>
              <Text size="1" color="gray" className="show-on-phone">
                {person.email}
              </Text>
            </Flex>
          </Table.RowHeaderCell>
          <Table.Cell className="hide-on-phone">{person.email}</Table.Cell>
          <Table.Cell>
            <Flex gap="1" wrap="wrap">
              <Badge color={person.role === 'admin' ? 'indigo' : 'gray'}>
                {ROLE_TEXT[person.role].label}
              </Badge>
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
                triggerLabel={`Remove ${person.name || person.email}`}
                title={`Remove ${person.name || person.email}?`}
                confirm="Remove"
                onConfirm={async () => {
                  await api('DELETE', `/instances/${instance.slug}/people/${person.id}`);
                  setAnnouncement(`${person.name || person.email} was removed.`);
                  people.reload();
                }}
              >
                {person.name || person.email} is signed out at once and can no longer sign in to{' '}
                {instance.name}. Keys they generated keep working until an admin revokes them.
              </ConfirmDialog>
            ) : null}
          </Table.Cell>
        </Table.Row>
      )}
    </ListPage>
  );
}

/** "Invite": an e-mail address, a name (optional) and a role; the server mails the invitation. */
function InviteDialog({ slug, onInvited }: { slug: string; onInvited: (person: Person) => void }) {
  const [open, setOpen] = useState(false);
  const form = useFormFields({ email: '', name: '' });
  const [role, setRole] = useState<Role>('member');
  const action = useApiAction();

  const reset = () => {
    form.reset();
    setRole('member');
    action.clear();
  };

  const submit = async () => {
    const address = form.values.email.trim();
    const name = form.values.name.trim();
    const found = {
      email: emailProblem(address, 'Enter the e-mail address to invite.'),
      name: personNameProblem(name),
    };
    if (!form.check(found)) return;
    await action.run(
      async () => {
        const { person } = await api<{ person: Person }>('POST', `/instances/${slug}/people`, {
          email: address,
          role,
          ...(name === '' ? {} : { name }),
        });
        setOpen(false);
        reset();
        onInvited(person);
      },
      errorsOfFields(['email', 'name'], form.setProblems),
    );
  };

  return (
    <FormDialog trigger="Invite someone" open={open} setOpen={setOpen} onClose={reset}>
      <DialogForm
        title="Invite someone"
        description="They get an e-mail with a link to set their password. The link works once, for 7 days."
        action={action}
        onSubmit={submit}
        submit="Send invitation"
      >
        <EmailField id="invite-email" autoComplete="off" {...form.field('email')} />
        <NameField
          id="invite-name"
          label="Name"
          hint="Optional: they can set it themselves."
          {...form.field('name')}
        />
        <Flex direction="column" gap="2">
          <Text id="invite-role-label" size="2" weight="medium">
            Role
          </Text>
          <RadioCards.Root
            columns={{ initial: '1', sm: '2' }}
            value={role}
            onValueChange={(value) => {
              setRole(value === 'admin' ? 'admin' : 'member');
            }}
            aria-labelledby="invite-role-label"
          >
            {(['member', 'admin'] as const).map((each) => (
              <RadioCards.Item key={each} value={each}>
                <Flex direction="column" gap="1">
                  <Text weight="medium">{ROLE_TEXT[each].label}</Text>
                  <Text size="1" color="gray">
                    {ROLE_TEXT[each].can}
                  </Text>
                </Flex>
              </RadioCards.Item>
            ))}
          </RadioCards.Root>
        </Flex>
      </DialogForm>
    </FormDialog>
  );
}
