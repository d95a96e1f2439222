import { Button, Flex, Spinner, Text } from '@radix-ui/themes';
import type { ApiError } from '../api-error.ts';
import { AuthLayout } from '../auth-layout.tsx';
import { ErrorCallout } from '../error-callout.tsx';
import { PageHeading } from '../page-heading.tsx';

/** A page's module or the session on its way. */
export function Loading() {
  return (
    <Flex align="center" justify="center" className="full-height" role="status">
      <Spinner size="3" />
      <Text ml="2" color="gray">
        Loading…
      </Text>
    </Flex>
  );
}

/**
 * What a surface shows before it knows who is signed in: {@link Loading} while it asks, and when the server
 * cannot be asked (offline, down), why, with a button to try again.
 */
export function SessionPending({
  session,
  refresh,
  product,
  name,
}: {
  session: { status: 'loading' } | { status: 'unreachable'; error: ApiError };
  refresh: () => Promise<void>;
  product: string;
  /** The surface as the heading names it, e.g. "dashboard" in "The dashboard cannot reach Portico". */
  name: string;
}) {
  if (session.status === 'loading') return <Loading />;
  return (
    <AuthLayout product={product}>
      <PageHeading title={`The ${name} cannot reach Portico`} />
      <ErrorCallout error={session.error} />
      <Button onClick={() => void refresh()}>Try again</Button>
    </AuthLayout>
  );
}
