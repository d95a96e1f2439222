import { PRODUCT } from '../product.ts';
import { Flex, Link as ThemeLink, RadioCards, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { api } from '../api.ts';
import { AuthLayout } from '../../shared/auth-layout.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { EmailField, PasswordField } from '../../shared/form/person-fields.tsx';
import { Notice } from '../../shared/notice.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { SubmitForm } from '../../shared/form/submit-form.tsx';
import { useSession } from '../session.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { useFormFields } from '../../shared/form/use-form-fields.ts';
import type { InstanceSummary, SessionAnswer } from '../types.ts';

/** Where to go after signing in: a path of this page from `?next=`, never another site (`//host`). */
export function safeNext(next: string | null): string | undefined {
  return next !== null && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')
    ? next
    : undefined;
}

/** A notice handed over by the page before (a new password, a sign-out). */
export interface NoticeState {
  notice?: string;
}

/**
 * Sign-in: e-mail address and password; when they open several instances, which one. The server's message
 * says what was wrong without telling whether the address has an account.
 */
export function SignInPage() {
  const { session, signedIn } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const form = useFormFields<'email' | 'password', 'instance'>({ email: '', password: '' });
  const [choices, setChoices] = useState<InstanceSummary[]>();
  const [instance, setInstance] = useState<string>();
  const action = useApiAction();

  if (session.status === 'signed-in') {
    return <Navigate to={next ?? `/${session.instance.slug}/companies`} replace />;
  }
  const notice =
    (location.state as NoticeState | null)?.notice ??
    (session.status === 'signed-out' ? session.notice : undefined);

  const submit = async () => {
    const { email, password } = form.values;
    const found = {
      email: email.trim() === '' ? 'Enter your e-mail address.' : undefined,
      password: password === '' ? 'Enter your password.' : undefined,
      instance: choices && instance === undefined ? 'Choose the instance to sign in to.' : undefined,
    };
    if (!form.check(found)) return;
    await action.run(
      async () => {
        const answer = await api<SessionAnswer>('POST', '/session', {
          email: email.trim(),
          password,
          ...(instance === undefined ? {} : { instance }),
        });
        signedIn(answer);
        void navigate(next ?? `/${answer.instance?.slug ?? ''}/companies`, { replace: true });
      },
      (error) => {
        if (error.code !== 'INSTANCE_CHOICE_REQUIRED' || !Array.isArray(error.details.instances))
          return false;
        setChoices(error.details.instances as InstanceSummary[]);
        return true;
      },
    );
  };

  return (
    <AuthLayout product={PRODUCT}>
      <PageHeading title="Sign in" />
      {notice === undefined ? null : (
        <Notice tone="info" role="status">
          {notice}
        </Notice>
      )}
      <ErrorCallout error={action.error} />
      <SubmitForm onSubmit={submit} busy={action.busy} submit="Sign in">
        <EmailField
          autoComplete="username"
          {...form.field('email', () => {
            setChoices(undefined);
            setInstance(undefined);
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
          <Flex direction="column" gap="2" role="group" aria-labelledby="instance-label">
            <Text id="instance-label" size="2" weight="medium">
              This address and password open several instances. Which one?
            </Text>
            <RadioCards.Root
              columns="1"
              value={instance ?? ''}
              onValueChange={setInstance}
              aria-labelledby="instance-label"
            >
              {choices.map((choice) => (
                <RadioCards.Item key={choice.slug} value={choice.slug}>
                  <Flex direction="column">
                    <Text weight="medium">{choice.name}</Text>
                    <Text size="1" color="gray">
                      {choice.slug}
                    </Text>
                  </Flex>
                </RadioCards.Item>
              ))}
            </RadioCards.Root>
            {form.problems.instance === undefined ? null : (
              <Text size="2" color="red" role="alert">
                {form.problems.instance}
              </Text>
            )}
          </Flex>
        )}
      </SubmitForm>
      <Text size="2" color="gray">
        New here? An admin of your organization invites you by e-mail.
      </Text>
    </AuthLayout>
  );
}
