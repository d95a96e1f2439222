import { UploadIcon } from '@radix-ui/react-icons';
import { Button, Card, Flex, Heading, Text, TextArea } from '@radix-ui/themes';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleUpload } from '../../api.ts';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import { problemsOf, SourceProblems } from './source-problems.tsx';
import './templates.css';
import { BackLink } from '../../../shared/layout/back-link.tsx';

/** The largest template the server takes (console/templates/import-route.ts `MAX_TEMPLATE_BYTES`). */
const MAX_BYTES = 1024 * 1024;

/**
 * Importing a template (`/console/templates/import`, admins): a YAML or JSON file chosen, or its text pasted,
 * with the fund PDFs its agreements name. A refusal shows the source with each problem at its line; an accepted
 * import goes to the template's page, which says what became of it and shows the changes from the previous
 * version.
 */
export default function ImportTemplatePage() {
  const { tenant, user } = useSignedIn();
  const id = useId();
  const navigate = useNavigate();
  const sending = useApiAction();
  const [pasted, setPasted] = useState('');
  const [pdfs, setPdfs] = useState<File[]>([]);
  const [sent, setSent] = useState<{ source: string; filename: string }>();
  const allowed = may(user.role, 'manageTemplates');

  const send = async (file: File) => {
    // The source is kept to show a refusal's problems at their lines: not a file larger than the server takes.
    setSent(file.size > MAX_BYTES ? undefined : { source: await file.text(), filename: file.name });
    await sending.run(async () => {
      const { template } = await consoleUpload('POST /templates', [file, ...pdfs]);
      void navigate(
        `/templates/${encodeURIComponent(template.key)}?imported=${template.outcome}&version=${String(template.version)}`,
      );
    });
  };
  const problems = problemsOf(sending.error);

  return (
    <Flex direction="column" gap="4">
      <Flex direction="column" gap="2">
        <BackLink to="/templates">Templates</BackLink>
        <PageHeading title="Import a template" documentTitle={`Import a template · ${tenant.name}`} />
        <Text size="2" color="gray">
          Checked as <code>portico templates import</code> checks it. A template some transaction uses never
          changes: a changed one becomes its next version.
        </Text>
      </Flex>
      {allowed ? null : (
        <Text size="2" color="gray" role="note">
          Only admins import templates.
        </Text>
      )}
      <Card size="2" asChild>
        <section aria-labelledby={`${id}-file-heading`}>
          <Flex direction="column" gap="3">
            <Heading as="h2" size="4" id={`${id}-file-heading`}>
              The template
            </Heading>
            <Flex
              direction={{ initial: 'column', sm: 'row' }}
              gap="3"
              align={{ initial: 'start', sm: 'center' }}
            >
              <Button asChild variant="soft" disabled={!allowed || sending.busy}>
                <label htmlFor={`${id}-file`}>
                  <UploadIcon aria-hidden /> Choose a YAML or JSON file
                </label>
              </Button>
              <input
                id={`${id}-file`}
                type="file"
                accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml"
                className="visually-hidden"
                aria-describedby={`${id}-file-hint`}
                disabled={!allowed || sending.busy}
                onChange={(event) => {
                  const file = event.target.files?.[0];
                  event.target.value = '';
                  if (file !== undefined) void send(file);
                }}
              />
              <Text id={`${id}-file-hint`} size="1" color="gray">
                Up to 1 MB. It is imported as soon as it is chosen.
              </Text>
            </Flex>
            <Flex direction="column" gap="2">
              <Text as="label" htmlFor={`${id}-paste`} size="2" weight="medium">
                Or paste its text
              </Text>
              <TextArea
                id={`${id}-paste`}
                rows={10}
                value={pasted}
                className="template-paste"
                disabled={!allowed || sending.busy}
                placeholder={'key: subscription\nname: Subscription\n…'}
                onChange={(event) => {
                  setPasted(event.target.value);
                }}
              />
              <Flex justify="end">
                <Button
                  type="button"
                  loading={sending.busy}
                  disabled={!allowed || pasted.trim() === ''}
                  onClick={() => {
                    void send(new File([pasted], 'pasted.yaml', { type: 'application/yaml' }));
                  }}
                >
                  Import the pasted text
                </Button>
              </Flex>
            </Flex>
          </Flex>
        </section>
      </Card>
      <Card size="2" asChild>
        <section aria-labelledby={`${id}-pdf-heading`}>
          <Flex direction="column" gap="2">
            <Heading as="h2" size="4" id={`${id}-pdf-heading`}>
              Fund PDFs
            </Heading>
            <Text as="label" htmlFor={`${id}-pdfs`} size="2" color="gray">
              A template whose agreement is the fund&apos;s own PDF (<code>pdf: agreement.pdf</code>) needs it
              here, named as the template names it: choose them before the template. Up to 10, 10 MB each.
            </Text>
            <input
              id={`${id}-pdfs`}
              type="file"
              accept=".pdf,application/pdf"
              multiple
              disabled={!allowed || sending.busy}
              onChange={(event) => {
                setPdfs([...(event.target.files ?? [])].slice(0, 10));
              }}
            />
            {pdfs.length === 0 ? null : (
              <Text size="2">Attached: {pdfs.map((pdf) => pdf.name).join(', ')}</Text>
            )}
          </Flex>
        </section>
      </Card>
      {sending.error !== undefined && problems !== undefined && sent !== undefined ? (
        <Card size="2" asChild>
          <section aria-label="Problems of the import">
            <SourceProblems
              error={sending.error}
              problems={problems}
              source={sent.source}
              filename={sent.filename}
            />
          </section>
        </Card>
      ) : (
        <ErrorCallout error={sending.error} />
      )}
    </Flex>
  );
}
