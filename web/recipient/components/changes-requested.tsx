import { InfoCircledIcon } from '@radix-ui/react-icons';
import { Callout, Flex, Text } from '@radix-ui/themes';
import { formatDateTime } from '../format.ts';
import { usePortal } from '../portal-state.tsx';
import type { Process } from '../types.ts';

/**
 * What the sender asked to change, when the revision was opened for that, and what to do: shown on every step
 * of the revision until it is submitted.
 */
export function ChangesRequested({ process }: { process: Process }) {
  const { view } = usePortal();
  const requested = process.revision.changesRequested;
  if (!requested || process.revision.committedAt !== null) return null;
  return (
    <Callout.Root color="amber" highContrast size="2" className="changes-requested">
      <Callout.Icon>
        <InfoCircledIcon />
      </Callout.Icon>
      <Flex direction="column" gap="2">
        <Text as="p" size="2" weight="bold">
          {view.organization.name} asked for changes on {formatDateTime(requested.at)}
        </Text>
        {requested.message ? (
          <blockquote className="sponsor-message">
            <Text size="2">“{requested.message}”</Text>
          </blockquote>
        ) : null}
        <Text as="p" size="2">
          Your answers are kept. Review them, change what was asked, sign again and submit. Answers you change
          are marked “Changed”.
        </Text>
      </Flex>
    </Callout.Root>
  );
}
