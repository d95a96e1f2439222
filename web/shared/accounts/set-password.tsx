import { Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { Link, useLocation, useNavigate } from 'react-router';
import { ApiError, type ApiErrorCode } from '../api-error.ts';
import { AuthLayout } from '../auth-layout.tsx';
import { ErrorCallout } from '../error-callout.tsx';
import { personNameProblem } from '../form/checks.ts';
import { NameField, PasswordField } from '../form/person-fields.tsx';
import { PageHeading } from '../page-heading.tsx';
import { SubmitForm } from '../form/submit-form.tsx';
import { errorsOfFields, useApiAction } from '../use-api-action.ts';
import { useFormFields } from '../form/use-form-fields.ts';
import type { NoticeState } from './sign-in.tsx';
import type { AccountSurface } from './surface.ts';

/** The lengths `checkNewPassword` allows (src/accounts/passwords.ts). */
const PASSWORD_MIN = 10;
const PASSWORD_MAX = 200;

/** What each kind of mailed link is for, and what to do once it no longer works; `noun` names a tenant. */
const PURPOSES = {
  invitation: {
    title: 'Accept your invitation',
    intro: (noun: string) =>
      `Choose the name your colleagues see and a password. It is the password of every ${noun} you use with this address. Then you are signed in.`,
    button: 'Set password and sign in',
    // The server's message says to ask an admin for a new invitation.
    newLink: undefined,
  },
  reset: {
    title: 'Choose a new password',
    intro: (noun: string) =>
      `Your new password is the one of every ${noun} you use with this address, and signs you out everywhere else.`,
    button: 'Set new password',
    newLink: { to: '/forgot-password', label: 'Ask for a new reset link' },
  },
} as const;

/** The errors of a link that no longer works, or never did. */
const LINK_ERRORS = new Set<ApiErrorCode>(['LINK_INVALID', 'LINK_USED', 'LINK_EXPIRED']);

/**
 * The page of a mailed link (`/invitation#token=…`, `/reset-password#token=…`): the token rides in the
 * fragment, which the browser never sends to a server, and stays there, so a reload keeps the form working.
 */
export function SetPasswordPage<Answer, User, Tenant>({
  surface,
  purpose,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
  purpose: keyof typeof PURPOSES;
}) {
  const text = PURPOSES[purpose];
  const { hash } = useLocation();
  const navigate = useNavigate();
  const { signedIn } = surface.useSession();
  const token = new URLSearchParams(hash.slice(1)).get('token') ?? '';
  const form = useFormFields({ name: '', password: '', confirmation: '' });
  const action = useApiAction();

  if (token === '') {
    return (
      <AuthLayout product={surface.product}>
        <PageHeading title={text.title} />
        <ErrorCallout
          error={
            new ApiError(
              400,
              'LINK_INVALID',
              'This link is incomplete: open the whole link from your e-mail (it ends with #token= and a long code).',
              undefined,
            )
          }
        />
        <ThemeLink asChild size="2">
          <Link to="/sign-in">Go to sign in</Link>
        </ThemeLink>
      </AuthLayout>
    );
  }

  const submit = async () => {
    const { name, password, confirmation } = form.values;
    const found = {
      name: personNameProblem(name),
      password:
        password.length < PASSWORD_MIN
          ? `Use at least ${String(PASSWORD_MIN)} characters.`
          : password.length > PASSWORD_MAX
            ? `Use at most ${String(PASSWORD_MAX)} characters.`
            : undefined,
      confirmation: confirmation !== password ? 'The two passwords are not the same.' : undefined,
    };
    if (!form.check(found)) return;
    await action.run(
      async () => {
        if (purpose === 'invitation') {
          const answer = await surface.api('POST /invitation', {
            body: { token, password, ...(name.trim() === '' ? {} : { name }) },
          });
          const signed = signedIn(answer);
          if (signed) void navigate(surface.home(signed.tenant), { replace: true });
        } else {
          await surface.api('POST /password-reset/confirm', { body: { token, password } });
          const state: NoticeState = { notice: 'Your password is changed. Sign in with it.' };
          void navigate('/sign-in', { replace: true, state });
        }
      },
      errorsOfFields(['password', 'name'], form.setProblems),
    );
  };

  const broken = action.error !== undefined && LINK_ERRORS.has(action.error.code);
  return (
    <AuthLayout product={surface.product}>
      <PageHeading title={text.title} />
      <ErrorCallout error={action.error} />
      {broken ? (
        <Flex direction="column" gap="3">
          {text.newLink === undefined ? null : (
            <ThemeLink asChild size="2">
              <Link to={text.newLink.to}>{text.newLink.label}</Link>
            </ThemeLink>
          )}
          <ThemeLink asChild size="2">
            <Link to="/sign-in">Go to sign in</Link>
          </ThemeLink>
        </Flex>
      ) : (
        <>
          <Text as="p" size="2" color="gray">
            {text.intro(surface.tenant.noun)}
          </Text>
          <SubmitForm onSubmit={submit} busy={action.busy} submit={text.button}>
            {purpose === 'invitation' ? (
              <NameField id="name" label="Your name" hint={surface.nameHint} own {...form.field('name')} />
            ) : null}
            <PasswordField
              id="new-password"
              label="New password"
              hint={`${String(PASSWORD_MIN)} to ${String(PASSWORD_MAX)} characters, not your e-mail address. A passphrase of a few words works well.`}
              isNew
              {...form.field('password')}
            />
            <PasswordField
              id="confirm-password"
              label="Repeat the new password"
              isNew
              {...form.field('confirmation')}
            />
          </SubmitForm>
        </>
      )}
    </AuthLayout>
  );
}
