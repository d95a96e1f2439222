import { Button, Flex } from '@radix-ui/themes';
import type { ReactNode } from 'react';

/**
 * A form whose fields stand one above the other. The browser's own checks are off (`noValidate`): `onSubmit`
 * checks, and says what is wrong beside each field.
 */
export function Form({ onSubmit, children }: { onSubmit: () => Promise<void>; children: ReactNode }) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit();
      }}
      noValidate
    >
      <Flex direction="column" gap="4">
        {children}
      </Flex>
    </form>
  );
}

/** A page's {@link Form}: its fields, then the large button that sends them. */
export function SubmitForm({
  onSubmit,
  busy,
  submit,
  children,
}: {
  onSubmit: () => Promise<void>;
  /** Whether the form is on its way (the button spins). */
  busy: boolean;
  /** The button's text, e.g. "Sign in". */
  submit: ReactNode;
  children: ReactNode;
}) {
  return (
    <Form onSubmit={onSubmit}>
      {children}
      <Button type="submit" size="3" loading={busy}>
        {submit}
      </Button>
    </Form>
  );
}
