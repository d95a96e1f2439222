import { Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { PageHeading } from '../../shared/page-heading.tsx';

/** An address under /dashboard that names no page. */
export function NotFoundPage({ home }: { home: string }) {
  return (
    <Flex direction="column" gap="3" className="centered-page">
      <PageHeading title="Nothing is at this address" />
      <Text as="p" color="gray">
        The link may be mistyped, or the page may have moved.
      </Text>
      <ThemeLink asChild>
        <Link to={home}>Go to the dashboard</Link>
      </ThemeLink>
    </Flex>
  );
}
