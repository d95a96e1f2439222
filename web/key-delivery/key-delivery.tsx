// Kept as one file: the page's steps (the address, the code, the key shown, a stop) share one state and one way
// of telling a stopped link from a mistake.
import { LockClosedIcon } from '@radix-ui/react-icons';
import { Badge, Button, Code, Flex, Link, Text } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import type { ApiErrorCode } from '../shared/api-error.ts';
import { AuthLayout } from '../shared/auth-layout.tsx';
import { ErrorCallout } from '../shared/error-callout.tsx';
import { emailProblem } from '../shared/form/checks.ts';
import { EmailField } from '../shared/form/person-fields.tsx';
import { Field } from '../shared/form/field.tsx';
import { formatTime } from '../shared/format.ts';
import { Notice } from '../shared/notice.tsx';
import { PageHeading } from '../shared/page-heading.tsx';
import { SecretField } from '../shared/secret-field.tsx';
import { SubmitForm } from '../shared/form/submit-form.tsx';
import { errorsOfFields, useApiAction } from '../shared/use-api-action.ts';
import { useFormFields } from '../shared/form/use-form-fields.ts';
import { ApiError, keyDeliveryApi } from './api.ts';
import { decryptKey, proofOf, readLink } from './link.ts';
import type { Invitation } from './types.ts';

const PRODUCT = 'API key delivery';

/** Where the person is: each step of the page, or why it stops. */
type Step =
  | { name: 'checking' }
  | { name: 'stopped'; title: string; error: ApiError }
  | { name: 'address'; invitation: Invitation }
  | { name: 'code'; invitation: Invitation; email: string; codeExpiresAt: string }
  | { name: 'shown'; invitation: Invitation; key: string }
  | { name: 'stored'; invitation: Invitation };

/** The title of the page that says why the key cannot be shown. */
const STOPPED: Partial<Record<ApiErrorCode, string>> = {
  LINK_INVALID: 'This link cannot be used',
  LINK_EXPIRED: 'This link has expired',
  LINK_REVOKED: 'This key delivery was revoked',
  LINK_USED: 'This key has been shown already',
  ADDRESS_NOT_LISTED: 'This key was not issued to your address',
};

const ENVIRONMENT: Record<Invitation['environment'], { label: string; prefix: string }> = {
  staging: { label: 'staging', prefix: 'sk_test_' },
  production: { label: 'production', prefix: 'sk_live_' },
};

/** What a reload keeps: the address a code was sent to (never the code or the key). */
const remembered = (linkId: string) => `portico-key-delivery:${linkId}`;

/**
 * The key-delivery page: it checks the link, asks for the address, mails a code to it, asks for the code, and
 * shows the key once, decrypted here. Any refusal becomes a page that says why and whom to ask.
 */
