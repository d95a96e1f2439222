import { Box, Card, Flex, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';

/** The frame of a page with one task (signing in, a mailed link): the product's name, one card in the middle. */
export function AuthLayout({ product, children }: { product: string; children: ReactNode }) {
  return (
    <main id="main" className="auth-main">
      <Flex direction="column" align="center" gap="5" width="100%">
        <Flex direction="column" align="center" gap="1">
          <Text weight="bold" size="6" className="brand">
            Portico
          </Text>
          <Text size="2" color="gray">
            {product}
          </Text>
        </Flex>
        <Box width="100%" maxWidth="420px">
          <Card size="4">
            <Flex direction="column" gap="4">
              {children}
            </Flex>
          </Card>
        </Box>
      </Flex>
    </main>
  );
}
