import { CheckCircledIcon, InfoCircledIcon, PlusIcon } from '@radix-ui/react-icons';
import {
  Badge,
  Box,
  Button,
  Callout,
  Dialog,
  Flex,
  RadioCards,
  Skeleton,
  Table,
  Text,
} from '@radix-ui/themes';
import { useState, type SubmitEvent } from 'react';
import { api } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Field } from '../../shared/field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { formatDate } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import type { Person, Role } from '../types.ts';
import { emailProblem, errorsOfFields, useApiAction } from '../../shared/use-api-action.ts';
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
    <Flex direction="column" gap="4">
      <Flex justify="between" align="end" gap="3" wrap="wrap">
        <Flex direction="column" gap="1">
          <PageHeading title="People" documentTitle={`People · ${instance.name}`} />
          <Text size="2" color="gray">
            Everyone here signs in to {instance.name}&apos;s dashboard with their own password.
          </Text>
        </Flex>
        {isAdmin ? (
          <InviteDialog
            slug={instance.slug}
            onInvited={(person) => {
              setAnnouncement(`Invitation mailed to ${person.email}. Its link works once, for 7 days.`);
              people.reload();
            }}
          />
        ) : null}
      </Flex>
      {isAdmin ? null : (
        <Callout.Root color="gray">
          <Callout.Icon>
            <InfoCircledIcon />
          </Callout.Icon>
          <Callout.Text>Only admins invite and remove people.</Callout.Text>
        </Callout.Root>
      )}
      <div role="status">
        {announcement === undefined ? null : (
          <Callout.Root color="green" highContrast>
            <Callout.Icon>
              <CheckCircledIcon />
            </Callout.Icon>
            <Callout.Text>{announcement}</Callout.Text>
          </Callout.Root>
        )}
      </div>
      <ErrorCallout error={people.error} />
      {people.data === undefined ? (
        people.error === undefined ? (
          <Skeleton height="160px" />
        ) : null
      ) : (
        <Box className="table-scroll">
          <Table.Root variant="surface">
            <caption className="visually-hidden">People</caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Name</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">E-mail address</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Role</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Since</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>
                  <span className="visually-hidden">Actions</span>
                </Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {people.data.people.map((person) => (
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
              ))}
            </Table.Body>
          </Table.Root>
        </Box>
      )}
    </Flex>
  );
}

/** "Invite": an e-mail address, a name (optional) and a role; the server mails the invitation. */
function InviteDialog({ slug, onInvited }: { slug: string; onInvited: (person: Person) => void }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [problems, setProblems] = useState<{ email?: string; name?: string }>({});
  const action = useApiAction();

  const reset = () => {
    setEmail('');
    setName('');
    setRole('member');
    setProblems({});
    action.clear();
  };

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const address = email.trim();
    const found = {
      email: emailProblem(address, 'Enter the e-mail address to invite.'),
      name: name.trim().length > 100 ? 'A name has at most 100 characters.' : undefined,
    };
    setProblems(found);
    if (found.email ?? found.name) return;
    await action.run(
      async () => {
        const { person } = await api<{ person: Person }>('POST', `/instances/${slug}/people`, {
          email: address,
          role,
          ...(name.trim() === '' ? {} : { name: name.trim() }),
        });
        setOpen(false);
        reset();
        onInvited(person);
      },
      errorsOfFields(['email', 'name'], setProblems),
    );
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) reset();
      }}
    >
      <Dialog.Trigger>
        <Button>
          <PlusIcon aria-hidden /> Invite someone
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="520px">
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Flex direction="column" gap="4">
            <Dialog.Title mb="0">Invite someone</Dialog.Title>
            <Dialog.Description size="2" color="gray">
              They get an e-mail with a link to set their password. The link works once, for 7 days.
            </Dialog.Description>
            <ErrorCallout error={action.error} />
            <Field
              id="invite-email"
              label="E-mail address"
              type="email"
              inputMode="email"
              autoComplete="off"
              value={email}
              onChange={(event) => {
                setEmail(event.target.value);
              }}
              error={problems.email}
              required
            />
            <Field
              id="invite-name"
              label="Name"
              hint="Optional: they can set it themselves."
              autoComplete="off"
              value={name}
              onChange={(event) => {
                setName(event.target.value);
              }}
              error={problems.name}
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
            <Flex gap="3" justify="end">
              <Dialog.Close>
                <Button type="button" variant="soft" color="gray">
                  Cancel
                </Button>
              </Dialog.Close>
              <Button type="submit" loading={action.busy}>
                Send invitation
              </Button>
            </Flex>
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
