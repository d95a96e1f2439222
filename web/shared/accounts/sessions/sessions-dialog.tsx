import { Badge, Button, Dialog, Flex, Table, Text } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import { ErrorCallout } from '../../error-callout.tsx';
import { useApiAction } from '../../use-api-action.ts';
import { useAccountActions, type SessionSummary } from '../session.tsx';

/** A time as the person's browser writes it. */
const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * "Sessions", opened from the person's menu of a surface's shell: where they are signed in (browser and system,
 * client address, started, last active, which is this one), with "End" on each other session and "End all
 * others". An ended browser's next request is signed out.
 */
export function SessionsDialog({ open, setOpen }: { open: boolean; setOpen: (open: boolean) => void }) {
  const account = useAccountActions();
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>(undefined);
  const action = useApiAction();

  const load = async () => {
    if (!account) return;
    setSessions((await account.sessions()).sessions);
  };

  useEffect(() => {
    if (open) void action.run(load);
    // Asked again each time it opens.
  }, [open]);

  const end = (sessionId: string) =>
    action.run(async () => {
      await account?.endSession(sessionId);
      await load();
    });
  const endOthers = () =>
    action.run(async () => {
      await account?.endOtherSessions();
      await load();
    });

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) {
          action.clear();
          setSessions(undefined);
        }
      }}
    >
      <Dialog.Content maxWidth="720px">
        <Dialog.Title>Sessions</Dialog.Title>
        <Dialog.Description size="2">
          Where you are signed in. End a session you do not know, then change your password. The address is
          the one the server saw; no place is looked up from it.
        </Dialog.Description>
        <ErrorCallout error={action.error} />
        {sessions === undefined ? (
          <Text size="2">Loading…</Text>
        ) : (
          <Table.Root size="1" mt="3" className="table-cards">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Browser</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Address</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Started</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Last active</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>
                  <span className="visually-hidden">Actions</span>
                </Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {sessions.map((session) => (
                <Table.Row key={session.id}>
                  <Table.RowHeaderCell>{session.browser}</Table.RowHeaderCell>
                  <Table.Cell data-label="Address">{session.ipAddress ?? 'unknown'}</Table.Cell>
                  <Table.Cell data-label="Started">{when(session.startedAt)}</Table.Cell>
                  <Table.Cell data-label="Last active">{when(session.lastActiveAt)}</Table.Cell>
                  <Table.Cell>
                    {session.current ? (
                      <Badge color="green" highContrast>
                        This session
                      </Badge>
                    ) : (
                      <Button
                        size="1"
                        variant="soft"
                        color="red"
                        disabled={action.busy}
                        aria-label={`End the session of ${session.browser}, started ${when(session.startedAt)}`}
                        onClick={() => void end(session.id)}
                      >
                        End
                      </Button>
                    )}
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        )}
        <Flex gap="3" mt="4" justify="end">
          {sessions !== undefined && sessions.some((session) => !session.current) ? (
            <Button color="red" variant="soft" disabled={action.busy} onClick={() => void endOthers()}>
              End all others
            </Button>
          ) : null}
          <Dialog.Close>
            <Button variant="soft" color="gray">
              Close
            </Button>
          </Dialog.Close>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}
