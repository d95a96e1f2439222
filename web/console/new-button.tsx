import { PlusIcon } from '@radix-ui/react-icons';
import { Button, Flex, Text } from '@radix-ui/themes';
import { Link } from 'react-router';

/**
 * A list page's "+ New …" button, beside its heading (under it on a phone): a link to the form for those who may
 * use it; greyed for the others, with why under it, tied to it for screen readers.
 *
 * @example
 * <NewButton to="/closings/new" label="New closing" allowed={may(user.role, 'operate')}
 *   reasonId="new-closing-reason" reason="Only admins and operators make closings." />
 */
export function NewButton({
  to,
  label,
  allowed,
  reasonId,
  reason,
}: {
  to: string;
  label: string;
  allowed: boolean;
  /** The id of the text that says why the button is greyed. */
  reasonId: string;
  reason: string;
}) {
  if (allowed) {
    return (
      <Button asChild>
        <Link to={to}>
          <PlusIcon aria-hidden /> {label}
        </Link>
      </Button>
    );
  }
  return (
    <Flex direction="column" gap="1" align={{ initial: 'start', sm: 'end' }} maxWidth={{ sm: '240px' }}>
      <Button disabled aria-describedby={reasonId}>
        <PlusIcon aria-hidden /> {label}
      </Button>
      <Text id={reasonId} size="1" color="gray" align={{ initial: 'left', sm: 'right' }}>
        {reason}
      </Text>
    </Flex>
  );
}
