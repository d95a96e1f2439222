import { PlusIcon } from '@radix-ui/react-icons';
import { Button, Dialog, Flex } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import type { ApiAction } from '../use-api-action.ts';
import { ErrorCallout } from '../error-callout.tsx';
import { Form } from '../form/submit-form.tsx';

/**
 * The button that adds something to a list ("+ Invite someone") and the dialog it opens. Closing the dialog
 * calls `onClose`, which forgets what was typed, so that it opens empty next time.
 */
export function FormDialog({
  trigger,
  open,
  setOpen,
  onClose,
  children,
}: {
  /** The button's text, e.g. "Generate key". */
  trigger: string;
  open: boolean;
  setOpen: (open: boolean) => void;
  onClose: () => void;
  /** A {@link DialogForm}, or what follows it (a key shown once). */
  children: ReactNode;
}) {
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) onClose();
      }}
    >
      <Dialog.Trigger>
        <Button>
          <PlusIcon aria-hidden /> {trigger}
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="520px">{children}</Dialog.Content>
    </Dialog.Root>
  );
}

/**
 * The form of a {@link FormDialog}: its title and what follows from it, the route's error, the fields, and
 * Cancel beside the button that sends it. `onSubmit` checks the fields (the browser's checks are off).
 */
export function DialogForm({
  title,
  description,
  action,
  onSubmit,
  submit,
  children,
}: {
  title: string;
  description: ReactNode;
  /** The state of the call that `onSubmit` makes. */
  action: ApiAction;
  onSubmit: () => Promise<void>;
  /** The sending button's text, e.g. "Send invitation". */
  submit: string;
  children: ReactNode;
}) {
  return (
    <Form onSubmit={onSubmit}>
      <Dialog.Title mb="0">{title}</Dialog.Title>
      <Dialog.Description size="2" color="gray">
        {description}
      </Dialog.Description>
      <ErrorCallout error={action.error} />
      {children}
      <DialogButtons>
        <Button type="submit" loading={action.busy}>
          {submit}
        </Button>
      </DialogButtons>
    </Form>
  );
}

/** The foot of a dialog's form: Cancel, which closes the dialog, beside the button that sends the form. */
export function DialogButtons({ children }: { children: ReactNode }) {
  return (
    <Flex gap="3" justify="end">
      <Dialog.Close>
        <Button type="button" variant="soft" color="gray">
          Cancel
        </Button>
      </Dialog.Close>
      {children}
    </Flex>
  );
}
