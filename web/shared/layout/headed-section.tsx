import { Card, Heading } from '@radix-ui/themes';
import { useId, type ComponentProps, type ReactNode } from 'react';

/**
 * A part of a page under its h2, which names it for screen readers (`aria-labelledby`): a transaction's
 * workflow, its timeline, the team's recent activity.
 *
 * @example
 * <HeadedSection id="files-heading" title="Files">…</HeadedSection>
 */
export function HeadedSection({
  id,
  title,
  size = '4',
  mb = '3',
  children,
}: {
  /** The heading's id. */
  id: string;
  title: ReactNode;
  size?: ComponentProps<typeof Heading>['size'];
  /** The space under the heading. */
  mb?: ComponentProps<typeof Heading>['mb'];
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id}>
      <Heading as="h2" size={size} id={id} mb={mb}>
        {title}
      </Heading>
      {children}
    </section>
  );
}

/**
 * A part of a page in a card, under its h2: a closing's progress, a template's versions.
 *
 * @example
 * <CardSection title="Versions">…</CardSection>
 */
export function CardSection({ title, children }: { title: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <Card size="2" asChild>
      <section aria-labelledby={id}>
        <Heading as="h2" size="4" id={id} mb="3">
          {title}
        </Heading>
        {children}
      </section>
    </Card>
  );
}
