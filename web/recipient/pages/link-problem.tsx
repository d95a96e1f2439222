// Pages that stand instead of the portal: a link that opens nothing, was replaced, expired; too many tries;
// Portico out of reach; an address without a link. A voided transaction has its own page (voided.tsx).

import { ReloadIcon } from '@radix-ui/react-icons';
import { Button, Flex, Spinner, Text } from '@radix-ui/themes';
import { AuthLayout } from '../../shared/auth-layout.tsx';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import type { ApiError } from '../api.ts';

/** What the portal is, under Portico's name on the pages that stand instead of it. */
export const PRODUCT = 'Documents to complete and sign';

interface Explained {
  title: string;
  text: string;
  /** Whether trying again may help (a limit, the network), rather than another link. */
  retry: boolean;
}

function explain(error: ApiError): Explained {
  switch (error.code) {
    case 'NOT_FOUND':
      return {
        title: 'This link does not work',
        text: 'Check that you opened the whole link from the e-mail, as it is. If it still does not work, ask the sender for a new one.',
        retry: false,
      };
    case 'LINK_REVOKED':
      return {
        title: 'This link was replaced',
        text: 'A newer e-mail about this has a new link: use the link in the latest e-mail you received. Your answers are kept.',
        retry: false,
      };
    case 'LINK_EXPIRED':
      return {
        title: 'This link has expired',
        text: 'Ask the sender of your invitation for a new one. Your answers so far are kept.',
        retry: false,
      };
    case 'RATE_LIMITED':
      return {
        title: 'Too many requests',
        text: 'This link was used many times in a short while. Wait a minute, then try again.',
        retry: true,
      };
    case 'NETWORK_ERROR':
      return {
        title: 'Portico cannot be reached',
        text: 'Check your connection, then try again. Your answers are kept.',
        retry: true,
      };
    default:
      return { title: 'This page cannot be shown now', text: 'Try again in a moment.', retry: true };
  }
}

export function LinkProblemPage({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  const { title, text, retry } = explain(error);
  return (
    <AuthLayout product={PRODUCT}>
      <PageHeading title={title} />
      <Text as="p" size="3">
        {text}
      </Text>
      {retry ? (
        <>
          <ErrorCallout error={error} />
          <Button size="3" onClick={onRetry}>
            <ReloadIcon aria-hidden /> Try again
          </Button>
        </>
      ) : error.requestId === undefined ? null : (
        <Text as="p" size="1" color="gray">
          If you contact support, quote request {error.requestId}.
        </Text>
      )}
    </AuthLayout>
  );
}

/** `/r` alone: the page needs the link from the e-mail. */
export function NoLinkPage() {
  return (
    <AuthLayout product={PRODUCT}>
      <PageHeading title="Open the link from your e-mail" />
      <Text as="p" size="3">
        This page shows what an organization asks you to complete and sign. Open it with the whole link from
        the e-mail you received: the link is yours alone.
      </Text>
    </AuthLayout>
  );
}

export function LoadingPage() {
  return (
    <main id="main" className="full-height">
      <Flex align="center" justify="center" className="full-height" role="status" gap="2">
        <Spinner size="3" />
        <Text color="gray">Opening your documents…</Text>
      </Flex>
    </main>
  );
}
