import { Button, Card, Flex, Grid, Text } from '@radix-ui/themes';
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import type { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Field } from '../../../shared/form/field.tsx';
import { Form } from '../../../shared/form/submit-form.tsx';
import { locale } from '../../../shared/format.ts';
import { Notice } from '../../../shared/notice.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import { NoteField, SelectField, TemplateOptions, WithStartOptions } from '../start/sending-fields.tsx';
import { chosenOf, type StartOptions } from '../start/start-draft.ts';
import { isRecord, useStoredState } from './stored-state.ts';
import { BackLink } from '../../../shared/layout/back-link.tsx';

/** The most characters of a closing's name (closings.ts `MAX_CLOSING_NAME_LENGTH`). */
const MAX_NAME_LENGTH = 200;

/** What the form holds, as typed: kept through a reload until the closing is made. */
interface ClosingDraft {
  name: string;
  /** The template's and the sender's ids; '' until chosen (the form shows the latest template, the first sender). */
  templateId: string;
  senderEntityId: string;
  /** The link's days as typed; null until typed (the template's own). */
  days: string | null;
  note: string;
  /**
   * The key of the send, made as it is first sent and kept until an edit: a retry whose first answer was lost
   * makes no second closing. '' until sent.
   */
  idempotencyKey: string;
}

const FRESH: ClosingDraft = {
  name: '',
  templateId: '',
  senderEntityId: '',
  days: null,
  note: '',
  idempotencyKey: '',
};

/** A stored draft, each field taken when it is text. */
function readDraft(stored: unknown): ClosingDraft | undefined {
  if (!isRecord(stored)) return undefined;
  const text = (field: keyof ClosingDraft) => {
    const value = stored[field];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    name: text('name') ?? '',
    templateId: text('templateId') ?? '',
    senderEntityId: text('senderEntityId') ?? '',
    days: text('days') ?? null,
    note: text('note') ?? '',
    idempotencyKey: text('idempotencyKey') ?? '',
  };
}

type FormField = 'name' | 'template' | 'sender' | 'days' | 'note';
type Problems = Partial<Record<FormField, string>>;
/** The form's fields in their order, and the field of the form each refusal's `details.field` names. */
const FIELDS: readonly FormField[] = ['name', 'template', 'sender', 'days', 'note'];
const FIELD_OF_REFUSAL: Record<string, FormField> = {
  name: 'name',
  templateId: 'template',
  senderEntityId: 'sender',
  linkValidDays: 'days',
  note: 'note',
  invitationNote: 'note',
};
const fieldId = (field: FormField) => `closing-${field}`;

/**
 * "New closing" (`/console/closings/new`): an operator or an admin names a closing ("Fund I, first close") and
 * chooses its template (the latest version first, older ones offered), its sender, how long the investors'
 * links work and a personal line for their invitations. Making it sends nothing: its page, which opens next, takes
 * the list of investors. What is typed stays through a reload until the closing is made.
 */
export default function NewClosingPage() {
  const { user, tenant } = useSignedIn();
  return (
    <Flex direction="column" gap="5" maxWidth="760px">
      <Flex direction="column" gap="2">
        <BackLink to="/closings">Closings</BackLink>
        <PageHeading title="New closing" documentTitle={`New closing · ${tenant.name}`} />
        <Text size="2" color="gray">
          Name the closing and say what each investor is invited to. Nothing is sent yet: next you add the
          list of investors and check it row by row.
        </Text>
      </Flex>
      {may(user.role, 'operate') ? (
        <WithStartOptions doing="make a closing">
          {(options) => <ClosingFields options={options} />}
        </WithStartOptions>
      ) : (
        <Notice tone="aside">Only admins and operators make closings.</Notice>
      )}
    </Flex>
  );
}

