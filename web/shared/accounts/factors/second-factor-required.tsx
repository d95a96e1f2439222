import { Button, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Chunked, lazyChunk } from '../../app/chunk.tsx';
import { AuthLayout } from '../../auth-layout.tsx';
import { PageHeading } from '../../page-heading.tsx';

/** The dialog, with the authenticator's and the passkeys' code: a chunk of its own, loaded when it is opened. */
const AuthenticatorDialog = lazyChunk(async () => ({
  default: (await import('./authenticator-dialog.tsx')).AuthenticatorDialog,
}));

/**
 * What a signed-in person sees, on every page, while their tenant requires two-step sign-in of their role and
 * they have no second factor (the session answers `secondFactorRequired`; the server refuses them everything
 * else): the way to add an authenticator app or a passkey (the same dialog as the person's menu), and to sign
 * out. Once one is added and the dialog closed, the session is read again and the page they opened shows.
 */
export function SecondFactorRequiredPage({
  product,
  tenantName,
  refresh,
  signOut,
}: {
  product: string;
  tenantName: string;
  /** Asks the server again who is signed in (after the app was added). */
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
}) {
  const [adding, setAdding] = useState(false);
  return (
    <AuthLayout product={product}>
      <PageHeading title="Your organization requires two-step sign-in" />
      <Text as="p" size="2">
        {tenantName} asks you to sign in with a second step as well as your password: a code from an
        authenticator app on your phone, or a passkey on your device. Add one to continue: it takes a minute.
      </Text>
      <Flex direction="column" gap="3">
        <Button
          size="3"
          onClick={() => {
            setAdding(true);
          }}
        >
          Set up two-step sign-in
        </Button>
        <Button size="3" variant="soft" color="gray" onClick={() => void signOut()}>
          Sign out
        </Button>
      </Flex>
      <Chunked what="This dialog" fallback={null}>
        {adding ? (
          <AuthenticatorDialog
            open
            setOpen={(open) => {
              setAdding(open);
              if (!open) void refresh();
            }}
          />
        ) : null}
      </Chunked>
    </AuthLayout>
  );
}
