import { Badge, Button, Code, Dialog, Flex, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { api } from '../api.ts';
import { ConfirmDialog } from '../../shared/list/confirm-dialog.tsx';
import { Field } from '../../shared/form/field.tsx';
import { DialogForm, FormDialog } from '../../shared/list/form-dialog.tsx';
import { ListPage } from '../../shared/list/list-page.tsx';
import { Notice } from '../../shared/notice.tsx';
import { SecretField } from '../../shared/secret-field.tsx';
import { formatDateTime, formatRelative } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import type { ApiKey } from '../types.ts';
import { errorsOfFields, useApiAction } from '../../shared/use-api-action.ts';
import { useFormFields } from '../../shared/form/use-form-fields.ts';
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
    <ListPage
      title="API keys"
      documentTitle={`API keys · ${instance.name}`}
      intro={
        <>
          Keys let your programs read {instance.name}&apos;s portfolio from the Portfolio API (
          <Code>/v1/external</Code>), sent as they are in the <Code>Authorization</Code> header.
        </>
      }
      add={
        isAdmin ? (
          <GenerateKeyDialog
            slug={instance.slug}
            onGenerated={(key) => {
              setAnnouncement(`Key ${key.name} generated.`);
              keys.reload();
            }}
          />
        ) : null
      }
      notAllowed={
        isAdmin ? null : <>Only admins generate and revoke keys. Ask an admin of {instance.name} for one.</>
      }
      status={
        <Text role="status" className="visually-hidden">
          {announcement}
        </Text>
      }
      rows={keys.data?.keys}
      error={keys.error}
      empty={{
        title: 'No keys yet',
        hint: isAdmin
          ? 'Generate one for each program that reads the portfolio.'
          : 'An admin generates them.',
      }}
      columns={[
        { label: 'Name' },
        { label: 'Key', wide: true },
        { label: 'Created by', wide: true },
        { label: 'Created', wide: true },
        { label: 'Last used' },
      ]}
      actionsLabel="Status and actions"
    >
      {(key) => (
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
                The Portfolio API refuses the key <Code>{key.prefix}…</Code> within a second, everywhere. This
                cannot be undone: whatever still uses it needs a new key.
              </ConfirmDialog>
            ) : (
              <Badge color="green" highContrast>
                Active
              </Badge>
            )}
          </Table.Cell>
        </Table.Row>
      )}
    </ListPage>
  );
}

/** "Generate key": a name, then the key, once, with a copy button and a warning to keep it safe. */
function GenerateKeyDialog({ slug, onGenerated }: { slug: string; onGenerated: (key: ApiKey) => void }) {
  const [open, setOpen] = useState(false);
  const form = useFormFields({ name: '' });
  const action = useApiAction();
  const [generated, setGenerated] = useState<{ key: ApiKey; secret: string }>();

  const reset = () => {
    form.reset();
    action.clear();
    setGenerated(undefined);
  };

  const submit = async () => {
    const trimmed = form.values.name.trim();
    const problem =
      trimmed === ''
        ? 'Enter a name, so that you can tell the key from others later.'
        : trimmed.length > NAME_MAX
          ? `A key name has at most ${String(NAME_MAX)} characters; this one has ${String(trimmed.length)}.`
          : undefined;
    if (!form.check({ name: problem })) return;
    await action.run(
      async () => {
        const answer = await api<{ key: ApiKey; secret: string }>('POST', `/instances/${slug}/keys`, {
          name: trimmed,
        });
        setGenerated(answer);
        onGenerated(answer.key);
      },
      errorsOfFields(['name'], form.setProblems),
    );
  };

  return (
    <FormDialog trigger="Generate key" open={open} setOpen={setOpen} onClose={reset}>
      {generated === undefined ? (
        <DialogForm
          title="Generate an API key"
          description="The key can read everything in this instance's portfolio through the Portfolio API."
          action={action}
          onSubmit={submit}
          submit="Generate key"
        >
          <Field
            id="key-name"
            label="Name"
            hint={`What uses the key, e.g. "warehouse sync". 1 to ${String(NAME_MAX)} characters.`}
            {...form.field('name')}
            autoComplete="off"
            required
          />
        </DialogForm>
      ) : (
        <Flex direction="column" gap="4">
          <Dialog.Title mb="0">Copy your new key</Dialog.Title>
          <Dialog.Description size="2">
            <strong>{generated.key.name}</strong> is ready and works at once.
          </Dialog.Description>
          <Notice tone="warning" highContrast>
            This is the only time the key is shown. Store it in a secret manager now: Portico keeps only a
            hash of it and cannot show it again. If you lose it, revoke it and generate another.
          </Notice>
          <SecretField id="new-key" label="Your API key" secret={generated.secret} />
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
    </FormDialog>
  );
}