/** The fields, what is wrong beside each, and "Create closing", which opens the new closing's page. */
function ClosingFields({ options }: { options: StartOptions }) {
  const { user, tenant } = useSignedIn();
  const navigate = useNavigate();
  const [draft, setDraft, forget] = useStoredState(
    `portico.console.new-closing.${tenant.handle}.${user.id}`,
    FRESH,
    readDraft,
  );
  const [problems, setProblems] = useState<Problems>({});
  const creating = useApiAction();
  const inFlight = useRef(false);
  const chosen = chosenOf(draft, options);
  if (chosen === undefined) return null; // No template or no sender: said above.
  const { template, senderId } = chosen;
  const { limits } = options;

  const edit = (changes: Partial<ClosingDraft>, ...fields: FormField[]) => {
    setDraft((before) => ({ ...before, ...changes, idempotencyKey: '' }));
    setProblems((before) =>
      Object.fromEntries(Object.entries(before).filter(([key]) => !fields.includes(key as FormField))),
    );
  };
  /** Shows `found` beside their fields, the keyboard on the first. */
  const show = (found: Problems) => {
    setProblems(found);
    const first = FIELDS.find((field) => found[field] !== undefined);
    if (first !== undefined) document.getElementById(fieldId(first))?.focus();
  };
  /** What is plainly wrong before anything is sent (the server checks fully). */
  const plainProblems = (): Problems => {
    const found: Problems = {};
    const name = draft.name.trim();
    if (name === '') found.name = 'Enter a name for the closing, e.g. “Fund I, first close”.';
    else if (name.length > MAX_NAME_LENGTH) {
      found.name = `Write at most ${String(MAX_NAME_LENGTH)} characters.`;
    }
    const days = Number(chosen.days);
    if (!/^\d+$/.test(chosen.days.trim()) || days < 1 || days > limits.maxLinkValidDays) {
      found.days = `Enter a number of days from 1 to ${String(limits.maxLinkValidDays)}.`;
    }
    if (draft.note.trim().length > limits.maxNoteLength) {
      found.note = `Write at most ${limits.maxNoteLength.toLocaleString(locale)} characters.`;
    }
    return found;
  };
  const besideItsField = (error: ApiError): boolean => {
    const field = FIELD_OF_REFUSAL[error.field ?? ''];
    if (field === undefined) return false;
    show({ [field]: error.message });
    return true;
  };

  const create = async () => {
    if (inFlight.current) return;
    const found = plainProblems();
    if (Object.keys(found).length > 0) {
      show(found);
      return;
    }
    setProblems({});
    inFlight.current = true;
    const note = draft.note.trim();
    const idempotencyKey = draft.idempotencyKey || crypto.randomUUID();
    setDraft((before) => ({ ...before, idempotencyKey }));
    await creating.run(async () => {
      try {
        const { closing } = await consoleApi('POST /closings', {
          body: {
            idempotencyKey,
            name: draft.name.trim(),
            templateId: template.id,
            senderEntityId: senderId,
            linkValidDays: Number(chosen.days),
            ...(note === '' ? {} : { note }),
          },
        });
        forget();
        void navigate(`/closings/${closing.id}`);
      } finally {
        inFlight.current = false;
      }
    }, besideItsField);
  };

  const busy = creating.busy;
  return (
    <Form onSubmit={create}>
      <Card size="2">
        <Flex direction="column" gap="4">
          <Field
            id={fieldId('name')}
            label="Name of the closing"
            hint="As your team will find it, e.g. “Fund I, first close”. Investors do not see it."
            value={draft.name}
            error={problems.name}
            disabled={busy}
            autoComplete="off"
            maxLength={MAX_NAME_LENGTH + 50}
            onChange={(event) => {
              edit({ name: event.target.value }, 'name');
            }}
          />
          <Grid columns={{ initial: '1', sm: '2' }} gap="4">
            <SelectField
              id={fieldId('template')}
              label="Template"
              hint="Each investor's transaction is of this template."
              error={problems.template}
              value={template.id}
              disabled={busy}
              onChange={(event) => {
                edit({ templateId: event.target.value, days: null }, 'template', 'days');
              }}
            >
              <TemplateOptions templates={options.templates} />
            </SelectField>
            <SelectField
              id={fieldId('sender')}
              label="Sender"
              hint="The fund or entity the investors deal with."
              error={problems.sender}
              value={senderId}
              disabled={busy}
              onChange={(event) => {
                edit({ senderEntityId: event.target.value }, 'sender');
              }}
            >
              {options.senders.map((each) => (
                <option key={each.id} value={each.id}>
                  {each.name}
                </option>
              ))}
            </SelectField>
            <Field
              id={fieldId('days')}
              label="Links work for (days)"
              hint={`${template.name} sets ${String(template.linkValidDays)}. From 1 to ${String(limits.maxLinkValidDays)}.`}
              type="number"
              inputMode="numeric"
              min={1}
              max={limits.maxLinkValidDays}
              value={chosen.days}
              error={problems.days}
              disabled={busy}
              autoComplete="off"
              onChange={(event) => {
                edit({ days: event.target.value }, 'days');
              }}
            />
          </Grid>
          <NoteField
            id={fieldId('note')}
            value={draft.note}
            max={limits.maxNoteLength}
            error={problems.note}
            disabled={busy}
            onChange={(note) => {
              edit({ note }, 'note');
            }}
          />
        </Flex>
      </Card>
      <ErrorCallout error={creating.error} />
      <Flex justify="end">
        <Button type="submit" size="3" loading={busy}>
          Create closing
        </Button>
      </Flex>
    </Form>
  );
}
