import { DownloadIcon } from '@radix-ui/react-icons';
import { Button, Flex, Text } from '@radix-ui/themes';
import { consoleApi } from '../api.ts';

/**
 * The evidence bundle of a transaction, or of every transaction of a closing, as a download: a zip of the
 * certificates of completion, sealed documents, uploads and histories with their hash chain, which anyone can
 * check offline with `portico verify` (docs/evidence.md). A plain link: the browser saves the zip as it streams.
 * Greyed, with the reason, while there is nothing to bundle.
 */
export function EvidenceLink({
  of,
  id,
  note,
  unavailable,
}: {
  of: 'transaction' | 'closing';
  id: string;
  /** What the bundle holds now, in a line under the button (e.g. no certificate until it completes). */
  note?: string | undefined;
  /** Why there is nothing to download yet, when there is not. */
  unavailable?: string | undefined;
}) {
  const href =
    of === 'transaction'
      ? consoleApi.urlOf('GET /transactions/:id/evidence', { params: { id } })
      : consoleApi.urlOf('GET /closings/:id/evidence', { params: { id } });
  const words = of === 'transaction' ? 'Download evidence bundle' : 'Download evidence bundles';
  const explanation = unavailable ?? note;
  return (
    <Flex direction="column" gap="1" align="start">
      {unavailable === undefined ? (
        <Button asChild variant="soft" size="2">
          <a href={href} download aria-describedby={note === undefined ? undefined : `evidence-note-${id}`}>
            <DownloadIcon aria-hidden /> {words}
          </a>
        </Button>
      ) : (
        <Button variant="soft" size="2" disabled aria-describedby={`evidence-note-${id}`}>
          <DownloadIcon aria-hidden /> {words}
        </Button>
      )}
      {explanation === undefined ? null : (
        <Text size="1" color="gray" id={`evidence-note-${id}`}>
          {explanation}
        </Text>
      )}
    </Flex>
  );
}
