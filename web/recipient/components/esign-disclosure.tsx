// Consent to use electronic records and signatures (ESIGN Act, UETA; docs/esign-consent.md): the disclosure as the
// organization wrote it (or Portico's default), the button that accepts it, never a ticked box, and where the
// recipient stands. The sign step shows it before the first signature; the "Electronic records" page
// (pages/electronic-records.tsx) shows it again, with withdrawing and asking for paper.

import { CheckCircledIcon } from '@radix-ui/react-icons';
import { Button, Card, Flex, Heading, Link as ThemeLink, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Notice } from '../../shared/notice.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { recipientApi } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { usePortal } from '../portal-state.tsx';
import type { RecipientView } from '../types.ts';

/** Where the recipient stands: their latest act about the disclosure, or null. */
export type EsignStanding = RecipientView['esign']['standing'];

/** The words of the button that accepts the disclosure. */
export const AGREE = 'I agree to use electronic records and signatures';

/** The path of the page about electronic records, inside the portal (`href(ESIGN_PAGE)`). */
export const ESIGN_PAGE = 'electronic-records';

/** `**bold**` spans of a line, as text and <strong>: nothing of the text is read as HTML. */
function inline(text: string): ReactNode[] {
  return text
    .split(/(\*\*[^*]+\*\*)/g)
    .map((part, index) =>
      part.startsWith('**') && part.endsWith('**') && part.length > 4 ? (
        <strong key={index}>{part.slice(2, -2)}</strong>
      ) : (
        part
      ),
    );
}

/**
 * The disclosure's Markdown, as plain blocks: paragraphs (blank lines between), `- ` lists, `#` headings as bold
 * lines, `**bold**`. Anything else shows as it was written.
 */
export function DisclosureText({ text }: { text: string }) {
  const blocks = text
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '');
  return (
    <div className="disclosure-text">
      {blocks.map((block, index) => {
        const lines = block.split('\n');
        if (lines.every((line) => /^[-*] /.test(line.trim()))) {
          return (
            <ul key={index}>
              {lines.map((line, at) => (
                <li key={at}>
                  <Text size="3">{inline(line.trim().slice(2))}</Text>
                </li>
              ))}
            </ul>
          );
        }
        const heading = /^#{1,6} (.*)$/.exec(block);
        return (
          <Text as="p" size="3" key={index} weight={heading ? 'bold' : undefined}>
            {inline(heading?.[1] ?? lines.join(' '))}
          </Text>
        );
      })}
    </div>
  );
}

/** Where the recipient stands, in a sentence: agreed when, withdrew when, asked for paper when. */
export function standingText(standing: EsignStanding, organization: string): string {
  if (standing === null) return 'You have not agreed to use electronic records and signatures yet.';
  const when = formatDateTime(standing.at);
  if (standing.act === 'consented') return `You agreed to use electronic records and signatures on ${when}.`;
  if (standing.act === 'withdrawn')
    return `You withdrew your agreement on ${when}. ${organization} has been told, and nothing more can be signed here until you agree again.`;
  return `You asked to sign on paper on ${when}. ${organization} has been told and will contact you; nothing more can be signed here unless you agree to sign electronically after all.`;
}

/** Focuses the element of `id` once it is on the page: within the next two frames, after the view re-rendered. */
function focusWhenShown(id: string, framesLeft = 2): void {
  window.requestAnimationFrame(() => {
    const element = window.document.getElementById(id);
    if (element) element.focus();
    else if (framesLeft > 1) focusWhenShown(id, framesLeft - 1);
  });
}

/**
 * The button that accepts the disclosure: the act is recorded, then the view is read again. The button then
 * leaves the page, so the focus goes on to `focusAfter` (the name to sign with), not back to the page's top.
 */
export function AgreeButton({ focusAfter }: { focusAfter?: string | undefined }) {
  const { token, reload, handleStale } = usePortal();
  const action = useApiAction();
  return (
    <Flex direction="column" gap="3">
      <ErrorCallout error={action.error} />
      <div>
        <Button
          size="3"
          className="sentence-button"
          loading={action.busy}
          onClick={() =>
            void action.run(async () => {
              await recipientApi('POST /recipient/:token/esign', {
                params: { token },
                body: { act: 'consented' },
              });
              await reload();
              if (focusAfter !== undefined) focusWhenShown(focusAfter);
            }, handleStale)
          }
        >
          <CheckCircledIcon aria-hidden /> {AGREE}
        </Button>
      </div>
    </Flex>
  );
}

/**
 * The disclosure in the sign step, before the first signature (or after a withdrawal): read it, then agree, or
 * choose paper.
 */
export function ConsentBeforeSigning({ focusAfter }: { focusAfter?: string | undefined }) {
  const { view, href } = usePortal();
  const organization = view.organization.name;
  const { standing, disclosure } = view.esign;
  return (
    <section aria-labelledby="esign-heading">
      <Card size="3">
        <Flex direction="column" gap="4">
          <Flex direction="column" gap="1">
            <Text as="p" size="2" color="gray">
              Before you sign
            </Text>
            <Heading as="h2" size="5" id="esign-heading">
              Electronic records and signatures
            </Heading>
          </Flex>
          {standing === null ? null : (
            <Notice tone="warning" highContrast>
              {standingText(standing, organization)}
            </Notice>
          )}
          <DisclosureText text={disclosure.text} />
          <AgreeButton focusAfter={focusAfter} />
          <Text as="p" size="2">
            Would you rather not?{' '}
            <ThemeLink asChild>
              <Link to={`${href(ESIGN_PAGE)}#paper`}>Sign on paper instead</Link>
            </ThemeLink>
          </Text>
        </Flex>
      </Card>
    </section>
  );
}
