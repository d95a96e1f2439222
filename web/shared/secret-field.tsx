import { Box, Flex, Text, TextField } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { CopyButton } from './copy-button.tsx';

/**
 * A secret shown once (a new API key): read-only, selected whole when focused, with a "Copy key" button beside
 * it (the text is selected for copying by hand where the clipboard is not allowed).
 */
export function SecretField({ id, label, secret }: { id: string; label: ReactNode; secret: string }) {
  return (
    <Flex direction="column" gap="1">
      <Text as="label" htmlFor={id} size="2" weight="medium">
        {label}
      </Text>
      <Flex gap="2" wrap="wrap">
        <Box flexGrow="1" minWidth="0">
          <TextField.Root
            id={id}
            readOnly
            value={secret}
            className="secret-field"
            onFocus={(event) => {
              event.currentTarget.select();
            }}
          />
        </Box>
        <CopyButton text={secret} label="Copy key" fallbackInputId={id} />
      </Flex>
    </Flex>
  );
}
