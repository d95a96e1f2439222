import { Link as ThemeLink, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Link } from 'react-router';
import { AuthLayout } from '../auth-layout.tsx';
import { emailProblem } from '../form/checks.ts';
import { EmailField } from '../form/person-fields.tsx';
import { ErrorCallout } from '../error-callout.tsx';
import { Notice } from '../notice.tsx';
import { PageHeading } from '../page-heading.tsx';
import { SubmitForm } from '../form/submit-form.tsx';
import { useApiAction } from '../use-api-action.ts';
import { useFormFields } from '../form/use-form-fields.ts';
import type { AccountSurface } from './surface.ts';

/**
 * "Forgot your password?": mails a reset link to the address if it has an account. The answer is the same
 * either way, so the page says what happens *if* it has one.
 */
export function ForgotPasswordPage<Answer, User, Tenant>({
  surface,
}: {
  surface: Pick<AccountSurface<Answer, User, Tenant>, 'product' | 'api'>;
}) {
  const form = useFormFields({ email: '' });
  const [sentTo, setSentTo] = useState<string>();
  const action = useApiAction();

  const submit = async () => {
    const address = form.values.email.trim();
    if (!form.check({ email: emailProblem(address) })) return;
    await action.run(async () => {
      await surface.api('POST /password-reset', { body: { email: address } });
      setSentTo(address);
    });
  };

  return (
    <AuthLayout product={surface.product}>
      <PageHeading title="Reset your password" />
      {sentTo === undefined ? (
        <>
          <Text as="p" size="2" color="gray">
            Enter the address you sign in with. We will mail you a link to choose a new password.
          </Text>
          <ErrorCallout error={action.error} />
          <SubmitForm onSubmit={submit} busy={action.busy} submit="Mail me a reset link">
            <EmailField autoComplete="username" {...form.field('email')} />
          </SubmitForm>
        </>
      ) : (
        <Notice tone="done" role="status">
          If {sentTo} has an account, a reset link is on its way there. It works once, for one hour. No mail
          after a few minutes? Check the spam folder, or the address you typed.
        </Notice>
      )}
      <ThemeLink asChild size="2">
        <Link to="/sign-in">Back to sign in</Link>
      </ThemeLink>
    </AuthLayout>
  );
}
