import { ExclamationTriangleIcon } from '@radix-ui/react-icons';
import { Callout } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import type { ApiError } from './api-error.ts';

/**
 * What went wrong, as the server said it, in a live region (screen readers read it out), with the request id
 * to quote to support when there is one.
 */
export function ErrorCallout({ error, children }: { error: ApiError | undefined; children?: ReactNode }) {
  if (!error) return null;
  return (
    <Callout.Root color="red" role="alert">
      <Callout.Icon>
        <ExclamationTriangleIcon />
      </Callout.Icon>
      <Callout.Text>
        {error.message}
        {error.requestId === undefined ? null : (
          <>
            {' '}
            <span className="request-id">(request {error.requestId})</span>
          </>
        )}
      </Callout.Text>
      {children}
    </Callout.Root>
  );
}
