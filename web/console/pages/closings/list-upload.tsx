import { UploadIcon } from '@radix-ui/react-icons';
import { Button, Card, Flex, Heading, Text, TextArea } from '@radix-ui/themes';
import { useId, useState, type DragEvent } from 'react';
import { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi, consoleUpload } from '../../api.ts';
import { useSignedIn } from '../../session.tsx';
import { count, type ClosingDetail } from './closing-words.ts';
import { useStoredState } from './stored-state.ts';

/** The largest list the server takes (closings/table-file.ts `MAX_TABLE_BYTES`). */
const MAX_BYTES = 10 * 1024 * 1024;
/** What the file chooser offers: CSV (and text a spreadsheet saves as such) and Excel workbooks. */
const ACCEPT =
  '.csv,.tsv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * The columns a list of the closing's template has, as its preflight recognises them (closings/preflight.ts):
 * the investor's Name and E-mail, their Entity type, and a column per answer the template lets the sender give,
 * by its title (with "<title> currency" beside an amount in one of several currencies); undefined until known.
 */
function useColumns(templateId: string): string[] | undefined {
  const options = useResource(consoleApi, 'GET /start/options');
  const template = options.data?.templates.find((each) => each.id === templateId);
  if (template === undefined) return undefined;
  return [
    'Name',
    'E-mail',
    'Entity type (optional)',
    ...template.prefill.flatMap((answer) =>
      answer.kind === 'money' && (answer.money?.currencies.length ?? 0) > 1
        ? [answer.title, `${answer.title} currency (optional)`]
        : [answer.title],
    ),
  ];
}

/**
 * Where a draft closing's list of investors comes from: a CSV or Excel file, chosen or dropped on the zone, or
 * rows pasted from a spreadsheet (sent as a CSV file, `pasted.csv`). The server reads and checks it in place of
 * the list the closing had, and `onUploaded` takes the closing as it then is; a refusal (not a table, too many
 * rows, too large) is said in the server's words. Pasted rows stay through a reload until they are read.
 */
export function ListUpload({
  closing,
  onUploaded,
}: {
  closing: ClosingDetail;
  onUploaded: (closing: ClosingDetail) => void;
}) {
  const { user, tenant } = useSignedIn();
  const id = useId();
  const columns = useColumns(closing.template.id);
  const replacing = closing.columns.length > 0;
  const [pasted, setPasted, forgetPasted] = useStoredState(
    `portico.console.closing-paste.${tenant.handle}.${user.id}.${closing.id}`,
    '',
    (stored) => (typeof stored === 'string' ? stored : undefined),
  );
  const [pasting, setPasting] = useState(pasted !== '');
  const [over, setOver] = useState(false);
  const [done, setDone] = useState<string>();
  const sending = useApiAction();

  const send = async (file: File, fromPaste: boolean) => {
    setDone(undefined);
    await sending.run(async () => {
      if (file.size > MAX_BYTES) {
        throw new ApiError(
          413,
          'FILE_TOO_LARGE',
          'The file is larger than 10 MB: split the closing into several files.',
          undefined,
        );
      }
      const { closing: read } = await consoleUpload('POST /closings/:id/list', file, {
        params: { id: closing.id },
      });
      if (fromPaste) {
        forgetPasted();
        setPasting(false);
      }
      setDone(
        `${fromPaste ? 'The pasted rows' : file.name} read: ${count(read.rows.length, 'investor')}, checked above.`,
      );
      onUploaded(read);
    });
  };
  const chosen = (files: FileList | null) => {
    const file = files?.[0];
    if (file !== undefined) void send(file, false);
  };
  const dropped = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setOver(false);
    chosen(event.dataTransfer.files);
  };

  const fileId = `${id}-file`;
  const pasteId = `${id}-paste`;
  return (
    <Card size="2" asChild>
      <section aria-labelledby={`${id}-heading`}>
        <Flex direction="column" gap="3">
          <Heading as="h2" size="4" id={`${id}-heading`}>
            {replacing ? 'Replace the list of investors' : 'List of investors'}
          </Heading>
          <Text as="p" size="2" color="gray">
            One row per investor, under a header row that names the columns
            {columns === undefined ? '' : `: ${columns.join(', ')}`}. Up to 5,000 investors.
            {replacing ? ' A new list takes the place of this one, and the fixes made to it.' : ''}
          </Text>
          <div
            className="closing-drop"
            data-over={over}
            onDragOver={(event) => {
              event.preventDefault();
              setOver(true);
            }}
            onDragLeave={() => {
              setOver(false);
            }}
            onDrop={dropped}
          >
            <Flex direction={{ initial: 'column', sm: 'row' }} gap="3" align="center" justify="center">
              <UploadIcon aria-hidden width="20" height="20" />
              <Text size="2" className="hide-on-phone">
                Drop the file here, or
              </Text>
              <Button asChild variant="soft" disabled={sending.busy}>
                <label htmlFor={fileId}>Choose a file</label>
              </Button>
              <input
                id={fileId}
                type="file"
                accept={ACCEPT}
                className="visually-hidden"
                aria-describedby={`${fileId}-hint`}
                disabled={sending.busy}
                onChange={(event) => {
                  chosen(event.target.files);
                  // The same file chosen again (fixed in the spreadsheet meanwhile) is sent again.
                  event.target.value = '';
                }}
              />
            </Flex>
            <Text as="p" size="1" color="gray" align="center" mt="2" id={`${fileId}-hint`}>
              A CSV file (commas, semicolons or tabs, saved as UTF-8) or an Excel workbook (.xlsx), up to 10
              MB.
            </Text>
          </div>
          <Flex direction="column" gap="2" align="start">
            <Button
              type="button"
              variant="ghost"
              aria-expanded={pasting}
              aria-controls={pasteId}
              onClick={() => {
                setPasting((open) => !open);
              }}
            >
              {pasting ? 'Hide the pasted rows' : 'Paste rows instead'}
            </Button>
          </Flex>
          {pasting ? (
            <Flex direction="column" gap="2" id={pasteId}>
              <Text as="label" htmlFor={`${pasteId}-rows`} size="2" weight="medium">
                Rows from your spreadsheet, the header row first
              </Text>
              <TextArea
                id={`${pasteId}-rows`}
                rows={8}
                value={pasted}
                disabled={sending.busy}
                className="closing-paste"
                placeholder={`Name\tE-mail\tAmount\nAda Lovelace\tada@example.com\t250,000`}
                aria-describedby={`${pasteId}-hint`}
                onChange={(event) => {
                  setPasted(event.target.value);
                }}
              />
              <Text id={`${pasteId}-hint`} size="1" color="gray">
                Select the rows in the spreadsheet with their header row, copy them and paste them here.
              </Text>
              <Flex justify="end">
                <Button
                  type="button"
                  loading={sending.busy}
                  disabled={pasted.trim() === ''}
                  onClick={() => {
                    void send(new File([pasted], 'pasted.csv', { type: 'text/csv' }), true);
                  }}
                >
                  Check these rows
                </Button>
              </Flex>
            </Flex>
          ) : null}
          <Text size="2" role="status" color="gray">
            {sending.busy ? 'Reading and checking the list…' : (done ?? '')}
          </Text>
          <ErrorCallout error={sending.error} />
        </Flex>
      </section>
    </Card>
  );
}
