// Signing: each document the recipient signs, with its preview; signing by typing one's name with explicit
// consent. Documents others sign (the sender countersigns later) are shown as waiting for them.

import { ArrowRightIcon, CheckCircledIcon, ClockIcon, Pencil2Icon } from '@radix-ui/react-icons';
import { Badge, Button, Checkbox, Flex, Heading, Text } from '@radix-ui/themes';
import { useState, type SubmitEvent } from 'react';
import { useParams } from 'react-router';
import { ApiError } from '../../shared/api-error.ts';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { NameField } from '../../shared/form/person-fields.tsx';
import { useFormFields } from '../../shared/form/use-form-fields.ts';
import { Notice } from '../../shared/notice.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { CardSection } from '../components/card-section.tsx';
import { ChangesRequested } from '../components/changes-requested.tsx';
import { ProblemCallout, UnfinishedItems } from '../components/problem-callout.tsx';
import { DocumentPreview } from '../components/document-preview.tsx';
import { BackLink, LinkButton, StepHeading } from '../components/step-page.tsx';
import { formatDateTime, roleName } from '../format.ts';
import { recipientApi } from '../api.ts';
import { usePortal } from '../portal-state.tsx';
import { findStep, leftToDo, signedBy, submitted, type Step } from '../steps.ts';
import type { Process, SignableDocument } from '../types.ts';
import { StepNotFound } from './step-not-found.tsx';
import { ConsentBeforeSigning } from '../components/esign-disclosure.tsx';

type SignStep = Extract<Step, { kind: 'sign' }>;

export function SignStepPage() {
  const found = findStep(usePortal().steps, 'sign', useParams());
  return found ? <SignStepView {...found} /> : <StepNotFound />;
}

function SignStepView({ step, index }: { step: SignStep; index: number }) {
  const { view, steps, href } = usePortal();
  const { process } = step;
  const role = view.recipient.role;
  const unfinished = leftToDo(process, role).items;
  const others = process.documents.filter((document) => !document.signedBy.includes(role));
  const next = steps[index + 1];
  const allSigned = step.documents.every((document) => signedBy(document, role));
  // Before the first signature (or after a withdrawal), the disclosure comes first: the forms wait for the agreement.
  const agreed = view.esign.standing?.act === 'consented';
  const firstToSign = step.documents.find((document) => document.canSign && !signedBy(document, role));
  const toSign = firstToSign !== undefined;
  const askConsent = !agreed && toSign && unfinished.length === 0 && !submitted(process);
  return (
    <Flex direction="column" gap="5">
      <ChangesRequested process={process} />
      <StepHeading index={index} title={step.title} />
      <Text as="p" size="3">
        {step.documents.length === 1
          ? `Read the ${step.documents[0]?.title ?? 'document'}, then sign it by typing your name.`
          : 'Read each document, then sign it by typing your name.'}{' '}
        It is filled in with your answers as they are now.
      </Text>
      {unfinished.length > 0 && !submitted(process) ? (
        <ProblemCallout
          color="amber"
          title="Finish your answers first: the document shows them as they are when you sign."
        >
          <UnfinishedItems items={unfinished} />
        </ProblemCallout>
      ) : null}
      {askConsent ? <ConsentBeforeSigning focusAfter={`sign-${firstToSign.key}-name`} /> : null}
      {step.documents.map((document) => (
        <DocumentToSign
          key={document.key}
          document={document}
          process={process}
          ready={unfinished.length === 0}
          agreed={agreed}
          single={step.documents.length === 1}
        />
      ))}
      {others.length > 0 ? (
        <Flex direction="column" gap="2">
          <Heading as="h2" size="4">
            Signed by others
          </Heading>
          {others.map((document) => (
            <Text as="p" size="2" key={document.key}>
              The {document.title} is signed by {document.signedBy.map(roleName).join(' and ')}.
            </Text>
          ))}
        </Flex>
      ) : null}
      <Flex gap="3" wrap="wrap">
        <BackLink index={index} />
        {allSigned && next ? (
          <LinkButton to={href(next.path)}>
            Continue <ArrowRightIcon aria-hidden />
          </LinkButton>
        ) : null}
      </Flex>
    </Flex>
  );
}

/** Who signs the document, in order, and where each signature stands. */
function Signers({ document }: { document: SignableDocument }) {
  const { view } = usePortal();
  return (
    <ol className="signer-list">
      {document.signedBy.map((role) => {
        const signature = document.signatures.find((each) => each.role === role);
        const you = role === view.recipient.role;
        return (
          <li key={role}>
            <Flex gap="2" align="center" wrap="wrap">
              {signature ? (
                <CheckCircledIcon aria-hidden className="step-icon-done" />
              ) : (
                <ClockIcon aria-hidden className="signer-waiting" />
              )}
              <Text size="2" weight="medium">
                {roleName(role)}
                {you ? ' (you)' : ''}
              </Text>
              <Text size="2" color="gray">
                {signature
                  ? `signed as ${signature.signedName} on ${formatDateTime(signature.signedAt)}`
                  : you
                    ? 'to sign'
                    : 'signs later'}
              </Text>
            </Flex>
          </li>
        );
      })}
    </ol>
  );
}

