import { ExclamationTriangleIcon } from '@radix-ui/react-icons';
import { Callout, Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import type { ReactNode, RefObject } from 'react';
import { Link } from 'react-router';
import { usePortal } from '../portal-state.tsx';
import type { Item } from '../types.ts';

/**
 * A list of what is left to do or fix, each a link to where to do it (`children`: the `<li>`s). Shown in answer
 * to an action ("Continue", "Submit"), it is an alert and takes the focus through `focusRef`.
 */
export function ProblemCallout({
  color,
  title,
  focusRef,
  children,
}: {
  color: 'red' | 'amber';
  title: string;
  focusRef?: RefObject<HTMLDivElement | null>;
  children: ReactNode;
}) {
  return (
    <Callout.Root
      color={color}
      highContrast
      role={focusRef ? 'alert' : undefined}
      ref={focusRef}
      tabIndex={focusRef ? -1 : undefined}
      className="problem-summary"
    >
      <Callout.Icon>
        <ExclamationTriangleIcon />
      </Callout.Icon>
      <Flex direction="column" gap="2">
        <Text as="p" size="2" weight="bold">
          {title}
        </Text>
        <ul className="problem-list">{children}</ul>
      </Flex>
    </Callout.Root>
  );
}

/** An `<li>` for each item not finished yet, linking to its step: `About you (60% done)`. */
export function UnfinishedItems({ items }: { items: readonly Item[] }) {
  const { steps, href } = usePortal();
  return (
    <>
      {items.map((item) => {
        const at = steps.find((step) => step.kind === 'item' && step.item.vulcanKey === item.vulcanKey);
        return (
          <li key={item.vulcanKey}>
            <ThemeLink asChild size="2" highContrast>
              <Link to={at ? href(at.path) : href()}>
                {item.title} ({item.completionPercentage}% done)
              </Link>
            </ThemeLink>
          </li>
        );
      })}
    </>
  );
}
