import { Button, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../error-callout.tsx';
import { SubmitForm } from '../../form/submit-form.tsx';
import { useFormFields } from '../../form/use-form-fields.ts';
import { errorsOfFields, useApiAction } from '../../use-api-action.ts';
import type { SignedIn } from '../session.tsx';
import type { AccountSurface } from '../surface.ts';
import { CodeField } from './code-field.tsx';
import { PasskeyButton } from './passkey-sign-in.tsx';

/** What a sign-in may ask as its second step (`secondFactors` of `POST /session`). */
export type SecondFactor = 'authenticator' | 'passkey';

/**
 * The second step of a sign-in, once the password was right for a person with an authenticator app or a passkey
 * (`factors`): the code the app shows now, or one of their recovery codes (`POST /session/second-factor`, within
 * 5 minutes), or "Use a passkey". A wrong, replayed or used code is said beside the field; `onRestart` goes back
 * to the password.
 */
export function SecondStepForm<Answer, User, Tenant>({
  surface,
  factors = ['authenticator'],
  onSignedIn,
  onRestart,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
  factors?: readonly SecondFactor[];
  onSignedIn: (signed: SignedIn<User, Tenant> | undefined) => void;
  onRestart: () => void;
}) {
  const { signedIn } = surface.useSession();
  const form = useFormFields({ code: '' });
  const [recovery, setRecovery] = useState(false);
  const action = useApiAction();

  const submit = async () => {
    const code = form.values.code.trim();
    if (!form.check({ code: code === '' ? 'Enter the code.' : undefined })) return;
    await action.run(
      async () => {
        const answer = await surface.api('POST /session/second-factor', { body: { code } });
        onSignedIn(signedIn(answer));
      },
      errorsOfFields(['code'], form.setProblems),
    );
  };

  const withApp = factors.includes('authenticator');
  const passkey = factors.includes('passkey') ? (
    <PasskeyButton surface={surface} step="second-step" label="Use a passkey" onSignedIn={onSignedIn} />
  ) : null;

  return (
    <>
      {withApp ? (
        <>
          <Text as="p" size="2">
            {recovery
              ? 'Type one of the recovery codes you kept when you added your authenticator app. Each works once.'
              : 'Open your authenticator app and type the six-digit code it shows for Portico.'}
          </Text>
          <ErrorCallout error={action.error} />
          <SubmitForm onSubmit={submit} busy={action.busy} submit="Sign in">
            <CodeField
              id="second-factor-code"
              label={recovery ? 'Recovery code' : 'Code from your app'}
              recovery={recovery}
              {...form.field('code')}
            />
          </SubmitForm>
          {passkey}
        </>
      ) : (
        <>
          <Text as="p" size="2">
            Use one of your passkeys to finish signing in: your device asks for its fingerprint, face or PIN.
          </Text>
          {passkey}
        </>
      )}
      <Flex gap="3" wrap="wrap">
        {withApp ? (
          <Button
            variant="ghost"
            onClick={() => {
              setRecovery(!recovery);
              form.reset();
            }}
          >
            {recovery ? 'Use a code from the app' : 'Use a recovery code'}
          </Button>
        ) : null}
        <Button variant="ghost" color="gray" onClick={onRestart}>
          Start again
        </Button>
      </Flex>
    </>
  );
}
