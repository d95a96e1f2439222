// "Electronic records": the disclosure the recipient agreed to (or is asked to), where they stand, and their
// choices: agree, withdraw their agreement, or ask to sign on paper, with a message to the organization if they
// wish. Linked from every page's footer and from the sign step ("Sign on paper instead", to #paper).

import { ArrowLeftIcon } from '@radix-ui/react-icons';
import { Button, Card, Flex, Heading, Text, TextArea } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Notice } from '../../shared/notice.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { recipientApi } from '../api.ts';
import { AgreeButton, DisclosureText, standingText } from '../components/esign-disclosure.tsx';
import { LinkButton } from '../components/step-page.tsx';
import { usePortal } from '../portal-state.tsx';

const MAX_MESSAGE = 1000;

export function ElectronicRecordsPage() {
  const { view, href } = usePortal();
  const { standing, disclosure } = view.esign;
  const organization = view.organization.name;
  const { hash } = useLocation();
  // "Sign on paper instead" leads to the paper form: it is shown in view, after the page's heading took focus.
  useEffect(() => {
    if (hash === '#paper') window.document.getElementById('paper')?.scrollIntoView({ block: 'start' });
  }, [hash]);
  return (
    <Flex direction="column" gap="5">
      <PageHeading
        title="Electronic records and signatures"
        documentTitle={`Electronic records · ${view.template.name}`}
      />
      <Notice tone={standing?.act === 'consented' ? 'done' : 'aside'} role="status">
        {standingText(standing, organization)}
      </Notice>
      <Card size="3">
        <Flex direction="column" gap="3">
          <Heading as="h2" size="4">
            What {organization} asks you to agree to
          </Heading>
          <DisclosureText text={disclosure.text} />
          <Text as="p" size="1" color="gray">
            Version {disclosure.sha256.slice(0, 12)} (the first characters of its SHA-256 fingerprint, kept
            with your answer).
          </Text>
          {standing?.act === 'consented' ? null : <AgreeButton />}
        </Flex>
      </Card>
      <PaperOrWithdraw />
      <div>
        <LinkButton to={href()} soft>
          <ArrowLeftIcon aria-hidden /> Back to your steps
        </LinkButton>
      </div>
    </Flex>
  );
}

/**
 * Withdrawing the agreement (while it stands) and asking to sign on paper, each with the same optional message;
 * the organization is told by mail.
 */
function PaperOrWithdraw() {
  const { view, token, reload, handleStale } = usePortal();
  const { standing } = view.esign;
  const organization = view.organization.name;
  const [message, setMessage] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useApiAction();
  const consented = standing?.act === 'consented';
  const paperAsked = standing?.act === 'paper_requested';
  const send = (act: 'withdrawn' | 'paper_requested') =>
    action.run(async () => {
      setDone(null);
      const trimmed = message.trim();
      await recipientApi('POST /recipient/:token/esign', {
        params: { token },
        body: { act, ...(trimmed === '' ? {} : { message: trimmed }) },
      });
      await reload();
      setMessage('');
      setDone(
        act === 'paper_requested'
          ? `Done: ${organization} has been told you want to sign on paper.`
          : `Done: ${organization} has been told you withdrew your agreement.`,
      );
    }, handleStale);
  return (
    <section aria-labelledby="paper" className="esign-choices">
      <Card size="3">
        <Flex direction="column" gap="3">
          <Heading as="h2" size="4" id="paper" tabIndex={-1}>
            Sign on paper instead
          </Heading>
          <Text as="p" size="3">
            {consented
              ? `You can withdraw your agreement at any time, or ask to sign on paper. What you signed before stays signed; ${organization} is told and goes on with you on paper.`
              : `You can ask to sign on paper. ${organization} is told and will contact you to go on on paper.`}
          </Text>
          {done === null ? null : (
            <Notice tone="done" role="status">
              {done}
            </Notice>
          )}
          <ErrorCallout error={action.error} />
          {paperAsked ? null : (
            <>
              <Flex direction="column" gap="1">
                <Text as="label" htmlFor="esign-message" size="2" weight="medium">
                  A message to {organization} (optional)
                </Text>
                <TextArea
                  id="esign-message"
                  size="3"
                  value={message}
                  maxLength={MAX_MESSAGE}
                  aria-describedby="esign-message-hint"
                  onChange={(event) => {
                    setMessage(event.target.value);
                  }}
                />
                <Text id="esign-message-hint" size="1" color="gray">
                  For example where to post the papers, or a better time to call. At most 1,000 characters.
                </Text>
              </Flex>
              <Flex gap="3" wrap="wrap">
                <Button
                  size="3"
                  variant="outline"
                  loading={action.busy}
                  onClick={() => void send('paper_requested')}
                >
                  Ask to sign on paper
                </Button>
                {consented ? (
                  <Button
                    size="3"
                    variant="outline"
                    color="red"
                    loading={action.busy}
                    onClick={() => void send('withdrawn')}
                  >
                    Withdraw my agreement
                  </Button>
                ) : null}
              </Flex>
            </>
          )}
        </Flex>
      </Card>
    </section>
  );
}
