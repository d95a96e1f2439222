// The page the link opens: what is asked and the steps ahead, with "Start" (or "Continue"); once everything is
// submitted, where things stand and, when every party has signed, the signed documents.

import { ArrowRightIcon, DownloadIcon, FileTextIcon } from '@radix-ui/react-icons';
import { Badge, Button, Card, Flex, Heading, Link as ThemeLink, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { Notice } from '../../shared/notice.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { Answers } from '../components/answers.tsx';
import { CardSection } from '../components/card-section.tsx';
import { ChangesRequested } from '../components/changes-requested.tsx';
import { LinkButton } from '../components/step-page.tsx';
import { humanize } from '../form/ui-schema.ts';
import { formatBytes, formatDateTime, listKinds, roleName } from '../format.ts';
import { usePortal } from '../portal-state.tsx';
import { allSubmitted, nextStepToDo } from '../steps.ts';
import type { SignableDocument } from '../types.ts';
import { declaredProperties } from '../../../src/transactions/templates/schema-properties.ts';

export function HomePage() {
  const { view } = usePortal();
  return allSubmitted(view) || view.transaction.completedAt !== null ? <StatusPage /> : <OverviewPage />;
}

function OverviewPage() {
  const { view, steps, href } = usePortal();
  // After a request for changes the answers are all there: the way on is to review them, from the first step.
  const revising = view.processes.some(
    (process) => process.revision.changesRequested !== null && process.revision.committedAt === null,
  );
  const next = revising ? steps[0] : nextStepToDo(steps);
  const done = steps.filter((step) => step.state === 'done').length;
  const begun = steps.some((step) => step.state !== 'todo');
  const uploads = view.processes.flatMap((process) =>
    process.items.flatMap((item) =>
      Object.entries(item.uploads).map(([field, rule]) => {
        const property = declaredProperties(item.schema)[field] as { title?: unknown } | undefined;
        const title =
          typeof property === 'object' && typeof property.title === 'string'
            ? property.title
            : humanize(field);
        return { key: `${item.vulcanKey}.${field}`, title, kinds: listKinds(rule.accept) };
      }),
    ),
  );
  const signs = steps.some((step) => step.kind === 'sign');
  return (
    <Flex direction="column" gap="5">
      {view.processes.map((process) => (
        <ChangesRequested key={process.key} process={process} />
      ))}
      <PageHeading title={view.template.name} />
      {revising ? (
        <Text as="p" size="3">
          Go through your answers and change what {view.organization.name} asked for
          {signs ? ', sign again' : ''} and submit. Your answers are saved as you go.
        </Text>
      ) : (
        <Text as="p" size="3">
          {view.organization.name} asks you to fill in {steps.filter((step) => step.kind === 'item').length}{' '}
          short forms{signs ? ', sign' : ''} and submit them. Your answers are saved as you go: you can stop
          and come back with the same link, on any device.
        </Text>
      )}
      {uploads.length > 0 && !revising ? (
        <Card size="2">
          <Flex direction="column" gap="2">
            <Heading as="h2" size="3">
              Have these ready
            </Heading>
            <ul className="plain-list">
              {uploads.map((upload) => (
                <li key={upload.key}>
                  <Flex gap="2" align="start">
                    <FileTextIcon aria-hidden className="list-icon" />
                    <Text size="2">
                      {upload.title}, as a {upload.kinds} (a photo of each page works too)
                    </Text>
                  </Flex>
                </li>
              ))}
            </ul>
          </Flex>
        </Card>
      ) : null}
      <Text as="p" size="2" color="gray">
        {done === 0
          ? `${String(steps.length)} steps`
          : `${String(done)} of ${String(steps.length)} steps done`}
      </Text>
      {next ? (
        <div>
          <LinkButton to={href(next.path)}>
            {revising ? 'Review your answers' : begun ? 'Continue' : 'Start'} <ArrowRightIcon aria-hidden />
          </LinkButton>
        </div>
      ) : null}
    </Flex>
  );
}

/** A signed document to download, or who it waits for. */
function DocumentLine({ document }: { document: SignableDocument }) {
  const waiting = document.signedBy.filter(
    (role) => !document.signatures.some((signature) => signature.role === role),
  );
  return (
    <Flex direction="column" gap="1">
      <Flex gap="2" align="center" wrap="wrap">
        <Text size="2" weight="medium">
          {document.title}
        </Text>
        {document.signedFile ? (
          <Badge color="green" highContrast>
            Signed by everyone
          </Badge>
        ) : (
          <Badge color="gray">Waiting for {waiting.map(roleName).join(' and ') || 'signatures'}</Badge>
        )}
      </Flex>
      {document.signatures.map((signature) => (
        <Text size="1" color="gray" key={signature.role}>
          {roleName(signature.role)}: signed as {signature.signedName} on {formatDateTime(signature.signedAt)}
        </Text>
      ))}
      {document.signedFile ? (
        <div>
          <Button asChild variant="soft" size="2">
            <a href={document.signedFile.url} download={document.signedFile.filename}>
              <DownloadIcon aria-hidden /> Download {document.title}
              <span className="visually-hidden"> (PDF, {formatBytes(document.signedFile.byteSize)})</span>
            </a>
          </Button>
        </div>
      ) : null}
    </Flex>
  );
}

function StatusPage() {
  const { view, steps, href } = usePortal();
  const completed = view.transaction.completedAt !== null;
  const committed = view.processes
    .map((process) => process.revision.committedAt)
    .filter((at) => at !== null)
    .sort()
    .at(-1);
  const documents = view.processes.flatMap((process) => process.documents);
  return (
    <Flex direction="column" gap="5">
      <PageHeading title={completed ? 'Completed' : 'Submitted'} documentTitle={view.template.name} />
      {/* Spoken to the investor: the template's states and their descriptions are the sponsor's words. */}
      <Notice tone="done" highContrast role="status">
        {completed && view.transaction.completedAt
          ? `Completed on ${formatDateTime(view.transaction.completedAt)}. Everyone has signed: your copies are below.`
          : `Thank you${committed ? ` — you submitted on ${formatDateTime(committed)}` : ''}. ${view.organization.name} will review your answers.`}
      </Notice>
      {completed ? null : (
        <Text as="p" size="2" color="gray">
          There is nothing more for you to do now. If {view.organization.name} asks for changes, you make them
          here, with the same link; come back with it at any time to see where things stand.
        </Text>
      )}
      {documents.length > 0 ? (
        <CardSection id="status-documents" title="Documents" gap="4">
          {documents.map((document) => (
            <DocumentLine key={document.key} document={document} />
          ))}
        </CardSection>
      ) : null}
      <section aria-labelledby="status-answers">
        <Flex direction="column" gap="3">
          <Heading as="h2" size="4" id="status-answers">
            Your answers
          </Heading>
          {steps
            .flatMap((step) => (step.kind === 'item' ? [step] : []))
            .map((step) => (
              <Card size="2" key={step.path}>
                <Flex direction="column" gap="2">
                  <Flex justify="between" gap="2" wrap="wrap" align="baseline">
                    <Heading as="h3" size="3">
                      {step.title}
                    </Heading>
                    <ThemeLink asChild size="2">
                      <Link to={href(step.path)}>
                        View<span className="visually-hidden"> {step.title}</span>
                      </Link>
                    </ThemeLink>
                  </Flex>
                  <Answers item={step.item} data={step.item.data} compare={false} />
                </Flex>
              </Card>
            ))}
        </Flex>
      </section>
    </Flex>
  );
}
