import { PRODUCT } from '../product.ts';
import { Button, Flex, Text } from '@radix-ui/themes';
import { Link, useNavigate } from 'react-router';
import { AuthLayout } from '../../shared/auth-layout.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { useSession, useSignedIn } from '../session.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';

/**
 * An address of another instance than the one signed in to (or of none: the page cannot tell, and does not
 * say). It offers the way back, and signing out to sign in with an account of the other instance.
 */
export function WrongInstancePage({ path }: { path: string }) {
  const { tenant: instance } = useSignedIn();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const action = useApiAction();
  return (
    <AuthLayout product={PRODUCT}>
      <PageHeading title="This page belongs to another instance" />
      <Text as="p" size="2">
        You are signed in to <strong>{instance.name}</strong>. To open this page, sign in with an account of
        the instance it belongs to.
      </Text>
      <ErrorCallout error={action.error} />
      <Flex gap="3" wrap="wrap">
        <Button asChild>
          <Link to={`/${instance.slug}/companies`}>Back to {instance.name}</Link>
        </Button>
        <Button
          variant="soft"
          loading={action.busy}
          onClick={() =>
            void action.run(async () => {
              await signOut();
              void navigate(`/sign-in?next=${encodeURIComponent(path)}`);
            })
          }
        >
          Sign out and switch
        </Button>
      </Flex>
    </AuthLayout>
  );
}
