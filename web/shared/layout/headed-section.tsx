import { Heading } from '@radix-ui/themes';
import type { ComponentProps, ReactNode } from 'react';

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
