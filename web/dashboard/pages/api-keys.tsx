import { ExclamationTriangleIcon, InfoCircledIcon, PlusIcon } from '@radix-ui/react-icons';
import {
  Badge,
  Box,
  Button,
  Callout,
  Code,
  Dialog,
  Flex,
  Skeleton,
  Table,
  Text,
  TextField,
} from '@radix-ui/themes';
import { useState, type SubmitEvent } from 'react';
import { api } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { CopyButton } from '../../shared/copy-button.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Field } from '../../shared/field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { formatDateTime, formatRelative } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import type { ApiKey } from '../types.ts';
import { errorsOfFields, useApiAction } from '../../shared/use-api-action.ts';
import { useResource } from '../use-resource.ts';

/** The longest key name (KEY_NAME_MAX in src/portfolio/instances.ts). */
const NAME_MAX = 100;

/**
 * Settings → API keys: the instance's Portfolio API keys (name, prefix, creator, creation, last use, revoked);
 * admins generate keys (shown once, with a copy button) and revoke them after confirming.
 */
export function ApiKeysPage() {
  const { user, instance } = useSignedIn();
  const keys = useResource<{ keys: ApiKey[] }>(`/instances/${instance.slug}/keys`);
  const [announcement, setAnnouncement] = useState('');
  const isAdmin = user.role === 'admin';

  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="end" gap="3" wrap="wrap">
        <Flex direction="column" gap="1">
          <PageHeading title="API keys" documentTitle={`API keys · ${instance.name}`} />
          <Text size="2" color="gray">
            Keys let your programs read {instance.name}&apos;s portfolio from the Portfolio API (
            <Code>/v1/external</Code>), sent as they are in the <Code>Authorization</Code> header.
          </Text>
        </Flex>
        {isAdmin ? (
          <GenerateKeyDialog
            slug={instance.slug}
            onGenerated={(key) => {
              setAnnouncement(`Key ${key.name} generated.`);
              keys.reload();
            }}
          />
        ) : null}
      </Flex>
      {isAdmin ? null : (
        <Callout.Root color="gray">
          <Callout.Icon>
            <InfoCircledIcon />
          </Callout.Icon>
          <Callout.Text>
            Only admins generate and revoke keys. Ask an admin of {instance.name} for one.
          </Callout.Text>
        </Callout.Root>
      )}
      <Text role="status" className="visually-hidden">
        {announcement}
      </Text>
      <ErrorCallout error={keys.error} />
      {keys.data === undefined ? (
        keys.error === undefined ? (
          <Skeleton height="160px" />
        ) : null
      ) : keys.data.keys.length === 0 ? (
        <Box className="empty-state">
          <Text as="p" weight="medium">
            No keys yet
          </Text>
          <Text as="p" size="2" color="gray">
            {isAdmin ? 'Generate one for each program that reads the portfolio.' : 'An admin generates them.'}
          </Text>
        </Box>
      ) : (
        <Box className="table-scroll">
          <Table.Root variant="surface">
            <caption className="visually-hidden">API keys</caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Name</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Key</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Created by</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Created</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Last used</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>
                  <span className="visually-hidden">Status and actions</span>
                </Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {keys.data.keys.map((key) => (
                <Table.Row key={key.id} className={key.revokedAt === null ? undefined : 'revoked-row'}>
                  <Table.RowHeaderCell>
                    <Flex direction="column">
                      <Text weight="medium">{key.name}</Text>
                      <Code variant="ghost" size="1" className="key-prefix show-on-phone">
                        {key.prefix}…
                      </Code>
                    </Flex>
                  </Table.RowHeaderCell>
                  <Table.Cell className="hide-on-phone">
                    <Code variant="ghost" className="key-prefix">
                      {key.prefix}…
                    </Code>
                  </Table.Cell>
                  <Table.Cell className="hide-on-phone">
                    {key.createdBy === null ? (
                      <Text color="gray">CLI</Text>
                    ) : (
                      <Text title={key.createdBy.email}>{key.createdBy.name || key.createdBy.email}</Text>
                    )}
                  </Table.Cell>
                  <Table.Cell className="hide-on-phone">
                    <time dateTime={key.createdAt}>{formatDateTime(key.createdAt)}</time>
                  </Table.Cell>
                  <Table.Cell>
                    {key.lastUsedAt === null ? (
                      <Text color="gray">Never</Text>
                    ) : (
                      <time dateTime={key.lastUsedAt} title={formatDateTime(key.lastUsedAt)}>
                        {formatRelative(key.lastUsedAt)}
                      </time>
                    )}
                  </Table.Cell>
                  <Table.Cell justify="end">
                    {key.revokedAt !== null ? (
                      <Badge color="red" highContrast title={`Revoked ${formatDateTime(key.revokedAt)}`}>
                        Revoked {formatRelative(key.revokedAt)}
                      </Badge>
                    ) : isAdmin ? (
                      <ConfirmDialog
                        trigger="Revoke"
                        triggerLabel={`Revoke ${key.name}`}
                        title={`Revoke “${key.name}”?`}
                        confirm="Revoke key"
                        onConfirm={async () => {
                          await api('DELETE', `/instances/${instance.slug}/keys/${key.id}`);
                          setAnnouncement(`Key ${key.name} revoked.`);
                          keys.reload();
                        }}
                      >
                        The Portfolio API refuses the key <Code>{key.prefix}…</Code> within a second,
                        everywhere. This cannot be undone: whatever still uses it needs a new key.
                      </ConfirmDialog>
                    ) : (
                      <Badge color="green" highContrast>
                        Active
                      </Badge>
                    )}
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

/** "Generate key": a name, then the key, once, with a copy button and a warning to keep it safe. */
function GenerateKeyDialog({ slug, onGenerated }: { slug: string; onGenerated: (key: ApiKey) => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string>();
  const action = useApiAction();
  const [generated, setGenerated] = useState<{ key: ApiKey; secret: string }>();

  const reset = () => {
    setName('');
    setProblem(undefined);
    action.clear();
    setGenerated(undefined);
  };

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed === '') {
      setProblem('Enter a name, so that you can tell the key from others later.');
      return;
    }
    if (trimmed.length > NAME_MAX) {
      setProblem(
        `A key name has at most ${String(NAME_MAX)} characters; this one has ${String(trimmed.length)}.`,
      );
      return;
    }
    setProblem(undefined);
    await action.run(
      async () => {
        const answer = await api<{ key: ApiKey; secret: string }>('POST', `/instances/${slug}/keys`, {
          name: trimmed,
        });
        setGenerated(answer);
        onGenerated(answer.key);
      },
      errorsOfFields(['name'], (problems) => {
        setProblem(problems.name);
      }),
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
          <PlusIcon aria-hidden /> Generate key
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="520px">
        {generated === undefined ? (
          <form onSubmit={(event) => void submit(event)} noValidate>
            <Flex direction="column" gap="4">
              <Dialog.Title mb="0">Generate an API key</Dialog.Title>
              <Dialog.Description size="2" color="gray">
                The key can read everything in this instance&apos;s portfolio through the Portfolio API.
              </Dialog.Description>
              <ErrorCallout error={action.error} />
              <Field
                id="key-name"
                label="Name"
                hint={`What uses the key, e.g. "warehouse sync". 1 to ${String(NAME_MAX)} characters.`}
                value={name}
                onChange={(event) => {
                  setName(event.target.value);
                }}
                error={problem}
                autoComplete="off"
                required
              />
              <Flex gap="3" justify="end">
                <Dialog.Close>
                  <Button type="button" variant="soft" color="gray">
                    Cancel
                  </Button>
                </Dialog.Close>
                <Button type="submit" loading={action.busy}>
                  Generate key
                </Button>
              </Flex>
            </Flex>
          </form>
        ) : (
          <Flex direction="column" gap="4">
            <Dialog.Title mb="0">Copy your new key</Dialog.Title>
            <Dialog.Description size="2">
              <strong>{generated.key.name}</strong> is ready and works at once.
            </Dialog.Description>
            <Callout.Root color="amber" highContrast>
              <Callout.Icon>
                <ExclamationTriangleIcon />
              </Callout.Icon>
              <Callout.Text>
                This is the only time the key is shown. Store it in a secret manager now: Portico keeps only a
                hash of it and cannot show it again. If you lose it, revoke it and generate another.
              </Callout.Text>
            </Callout.Root>
            <Flex direction="column" gap="1">
              <Text as="label" htmlFor="new-key" size="2" weight="medium">
                Your API key
              </Text>
              <Flex gap="2" wrap="wrap">
                <Box flexGrow="1" minWidth="0">
                  <TextField.Root
                    id="new-key"
                    readOnly
                    value={generated.secret}
                    className="secret-field"
                    onFocus={(event) => {
                      event.currentTarget.select();
                    }}
                  />
                </Box>
                <CopyButton text={generated.secret} label="Copy key" fallbackInputId="new-key" />
              </Flex>
            </Flex>
            <Text as="p" size="2" color="gray">
              Try it, with the key in <Code>PORTFOLIO_KEY</Code>:{' '}
              <Code className="break-all">
                curl -H &quot;Authorization: $PORTFOLIO_KEY&quot; {window.location.origin}
                /v1/external/companies
              </Code>
            </Text>
            <Flex justify="end">
              <Dialog.Close>
                <Button type="button">I have stored the key</Button>
              </Dialog.Close>
            </Flex>
          </Flex>
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}
