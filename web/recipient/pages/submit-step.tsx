// Review and submit: the answers and signatures that will be sent, what is still missing (with a link to it),
// and "Submit". Once submitted, the portal shows where things stand.

import { PaperPlaneIcon, Pencil1Icon } from '@radix-ui/react-icons';
import { Button, Card, Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { useRef, useState, type RefObject } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { Answers } from '../components/answers.tsx';
import { ChangesRequested } from '../components/changes-requested.tsx';
import { ProblemCallout, UnfinishedItems } from '../components/problem-callout.tsx';
import { CardSection } from '../components/card-section.tsx';
import { BackLink, LinkButton, StepHeading } from '../components/step-page.tsx';
import { forgetDrafts } from '../form/drafts.ts';
import { formatDateTime, roleName } from '../format.ts';
import { recipientApi } from '../api.ts';
import { usePortal } from '../portal-state.tsx';
import { documentsSignedBy, findStep, leftToDo, submitted, type Step } from '../steps.ts';
import type { Item, SignableDocument } from '../types.ts';
import { StepNotFound } from './step-not-found.tsx';

type SubmitStep = Extract<Step, { kind: 'submit' }>;

export function SubmitStepPage() {
  const found = findStep(usePortal().steps, 'submit', useParams());
  return found ? <SubmitStepView {...found} /> : <StepNotFound />;
}

/** What is missing before submitting, with links to the steps that hold it. */
function Missing({
  items,
  documents,
  focusRef,
}: {
  items: Item[];
  documents: SignableDocument[];
  focusRef: RefObject<HTMLDivElement | null>;
}) {
  const { steps, href } = usePortal();
  const signStep = steps.find((step) => step.kind === 'sign');
  return (
    <ProblemCallout color="amber" title="Before you submit:" focusRef={focusRef}>
      <UnfinishedItems items={items} />
      {documents.map((document) => (
        <li key={document.key}>
          <ThemeLink asChild size="2" highContrast>
            <Link to={signStep ? href(signStep.path) : href()}>Sign the {document.title}</Link>
          </ThemeLink>
        </li>
      ))}
    </ProblemCallout>
  );
}

function SubmitStepView({ step, index }: { step: SubmitStep; index: number }) {
  const { view, token, steps, href, reload, handleStale } = usePortal();
  const navigate = useNavigate();
  const { process } = step;
  const role = view.recipient.role;
  const action = useApiAction();
  const [shownMissing, setShownMissing] = useState<{ items: Item[]; documents: SignableDocument[] }>();
  const missingRef = useRef<HTMLDivElement>(null);
  const left = leftToDo(process, role);
  const compare = process.revision.number > 1;

  const submit = async () => {
    if (left.items.length > 0 || left.documents.length > 0) {
      setShownMissing(left);
      requestAnimationFrame(() => missingRef.current?.focus());
      return;
    }
    await action.run(
      async () => {
        await recipientApi('POST /recipient/:token/processes/:processKey/submit', {
          params: { token, processKey: process.key },
        });
        forgetDrafts(view.transaction.id);
        await reload();
        void navigate(href());
      },
      (error) => {
        if (error.code === 'REVISION_SUBMITTED') {
          // Submitted already (a second click, another tab): show where things stand, not an error.
          void reload().then(() => navigate(href()));
          return true;
        }
        if (error.code === 'REVISION_INCOMPLETE') {
          const keys = (name: string) =>
            Array.isArray(error.details[name]) ? (error.details[name] as unknown[]).map(String) : [];
          setShownMissing({
            items: process.items.filter((item) => keys('items').includes(item.vulcanKey)),
            documents: process.documents.filter((document) => keys('documents').includes(document.key)),
          });
          void reload();
          requestAnimationFrame(() => missingRef.current?.focus());
          return true;
        }
        return handleStale(error);
      },
    );
  };

  if (submitted(process)) {
    return (
      <Flex direction="column" gap="5">
        <StepHeading index={index} title={step.title} />
        <Text as="p">
          You submitted this
          {process.revision.committedAt ? ` on ${formatDateTime(process.revision.committedAt)}` : ''}.
        </Text>
        <div>
          <LinkButton to={href()}>See where it stands</LinkButton>
        </div>
      </Flex>
    );
  }

  const missing = shownMissing;
  return (
    <Flex direction="column" gap="5">
      <ChangesRequested process={process} />
      <StepHeading index={index} title={step.title} />
      <Text as="p" size="3">
        Check what you send to {view.organization.name}. To change an answer, go back to its step.
      </Text>
      {missing && (missing.items.length > 0 || missing.documents.length > 0) ? (
        <Missing items={missing.items} documents={missing.documents} focusRef={missingRef} />
      ) : null}
      {process.items.map((item) => {
        const at = steps.find((each) => each.kind === 'item' && each.item.vulcanKey === item.vulcanKey);
        return (
          <CardSection
            key={item.vulcanKey}
            id={`review-${item.vulcanKey}`}
            title={item.title}
            gap="3"
            aside={
              <ThemeLink asChild size="2">
                <Link to={at ? href(at.path) : href()}>
                  <Pencil1Icon aria-hidden /> Change
                  <span className="visually-hidden"> {item.title}</span>
                </Link>
              </ThemeLink>
            }
          >
            <Answers item={item} data={item.data} compare={compare} />
          </CardSection>
        );
      })}
      {process.documents.length > 0 ? (
        <CardSection id="review-documents" title="Documents" gap="2">
          {process.documents.map((document) => {
            const mine = document.signatures.find((signature) => signature.role === role);
            const yours = documentsSignedBy(process, role).includes(document);
            return (
              <Text as="p" size="2" key={document.key}>
                <strong>{document.title}</strong>:{' '}
                {mine
                  ? `signed by you as ${mine.signedName} on ${formatDateTime(mine.signedAt)}`
                  : yours
                    ? 'not signed yet'
                    : `signed by ${document.signedBy.map(roleName).join(' and ')}`}
                {yours && document.signedBy.length > 1 && mine
                  ? `; ${document.signedBy
                      .filter((each) => each !== role)
                      .map(roleName)
                      .join(' and ')} signs later`
                  : ''}
                .
              </Text>
            );
          })}
        </CardSection>
      ) : null}
      <Card size="3" className="submit-card">
        <Flex direction="column" gap="3">
          <Text as="p" size="2">
            When you submit, {view.organization.name} receives your answers and signed documents. You cannot
            change them afterwards unless {view.organization.name} asks you to.
          </Text>
          <ErrorCallout error={action.error} />
          <Flex gap="3" wrap="wrap">
            <BackLink index={index} />
            <Button size="3" onClick={() => void submit()} loading={action.busy}>
              <PaperPlaneIcon aria-hidden /> Submit
            </Button>
          </Flex>
        </Flex>
      </Card>
    </Flex>
  );
}
