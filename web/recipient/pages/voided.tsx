// The page that stands instead of the portal once the organization voided the transaction: who voided it, when,
// and the reason they gave (the TRANSACTION_VOIDED refusal's details), and that nothing more is asked.

import { Text } from '@radix-ui/themes';
import { AuthLayout } from '../../shared/auth-layout.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import type { ApiError } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { PRODUCT } from './link-problem.tsx';

/** The facts of a TRANSACTION_VOIDED refusal, each read only when it has the type it should. */
function voidOf(error: ApiError): { organizationName: string; reason: string; voidedAt: string | undefined } {
  const { organizationName, reason, voidedAt } = error.details;
  return {
    organizationName: typeof organizationName === 'string' ? organizationName : 'The sender',
    reason: typeof reason === 'string' ? reason : '',
    voidedAt: typeof voidedAt === 'string' ? voidedAt : undefined,
  };
}

export function VoidedPage({ error }: { error: ApiError }) {
  const { organizationName, reason, voidedAt } = voidOf(error);
  return (
    <AuthLayout product={PRODUCT}>
      <PageHeading title="This transaction was voided" />
      <Text as="p" size="3">
        {organizationName} voided it{voidedAt === undefined ? '' : ` on ${formatDateTime(voidedAt)}`}: nothing
        more is asked of you, and nothing more can be filled in, uploaded or signed through this link.
      </Text>
      {reason === '' ? null : (
        <>
          <Text as="p" size="3" weight="bold">
            Their reason
          </Text>
          <blockquote className="sponsor-message">
            <Text size="3">“{reason}”</Text>
          </blockquote>
        </>
      )}
      <Text as="p" size="2" color="gray">
        If you have a question about it, ask {organizationName}.
      </Text>
    </AuthLayout>
  );
}
