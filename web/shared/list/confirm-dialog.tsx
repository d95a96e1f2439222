import { AlertDialog, Box, Button, Flex } from '@radix-ui/themes';
import { useState, type ReactNode } from 'react';
import { useApiAction } from '../use-api-action.ts';
import { ErrorCallout } from '../error-callout.tsx';

/**
 * A red button that asks before it acts: the question, what follows, Cancel, and the action, which closes the
 * dialog when it succeeds and shows the route's error in it when it fails.
 */
export function ConfirmDialog({
  trigger,
  triggerLabel,
  title,
  children,
  confirm,
  onConfirm,
  unavailable,
}: {
  /** The button's text, e.g. "Revoke". */
  trigger: string;
  /** The button's accessible name, naming what it acts on, e.g. "Revoke warehouse sync". */
  triggerLabel: string;
  title: string;
  /** What follows from saying yes. */
  children: ReactNode;
  /** The confirming button's text, e.g. "Revoke key". */
  confirm: string;
  onConfirm: () => Promise<void>;
  /** When the action cannot be done now: the id of the text that says why; the button is then greyed. */
  unavailable?: { reasonId: string } | undefined;
}) {
  const [open, setOpen] = useState(false);
  const action = useApiAction();
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        action.clear();
      }}
    >
      <AlertDialog.Trigger>
        <Button
          variant="soft"
          color="red"
          highContrast
          size="1"
          aria-label={triggerLabel}
          disabled={unavailable !== undefined}
          aria-describedby={unavailable?.reasonId}
        >
          {trigger}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content maxWidth="460px">
        <AlertDialog.Title>{title}</AlertDialog.Title>
        <AlertDialog.Description size="2">{children}</AlertDialog.Description>
        <Box mt="3">
          <ErrorCallout error={action.error} />
        </Box>
        <Flex gap="3" mt="4" justify="end">
          <AlertDialog.Cancel>
            <Button variant="soft" color="gray">
              Cancel
            </Button>
          </AlertDialog.Cancel>
          <Button
            color="red"
            highContrast
            loading={action.busy}
            onClick={() =>
              void action.run(async () => {
                await onConfirm();
                setOpen(false);
              })
            }
          >
            {confirm}
          </Button>
        </Flex>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
