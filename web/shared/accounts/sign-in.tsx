import { Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { AuthLayout } from '../auth-layout.tsx';
import { Notice } from '../notice.tsx';
import { PageHeading } from '../page-heading.tsx';
import { SignInForm } from './sign-in-form.tsx';
import { SsoSignIn } from './sso/sso-sign-in.tsx';
import type { AccountSurface } from './surface.ts';

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

/** The sign-in page: the {@link SignInForm}, then where the person was going (`?next=`) or the surface's home. */
export function SignInPage<Answer, User, Tenant>({
  surface,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
}) {
  const { session } = surface.useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  // The notice of the page before ("You have signed out.") is old news once the person sends the form.
  const [sent, setSent] = useState(false);

  if (session.status === 'signed-in') {
    return <Navigate to={next ?? surface.home(session.tenant)} replace />;
  }
  const notice =
    (location.state as NoticeState | null)?.notice ??
    (session.status === 'signed-out' ? session.notice : undefined);

  return (
    <AuthLayout product={surface.product}>
      <PageHeading title="Sign in" />
      {notice === undefined || sent ? null : (
        <Notice tone="info" role="status">
          {notice}
        </Notice>
      )}
      <Flex
        direction="column"
        gap="4"
        onSubmitCapture={() => {
          setSent(true);
        }}
      >
        <SignInForm
          surface={surface}
          onSignedIn={(signed) => {
            if (signed) void navigate(next ?? surface.home(signed.tenant), { replace: true });
          }}
        />
      </Flex>
      <SsoSignIn surface={surface} />
      <Text size="2" color="gray">
        New here? An admin of your organization invites you by e-mail.
      </Text>
    </AuthLayout>
  );
}
