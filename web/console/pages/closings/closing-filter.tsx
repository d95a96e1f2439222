import { Cross2Icon } from '@radix-ui/react-icons';
import { Badge, Button, Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';

/**
 * The work queue's filter to one closing's transactions (`?closing=<id>`, as a closing's page links to it): a
 * chip naming the closing, a button that removes the filter (to `removed`, the queue's address without it),
 * and a link back to the closing's page. The closing's name comes from the list of closings.
 */
export function ClosingFilter({ id, removed }: { id: string; removed: string }) {
  const closings = useResource(consoleApi, 'GET /closings');
  const found = closings.data?.closings.find((closing) => closing.id === id);
  const name =
    found?.name ?? (closings.data === undefined && closings.error === undefined ? '…' : 'one closing');
  return (
    <Flex gap="2" align="center" wrap="wrap">
      <Badge size="2" variant="soft" highContrast>
        Closing: {name}
      </Badge>
      <Button asChild size="1" variant="soft" color="gray">
        <Link to={removed} aria-label={`Remove the filter Closing: ${name}`}>
          <Cross2Icon aria-hidden /> Remove
        </Link>
      </Button>
      {found === undefined ? null : (
        <Text size="2">
          <ThemeLink asChild>
            <Link to={`/closings/${id}`}>Open the closing</Link>
          </ThemeLink>
        </Text>
      )}
    </Flex>
  );
}
