import { Box, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';

/** What a list with nothing in it says: that it is empty, what to do about it, and maybe a link. */
export function EmptyState({ title, hint, children }: { title: string; hint: string; children?: ReactNode }) {
  return (
    <Box className="empty-state">
      <Text as="p" weight="medium">
        {title}
      </Text>
      <Text as="p" size="2" color="gray">
        {hint}
      </Text>
      {children}
    </Box>
  );
}
