import { PRODUCT } from '../product.ts';
import { InfoCircledIcon } from '@radix-ui/react-icons';
import { Button, Callout, Flex, Link as ThemeLink, RadioCards, Text } from '@radix-ui/themes';
import { useState, type SubmitEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { api } from '../api.ts';
import { AuthLayout } from '../../shared/auth-layout.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Field } from '../../shared/field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { useSession } from '../session.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
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
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [choices, setChoices] = useState<InstanceSummary[]>();
  const [instance, setInstance] = useState<string>();
  const [problems, setProblems] = useState<{ email?: string; password?: string; instance?: string }>({});
  const action = useApiAction();

  if (session.status === 'signed-in') {
    return <Navigate to={next ?? `/${session.instance.slug}/companies`} replace />;
  }
  const notice =
    (location.state as NoticeState | null)?.notice ??
    (session.status === 'signed-out' ? session.notice : undefined);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const found = {
      email: email.trim() === '' ? 'Enter your e-mail address.' : undefined,
      password: password === '' ? 'Enter your password.' : undefined,
      instance: choices && instance === undefined ? 'Choose the instance to sign in to.' : undefined,
    };
    setProblems(found);
    if (found.email ?? found.password ?? found.instance) return;
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
        <Callout.Root color="blue" role="status">
          <Callout.Icon>
            <InfoCircledIcon />
          </Callout.Icon>
          <Callout.Text>{notice}</Callout.Text>
        </Callout.Root>
      )}
      <ErrorCallout error={action.error} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Flex direction="column" gap="4">
          <Field
            id="email"
            label="E-mail address"
            type="email"
            autoComplete="username"
            inputMode="email"
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              setChoices(undefined);
              setInstance(undefined);
            }}
            error={problems.email}
            required
          />
          <Field
            id="password"
            label="Password"
            aside={
              <ThemeLink asChild size="2">
                <Link to="/forgot-password">Forgot your password?</Link>
              </ThemeLink>
            }
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => {
              setPassword(event.target.value);
            }}
            error={problems.password}
            required
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
              {problems.instance === undefined ? null : (
                <Text size="2" color="red" role="alert">
                  {problems.instance}
                </Text>
              )}
            </Flex>
          )}
          <Button type="submit" size="3" loading={action.busy}>
            Sign in
          </Button>
        </Flex>
      </form>
      <Text size="2" color="gray">
        New here? An admin of your organization invites you by e-mail.
      </Text>
    </AuthLayout>
  );
}
