import { LockClosedIcon } from '@radix-ui/react-icons';
import { Button, Flex, Separator, Text } from '@radix-ui/themes';
import { ErrorCallout } from '../../error-callout.tsx';
import { useApiAction } from '../../use-api-action.ts';
import type { SignedIn } from '../session.tsx';
import type { AccountSurface } from '../surface.ts';
import { answerWithPasskey, passkeysWork } from './passkey-ceremony.ts';

/**
 * Signs in with a passkey: the server's options, the device's answer (its fingerprint, face or PIN), then the
 * sign-in, without an address (`sign-in`: the passkey names the person), or as the second step after the password
 * (`second-step`: one of that person's passkeys). What stopped the browser or the server is said above the button.
 * Nothing shows in a browser that cannot use passkeys.
 */
export function PasskeyButton<Answer, User, Tenant>({
  surface,
  step,
  label,
  onSignedIn,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
  step: 'sign-in' | 'second-step';
  label: string;
  onSignedIn: (signed: SignedIn<User, Tenant> | undefined) => void;
}) {
  const { signedIn } = surface.useSession();
  const action = useApiAction();
  if (!passkeysWork()) return null;

  const run = () =>
    action.run(async () => {
      if (step === 'sign-in') {
        const options = await surface.api('POST /session/passkey/options');
        const passkey = await answerWithPasskey(options);
        onSignedIn(signedIn(await surface.api('POST /session/passkey', { body: { passkey } })));
      } else {
        const options = await surface.api('POST /session/second-factor/passkey/options');
        const passkey = await answerWithPasskey(options);
        onSignedIn(signedIn(await surface.api('POST /session/second-factor/passkey', { body: { passkey } })));
      }
    });

  return (
    <Flex direction="column" gap="3">
      <ErrorCallout error={action.error} />
      <Button type="button" size="3" variant="outline" onClick={() => void run()} loading={action.busy}>
        <LockClosedIcon aria-hidden /> {label}
      </Button>
    </Flex>
  );
}

/** Below the sign-in form: "or", and signing in with a passkey, without typing an address or a password. */
export function PasskeySignIn<Answer, User, Tenant>({
  surface,
  onSignedIn,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
  onSignedIn: (signed: SignedIn<User, Tenant> | undefined) => void;
}) {
  if (!passkeysWork()) return null;
  return (
    <Flex direction="column" gap="3">
      <Flex align="center" gap="3" aria-hidden>
        <Separator size="4" />
        <Text size="2" color="gray">
          or
        </Text>
        <Separator size="4" />
      </Flex>
      <PasskeyButton
        surface={surface}
        step="sign-in"
        label="Sign in with a passkey"
        onSignedIn={onSignedIn}
      />
    </Flex>
  );
}
