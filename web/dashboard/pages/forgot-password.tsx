import { PRODUCT } from '../product.ts';
import { CheckCircledIcon } from '@radix-ui/react-icons';
import { Button, Callout, Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { useState, type SubmitEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../api.ts';
import { AuthLayout } from '../../shared/auth-layout.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Field } from '../../shared/field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { emailProblem, useApiAction } from '../../shared/use-api-action.ts';

/**
 * "Forgot your password?": mails a reset link to the address if it has an account. The answer is the same
 * either way, so the page says what happens *if* it has one.
 */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string>();
  const [sentTo, setSentTo] = useState<string>();
  const action = useApiAction();

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const address = email.trim();
    const found = emailProblem(address);
    setProblem(found);
    if (found !== undefined) return;
    await action.run(async () => {
      await api('POST', '/password-reset', { email: address });
      setSentTo(address);
    });
  };

  return (
    <AuthLayout product={PRODUCT}>
      <PageHeading title="Reset your password" />
      {sentTo === undefined ? (
        <>
          <Text as="p" size="2" color="gray">
            Enter the address you sign in with. We will mail you a link to choose a new password.
          </Text>
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
                }}
                error={problem}
                required
              />
              <Button type="submit" size="3" loading={action.busy}>
                Mail me a reset link
              </Button>
            </Flex>
          </form>
        </>
      ) : (
        <Callout.Root color="green" role="status">
          <Callout.Icon>
            <CheckCircledIcon />
          </Callout.Icon>
          <Callout.Text>
            If {sentTo} has an account, a reset link is on its way there. It works once, for one hour. No mail
            after a few minutes? Check the spam folder, or the address you typed.
          </Callout.Text>
        </Callout.Root>
      )}
      <ThemeLink asChild size="2">
        <Link to="/sign-in">Back to sign in</Link>
      </ThemeLink>
    </AuthLayout>
  );
}
