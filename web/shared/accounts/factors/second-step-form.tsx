import { Button, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../error-callout.tsx';
import { SubmitForm } from '../../form/submit-form.tsx';
import { useFormFields } from '../../form/use-form-fields.ts';
import { errorsOfFields, useApiAction } from '../../use-api-action.ts';
import type { SignedIn } from '../session.tsx';
import type { AccountSurface } from '../surface.ts';
import { CodeField } from './code-field.tsx';

/**
 * The second step of a sign-in, once the password was right for a person with an authenticator app: the code
 * the app shows now, or one of their recovery codes (`POST /session/second-factor`, within 5 minutes). A wrong,
 * replayed or used code is said beside the field; `onRestart` goes back to the password.
 */
export function SecondStepForm<Answer, User, Tenant>({
  surface,
  onSignedIn,
  onRestart,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
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

  return (
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
      <Flex gap="3" wrap="wrap">
        <Button
          variant="ghost"
          onClick={() => {
            setRecovery(!recovery);
            form.reset();
          }}
        >
          {recovery ? 'Use a code from the app' : 'Use a recovery code'}
        </Button>
        <Button variant="ghost" color="gray" onClick={onRestart}>
          Start again
        </Button>
      </Flex>
    </>
  );
}
