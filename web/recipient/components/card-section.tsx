import { Card, Flex, Heading } from '@radix-ui/themes';
import type { ReactNode } from 'react';

/**
 * A part of a step's page in a card, named by its h2 (a document, an item's answers), with `aside` beside the
 * heading (a badge, a link to change it).
 */
export function CardSection({
  id,
  title,
  headingSize = '4',
  gap,
  aside,
  children,
}: {
  /** The heading's id, which names the section. */
  id: string;
  title: ReactNode;
  headingSize?: '4' | '5';
  gap: '2' | '3' | '4';
  aside?: ReactNode;
  children: ReactNode;
}) {
  const heading = (
    <Heading as="h2" size={headingSize} id={id}>
      {title}
    </Heading>
  );
  return (
    <section aria-labelledby={id}>
      <Card size="3">
        <Flex direction="column" gap={gap}>
          {aside === undefined ? (
            heading
          ) : (
            <Flex justify="between" align="center" gap="3" wrap="wrap">
              {heading}
              {aside}
            </Flex>
          )}
          {children}
        </Flex>
      </Card>
    </section>
  );
}