export function KeyDelivery() {
  const [link] = useState(() => readLink(window.location));
  const [step, setStep] = useState<Step>({ name: 'checking' });
  const [proof, setProof] = useState<string>();
  const [described, setDescribed] = useState<Invitation>();

  const stop = (error: ApiError) => {
    setStep({ name: 'stopped', title: STOPPED[error.code] ?? 'The key cannot be shown', error });
  };

  useEffect(() => {
    if (!link.ok) {
      stop(new ApiError(400, 'LINK_INVALID', link.problem, undefined));
      return;
    }
    // Set false when the effect is undone (StrictMode runs it twice): its answer then changes nothing.
    const run = { current: true };
    void (async () => {
      const linkProof = await proofOf(link.secret);
      try {
        const invitation = await keyDeliveryApi('POST /describe', {
          body: { linkId: link.linkId, proof: linkProof },
        });
        if (!run.current) return;
        setProof(linkProof);
        setDescribed(invitation);
        const saved = sessionStorage.getItem(remembered(link.linkId));
        const resumed =
          saved === null ? undefined : (JSON.parse(saved) as { email: string; codeExpiresAt: string });
        setStep(
          resumed && new Date(resumed.codeExpiresAt) > new Date()
            ? { name: 'code', invitation, ...resumed }
            : { name: 'address', invitation },
        );
      } catch (error) {
        if (run.current && error instanceof ApiError) stop(error);
      }
    })();
    return () => {
      run.current = false;
    };
  }, [link]);

  if (step.name === 'checking' || !link.ok || proof === undefined) {
    return (
      <AuthLayout product={PRODUCT}>
        {step.name === 'stopped' ? (
          <Stopped title={step.title} error={step.error} />
        ) : (
          <>
            <PageHeading title="Checking your link" />
            <Text role="status" color="gray">
              One moment…
            </Text>
          </>
        )}
      </AuthLayout>
    );
  }
  const { linkId } = link;
  const request = { linkId, proof };

  return (
    <AuthLayout product={PRODUCT}>
      {step.name === 'stopped' ? (
        <Stopped
          title={step.title}
          error={step.error}
          onRetry={
            step.error.code === 'ADDRESS_NOT_LISTED' && described !== undefined
              ? () => {
                  setStep({ name: 'address', invitation: described });
                }
              : undefined
          }
        />
      ) : step.name === 'address' ? (
        <AddressStep
          invitation={step.invitation}
          onSent={(email, codeExpiresAt) => {
            sessionStorage.setItem(remembered(linkId), JSON.stringify({ email, codeExpiresAt }));
            setStep({ name: 'code', invitation: step.invitation, email, codeExpiresAt });
          }}
          onStopped={stop}
          request={request}
        />
      ) : step.name === 'code' ? (
        <CodeStep
          step={step}
          request={request}
          onRevealed={async (sealed) => {
            sessionStorage.removeItem(remembered(linkId));
            try {
              const key = await decryptKey(link, sealed);
              setStep({ name: 'shown', invitation: step.invitation, key });
            } catch {
              stop(
                new ApiError(
                  400,
                  'LINK_INVALID',
                  'The key could not be decrypted with this link: ask the team that issued it to revoke it and deliver a new one.',
                  undefined,
                ),
              );
            }
          }}
          onOtherAddress={() => {
            sessionStorage.removeItem(remembered(linkId));
            setStep({ name: 'address', invitation: step.invitation });
          }}
          onStopped={stop}
        />
      ) : step.name === 'shown' ? (
        <ShownKey
          invitation={step.invitation}
          apiKey={step.key}
          onStored={() => {
            setStep({ name: 'stored', invitation: step.invitation });
          }}
        />
      ) : (
        <>
          <PageHeading title="Done" />
          <Notice tone="done" highContrast role="status">
            The key is no longer on this page, and this link will not show it again. You can close the tab.
          </Notice>
        </>
      )}
    </AuthLayout>
  );
}

/** Hands a refusal that ends the page (the link or the address) to `onStopped`; answers whether it did. */
function stopsOr(error: ApiError, onStopped: (error: ApiError) => void): boolean {
  if (!(error.code in STOPPED)) return false;
  onStopped(error);
  return true;
}

/** Who issued the key, for which environment, until when. */
function InvitationText({ invitation }: { invitation: Invitation }) {
  return (
    <Text as="p" size="2">
      <strong>{invitation.organizationName}</strong> has a Portico Transactions API key for you, for the{' '}
      <Badge color={invitation.environment === 'production' ? 'red' : 'blue'} highContrast>
        {ENVIRONMENT[invitation.environment].label}
      </Badge>{' '}
      environment. This link works until {formatTime(invitation.expiresAt)}
      {invitation.viewsRequired === 'first'
        ? ', for the first of the people it was sent to.'
        : ', once for each person it was sent to.'}
    </Text>
  );
}

function AddressStep({
  invitation,
  request,
  onSent,
  onStopped,
}: {
  invitation: Invitation;
  request: { linkId: string; proof: string };
  onSent: (email: string, codeExpiresAt: string) => void;
  onStopped: (error: ApiError) => void;
}) {
  const form = useFormFields({ email: '' });
  const action = useApiAction();

  const submit = async () => {
    const address = form.values.email.trim();
    if (!form.check({ email: emailProblem(address) })) return;
    await action.run(
      async () => {
        const sent = await keyDeliveryApi('POST /code', { body: { ...request, email: address } });
        onSent(sent.sentTo, sent.expiresAt);
      },
      (error) => stopsOr(error, onStopped) || errorsOfFields(['email'], form.setProblems)(error),
    );
  };

  return (
    <>
      <PageHeading title="Your API key" />
      <InvitationText invitation={invitation} />
      <Text as="p" size="2" color="gray">
        To see it, prove that you received this link: enter your e-mail address, and we mail a code to it.
      </Text>
      <ErrorCallout error={action.error} />
      <SubmitForm onSubmit={submit} busy={action.busy} submit="Mail me a code">
        <EmailField label="Your e-mail address" autoComplete="email" {...form.field('email')} />
      </SubmitForm>
    </>
  );
}

