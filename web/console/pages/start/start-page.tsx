import { Button, Flex, Grid, Text } from '@radix-ui/themes';
import { useRef, useState, type ChangeEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Field } from '../../../shared/form/field.tsx';
import { Form } from '../../../shared/form/submit-form.tsx';
import { Notice } from '../../../shared/notice.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import { InvitationPreview, type InvitationMail } from './invitation-preview.tsx';
import { PrefillFields } from './prefill-fields.tsx';
import { NoteField, SelectField, TemplateOptions, WithStartOptions } from './sending-fields.tsx';
import {
  chosenOf,
  fieldId,
  firstProblemId,
  problemsOfRefusal,
  readForm,
  useDraft,
  type Draft,
  type FormField,
  type Problems,
  type StartBody,
  type StartOptions,
} from './start-draft.ts';
import './start.css';
import { BackLink } from '../../../shared/layout/back-link.tsx';
import { CardSection } from '../../../shared/layout/headed-section.tsx';

const NO_PROBLEMS: Problems = { fields: {}, answers: {} };

/** A record without the entries of `keys`. */
function without<T>(record: Partial<Record<string, T>>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record).filter(
      (entry): entry is [string, T] => entry[1] !== undefined && !keys.includes(entry[0]),
    ),
  );
}

/** Where the form's draft is kept: one per organization and person, so that another person starts afresh. */
function useDraftKey(): string {
  const { user, tenant } = useSignedIn();
  return `portico.console.new-transaction.${tenant.handle}.${user.id}`;
}

/** A part of the form in a card under its h2, its fields one under the other. */
function Part({ title, children }: { title: string; children: ReactNode }) {
  return (
    <CardSection title={title}>
      <Flex direction="column" gap="4">
        {children}
      </Flex>
    </CardSection>
  );
}

/**
 * "New transaction" (`/console/transactions/new`): an operator or an admin starts one transaction from one of
 * the organization's templates, for one investor, with the answers the template lets them give now, how long
 * the investor's link works and a personal line for the invitation; previews the invitation as the investor will
 * get it; and sends it, which opens the new transaction's page. What is typed stays through a reload until it is
 * sent. Others read why they cannot.
 */
export default function StartPage() {
  const { user, tenant } = useSignedIn();
  return (
    <Flex direction="column" gap="5" maxWidth="760px">
      <Flex direction="column" gap="2">
        <BackLink to="/queue">Work queue</BackLink>
        <PageHeading title="New transaction" documentTitle={`New transaction · ${tenant.name}`} />
        <Text size="2" color="gray">
          Invite an investor to a transaction of {tenant.name}: the invitation goes by e-mail as soon as you
          send it, with the investor&apos;s own link.
        </Text>
      </Flex>
      {may(user.role, 'operate') ? (
        <WithStartOptions doing="start a transaction">
          {(options) => <StartFields options={options} />}
        </WithStartOptions>
      ) : (
        <Notice tone="aside">Only admins and operators start transactions.</Notice>
      )}
    </Flex>
  );
}

/**
 * The form: what to start (template, sender), the investor, the answers the template lets the sender give now,
 * and the invitation (the link's days, a personal line); "Preview invitation" shows the mail in a dialog, from
 * which it may be sent too. A send goes once however often it is clicked (the draft's idempotency key), and
 * opens the transaction's page.
 */
