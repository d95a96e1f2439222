import { Button, Callout, Checkbox, Dialog, Flex, Text } from '@radix-ui/themes';
import { useRef, useState } from 'react';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Form } from '../../../shared/form/submit-form.tsx';
import { DialogButtons } from '../../../shared/list/form-dialog.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi, consoleUpload } from '../../api.ts';
import { PanelDialog, type EventDialogProps } from './event-dialog.tsx';
import { useWorkflowNames } from './workflow-names.tsx';

/** The paper form uploaded for this dialog, and the file it came from: a second try reuses it. */
interface Uploaded {
  file: File;
  paperFormId: string;
}

/**
 * Runs a recipient's event (Submit, say) on the investor's behalf, when their signed form came on paper or as a
 * scan: the person chooses the PDF and confirms they received it from the investor; the form is uploaded, then
 * the event runs naming it, against the panel's `version`. Every refusal shows here in the server's words, and
 * the chosen file stays for another try; a form already uploaded is not uploaded twice. A STALE_STATE refusal
 * also goes to `onStale`, which reloads the panel (so that another try runs against where it is now), and the
 * dialog stays.
 */
export function OnBehalfDialog({
  transactionId,
  event,
  version,
  onClose,
  onDone,
  onStale,
}: EventDialogProps) {
  const names = useWorkflowNames();
  const title = `${names.event(event.key)} on the investor's behalf`;
  const [file, setFile] = useState<File>();
  const [received, setReceived] = useState(false);
  const [uploaded, setUploaded] = useState<Uploaded>();
  const [step, setStep] = useState<'upload' | 'event'>();
  const running = useApiAction();
  const started = useRef(false);
  const ready = file !== undefined && received;

  const run = async () => {
    if (!ready || started.current) return;
    started.current = true;
    await running.run(
      async () => {
        let paperFormId = uploaded?.file === file ? uploaded.paperFormId : undefined;
        if (paperFormId === undefined) {
          setStep('upload');
          const { paperForm } = await consoleUpload('POST /transactions/:id/paper-forms', file, {
            params: { id: transactionId },
          });
          paperFormId = paperForm.id;
          setUploaded({ file, paperFormId });
        }
        setStep('event');
        const answer = await consoleApi('POST /transactions/:id/events', {
          params: { id: transactionId },
          body: { eventKey: event.key, version, onBehalf: { paperFormId } },
        });
        onDone(answer);
      },
      (error) => {
        started.current = false;
        if (error.code === 'STALE_STATE') onStale(error);
        // Shown below, in the server's words.
        return false;
      },
    );
  };

  const uploadRefused = running.error !== undefined && step === 'upload';
  return (
    <PanelDialog onClose={onClose}>
      <Form onSubmit={run}>
        <Dialog.Title mb="0">{title}</Dialog.Title>
        <Dialog.Description size="2" color="gray">
          Use this when the investor sent you their signed form on paper or as a scan. The form you upload is
          kept with this transaction&apos;s files, and the timeline records that you submitted it on their
          behalf. What their online form lacks stays empty.
        </Dialog.Description>
        <Flex direction="column" gap="1">
          <Text as="label" htmlFor="paper-form-file" size="2" weight="medium">
            Signed paper form (PDF)
          </Text>
          <input
            id="paper-form-file"
            type="file"
            accept="application/pdf"
            // The dialog's type, never wider than a phone's dialog: inline, as the page's style sheets are at
            // their budget on a phone (bench/pages.ts).
            style={{ maxWidth: '100%', font: 'inherit', fontSize: 'var(--font-size-2)' }}
            required
            aria-invalid={uploadRefused ? true : undefined}
            aria-describedby={uploadRefused ? 'on-behalf-refusal' : undefined}
            disabled={running.busy}
            onChange={(change) => {
              setFile(change.target.files?.[0]);
              running.clear();
            }}
          />
        </Flex>
        <Text as="label" size="2">
          <Flex gap="2" align="start">
            <Checkbox
              checked={received}
              required
              disabled={running.busy}
              onCheckedChange={(checked) => {
                setReceived(checked === true);
              }}
            />
            I received this form from the investor, signed by them
          </Flex>
        </Text>
        <div id="on-behalf-refusal">
          <ErrorCallout error={running.error} />
        </div>
        {running.error?.code === 'STALE_STATE' ? (
          <Callout.Root color="gray" size="1">
            <Callout.Text>
              The panel now shows where it is. Your file is still chosen: confirm again if this still applies,
              or cancel.
            </Callout.Text>
          </Callout.Root>
        ) : running.error?.code === 'INVALID_EVENT' ? (
          <Callout.Root color="gray" size="1">
            <Callout.Text>Close this and look at the panel: it shows what can happen now.</Callout.Text>
          </Callout.Root>
        ) : null}
        {running.busy ? (
          <Text size="2" color="gray" role="status">
            {step === 'upload' ? 'Uploading the form…' : 'Form uploaded; recording the event…'}
          </Text>
        ) : ready ? null : (
          <Text id="on-behalf-missing" size="2" color="gray">
            Choose the form and tick the box to go on.
          </Text>
        )}
        <DialogButtons>
          <Button
            type="submit"
            loading={running.busy}
            disabled={!ready || running.busy}
            aria-describedby={ready ? undefined : 'on-behalf-missing'}
          >
            Upload and {names.event(event.key).toLowerCase()}
          </Button>
        </DialogButtons>
      </Form>
    </PanelDialog>
  );
}
