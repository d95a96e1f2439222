import { Flex, Link as ThemeLink, RadioCards, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorCallout } from '../error-callout.tsx';
import { EmailField, PasswordField } from '../form/person-fields.tsx';
import { SubmitForm } from '../form/submit-form.tsx';
import { useFormFields } from '../form/use-form-fields.ts';
import { useApiAction } from '../use-api-action.ts';
import { PasskeySignIn } from './factors/passkey-sign-in.tsx';
import { SecondStepForm, type SecondFactor } from './factors/second-step-form.tsx';
import type { SignedIn } from './session.tsx';
import type { AccountSurface, TenantChoice } from './surface.ts';

/** The tenants a CHOICE_REQUIRED error lists in `details[key]` (`[{ <idKey>, name }]`), or undefined. */
function choicesIn(details: Record<string, unknown>, key: string, idKey: string): TenantChoice[] | undefined {
  const list = details[key];
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((each: unknown) => {
    if (typeof each !== 'object' || each === null) return [];
    const { [idKey]: id, name } = each as Record<string, unknown>;
    return typeof id === 'string' && typeof name === 'string' ? [{ id, name }] : [];
  });
}

/**
 * The sign-in form: e-mail address and password; when they open several tenants, which one. The server's
 * message says what was wrong without telling whether the address has an account. A person with an authenticator
 * app or a passkey is asked for it next ({@link SecondStepForm}); a passkey alone signs in too ({@link PasskeySignIn}). `onSignedIn` follows the session's change (the sign-in
 * page goes where the person was going).
 */
export function SignInForm<Answer, User, Tenant>({
  surface,
  email = '',
  onSignedIn,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
  /** The address to start with (the person whose session ended). */
  email?: string;
  onSignedIn: (signed: SignedIn<User, Tenant> | undefined) => void;
}) {
  const { signedIn } = surface.useSession();
  const { noun, field, choiceCode, choicesKey, idKey } = surface.tenant;
  const form = useFormFields<'email' | 'password', 'tenant'>({ email, password: '' });
  const [choices, setChoices] = useState<TenantChoice[]>();
  const [tenant, setTenant] = useState<string>();
  const [secondStep, setSecondStep] = useState<readonly SecondFactor[]>();
  const action = useApiAction();

  const submit = async () => {
    const { email, password } = form.values;
    const found = {
      email: email.trim() === '' ? 'Enter your e-mail address.' : undefined,
      password: password === '' ? 'Enter your password.' : undefined,
      tenant: choices && tenant === undefined ? `Choose the ${noun} to sign in to.` : undefined,
    };
    if (!form.check(found)) return;
    await action.run(
      async () => {
        const answer = await surface.api('POST /session', {
          body: {
            email: email.trim(),
            password,
            ...(tenant === undefined ? {} : { [field]: tenant }),
          },
        });
        if (answer.secondFactor !== undefined) setSecondStep(answer.secondFactors ?? [answer.secondFactor]);
        else onSignedIn(signedIn(answer));
      },
      (error) => {
        const listed = error.code === choiceCode ? choicesIn(error.details, choicesKey, idKey) : undefined;
        if (listed === undefined) return false;
        setChoices(listed);
        return true;
      },
    );
  };

  if (secondStep) {
    return (
      <SecondStepForm
        surface={surface}
        factors={secondStep}
        onSignedIn={onSignedIn}
        onRestart={() => {
          setSecondStep(undefined);
          form.reset();
        }}
      />
    );
  }

  return (
    <>
      <ErrorCallout error={action.error} />
      <SubmitForm onSubmit={submit} busy={action.busy} submit="Sign in">
        <EmailField
          autoComplete="username"
          {...form.field('email', () => {
            setChoices(undefined);
            setTenant(undefined);
          })}
        />
        <PasswordField
          id="password"
          label="Password"
          aside={
            <ThemeLink asChild size="2">
              <Link to="/forgot-password">Forgot your password?</Link>
            </ThemeLink>
          }
          {...form.field('password')}
        />
        {choices === undefined ? null : (
          <Flex direction="column" gap="2" role="group" aria-labelledby="tenant-label">
            <Text id="tenant-label" size="2" weight="medium">
              This address and password open several {noun}s. Which one?
            </Text>
            <RadioCards.Root
              columns="1"
              value={tenant ?? ''}
              onValueChange={setTenant}
              aria-labelledby="tenant-label"
            >
              {choices.map((choice) => (
                <RadioCards.Item key={choice.id} value={choice.id}>
                  <Flex direction="column">
                    <Text weight="medium">{choice.name}</Text>
                    <Text size="1" color="gray">
                      {choice.id}
                    </Text>
                  </Flex>
                </RadioCards.Item>
              ))}
            </RadioCards.Root>
            {form.problems.tenant === undefined ? null : (
              <Text size="2" color="red" role="alert">
                {form.problems.tenant}
              </Text>
            )}
          </Flex>
        )}
      </SubmitForm>
      <PasskeySignIn surface={surface} onSignedIn={onSignedIn} />
    </>
  );
}
