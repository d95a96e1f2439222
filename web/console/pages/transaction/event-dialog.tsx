import { Button, Callout, Dialog, Flex, Text, TextArea } from '@radix-ui/themes';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Form } from '../../../shared/form/submit-form.tsx';
import { DialogButtons } from '../../../shared/list/form-dialog.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import type { EventPreview, EventRunAnswer, WorkflowPanel } from '../../types.ts';
import { formatValue, label, words } from '../../words.ts';
import { useWorkflowNames, type WorkflowNames } from './workflow-names.tsx';

type PanelEvent = WorkflowPanel['events'][number];

/** What a workflow action does, in words: `{"addRecipient": "countersigner"}` → "Add recipient: countersigner". */
function actionText(action: Record<string, unknown>): string {
  return Object.entries(action)
    .map(([key, value]) => `${label(key)}: ${formatValue(value)}`)
    .join('; ');
}

/** What running an event will do, as the server's dry run says: the state it enters, actions, mails, webhooks. */
function PreviewText({ preview }: { preview: EventPreview }) {
  const names = useWorkflowNames();
  return (
    <Flex direction="column" gap="2" asChild>
      <ul className="plain-list">
        <li>
          <Text size="2">
            Moves it from <strong>{names.state(preview.from)}</strong> to{' '}
            <strong>{names.state(preview.to)}</strong>
            {preview.completes === true ? ', which completes it' : ''}.
          </Text>
        </li>
        <li>
          <Text size="2">
            {preview.actions.length === 0
              ? 'Runs no action on entering.'
              : `On entering: ${preview.actions.map(actionText).join(' · ')}.`}
          </Text>
        </li>
        <li>
          <Text size="2">
            {preview.mails.length === 0
              ? 'Mails no one.'
              : preview.mails
                  .map((mail) => `Mails the ${words(mail.role)} (the primary recipient): ${words(mail.kind)}`)
                  .join(' · ')}
          </Text>
        </li>
        <li>
          <Text size="2">
            {preview.webhooks.length === 0
              ? 'Sends no webhook.'
              : `Sends webhooks: ${preview.webhooks.join(', ')}.`}
          </Text>
        </li>
      </ul>
    </Flex>
  );
}

/** Who moved the transaction since the page showed it, from a STALE_STATE refusal's details. */
export function staleText(
  error: ApiError,
  formatDateTime: (iso: string) => string,
  names: WorkflowNames,
): string {
  const { movedBy, movedAt, state } = error.details;
  const who = typeof movedBy === 'string' ? movedBy : 'Someone';
  const where = typeof state === 'string' ? names.state(state) : 'another state';
  const at = typeof movedAt === 'string' ? ` at ${formatDateTime(movedAt)}` : '';
  return `${who} moved it to ${where}${at}. The panel now shows where it is: look, then choose again.`;
}

/** A dialog of the workflow panel, open until `onClose` (Escape, a click outside, Cancel). */
export function PanelDialog({ onClose, children }: { onClose: () => void; children: ReactNode }) {
  return (
    <Dialog.Root
      open
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <Dialog.Content maxWidth="520px">{children}</Dialog.Content>
    </Dialog.Root>
  );
}

/** What a dialog that runs an event of the panel is given, and what it tells the panel. */
export interface EventDialogProps {
  transactionId: string;
  event: PanelEvent;
  /** The workflow's version the panel shows: the event runs against it. */
  version: string | null;
  onClose: () => void;
  onDone: (answer: EventRunAnswer) => void;
  /** Someone moved the transaction since the panel showed it (STALE_STATE). */
  onStale: (error: ApiError) => void;
}

/**
 * The dialog of one event: first what it would do (the server's preview), then a message (a void's reason is
 * required) and the button that runs it against the version of the workflow the preview was made on. The button
 * runs once however often it is clicked; a move made meanwhile by someone else is refused (STALE_STATE) and handed
 * to `onStale`, which closes the dialog and reloads the panel.
 */
export function EventDialog({ transactionId, event, version, onClose, onDone, onStale }: EventDialogProps) {
  const names = useWorkflowNames();
  const [preview, setPreview] = useState<EventPreview>();
  const [previewVersion, setPreviewVersion] = useState(version);
  const loading = useApiAction();
  const running = useApiAction();
  const [message, setMessage] = useState('');
  const [messageError, setMessageError] = useState<string>();
  const started = useRef(false);

  useEffect(() => {
    void loading.run(async () => {
      const answer = await consoleApi('POST /transactions/:id/events/preview', {
        params: { id: transactionId },
        body: { eventKey: event.key },
      });
      setPreview(answer.preview);
      setPreviewVersion(version);
    });
    // The preview is read once, when the dialog opens: a later refresh of the panel does not redo it.
  }, []);

  const required = preview?.messageRequired ?? event.messageRequired;
  const run = async () => {
    if (started.current) return;
    if (required && message.trim() === '') {
      setMessageError('Say why: a void needs its reason, which the recipient and the timeline see.');
      return;
    }
    setMessageError(undefined);
    started.current = true;
    await running.run(
      async () => {
        const answer = await consoleApi('POST /transactions/:id/events', {
          params: { id: transactionId },
          body: {
            eventKey: event.key,
            version: previewVersion,
            ...(message.trim() === '' ? {} : { message: message.trim() }),
          },
        });
        onDone(answer);
      },
      (error) => {
        started.current = false;
        if (error.code === 'STALE_STATE') {
          onStale(error);
          return true;
        }
        if (error.field === 'message') {
          setMessageError(error.message);
          return true;
        }
        return false;
      },
    );
  };

  return (
    <PanelDialog onClose={onClose}>
      <Form onSubmit={run}>
        <Dialog.Title mb="0">{names.event(event.key)}?</Dialog.Title>
        <Dialog.Description size="2" color="gray">
          {event.description ?? `What ${names.event(event.key).toLowerCase()} does, before it does it.`}
        </Dialog.Description>
        <ErrorCallout error={loading.error} />
        {preview ? (
          <PreviewText preview={preview} />
        ) : loading.error ? null : (
          <Text size="2" color="gray" role="status">
            Reading what it would do…
          </Text>
        )}
        <Flex direction="column" gap="1">
          <Text as="label" htmlFor="event-message" size="2" weight="medium">
            {required ? 'Reason (required)' : 'Message (optional)'}
          </Text>
          <TextArea
            id="event-message"
            value={message}
            required={required}
            aria-required={required}
            aria-invalid={messageError === undefined ? undefined : true}
            aria-describedby={
              messageError === undefined ? 'event-message-hint' : 'event-message-hint event-message-error'
            }
            maxLength={2000}
            onChange={(change) => {
              setMessage(change.target.value);
            }}
          />
          <Text id="event-message-hint" size="1" color="gray">
            Kept in the timeline with the move.
          </Text>
          {messageError === undefined ? null : (
            <Text id="event-message-error" size="2" color="red" role="alert">
              {messageError}
            </Text>
          )}
        </Flex>
        <ErrorCallout error={running.error} />
        {running.error?.code === 'INVALID_EVENT' || running.error?.code === 'REVISION_INCOMPLETE' ? (
          <Callout.Root color="gray" size="1">
            <Callout.Text>Close this and look at the panel: it shows what can happen now.</Callout.Text>
          </Callout.Root>
        ) : null}
        <DialogButtons>
          <Button
            type="submit"
            loading={running.busy}
            disabled={preview === undefined || running.busy}
            color={required ? 'red' : undefined}
          >
            {names.event(event.key)}
          </Button>
        </DialogButtons>
      </Form>
    </PanelDialog>
  );
}
