import { Button, Flex, Link as ThemeLink, Skeleton, Text } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { ApiError, type ApiErrorCode } from '../api-error.ts';
import { AuthLayout } from '../auth-layout.tsx';
import { ErrorCallout } from '../error-callout.tsx';
import { personNameProblem } from '../form/checks.ts';
import { NewPasswordFields } from '../form/new-password-fields.tsx';
import { NameField } from '../form/person-fields.tsx';
import { PageHeading } from '../page-heading.tsx';
import { SubmitForm } from '../form/submit-form.tsx';
import { errorsOfFields, useApiAction } from '../use-api-action.ts';
import { useFormFields } from '../form/use-form-fields.ts';
import { newPasswordProblems } from './password-rules.ts';
import type { NoticeState } from './sign-in.tsx';
import type { AccountSurface } from './surface.ts';

/** What each kind of mailed link is for; `noun` names a tenant. */
const PURPOSES = {
  invitation: {
    title: 'Accept your invitation',
    /** The link's purpose, as the server names it (`POST /links/check`). */
    purpose: 'invitation',
    whose: (link: WorkingLink) => `You are invited to ${link.tenantName}, as ${link.email}.`,
    intro: (noun: string) =>
      `Choose the name your colleagues see and a password. It is the password of every ${noun} you use with this address. Then you are signed in.`,
    button: 'Set password and sign in',
  },
  reset: {
    title: 'Choose a new password',
    purpose: 'password_reset',
    whose: (link: WorkingLink) => `For ${link.email}, of ${link.tenantName}.`,
    intro: (noun: string) =>
      `Your new password is the one of every ${noun} you use with this address, and signs you out everywhere else.`,
    button: 'Set new password',
  },
} as const;

/** A mailed link that works, as the server says of it: whose, of which tenant, until when. */
interface WorkingLink {
  email: string;
  name: string;
  tenantName: string;
  expiresAt: string;
}

/** The errors of a link that no longer works, or never did. */
const LINK_ERRORS = new Set<ApiErrorCode>(['LINK_INVALID', 'LINK_USED', 'LINK_EXPIRED']);

/** What the page knows of its link: being asked, it works, or the server could not say. */
type LinkState =
  { status: 'checking' } | { status: 'works'; link: WorkingLink } | { status: 'failed'; error: ApiError };

/** What to do about each kind of mailed link that no longer works; `noun` names a tenant. */
const WHAT_TO_DO = {
  invitation: {
    advice: (noun: string) =>
      `An admin of the ${noun} can mail you a new invitation from its people page. If you have set your password already, sign in with it.`,
    newLink: undefined,
  },
  reset: {
    advice: () =>
      'Ask for a new link: it works once, for one hour. Or sign in, if you remember your password.',
    newLink: { to: '/forgot-password', label: 'Ask for a new reset link' },
  },
} as const;

/**
 * The page of a mailed link that no longer works, or never did (used, expired, replaced by a newer one, not a
 * link at all): what the server said of it, and what to do now. Shown instead of the link's form, before
 * anything is typed.
 */
export function LinkNotValidPage({
  product,
  purpose,
  noun,
  error,
}: {
  product: string;
  purpose: keyof typeof WHAT_TO_DO;
  noun: string;
  /** The server's refusal of the link (LINK_INVALID, LINK_USED, LINK_EXPIRED). */
  error: ApiError;
}) {
  const what = WHAT_TO_DO[purpose];
  return (
    <AuthLayout product={product}>
      <PageHeading title="This link is not valid any more" />
      <ErrorCallout error={error} />
      <Text as="p" size="2" color="gray">
        {what.advice(noun)}
      </Text>
      <Flex direction="column" gap="3">
        {what.newLink === undefined ? null : (
          <ThemeLink asChild size="2">
            <Link to={what.newLink.to}>{what.newLink.label}</Link>
          </ThemeLink>
        )}
        <ThemeLink asChild size="2">
          <Link to="/sign-in">Go to sign in</Link>
        </ThemeLink>
      </Flex>
    </AuthLayout>
  );
}

