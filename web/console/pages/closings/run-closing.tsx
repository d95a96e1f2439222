import { AlertDialog, Box, Button, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import { count, type ClosingDetail } from './closing-words.ts';

/**
 * "Run closing: create 29 transactions": enabled only when the server would take the run (no row or column with
 * a problem, a row ready), greyed with why otherwise. It asks first, saying what follows (every investor mailed,
 * and the list fixed for good); the server's refusal shows in the dialog.
 */
export function RunClosing({
  closing,
  ready,
  why,
  change,
  onRun,
}: {
  closing: ClosingDetail;
  /** The rows ready: the transactions the run creates. */
  ready: number;
  /** Why it cannot run now, in words; undefined when it can. */
  why: string | undefined;
  change: (next: (before: ClosingDetail) => ClosingDetail) => void;
  onRun: () => void;
}) {
  const [open, setOpen] = useState(false);
  const running = useApiAction();
  const transactions = count(ready, 'transaction');
  const label = ready === 0 ? 'Run closing' : `Run closing: create ${transactions}`;
  if (why !== undefined) {
    return (
      <Flex direction="column" gap="1" align={{ initial: 'start', sm: 'end' }} maxWidth={{ sm: '360px' }}>
        <Button size="3" disabled aria-describedby="run-closing-reason">
          {label}
        </Button>
        <Text id="run-closing-reason" size="1" color="gray" align={{ initial: 'left', sm: 'right' }}>
          {why}
        </Text>
      </Flex>
    );
  }
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        running.clear();
      }}
    >
      <AlertDialog.Trigger>
        <Button size="3">{label}</Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content maxWidth="480px">
        <AlertDialog.Title>Run “{closing.name}”?</AlertDialog.Title>
        <AlertDialog.Description size="2">
          {transactions} of {closing.template.name} are created now, from {closing.sender.name}, and each
          investor is mailed their invitation as theirs is created. A closing runs once: its list no longer
          changes.
        </AlertDialog.Description>
        <Box mt="3">
          <ErrorCallout error={running.error} />
        </Box>
        <Flex gap="3" mt="4" justify="end" wrap="wrap">
          <AlertDialog.Cancel>
            <Button variant="soft" color="gray">
              Cancel
            </Button>
          </AlertDialog.Cancel>
          <Button
            loading={running.busy}
            onClick={() =>
              void running.run(async () => {
                const { status } = await consoleApi('POST /closings/:id/run', {
                  params: { id: closing.id },
                });
                setOpen(false);
                change((before) => ({ ...before, status, startedAt: new Date().toISOString() }));
                onRun();
              })
            }
          >
            Create {transactions}
          </Button>
        </Flex>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
