import { Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { PageHeading } from '../page-heading.tsx';

/** An address under a surface that names no page, with the way `home` (e.g. "Go to the console"). */
export function NotFoundPage({ home, homeLabel }: { home: string; homeLabel: string }) {
  return (
    <Flex direction="column" gap="3" className="centered-page">
      <PageHeading title="Nothing is at this address" />
      <Text as="p" color="gray">
        The link may be mistyped, or the page may have moved.
      </Text>
      <ThemeLink asChild>
        <Link to={home}>{homeLabel}</Link>
      </ThemeLink>
    </Flex>
  );
}