function CodeStep({
  step,
  request,
  onRevealed,
  onOtherAddress,
  onStopped,
}: {
  step: Extract<Step, { name: 'code' }>;
  request: { linkId: string; proof: string };
  onRevealed: (sealed: { ciphertext: string; iv: string }) => Promise<void>;
  onOtherAddress: () => void;
  onStopped: (error: ApiError) => void;
}) {
  const form = useFormFields({ code: '' });
  const action = useApiAction();
  const [resent, setResent] = useState<string>();

  const submit = async () => {
    setResent(undefined);
    const digits = form.values.code.replace(/\s/g, '');
    const found = /^\d{6,12}$/.test(digits)
      ? undefined
      : digits === ''
        ? 'Enter the code from the e-mail.'
        : 'The code is the 8 digits in the e-mail.';
    if (!form.check({ code: found })) return;
    await action.run(
      async () => {
        await onRevealed(
          await keyDeliveryApi('POST /reveal', {
            body: { ...request, email: step.email, code: digits },
          }),
        );
      },
      (error) => {
        if (stopsOr(error, onStopped)) return true;
        if (error.code !== 'CODE_INVALID') return false;
        form.setProblems({ code: error.message });
        return true;
      },
    );
  };

  const resend = async () => {
    form.setProblems({});
    setResent(undefined);
    await action.run(
      async () => {
        await keyDeliveryApi('POST /code', { body: { ...request, email: step.email } });
        form.set('code', '');
        setResent(`A new code is on its way to ${step.email}; the one before no longer works.`);
      },
      (error) => stopsOr(error, onStopped),
    );
  };

  return (
    <>
      <PageHeading title="Enter the code" />
      <Text as="p" size="2">
        We mailed a code to <strong>{step.email}</strong>. It works once, until{' '}
        {formatTime(step.codeExpiresAt)}.
      </Text>
      <ErrorCallout error={action.error} />
      {resent === undefined ? null : (
        <Text role="status" size="2" color="green">
          {resent}
        </Text>
      )}
      <SubmitForm onSubmit={submit} busy={action.busy} submit="Show my key">
        <Field
          id="code"
          label="Code"
          inputMode="numeric"
          autoComplete="one-time-code"
          {...form.field('code')}
          maxLength={20}
          required
        />
      </SubmitForm>
      <Flex gap="4" wrap="wrap">
        <Link asChild size="2">
          <button type="button" className="link-button" onClick={() => void resend()}>
            Mail me a new code
          </button>
        </Link>
        <Link asChild size="2">
          <button type="button" className="link-button" onClick={onOtherAddress}>
            Use another address
          </button>
        </Link>
      </Flex>
    </>
  );
}

function ShownKey({
  invitation,
  apiKey,
  onStored,
}: {
  invitation: Invitation;
  apiKey: string;
  onStored: () => void;
}) {
  return (
    <>
      <PageHeading title="Your API key" />
      <InvitationText invitation={invitation} />
      <Notice tone="warning" highContrast>
        This is the only time the key is shown: this link will not show it again, and Portico cannot read it.
        Store it in a secret manager now, and never in code or chat.
      </Notice>
      <SecretField
        id="api-key"
        label={`API key (${ENVIRONMENT[invitation.environment].prefix}…)`}
        secret={apiKey}
      />
      <Text as="p" size="2" color="gray">
        Send it as <Code>Authorization: Bearer {ENVIRONMENT[invitation.environment].prefix}…</Code> to the
        GraphQL API at <Code className="break-all">{window.location.origin}/beta</Code>.
      </Text>
      <Button size="3" onClick={onStored}>
        <LockClosedIcon aria-hidden /> I have stored the key
      </Button>
    </>
  );
}

/** Why the key cannot be shown, and what to do. */
function Stopped({
  title,
  error,
  onRetry,
}: {
  title: string;
  error: ApiError;
  onRetry?: (() => void) | undefined;
}) {
  return (
    <>
      <PageHeading title={title} />
      <ErrorCallout error={error} />
      <Text as="p" size="2" color="gray">
        Nothing about the key was shown. Keys are delivered on request by the team that runs Portico for you.
      </Text>
      {onRetry === undefined ? null : (
        <Button variant="soft" onClick={onRetry}>
          Try another address
        </Button>
      )}
    </>
  );
}
