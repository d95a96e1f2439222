import { Flex, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';

/**
 * The top of a page with a header: a skip link to `#main`, then the header's bar with the product's name and
 * whose page it is (an instance, an organization) on the left and `end` on the right, and `children` below
 * the bar (the sections). `surface` names the CSS classes (`app-header`, `app-header-bar`).
 */
export function SiteHeader({
  surface,
  owner,
  end,
  children,
}: {
  surface: 'app' | 'portal';
  /** Whose pages these are, beside the product's name. */
  owner: string;
  end: ReactNode;
  children?: ReactNode;
}) {
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className={`${surface}-header`}>
        <Flex align="center" justify="between" gap="3" className={`${surface}-header-bar`}>
          <Flex align={surface === 'app' ? 'center' : 'baseline'} gap="2" minWidth="0">
            <Text weight="bold" size="4" className="brand">
              Portico
            </Text>
            <Text color="gray" size="2" truncate>
              {owner}
            </Text>
          </Flex>
          {end}
        </Flex>
        {children}
      </header>
    </>
  );
}