function DocumentToSign({
  document,
  process,
  ready,
  agreed,
  single,
}: {
  document: SignableDocument;
  process: Process;
  ready: boolean;
  /** The recipient agreed to use electronic records and signatures: the signing form is offered. */
  agreed: boolean;
  single: boolean;
}) {
  const { view } = usePortal();
  const role = view.recipient.role;
  const mine = document.signatures.find((signature) => signature.role === role);
  return (
    <CardSection
      id={`document-${document.key}`}
      title={document.title}
      headingSize="5"
      gap="4"
      aside={
        mine ? (
          <Badge color="green" highContrast size="2">
            Signed
          </Badge>
        ) : document.canSign ? (
          <Badge color="amber" highContrast size="2">
            To sign
          </Badge>
        ) : (
          <Badge color="gray" size="2">
            Waiting
          </Badge>
        )
      }
    >
      <DocumentPreview document={document} />
      <Signers document={document} />
      {mine ? (
        <Notice tone="done" highContrast role="status">
          You signed as {mine.signedName} on {formatDateTime(mine.signedAt)}.
        </Notice>
      ) : submitted(process) ? null : !document.canSign ? (
        <Text as="p" size="2" color="gray">
          {waitingText(document, role)}
        </Text>
      ) : !ready ? null : agreed ? (
        <SignForm document={document} single={single} />
      ) : (
        <Text as="p" size="2" color="gray">
          To sign it here, first agree to use electronic records and signatures{' '}
          {single ? 'above' : 'at the top of this page'}.
        </Text>
      )}
    </CardSection>
  );
}

/** Why the recipient cannot sign the document now. */
function waitingText(document: SignableDocument, role: string): string {
  const before = document.signedBy.slice(0, document.signedBy.indexOf(role));
  const waiting = before.filter((each) => !document.signatures.some((signature) => signature.role === each));
  return waiting.length > 0
    ? `${waiting.map(roleName).join(' and ')} signs first; you can sign after that.`
    : 'This document cannot be signed now.';
}

const CONSENT_TEXT =
  'I agree to sign electronically: my typed name is my signature on this document, with the same effect as a handwritten one.';

/** The typed name, the consent, "Sign". */
function SignForm({ document, single }: { document: SignableDocument; single: boolean }) {
  const { view, token, reload, handleStale } = usePortal();
  const form = useFormFields<'name', 'consent'>({ name: view.recipient.name });
  const [consent, setConsent] = useState(false);
  const action = useApiAction();
  const [conflict, setConflict] = useState<string | undefined | null>(null);
  const id = `sign-${document.key}`;

  const sign = async (event: SubmitEvent) => {
    event.preventDefault();
    setConflict(null);
    const typed = form.values.name.trim().replace(/\s+/g, ' ');
    const found = {
      ...(typed === '' ? { name: 'Type your full name: it is your signature.' } : {}),
      ...(typed.length > 200 ? { name: 'Type at most 200 characters.' } : {}),
      ...(consent ? {} : { consent: 'Tick the box to agree to sign electronically.' }),
    };
    if (!form.check(found)) {
      window.document.getElementById(found.name ? `${id}-name` : `${id}-consent`)?.focus();
      return;
    }
    await action.run(
      async () => {
        await recipientApi('POST /recipient/:token/documents/:documentKey/signatures', {
          params: { token, documentKey: document.key },
          body: { signedName: typed, consent: true },
        });
        await reload();
      },
      (error) => {
        if (error.code === 'ESIGN_CONSENT_REQUIRED') {
          // Withdrawn meanwhile (another tab): the view read again asks for the agreement first.
          void reload();
          return true;
        }
        if (error.code === 'CONSENT_REQUIRED') {
          form.setProblems({ consent: 'Tick the box to agree to sign electronically.' });
          return true;
        }
        if (error.code === 'BAD_USER_INPUT' && error.field === 'signedName') {
          form.setProblems({ name: error.message });
          return true;
        }
        if (error.code === 'CONFLICT') {
          // Signed meanwhile (another tab), or another party signs first: the view read again says which.
          void reload();
          setConflict(error.requestId);
          return true;
        }
        return handleStale(error);
      },
    );
  };

  return (
    <form onSubmit={(event) => void sign(event)} noValidate aria-label={`Sign the ${document.title}`}>
      <Flex direction="column" gap="4">
        <ErrorCallout
          error={
            conflict === null
              ? action.error
              : new ApiError(
                  409,
                  'CONFLICT',
                  'This document cannot be signed now: it was signed already (in another window?) or waits for another signature first. The page shows where it stands.',
                  conflict,
                )
          }
        />
        <NameField
          id={`${id}-name`}
          label="Your full name"
          hint="Type it as you want it on the document: it is your signature."
          own
          {...form.field('name')}
          maxLength={200}
          required
        />
        {form.values.name.trim() === '' ? null : (
          <div className="signature-preview" aria-hidden>
            <Text size="1" color="gray">
              Your signature
            </Text>
            <div className="signature-script">{form.values.name.trim()}</div>
          </div>
        )}
        <Flex direction="column" gap="1">
          <Text as="label" size="2" className="checkbox-field">
            <Flex gap="2" align="start">
              <Checkbox
                id={`${id}-consent`}
                size="2"
                checked={consent}
                onCheckedChange={(checked) => {
                  setConsent(checked === true);
                }}
                required
                aria-invalid={form.problems.consent ? true : undefined}
                aria-describedby={form.problems.consent ? `${id}-consent-error` : undefined}
                className="checkbox-box"
              />
              <span>{CONSENT_TEXT}</span>
            </Flex>
          </Text>
          {form.problems.consent ? (
            <Text id={`${id}-consent-error`} size="2" color="red" weight="medium">
              <span className="visually-hidden">Error: </span>
              {form.problems.consent}
            </Text>
          ) : null}
        </Flex>
        <div>
          <Button type="submit" size="3" loading={action.busy}>
            <Pencil2Icon aria-hidden /> Sign
            {single ? null : <span className="visually-hidden"> the {document.title}</span>}
          </Button>
        </div>
      </Flex>
    </form>
  );
}
