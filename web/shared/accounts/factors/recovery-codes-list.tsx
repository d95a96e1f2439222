import { Button, Code, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';

/**
 * Ten recovery codes, shown once: in a monospace list, with a button that copies them and a link that downloads
 * them as a text file. Portico keeps only their hashes; once this closes, they cannot be shown again.
 */
export function RecoveryCodesList({ codes }: { codes: readonly string[] }) {
  const [copied, setCopied] = useState(false);
  const text = `Portico recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  return (
    <Flex direction="column" gap="3">
      <Text as="p" size="2">
        Keep these recovery codes somewhere safe, apart from your phone. Each signs you in once in place of a
        code from the app. They are shown only now.
      </Text>
      <ol aria-label="Recovery codes" style={{ columns: 2, margin: 0, paddingLeft: '2em' }}>
        {codes.map((code) => (
          <li key={code}>
            <Code variant="ghost" size="3">
              {code}
            </Code>
          </li>
        ))}
      </ol>
      <Flex gap="3" align="center" wrap="wrap">
        <Button
          variant="soft"
          onClick={() => {
            void navigator.clipboard.writeText(text).then(() => {
              setCopied(true);
            });
          }}
        >
          Copy the codes
        </Button>
        <Button variant="soft" asChild>
          <a
            href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
            download="portico-recovery-codes.txt"
          >
            Download the codes
          </a>
        </Button>
        {copied ? (
          <Text size="2" role="status">
            Copied.
          </Text>
        ) : null}
      </Flex>
    </Flex>
  );
}
