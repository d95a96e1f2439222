import { Button, Callout, Flex, Text } from '@radix-ui/themes';
import { ExclamationTriangleIcon } from '@radix-ui/react-icons';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorCallout } from '../../error-callout.tsx';
import { Field } from '../../form/field.tsx';
import { Form } from '../../form/submit-form.tsx';
import { useApiAction } from '../../use-api-action.ts';
import type { AccountSurface } from '../surface.ts';
import { ssoErrorInWords } from './sso-errors.ts';

/**
 * "Sign in with SSO" under the sign-in form: it asks for the person's work address, and sends the browser to the
 * identity provider that covers its domain (`POST /session/sso`), which sends it back signed in. A refused single
 * sign-on comes back here with `?sso_error=<code>`, said in words above it.
 */
export function SsoSignIn<Answer, User, Tenant>({
  surface,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
}) {
  const [params] = useSearchParams();
  const refused = params.get('sso_error');
  const [open, setOpen] = useState(refused !== null);
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string>();
  const action = useApiAction();

  const go = async () => {
    if (email.trim() === '') {
      setProblem('Enter your work e-mail address.');
      return;
    }
    setProblem(undefined);
    await action.run(
      async () => {
        const { redirectTo } = await surface.api('POST /session/sso', { body: { email: email.trim() } });
        window.location.assign(redirectTo);
      },
      (error) => {
        if (error.field !== 'email') return false;
        setProblem(error.message);
        return true;
      },
    );
  };

  return (
    <Flex direction="column" gap="3">
      {refused === null ? null : (
        <Callout.Root color="red" role="alert">
          <Callout.Icon>
            <ExclamationTriangleIcon />
          </Callout.Icon>
          <Callout.Text>{ssoErrorInWords(refused)}</Callout.Text>
        </Callout.Root>
      )}
      {open ? (
        <Form onSubmit={go}>
          <ErrorCallout error={action.error} />
          <Field
            id="sso-email"
            label="Work e-mail address"
            type="email"
            autoComplete="username"
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
            }}
            hint="You continue at your organization's own sign-in page."
            error={problem}
          />
          <Button type="submit" size="3" variant="soft" loading={action.busy}>
            Continue with SSO
          </Button>
        </Form>
      ) : (
        <Flex direction="column" gap="2">
          <Text size="2" color="gray" align="center">
            or
          </Text>
          <Button
            type="button"
            size="3"
            variant="outline"
            onClick={() => {
              setOpen(true);
            }}
          >
            Sign in with SSO
          </Button>
        </Flex>
      )}
    </Flex>
  );
}
