import { ExternalLinkIcon, FileTextIcon } from '@radix-ui/react-icons';
import { Card, Flex, Link, Text } from '@radix-ui/themes';
import type { SignableDocument } from '../types.ts';
import { useMediaQuery } from '../use-media-query.ts';

/**
 * A document as it will be signed: shown in the page on a wide screen, and always a link to open the PDF (a
 * phone's browser opens PDFs in their own viewer, and some browsers show none in a page).
 */
export function DocumentPreview({ document }: { document: SignableDocument }) {
  const wide = useMediaQuery('(min-width: 768px)');
  const open = (
    <Link href={document.previewUrl} target="_blank" rel="noopener" size="2" weight="medium">
      <FileTextIcon aria-hidden /> Open the PDF
      <span className="visually-hidden"> of the {document.title} (opens in a new tab)</span>{' '}
      <ExternalLinkIcon aria-hidden />
    </Link>
  );
  if (!wide) {
    return (
      <Card size="2">
        <Flex direction="column" gap="2">
          <Flex gap="2" align="start">
            <FileTextIcon aria-hidden width="18" height="18" className="list-icon" />
            <Text size="2">The {document.title} as a PDF, filled in with your answers.</Text>
          </Flex>
          {open}
        </Flex>
      </Card>
    );
  }
  return (
    <Flex direction="column" gap="2">
      <iframe
        // The pages fit the frame's width, without the viewer's side panel (viewers that know these hints).
        src={`${document.previewUrl}#view=FitH&navpanes=0`}
        title={`Preview of the ${document.title}`}
        className="pdf-frame"
      />
      <Text size="2" color="gray">
        The preview does not show? {open}
      </Text>
    </Flex>
  );
}