/**
 * The page of a mailed link (`/invitation#token=…`, `/reset-password#token=…`): the token rides in the
 * fragment, which the browser never sends to a server, and stays there, so a reload keeps the form working. It
 * asks the server whether the link works before it shows its form (`POST /links/check`, which does not use it):
 * a bad, used or expired link says so at once (`LinkNotValidPage`), with what to do.
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
  const [check, setCheck] = useState<LinkState>({ status: 'checking' });
  const [attempt, setAttempt] = useState(0);
  const { api } = surface;
  const { set } = form;

  useEffect(() => {
    if (token === '') return;
    let current = true;
    api('POST /links/check', { body: { purpose: text.purpose, token } }).then(
      (link) => {
        if (!current) return;
        setCheck({ status: 'works', link });
        // The name the admin typed when inviting, for the person to keep or change.
        if (link.name !== '') set('name', link.name);
      },
      (error: unknown) => {
        if (!current) return;
        setCheck({
          status: 'failed',
          error:
            error instanceof ApiError ? error : new ApiError(0, 'NETWORK_ERROR', String(error), undefined),
        });
      },
    );
    return () => {
      current = false;
    };
    // Not `set`, which is new at each keystroke: the link is checked once per link and attempt.
  }, [api, text.purpose, token, attempt]);

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

  // Refused by the check, or by the server when the form was sent (used meanwhile, in another tab).
  const refusal = [check.status === 'failed' ? check.error : undefined, action.error].find(
    (error) => error !== undefined && LINK_ERRORS.has(error.code),
  );
  if (refusal) {
    return (
      <LinkNotValidPage
        product={surface.product}
        purpose={purpose}
        noun={surface.tenant.noun}
        error={refusal}
      />
    );
  }

  const submit = async () => {
    const { name, password, confirmation } = form.values;
    const found = { name: personNameProblem(name), ...newPasswordProblems(password, confirmation) };
    if (!form.check(found)) return;
    await action.run(
      async () => {
        if (purpose === 'invitation') {
          const answer = await api('POST /invitation', {
            body: { token, password, ...(name.trim() === '' ? {} : { name }) },
          });
          const signed = signedIn(answer);
          if (signed) void navigate(surface.home(signed.tenant), { replace: true });
        } else {
          await api('POST /password-reset/confirm', { body: { token, password } });
          const state: NoticeState = { notice: 'Your password is changed. Sign in with it.' };
          void navigate('/sign-in', { replace: true, state });
        }
      },
      errorsOfFields(['password', 'name'], form.setProblems),
    );
  };

  return (
    <AuthLayout product={surface.product}>
      <PageHeading title={text.title} />
      {check.status === 'checking' ? (
        <Flex direction="column" gap="3" role="status">
          <Text as="p" size="2" color="gray">
            Checking your link…
          </Text>
          <Skeleton height="120px" />
        </Flex>
      ) : check.status === 'failed' ? (
        <ErrorCallout error={check.error}>
          <Button
            variant="soft"
            size="1"
            onClick={() => {
              setCheck({ status: 'checking' });
              setAttempt((count) => count + 1);
            }}
          >
            Try again
          </Button>
        </ErrorCallout>
      ) : (
        <>
          <ErrorCallout error={action.error} />
          <Text as="p" size="2" color="gray">
            {text.whose(check.link)} {text.intro(surface.tenant.noun)}
          </Text>
          <SubmitForm onSubmit={submit} busy={action.busy} submit={text.button}>
            {purpose === 'invitation' ? (
              <NameField id="name" label="Your name" hint={surface.nameHint} own {...form.field('name')} />
            ) : null}
            <NewPasswordFields
              form={form}
              ids={{ password: 'new-password', confirmation: 'confirm-password' }}
            />
          </SubmitForm>
        </>
      )}
    </AuthLayout>
  );
}
