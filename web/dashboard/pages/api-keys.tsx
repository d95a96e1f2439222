import { Badge, Code, Flex, Table, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { dashboardApi } from '../api.ts';
import { GenerateKeyDialog } from '../components/generate-key-dialog.tsx';
import { ConfirmDialog } from '../../shared/list/confirm-dialog.tsx';
import { ListPage } from '../../shared/list/list-page.tsx';
import { formatDateTime, formatRelative } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import { useResource } from '../../shared/use-resource.ts';

/**
 * Settings → API keys: the instance's Portfolio API keys (name, prefix, creator, creation, last use, revoked);
 * admins generate keys (shown once, with a copy button) and revoke them after confirming.
 */
export function ApiKeysPage() {
  const { user, tenant: instance } = useSignedIn();
  const keys = useResource(dashboardApi, 'GET /instances/:slug/keys', { params: { slug: instance.slug } });
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
                  await dashboardApi('DELETE /instances/:slug/keys/:id', {
                    params: { slug: instance.slug, id: key.id },
                  });
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