function StartFields({ options }: { options: StartOptions }) {
  const navigate = useNavigate();
  const { draft, change, clear } = useDraft(useDraftKey());
  const [problems, setProblems] = useState<Problems>(NO_PROBLEMS);
  const [mail, setMail] = useState<InvitationMail>();
  const previewing = useApiAction();
  const sending = useApiAction();
  const inFlight = useRef(false);
  const { templates, senders, entityTypes, limits } = options;
  const chosen = chosenOf(draft, options);
  if (chosen === undefined) return null; // The organization has no template or no sender: said above.
  const { template, senderId } = chosen;

  /** Shows `found` beside their fields, the keyboard on the first. */
  const show = (found: Problems) => {
    setProblems(found);
    const id = firstProblemId(found, template.prefill);
    // After the dialog, when one was open, has given the focus back to its button.
    setTimeout(() => {
      if (id !== undefined) document.getElementById(id)?.focus();
    }, 0);
  };
  /** Changes fields of the draft and forgets what was said wrong about them. */
  const edit = (changes: Partial<Draft>, ...fields: FormField[]) => {
    change(changes);
    setProblems((before) => ({ ...before, fields: without(before.fields, fields) }));
  };
  /** The form as the routes take it, or undefined when something is plainly wrong (then said beside it). */
  const checked = (): StartBody | undefined => {
    const read = readForm(draft, chosen, limits);
    if ('problems' in read) {
      show(read.problems);
      return undefined;
    }
    setProblems(NO_PROBLEMS);
    return read.body;
  };
  /** Takes a refusal about a field or an answer: shown beside it, the dialog closed. */
  const besideItsField = (error: ApiError): boolean => {
    const found = problemsOfRefusal(error, template.prefill);
    if (found === undefined) return false;
    setMail(undefined);
    show(found);
    return true;
  };

  const preview = async () => {
    const body = checked();
    if (body === undefined) return;
    await previewing.run(async () => {
      setMail((await consoleApi('POST /start/invitation', { body })).mail);
    }, besideItsField);
  };

  const send = async () => {
    if (inFlight.current) return;
    const body = checked();
    if (body === undefined) return;
    inFlight.current = true;
    await sending.run(async () => {
      try {
        const { transaction } = await consoleApi('POST /transactions', {
          body: { ...body, idempotencyKey: draft.idempotencyKey },
        });
        clear();
        void navigate(`/transactions/${transaction.id}`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'IDEMPOTENCY_KEY_REUSED') throw error;
        // This form started a transaction before (its answer lost on the way), with other answers: the next send
        // starts another, as the person then means it to.
        change({ idempotencyKey: crypto.randomUUID() });
        throw new ApiError(
          error.status,
          error.code,
          'This form already started a transaction with other answers: look for it in the work queue before you send this one.',
          error.requestId,
        );
      } finally {
        inFlight.current = false;
      }
    }, besideItsField);
  };

  const busy = sending.busy;
  const text = (field: 'name' | 'email' | 'days') => ({
    value: field === 'days' ? chosen.days : draft[field],
    error: problems.fields[field],
    disabled: busy,
    autoComplete: 'off',
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      edit({ [field]: event.target.value }, field);
    },
  });
  return (
    <>
      <Form onSubmit={send}>
        <Part title="What to start">
          <Grid columns={{ initial: '1', sm: '2' }} gap="4">
            <SelectField
              id={fieldId('template')}
              label="Template"
              error={problems.fields.template}
              value={template.id}
              disabled={busy}
              onChange={(event) => {
                edit({ templateId: event.target.value, days: null }, 'template', 'days');
              }}
            >
              <TemplateOptions templates={templates} />
            </SelectField>
            <SelectField
              id={fieldId('sender')}
              label="Sender"
              hint="The fund or entity the investor deals with."
              error={problems.fields.sender}
              value={senderId}
              disabled={busy}
              onChange={(event) => {
                edit({ senderEntityId: event.target.value }, 'sender');
              }}
            >
              {senders.map((each) => (
                <option key={each.id} value={each.id}>
                  {each.name}
                </option>
              ))}
            </SelectField>
          </Grid>
        </Part>
        <Part title="Investor">
          <Grid columns={{ initial: '1', sm: '2' }} gap="4">
            <Field
              id={fieldId('name')}
              label="Name"
              hint="As the invitation addresses them."
              {...text('name')}
            />
            <Field
              id={fieldId('email')}
              label="E-mail address"
              type="email"
              inputMode="email"
              {...text('email')}
            />
            <SelectField
              id={fieldId('entityType')}
              label="Invests as"
              hint="For an investor new to your organization; one invited before keeps theirs."
              error={problems.fields.entityType}
              value={draft.entityType}
              disabled={busy}
              onChange={(event) => {
                edit({ entityType: event.target.value as Draft['entityType'] }, 'entityType');
              }}
            >
              {entityTypes.map((each) => (
                <option key={each.value} value={each.value}>
                  {each.title}
                </option>
              ))}
            </SelectField>
          </Grid>
        </Part>
        {template.prefill.length === 0 ? null : (
          <Part title="Answers you give now">
            <Text as="p" size="2" color="gray">
              The investor finds them filled in and may change them. Leave one blank for the investor to give.
            </Text>
            <PrefillFields
              prefill={template.prefill}
              typed={draft}
              problems={problems.answers}
              disabled={busy}
              onAnswer={(answer, value) => {
                change((before) => ({ answers: { ...before.answers, [answer]: value } }));
                setProblems((before) => ({ ...before, answers: without(before.answers, [answer]) }));
              }}
              onCurrency={(answer, currency) => {
                change((before) => ({ currencies: { ...before.currencies, [answer]: currency } }));
              }}
            />
          </Part>
        )}
        <Part title="Invitation">
          <Grid columns={{ initial: '1', sm: '2' }} gap="4">
            <Field
              id={fieldId('days')}
              label="Link works for (days)"
              hint={`${template.name} sets ${String(template.linkValidDays)}. From 1 to ${String(limits.maxLinkValidDays)}.`}
              type="number"
              inputMode="numeric"
              min={1}
              max={limits.maxLinkValidDays}
              {...text('days')}
            />
          </Grid>
          <NoteField
            id={fieldId('note')}
            value={draft.note}
            max={limits.maxNoteLength}
            error={problems.fields.note}
            disabled={busy}
            onChange={(note) => {
              edit({ note }, 'note');
            }}
          />
        </Part>
        <ErrorCallout error={mail === undefined ? (sending.error ?? previewing.error) : undefined} />
        <Flex gap="3" justify="end" wrap="wrap">
          <Button
            type="button"
            size="3"
            variant="soft"
            loading={previewing.busy}
            disabled={busy}
            onClick={() => {
              void preview();
            }}
          >
            Preview invitation
          </Button>
          <Button type="submit" size="3" loading={busy}>
            Send invitation
          </Button>
        </Flex>
      </Form>
      <InvitationPreview
        mail={mail}
        sending={busy}
        error={sending.error}
        onSend={() => {
          void send();
        }}
        onClose={() => {
          setMail(undefined);
        }}
      />
    </>
  );
}
