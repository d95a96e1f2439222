import { Link as ThemeLink, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

/**
 * The way back above a page's heading: "← Work queue", "← Templates". The arrow is not read out.
 *
 * @example
 * <BackLink to="/closings">Closings</BackLink>
 */
export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Text size="2">
      <ThemeLink asChild>
        <Link to={to}>
          <span aria-hidden="true">← </span>
          {children}
        </Link>
      </ThemeLink>
    </Text>
  );
}
